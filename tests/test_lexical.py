"""The incremental BM25 index (real bm25s and PyStemmer; no graph needed: the loader is a list)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from graph.ids import MemoryId
from graph.lexical import WARM_AFTER, LexicalIndex, LexicalIndexes
from graph.records import StoredText

TEXTS = [
    "Ann: I started pottery classes in Boston last spring.",
    "Ann: My sister Mary moved to Kyoto and loves hiking.",
    "Ann: Tom works at Globex on Project Atlas.",
    "Ann: We visited Lisbon with Mary in May.",
    "Ann: Pottery is relaxing; the wheel is hard though.",
    "Ann: Mary says Kyoto is lovely in autumn.",
]
IDS = [f"{i:016x}" for i in range(1, len(TEXTS) + 1)]
QUERIES = ["Who does pottery?", "Where does Mary live? Kyoto?", "Globex Atlas", "visiting Lisbon"]


def _raw(index: LexicalIndex, query: str) -> list[float]:
    scores = index.scores(query)
    return [scores.normalized(i) * scores.best for i in IDS]


def test_tail_scores_equal_a_full_build_over_the_same_memories() -> None:
    built = LexicalIndex(IDS, TEXTS)
    grown = LexicalIndex([], [])
    grown.add(IDS[:2], TEXTS[:2])
    grown.add(IDS[2:], TEXTS[2:])
    for query in QUERIES:
        expected = _raw(built, query)
        assert max(expected) > 0
        assert _raw(grown, query) == pytest.approx(expected, rel=1e-6)  # bm25s: float32


def test_a_tail_beside_a_base_ranks_like_a_full_build() -> None:
    built = LexicalIndex(IDS, TEXTS)
    mixed = LexicalIndex(IDS[:4], TEXTS[:4])
    mixed.add(IDS[4:], TEXTS[4:])
    for query in QUERIES:
        assert mixed.scores(query).top(3) == built.scores(query).top(3)


def test_removed_memories_score_nothing_and_adding_twice_is_a_no_op() -> None:
    index = LexicalIndex(IDS[:3], TEXTS[:3])
    index.add(IDS[3:], TEXTS[3:])
    index.add(IDS[3:], TEXTS[3:])
    assert len(index) == len(IDS)
    assert set(index.scores("Kyoto Mary").top(10)) == {IDS[1], IDS[3], IDS[5]}
    index.remove([IDS[1], IDS[5]])  # one from the base, one from the tail
    assert index.scores("Kyoto Mary").top(10) == [IDS[3]]
    assert index.scores("Kyoto").normalized(IDS[5]) == 0.0
    assert len(index) == len(IDS) - 2


def test_scores_are_partitioned_best_first() -> None:
    scores = LexicalIndex(IDS, TEXTS).scores("pottery wheel Boston")
    top = scores.top(10)
    values = [scores.normalized(i) for i in top]
    assert top[0] == IDS[4] or top[0] == IDS[0]
    assert values == sorted(values, reverse=True) and values[0] == 1.0
    assert all(v > 0 for v in values) and len(top) == 2
    assert scores.top(1) == top[:1]
    assert LexicalIndex(IDS, TEXTS).scores("the and of").top(5) == []  # stop words only


class _Graph:
    """Stands in for the graph's memory texts: the loader reads this list."""

    def __init__(self) -> None:
        self.rows: list[StoredText] = []
        self.during_load: Callable[[], None] | None = None

    def write(self, indexes: LexicalIndexes, ids: list[str], texts: list[str]) -> None:
        self.rows += [StoredText(MemoryId(i), t, None) for i, t in zip(ids, texts, strict=True)]
        indexes.add("u", ids, texts)

    def load(self, user_id: str) -> list[StoredText]:
        rows = list(self.rows)
        if self.during_load is not None:
            hook, self.during_load = self.during_load, None
            hook()  # a write that lands after the snapshot was read
        return rows


def test_a_write_during_the_first_build_is_not_missed() -> None:
    graph = _Graph()
    indexes = LexicalIndexes(graph.load)
    graph.write(indexes, IDS[:3], TEXTS[:3])
    graph.during_load = lambda: graph.write(indexes, IDS[3:], TEXTS[3:])
    index = indexes.get("u")
    assert len(index) == len(IDS)
    assert IDS[5] in index.scores("Kyoto autumn").top(3)


def test_outgrown_index_is_rebuilt_off_the_request_path_with_later_changes() -> None:
    graph = _Graph()
    scheduled: list[Callable[[], None]] = []
    indexes = LexicalIndexes(
        graph.load, schedule=lambda fn, user: scheduled.append(lambda: fn(user))
    )
    graph.write(indexes, IDS[:2], TEXTS[:2])
    first = indexes.get("u")
    many = [f"{i:016x}" for i in range(100, 400)]
    graph.write(indexes, many, [f"note {i} about gardening" for i in range(300)])
    assert len(scheduled) == 1 and first.outgrown()  # 300 > 64 + 5% of 2
    # while the rebuild reads the graph, a memory is written and another forgotten
    graph.during_load = lambda: (
        graph.write(indexes, IDS[2:], TEXTS[2:]),
        indexes.remove("u", [IDS[0]]),
    )
    scheduled.pop()()
    rebuilt = indexes.get("u")
    assert rebuilt is not first and not rebuilt.outgrown()
    assert len(rebuilt) == len(IDS) - 1 + len(many)
    assert rebuilt.scores("pottery Boston").normalized(IDS[0]) == 0.0
    assert IDS[5] in rebuilt.scores("Kyoto autumn").top(3)
    indexes.drop("u")
    graph.rows.clear()
    assert indexes.get("u").scores("Kyoto").top(3) == []


def test_a_rebuild_tokenises_only_what_it_has_not_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """An index built with an earlier index's tokens scores as one built from the texts, and
    tokenises only the memories new to it or whose text changed."""
    import graph.lexical as lexical

    earlier = LexicalIndex(IDS[:3], TEXTS[:3])
    earlier.add(IDS[3:5], TEXTS[3:5])
    tokenised: list[str] = []
    real = lexical._tokens
    monkeypatch.setattr(lexical, "_tokens", lambda texts: (tokenised.extend(texts), real(texts))[1])
    edited = [*TEXTS[:2], "Ann: Tom left Globex for a bakery in Porto.", *TEXTS[3:]]
    rebuilt = LexicalIndex(IDS, edited, earlier.kept())
    assert tokenised == [edited[2], edited[5]]  # the edited text, and the one never seen
    fresh = LexicalIndex(IDS, edited)
    for query in [*QUERIES, "bakery in Porto"]:
        assert _raw(rebuilt, query) == _raw(fresh, query)
    assert rebuilt.scores("Atlas").normalized(IDS[2]) == 0.0  # the edit's old words are gone
    assert rebuilt.scores("bakery Porto").top(1) == [IDS[2]]


def test_empty_index_scores_nothing() -> None:
    scores = LexicalIndex([], []).scores("anything at all")
    assert scores.top(5) == [] and scores.best == 0.0
    assert np.isclose(scores.normalized("0000000000000001"), 0.0)


def test_a_large_write_builds_the_base_in_the_background_once() -> None:
    """A bulk import's first question finds the base built: a user without an index that is
    written WARM_AFTER memories gets it built off the request path, once; smaller writes wait
    for the first query as before."""
    graph = _Graph()
    scheduled: list[Callable[[], None]] = []
    indexes = LexicalIndexes(
        graph.load, schedule=lambda fn, user: scheduled.append(lambda: fn(user))
    )
    few = [f"{i:016x}" for i in range(1000, 1000 + WARM_AFTER - 1)]
    graph.write(indexes, few, [f"note {i} about pottery" for i in range(len(few))])
    assert scheduled == [] and indexes.cached_users() == 0
    more = [f"{i:016x}" for i in range(2000, 2010)]
    graph.write(indexes, more, [f"note {i} about kayaks" for i in range(len(more))])
    graph.write(indexes, IDS, TEXTS)
    assert len(scheduled) == 1  # once, when the count passed WARM_AFTER
    scheduled.pop()()
    assert indexes.cached_users() == 1
    assert IDS[5] in indexes.get("u").scores("Kyoto autumn").top(3)


def test_scores_say_which_words_no_memory_holds_and_what_the_best_memory_covers() -> None:
    index = LexicalIndex(["a", "b"], ["Kim: pack a quokka plush", "Kim: the train is late"])
    scores = index.scores("quokka plush from Sacramento")
    assert 0 < scores.unknown < 1  # "sacramento" is in no memory
    assert scores.covered == 1.0  # the first holds every word some memory holds
    assert index.scores("quokka train").covered < 1.0
    assert index.scores("quokka").covered == 0.0  # one word is no match of a message
    index.add(["c"], ["Kim: a quokka plush on the train"])  # the tail counts as the base does
    assert index.scores("quokka plush train").covered == 1.0


def test_common_words_no_memory_holds_are_not_unknown() -> None:
    index = LexicalIndex(["a"], ["Alice: I work at a bakery in Leeds."])
    assert index.scores("Where do I work?").unknown == 0.0  # "where", "do": common English
    assert index.scores("Where is my ticket to Mars?").unknown == 0.5  # ticket, mars of 4


def test_a_named_noun_no_memory_holds_is_unmentioned() -> None:
    index = LexicalIndex(["a", "b"], ["Kim: my dentists are great", "Kim: I drove the van home"])
    assert index.scores("What is my blood type?", ["blood", "type"]).unmentioned == 1.0
    # a noun held under another form of its stem ("dentists") is mentioned
    assert index.scores("Who is my dentist?", ["dentist"]).unmentioned == 0.0
    assert index.scores("Which van?", ["van"]).unmentioned == 0.0
    # a very common noun never counts ("time"), and no nouns, nothing unmentioned
    assert index.scores("What time is it?", ["time"]).unmentioned == 0.0
    assert index.scores("What is my blood type?").unmentioned == 0.0
    index.add(["c"], ["Kim: I gave blood today"])  # the tail counts as the base does
    assert index.scores("What is my blood type?", ["blood"]).unmentioned == 0.0


def test_a_noun_whose_stem_is_common_english_is_never_unmentioned() -> None:
    """ "timing" is "time" to the stemmer, a word any long history holds: `unknown` does not
    count it, and neither does `unmentioned`. A noun of stopwords only has no stem to miss."""
    index = LexicalIndex(["a"], ["Kim: the race starts at nine"])
    scores = index.scores("What was the timing of the race?", ["timing", "race"])
    assert scores.unknown == 0.0 and scores.unmentioned == 0.0
    assert index.scores("What about it?", ["it"]).unmentioned == 0.0
