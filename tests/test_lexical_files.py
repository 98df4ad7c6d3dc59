"""Users' BM25 indexes on disk (graph/lexical_files.py): what a file holds scores as the index it
was taken of, a torn or foreign file is never trusted, a kill before the rename leaves the older
file whole — and, through the real engine and models, a restart loads instead of rebuilding, with
the same answer, and a forgotten memory's words leave the disk."""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import bm25s
import pytest

from extraction.embedder import Embedder, embedding_text
from extraction.extractor import Extractor
from graph.lexical import LexicalIndex, LexicalIndexes, Persisted
from graph.lexical_files import LexicalFiles
from graph.records import Mark
from tests.conftest import Api, close_api, open_api
from tests.documents import REMEMBER_MANY
from tests.test_lexical import IDS, TEXTS, _raw

QUERIES = ["Who does pottery?", "Where does Mary live? Kyoto?", "Globex Atlas", "Lisbon autumn"]
MARK = Mark("e1", 7)


def _grown() -> LexicalIndex:
    """A base of four memories, a tail of two, one tail memory removed."""
    index = LexicalIndex(IDS[:4], TEXTS[:4])
    index.add(IDS[4:], TEXTS[4:])
    index.remove([IDS[5]])
    return index


def test_the_base_scores_as_bm25s_scores_the_same_tokens() -> None:
    index = LexicalIndex(IDS, TEXTS)
    reference = bm25s.BM25()
    reference.index(bm25s.tokenize(TEXTS, stopwords="en", show_progress=False), show_progress=False)
    for query in ["pottery", "kyoto", "mary"]:
        ours = index.scores(query)
        theirs = reference.get_scores([query])
        assert max(theirs) > 0
        assert [ours.normalized(i) * ours.best for i in IDS] == pytest.approx(theirs, rel=1e-6)


def test_a_saved_index_loads_and_scores_as_the_index_it_was_taken_of(tmp_path: Path) -> None:
    files = LexicalFiles(tmp_path)
    index = _grown()
    snapshot, _ = index.snapshot()
    files.save("ann", snapshot, MARK)
    found = files.load("ann")
    assert found is not None
    loaded, mark = found
    assert mark == MARK
    restored = LexicalIndex.restore(loaded)
    assert len(restored) == len(index) == 5
    assert not restored.unsaved
    # the removed memory is left out of the file (its words must not reach the disk): the
    # loaded index scores as the same base and tail without it
    same = LexicalIndex(IDS[:4], TEXTS[:4])
    same.add(IDS[4:5], TEXTS[4:5])
    for query in QUERIES:
        assert _raw(restored, query) == pytest.approx(_raw(same, query), rel=1e-12)
        assert restored.scores(query).top(3) == index.scores(query).top(3)
    assert restored.scores("Kyoto autumn").normalized(IDS[5]) == 0.0  # the removed one is gone
    assert restored.kept()[IDS[4]] == index.kept()[IDS[4]]  # tokens for the next rebuild
    assert b"autumn" not in files.path("ann").read_bytes()  # the removed memory's word


def test_a_base_holding_removed_memories_is_compacted_before_it_is_saved() -> None:
    index = LexicalIndex(IDS, TEXTS)
    index.remove([IDS[2]])
    assert index.removed_from_base()
    with pytest.raises(ValueError, match="compacted"):
        index.snapshot()
    compacted = index.compacted()
    assert not compacted.removed_from_base() and len(compacted) == len(IDS) - 1
    snapshot, _ = compacted.snapshot()
    assert "globex" not in snapshot.terms and "atlas" not in snapshot.terms
    assert compacted.scores("Kyoto").top(3) == index.scores("Kyoto").top(3)


def test_a_torn_file_is_not_trusted(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    files = LexicalFiles(tmp_path)
    files.save("ann", _grown().snapshot()[0], MARK)
    whole = files.path("ann").read_bytes()
    for cut in (10, len(whole) // 2, len(whole) - 30):
        files.path("ann").write_bytes(whole[:cut])
        with caplog.at_level(logging.WARNING, logger="recollect.lexical"):
            assert files.load("ann") is None
        assert "unreadable BM25 index" in caplog.text
        caplog.clear()


def test_a_file_of_another_format_or_whose_arrays_do_not_fit_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graph.lexical_files as lexical_files

    files = LexicalFiles(tmp_path)
    snapshot = _grown().snapshot()[0]
    files.save("ann", snapshot, MARK)
    monkeypatch.setattr(lexical_files, "FORMAT", lexical_files.FORMAT + 1)
    assert files.load("ann") is None
    monkeypatch.undo()
    assert files.load("ann") is not None
    broken = [
        replace(snapshot, tokens=snapshot.tokens + len(snapshot.terms)),  # past the vocabulary
        replace(snapshot, indices=snapshot.indices + 100),  # rows past the base
        replace(snapshot, offsets=snapshot.offsets[:-1]),
        replace(snapshot, digests=snapshot.digests[:-1]),
    ]
    for n, misfit in enumerate(broken):
        files.save("ann", misfit, MARK)
        assert files.load("ann") is None, n


def test_a_kill_before_the_rename_leaves_the_older_file_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = LexicalFiles(tmp_path)
    older = LexicalIndex(IDS[:3], TEXTS[:3])
    files.save("ann", older.snapshot()[0], Mark("e1", 3))

    def killed(*_: Any) -> None:
        raise KeyboardInterrupt  # what the process sees of its end: nothing after this runs

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        files.save("ann", _grown().snapshot()[0], MARK)
    monkeypatch.undo()
    assert list(tmp_path.glob("*.tmp"))  # the half-done write
    found = files.load("ann")
    assert found is not None and found[1] == Mark("e1", 3)
    assert len(LexicalIndex.restore(found[0])) == 3


# -- through the real engine and models ---------------------------------------------------------

USER = "user-kestrel"
HISTORY = [
    "My neighbour Ines teaches chemistry at the school in Tartu.",
    "We adopted a greyhound called Pepper last winter.",
    "I am learning the cello; my teacher is strict about scales.",
    "Pepper sleeps on the balcony when it is sunny.",
    "My brother Jonas works as a glassblower in Riga.",
    "The quokka plush from Perth sits on my desk.",
]
CONTEXT = """query($m: String!) { context(userId: "user-kestrel", message: $m, profile: "nograph") {
  memories { memory { id text } } } }"""
FORGET = 'mutation($id: ID!) { forget(userId: "user-kestrel", id: $id) }'
QUESTIONS = ["Who teaches chemistry?", "What instrument am I learning?", "Where does Jonas work?"]


def _inputs(texts: list[str], start: int = 0) -> list[dict[str, str]]:
    return [
        {
            "userId": USER,
            "text": t,
            "speaker": "Dana",
            "occurredAt": f"2026-03-{1 + start + n:02d}T10:00:00Z",
        }
        for n, t in enumerate(texts)
    ]


def _answers(api: Api) -> list[list[str]]:
    return [
        [m["memory"]["id"] for m in api.ok(CONTEXT, m=q)["context"]["memories"]] for q in QUESTIONS
    ]


class Restarts:
    """A service on one data directory, started and stopped as often as a test asks."""

    def __init__(self, data_dir: Path, extractor: Extractor, embedder: Embedder) -> None:
        self.data_dir = data_dir
        self._models = (extractor, embedder)
        self._open: Api | None = None

    def start(self) -> Api:
        self.stop()
        self._open, _ = open_api(self.data_dir, *self._models)
        return self._open

    def stop(self) -> None:
        """A clean stop: the service's files are saved."""
        if self._open is not None:
            api, self._open = self._open, None
            close_api(api)


@pytest.fixture
def restarts(tmp_path: Path, extractor: Extractor, embedder: Embedder) -> Iterator[Restarts]:
    service = Restarts(tmp_path, extractor, embedder)
    yield service
    service.stop()


def test_a_restart_loads_the_index_and_answers_as_before(restarts: Restarts) -> None:
    api = restarts.start()
    api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY))
    before = _answers(api)
    assert all(before)
    restarts.stop()  # a clean stop saves the index
    files = list((restarts.data_dir / "lexical").glob("*.bm25"))
    assert len(files) == 1 and USER.encode() not in files[0].read_bytes()
    again = restarts.start()
    assert _answers(again) == before
    caches = again.runtime.service.caches
    assert caches.lexical.loaded == 1  # from the file, not the graph
    assert caches.catalogs_loaded == 1  # the catalogue too: nothing changed since the stop
    restarts.stop()


def test_a_loaded_index_takes_the_changes_made_since_it_was_saved(restarts: Restarts) -> None:
    """A file lags the graph (saved at most every minute, or written by a replica that did not
    see the latest changes): the first query after a restart applies the writes and forgets
    since, and scores as an index built from the graph."""
    api = restarts.start()
    ids = [m["id"] for m in api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY[:4]))["rememberMany"]]
    api.ok(CONTEXT, m="Who teaches chemistry?")
    caches = api.runtime.service.caches
    caches.save_files(USER)  # the file now holds four memories
    (path,) = (restarts.data_dir / "lexical").glob("*.bm25")
    lagging = path.read_bytes()
    api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY[4:], start=4))
    api.ok(FORGET, id=ids[0])
    assert not path.exists()  # it held the forgotten memory's words
    path.write_bytes(lagging)  # as a process that never saw the forget would have left it
    store = api.runtime.store
    fresh = LexicalIndexes(
        store.memory_texts,
        persisted=Persisted(LexicalFiles(path.parent), store.change_log, store.memories_since),
    )
    loaded = fresh.get(USER)
    assert fresh.loaded == 1
    assert not path.exists()  # the forget applied from the log drops the file at once
    built = LexicalIndexes(store.memory_texts).get(USER)
    assert len(loaded) == len(built) == 5
    for query in [*QUESTIONS, "Tartu chemistry", "quokka Perth"]:
        assert loaded.scores(query).top(5) == built.scores(query).top(5), query
    assert loaded.scores("Tartu chemistry").normalized(ids[0]) == 0.0


def test_a_forgotten_memory_leaves_the_saved_index(restarts: Restarts) -> None:
    api = restarts.start()
    stored = api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY))["rememberMany"]
    api.ok(CONTEXT, m="Where does Jonas work?")
    caches = api.runtime.service.caches
    caches.save_files(USER)
    folder = restarts.data_dir / "lexical"
    assert any(b"glassblow" in p.read_bytes() for p in folder.glob("*.bm25"))
    assert list((restarts.data_dir / "catalog").glob("*.json"))
    api.ok(FORGET, id=stored[4]["id"])  # "… works as a glassblower in Riga."
    assert not [p for p in folder.iterdir() if b"glassblow" in p.read_bytes()]
    # the catalogue's file named Jonas and Riga: it goes with the forget
    assert not list((restarts.data_dir / "catalog").glob("*.json"))
    caches.save_files(USER, compact=True)
    assert list(folder.glob("*.bm25"))
    assert not [p for p in folder.iterdir() if b"glassblow" in p.read_bytes()]
    restarts.stop()
    again = restarts.start()
    assert again.runtime.service.caches.lexical.loaded == 0
    answers = _answers(again)
    assert stored[4]["id"] not in {i for ids in answers for i in ids}
    assert again.runtime.service.caches.lexical.loaded == 1
    restarts.stop()


def test_a_torn_file_at_start_is_rebuilt_from_the_graph(restarts: Restarts) -> None:
    api = restarts.start()
    api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY))
    before = _answers(api)
    restarts.stop()
    (path,) = (restarts.data_dir / "lexical").glob("*.bm25")
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    again = restarts.start()
    assert _answers(again) == before
    assert again.runtime.service.caches.lexical.loaded == 0
    restarts.stop()
    assert LexicalFiles(path.parent).load(USER) is not None  # written whole again at the stop


def test_memory_texts_and_the_saved_tokens_agree() -> None:
    """The tokens a file carries are those of "Speaker: text", as the graph build makes them."""
    index = LexicalIndex(["a"], [embedding_text("Pepper sleeps on the balcony.", "Dana")])
    assert sorted(index.kept()["a"].tokens) == ["balconi", "dana", "pepper", "sleep"]


def test_the_start_sweep_drops_files_of_users_the_graph_no_longer_holds(restarts: Restarts) -> None:
    api = restarts.start()
    api.ok(REMEMBER_MANY, inputs=_inputs(HISTORY[:2]))
    api.ok(CONTEXT, m="Who teaches chemistry?")
    caches = api.runtime.service.caches
    caches.save_files(USER)
    files = LexicalFiles(restarts.data_dir / "lexical")
    files.save("forgotten-elsewhere", LexicalIndex(IDS[:2], TEXTS[:2]).snapshot()[0], MARK)
    caches.sweep()
    assert files.path(USER).exists()
    assert not files.path("forgotten-elsewhere").exists()


def test_a_catalogue_file_is_used_only_at_its_mark_and_a_torn_one_never(tmp_path: Path) -> None:
    from extraction.model import KnownEntity
    from extraction.resolver import Resolver
    from graph.catalog_files import CatalogFiles

    resolver = Resolver([KnownEntity("person:ines", "person", "Ines", ("Nessa",), 3)])
    resolver.candidates["topic:cello"] = ["m1"]
    files = CatalogFiles(tmp_path)
    files.save("ann", resolver.catalog(), MARK)
    loaded = files.load("ann", MARK)
    assert loaded == resolver.catalog()
    assert Resolver.from_catalog(loaded).resolve_key("person:nessa") == "person:ines"
    assert files.load("ann", Mark("e1", MARK.seq + 1)) is None  # the graph moved on
    assert files.load("ann", Mark("e2", MARK.seq)) is None
    files.path("ann").write_text(files.path("ann").read_text()[:40])
    assert files.load("ann", MARK) is None


def test_a_catalogue_naming_a_lone_surrogate_is_saved_and_read_back(tmp_path: Path) -> None:
    from extraction.model import KnownEntity
    from extraction.resolver import Resolver
    from graph.catalog_files import CatalogFiles

    odd = KnownEntity("person:ana", "person", "Ana", ("An\udca0a",), 1)
    catalog = Resolver([odd]).catalog()
    files = CatalogFiles(tmp_path)
    files.save("ann", catalog, MARK)
    assert files.load("ann", MARK) == catalog
