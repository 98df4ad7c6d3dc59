"""The `recollect` command in-process: ingest a JSONL file, ask for context, export the SDL."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from api import cli
from api.runtime import start
from api.settings import ENVIRONMENT, Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.errors import InvalidInput
from graph.limits import DEFAULT_MAX_MEMORIES
from graph.profile.view import read_profile
from tests.conftest import close_api, graph_settings, open_api
from tests.conversation import USER, turns
from tests.documents import AS_OF, context_of

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow  # starts the engine, the service or Node


def test_parse_line_errors_name_the_line_and_field() -> None:
    with pytest.raises(InvalidInput, match="line 3: is not JSON"):
        cli.parse_line("{oops", "u", 3)
    with pytest.raises(InvalidInput, match=r"line 4: unknown fields \['colour'\]"):
        cli.parse_line('{"text": "hi", "colour": "red"}', "u", 4)
    with pytest.raises(InvalidInput, match="line 5.occurredAt: 'soon' is not ISO 8601"):
        cli.parse_line('{"text": "hi", "occurredAt": "soon"}', "u", 5)
    with pytest.raises(InvalidInput, match="line 6.userId: is missing"):
        cli.parse_line('{"text": "hi"}', None, 6)
    memory = cli.parse_line('{"text": "hi", "occurredAt": "2026-01-02T03:04:05"}', "u", 1)
    assert memory.user_id == "u" and memory.occurred_at == 1767323045.0
    # every MemoryInput field of the API is a field of a line, `domain` included
    assert cli.parse_line('{"text": "hi", "domain": "work"}', "u", 2).domain == "work"


def test_ingest_then_context(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = [
        {"text": "My sister Mary lives in Boston.", "speaker": "Alice", "externalId": "1"},
        {"text": "I work at Acme Corp.", "speaker": "Alice", "externalId": "2"},
        {"text": "My sister Mary lives in Boston.", "speaker": "Alice", "externalId": "1"},
        {"text": "", "speaker": "Alice"},
        {"text": "I adore sailing.", "importance": 9},
        {"text": "Card 4539 1488 0343 6467 is mine.", "piiPolicy": "payment=refuse"},
        {"text": "My bank password is Tr0ub4dor&3x.", "externalId": "3"},
    ]
    path = tmp_path / "memories.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    data = tmp_path / "data"
    code = cli.main(["ingest", str(path), "--user", "alice", "--data-dir", str(data)])
    out = capsys.readouterr().out
    assert code == 1  # some lines were rejected
    assert "accepted 3, duplicate 1, rejected 4" in out
    assert "line 4.text: must not be empty" in out
    assert "line 5.importance: is 9" in out
    # the storage policy refuses one line alone (docs/storage.md), and redacts another
    assert "line 6.text: holds personal data of type CREDIT_CARD" in out
    assert "4539" not in out
    assert "line 8: is not JSON" in out

    code = cli.main(
        ["context", "Where does Mary live?", "--user", "alice", "--data-dir", str(data), "--json"]
    )
    result = json.loads(capsys.readouterr().out)
    assert code == 0
    assert "person:mary" in result["seeds"]
    assert result["memories"][0]["text"] == "My sister Mary lives in Boston."


def test_schema_export(tmp_path: Path) -> None:
    target = tmp_path / "schema.graphql"
    assert cli.main(["schema", "--output", str(target)]) == 0
    assert "rememberMany(inputs: [MemoryInput!]!): [Memory!]!" in target.read_text()


def test_serve_refuses_public_address_without_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("RECOLLECT_API_KEYS", raising=False)
    code = cli.main(["serve", "--host", "0.0.0.0", "--data-dir", str(tmp_path)])
    assert code == 2
    assert "no API keys are configured" in capsys.readouterr().err


def test_export_to_another_engine_and_graphml(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graph.engine import EmbeddedEngine
    from graph.executor import FalkorExecutor

    data = tmp_path / "data"
    path = tmp_path / "m.jsonl"
    path.write_text(json.dumps({"text": "My brother Tom lives in Paris.", "speaker": "Ann"}) + "\n")
    assert cli.main(["ingest", str(path), "--user", "ann", "--data-dir", str(data)]) == 0
    target = EmbeddedEngine(tmp_path / "target")
    target.start()
    try:
        uri = f"falkordb://127.0.0.1:{target.port}/copy"
        for _ in range(2):  # idempotent
            assert cli.main(["export", "--to", uri, "--data-dir", str(data)]) == 0
        assert "exported 1 users: 1 memories, 3 entities" in capsys.readouterr().out
        copy = FalkorExecutor("127.0.0.1", target.port, "copy")
        assert copy.run("count_memories", {"user_id": "ann"}) == [{"total": 1}]
        assert len(copy.run("export_entities", {"user_id": "ann"})) == 3
        copy.close()
    finally:
        target.stop()
    graphml = tmp_path / "ann.graphml"
    assert cli.main(["export", "--graphml", str(graphml), "--data-dir", str(data)]) == 0
    assert "person:tom" in graphml.read_text()
    assert cli.main(["export", "--to", "http://x", "--data-dir", str(data)]) == 2
    assert "expected a bolt://, neo4j:// or falkordb:// URI" in capsys.readouterr().err


def test_serve_with_unreachable_graph_server_exits_clearly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from graph.engine import free_port

    uri = f"bolt://127.0.0.1:{free_port()}"
    monkeypatch.setenv("RECOLLECT_GRAPH_URI", uri)
    code = cli.main(["serve", "--data-dir", str(tmp_path), "--port", str(free_port())])
    assert code == 1
    assert f"error: cannot reach the graph server at {uri}" in capsys.readouterr().err


def test_serve_on_a_busy_data_directory_exits_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graph.engine import EmbeddedEngine, free_port

    holder = EmbeddedEngine(tmp_path)
    holder.start()
    before = signal.getsignal(signal.SIGTERM)
    try:
        port = str(free_port())
        assert cli.main(["serve", "--data-dir", str(tmp_path), "--port", port]) == 1
        assert "is in use by another Recollect service" in capsys.readouterr().err
        # serve's own SIGTERM handling ends with it: an ignored SIGTERM left in this process
        # was inherited by every child it started after (they could no longer be stopped)
        assert signal.getsignal(signal.SIGTERM) == before
    finally:
        holder.stop()


PARITY_QUESTIONS = [
    "Where does Mary live?",
    "What does Alice Smith do for work?",
    "When does Project Apollo launch?",
    "Is Emma excited about school?",
]


def test_cli_and_api_give_the_same_answer(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    extractor: Extractor,
    embedder: Embedder,
) -> None:
    """Both start from the same preset: the same memories, in the same order, with the same
    scores and floor scores (the CLI once ranked with the spec's weights)."""
    monkeypatch.setattr("api.runtime.load_models", lambda *_: (extractor, embedder))
    data = tmp_path / "data"
    # the CLI reads its settings from the environment: the same graph as open_api's below
    for field, value in graph_settings(data).items():
        if value is not None:
            monkeypatch.setenv(ENVIRONMENT[field], str(value))
    lines = tmp_path / "conversation.jsonl"
    lines.write_text("\n".join(json.dumps(t) for t in turns()) + "\n")
    assert cli.main(["ingest", str(lines), "--data-dir", str(data)]) == 0
    capsys.readouterr()
    from_cli = {}
    for question in PARITY_QUESTIONS:
        args = ["context", question, "--user", USER, "--data-dir", str(data), "--json"]
        assert cli.main([*args, "--as-of", AS_OF]) == 0
        answer = json.loads(capsys.readouterr().out)
        from_cli[question] = [(m["id"], m["score"], m["floorScore"]) for m in answer["memories"]]
    api, _ = open_api(data, extractor, embedder)
    try:
        for question in PARITY_QUESTIONS:
            block = context_of(api, question)
            from_api = [
                (m["memory"]["id"], round(m["score"], 4), round(m["floorScore"], 4))
                for m in block["memories"]
            ]
            assert from_cli[question] == from_api, question
            assert 0 < len(from_api) <= DEFAULT_MAX_MEMORIES  # the floor may leave some out
    finally:
        close_api(api)


def test_ingest_ends_idle_sessions_and_their_profile_before_it_exits(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    extractor: Extractor,
    embedder: Embedder,
) -> None:
    """A bulk ingest ends the sessions its turns left idle in the background, and ending one
    queues its profile update from that background task: closing must wait for that too. It
    once shut the thread pool first, so the update failed ("cannot schedule new futures after
    shutdown") and the profile of the last sessions ended was never written."""
    monkeypatch.setattr("api.runtime.load_models", lambda *_: (extractor, embedder))
    data = tmp_path / "data"
    for field, value in graph_settings(data).items():
        if value is not None:
            monkeypatch.setenv(ENVIRONMENT[field], str(value))
    said = [
        ("s1", "2026-01-05T10:00:00", "I play the violin in a band on Saturdays."),
        ("s1", "2026-01-05T10:01:00", "I work as a nurse at the city hospital."),
        ("s2", "2026-01-12T10:00:00", "We played Vivaldi with the band in March."),
    ]
    path = tmp_path / "memories.jsonl"
    path.write_text(
        "\n".join(
            json.dumps({"text": t, "speaker": "Bea", "sessionId": s, "occurredAt": at})
            for s, at, t in said
        )
        + "\n"
    )
    with caplog.at_level(logging.WARNING, logger="recollect.background"):
        assert cli.main(["ingest", str(path), "--user", "bea", "--data-dir", str(data)]) == 0
    assert not [r for r in caplog.records if r.name == "recollect.background"]
    runtime = start(Settings.from_env(data_dir=str(data)))
    try:
        profile = read_profile(runtime.service, "bea")
    finally:
        runtime.close()
    # s1 ended (a week before s2's turns); s2 is still open
    assert profile is not None and profile.built
    assert profile.profile.sessions_completed == 1
    assert profile.profile.last_session_id == "s1"


def test_cli_context_arguments_are_checked_like_the_api(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["context", "hello", "--user", "u", "--data-dir", str(tmp_path)]
    assert cli.main([*base, "--profile", "magic"]) == 2  # a bad argument (README)
    allowed = "allowed spec, manual, nograph, default"
    assert f"error: --profile: is 'magic'; {allowed}" in capsys.readouterr().err
    assert cli.main([*base, "--as-of", "soon"]) == 2
    assert "error: --as-of: 'soon' is not ISO 8601" in capsys.readouterr().err
    assert cli.main([*base, "--max-memories", "100000"]) == 2
    assert "error: --max-memories: is 100000; allowed 1 to 100" in capsys.readouterr().err
    missing = ["context", "hello", "--user", "u", "--data-dir", str(tmp_path / "nowhere")]
    assert cli.main(missing) == 2
    assert "error: --data-dir: no data directory at" in capsys.readouterr().err
    assert cli.main(["ingest", str(tmp_path / "none.jsonl"), "--data-dir", str(tmp_path)]) == 2
    assert "none.jsonl: no such file" in capsys.readouterr().err
    lines = tmp_path / "one.jsonl"
    lines.write_text('{"text": "hi"}\n')
    assert cli.main(["ingest", str(lines), "--user", " ", "--data-dir", str(tmp_path)]) == 2
    assert "error: --user: must not be empty" in capsys.readouterr().err


def test_a_bad_argument_is_refused_before_any_model_loads(tmp_path: Path) -> None:
    """The check runs before the models' libraries are even imported: a mistake answers in a
    fraction of a second, not after the seconds of loading spaCy, torch and Presidio."""
    probe = (
        "import sys; from api import cli; "
        f"code = cli.main(['context', 'hi', '--user', 'u', '--max-memories', '0', "
        f"'--data-dir', {str(tmp_path)!r}]); "
        "print(code, sorted(m for m in ('torch', 'spacy', 'presidio_analyzer', 'transformers') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.split("\n")[0] == "2 []"
    assert "error: --max-memories: is 0; allowed 1 to 100" in done.stderr


def test_a_model_that_fails_verification_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from extraction.embedder import ModelVerificationError

    def tampered() -> None:
        raise ModelVerificationError("embedding weights x have sha256 0000, expected 53aa")

    monkeypatch.setattr("api.runtime.Embedder", tampered)
    code = cli.main(["context", "hello", "--user", "u", "--data-dir", str(tmp_path)])
    assert code == 1
    err = capsys.readouterr().err
    assert "error: cannot load the models: embedding weights x have sha256 0000" in err
    assert "Traceback" not in err
