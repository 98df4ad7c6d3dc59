"""The public Python API (`from recollect import Recollect`, api/in_process.py) on the real engine
and models: the README's example, the errors of the service's own tree, one user's data kept from
another, and a data directory that opens again with what it held."""

from __future__ import annotations

from pathlib import Path

import pytest

import recollect
from api.runtime import start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph import errors
from recollect import InvalidInput, NewMemory, NotFound, Recollect
from tests.conftest import graph_settings

pytestmark = pytest.mark.slow


def _shared(data_dir: Path, extractor: Extractor, embedder: Embedder) -> Recollect:
    """A Recollect on the suite's loaded models (open() loads its own; one test pays for it)."""
    settings = Settings(data_dir=data_dir, **graph_settings(data_dir))
    return Recollect(start(settings, extractor=extractor, embedder=embedder))


def test_the_names_are_the_service_own() -> None:
    assert recollect.InvalidInput is errors.InvalidInput
    assert recollect.RecollectError is errors.RecollectError
    assert issubclass(recollect.NotFound, recollect.RecollectError)


def test_remember_context_entity_profile_forget(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    with _shared(tmp_path, extractor, embedder) as memory:
        first = memory.remember(
            "alice", "My sister Ana moved to Porto last year.", speaker="Alice", session_id="s1"
        )
        assert first.stored.decision == "NEW" and first.memory.text.startswith("My sister")
        batch = memory.remember_many(
            [
                NewMemory("alice", "She teaches at the university there.", speaker="Alice"),
                NewMemory("alice", "I have been learning the cello since March.", speaker="Alice"),
            ]
        )
        assert [r.stored.decision for r in batch] == ["NEW", "NEW"]
        again = memory.remember(
            "alice", "My sister Ana moved to Porto last year.", speaker="Alice", session_id="s1"
        )
        assert (again.stored.decision, again.stored.earlier) == ("REPEAT", first.memory.id)

        block = memory.context("alice", "Where does Ana live?")
        assert "Porto" in block.text
        assert first.memory.id in {s.memory.id for s in block.memories}

        card = memory.entity("alice", name="ana")
        assert card is not None and card.label == "Ana"
        assert memory.entity("alice", card.key) == card
        assert memory.entity("alice", "person:nobody") is None
        with pytest.raises(NotFound):
            memory.entity("alice", name="Zebulon")

        profile = memory.profile("alice")
        assert profile is None or profile.profile.speaker == "Alice"

        cello = batch[1].memory.id
        assert memory.forget("alice", cello) is True
        after = memory.context("alice", "What instrument am I learning?", speaker="Alice")
        assert cello not in {s.memory.id for s in after.memories}


def test_errors_name_the_field_and_nothing_is_half_written(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    with _shared(tmp_path, extractor, embedder) as memory:
        with pytest.raises(InvalidInput) as empty:
            memory.remember("alice", "   ")
        assert (empty.value.field, str(empty.value)) == ("text", "text: must not be empty")
        with pytest.raises(InvalidInput) as bad:
            memory.remember_many(
                [NewMemory("alice", "My brother Tom lives in Oslo."), NewMemory("alice", "")]
            )
        assert str(bad.value) == "inputs[1].text: must not be empty"  # as GraphQL says it
        with pytest.raises(NotFound):
            memory.entity("alice", name="Tom")  # the refused batch wrote nothing
        with pytest.raises(InvalidInput) as budget:
            memory.context("alice", "Where?", max_memories=100_000)
        assert budget.value.field == "maxMemories"
        with pytest.raises(InvalidInput):
            memory.entity("alice")


def test_one_user_reads_nothing_of_another(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    with _shared(tmp_path, extractor, embedder) as memory:
        said = memory.remember("alice", "My dog Rex loves the beach in Cascais.", speaker="Alice")
        block = memory.context("bob", "Where does Rex love to go?")
        assert said.memory.id not in {s.memory.id for s in block.memories}
        assert "Cascais" not in block.text
        assert memory.entity("bob", "pet:rex") is None
        with pytest.raises(NotFound):
            memory.entity("bob", name="Rex")
        with pytest.raises(NotFound):
            memory.forget("bob", said.memory.id)
        assert memory.entity("alice", "pet:rex") is not None


def test_open_keeps_the_data_directory(tmp_path: Path) -> None:
    """`Recollect.open` as the README shows it: its own models, the data there when reopened."""
    settings = Settings(**graph_settings(tmp_path))
    with Recollect.open(tmp_path / "data", settings=settings) as memory:
        memory.remember("alice", "My cousin Bruno works at a bakery in Lyon.", speaker="Alice")
    with Recollect.open(tmp_path / "data", settings=settings) as memory:
        block = memory.context("alice", "Where does Bruno work?")
        assert "Lyon" in block.text


def test_the_readme_example_runs_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The README's Python block, executed verbatim in an empty directory."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Python") :]
    start = section.index("```python\n") + len("```python\n")
    code = section[start : section.index("\n```", start)]
    assert "Recollect.open" in code
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    printed = capsys.readouterr().out
    assert "Porto" in printed and printed.strip().endswith("text")
    assert (tmp_path / "recollect-data").is_dir()
