"""Per-user caches within a byte budget: the LRU bookkeeping alone, the delta rule of the change
sequence alone, then a real service with a budget far below what its users need — users are
evicted least recently used first, what is held stays within the budget, an evicted user's next
answer is the one it had before, and its index comes back from its file without a reload."""

from __future__ import annotations

import tracemalloc
from collections.abc import Iterator
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.lexical import LexicalIndex
from graph.records import ChangeLog, Mark, appliable
from graph.residency import Residency
from tests.conftest import Api, close_api, open_api
from tests.documents import CONTEXT, REMEMBER_MANY

# -- the bookkeeping --------------------------------------------------------------------------


def test_least_recently_used_users_go_first_and_the_caller_never() -> None:
    held = Residency(100)
    assert held.use("a", 40) == []
    assert held.use("b", 40) == []
    assert held.use("a", 40) == []  # a is now the most recent
    assert held.use("c", 40) == ["b"]
    assert held.held() == {"a", "c"} and held.total == 80 and held.evictions == 1
    # a user alone over budget is served; the others make room, it stays
    assert held.use("d", 500) == ["a", "c"]
    assert held.held() == {"d"} and held.evictions == 3
    # and the next user evicts it
    assert held.use("e", 10) == ["d"]
    held.forget("e")
    assert held.total == 0 and held.users == 0 and held.evictions == 4


def test_a_user_growing_past_the_budget_evicts_the_others() -> None:
    held = Residency(100)
    held.use("a", 30)
    held.use("b", 30)
    assert held.use("b", 90) == ["a"]  # b's caches grew with its writes


def test_the_budget_must_be_positive() -> None:
    with pytest.raises(ValueError, match="must be positive"):
        Residency(0)


def test_a_delta_applies_only_within_one_epoch_and_the_log() -> None:
    log = ChangeLog(Mark("e1", 10), trimmed=4, removed=((5, "m5"), (9, "m9")))
    assert appliable(Mark("e1", 4), log)
    assert appliable(Mark("e1", 9), log)
    assert not appliable(Mark("e1", 3), log)  # removals before 5 are no longer listed
    assert not appliable(Mark("e2", 9), log)  # the user was forgotten and started again
    assert not appliable(Mark("e1", 11), log)  # ahead of the graph: reload
    assert not appliable(None, log)  # a file from before marks
    assert not appliable(Mark(None, 0), log)  # nothing held before the log existed
    assert Mark("e1", 10).follows(Mark("e1", 9))
    assert not Mark("e1", 10).follows(Mark("e1", 8)) and not Mark("e1", 10).follows(None)
    # the first change of a user without a log creates it: it follows the empty state only
    assert Mark("e1", 1).follows(Mark(None, 0)) and not Mark("e1", 2).follows(Mark(None, 0))


def test_the_bm25_weight_estimate_is_close_to_what_python_holds() -> None:
    words = [
        "garden",
        "cello",
        "Porto",
        "kayak",
        "bakery",
        "rugby",
        "tomato",
        "gallery",
        "passport",
        "locker",
    ]
    texts = [
        f"Dana: I {words[i % 10]} {words[(i * 3) % 10]} note{i} with the word{i % 97} again."
        for i in range(1500)
    ]
    ids = [f"{i:016x}" for i in range(len(texts))]
    LexicalIndex(ids[:5], texts[:5])  # the stemmer and tokenizer load outside the measure
    tracemalloc.start()
    index = LexicalIndex(ids[:1000], texts[:1000])
    index.add(ids[1000:], texts[1000:])
    measured, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert 0.6 * measured <= index.nbytes() <= 1.5 * measured


# -- a real service over budget ----------------------------------------------------------------

USERS = [f"u{i}" for i in range(8)]
PETS = ["Biscuit", "Pepper", "Olive", "Mochi", "Ziggy", "Nala", "Juniper", "Basil"]
CITIES = ["Porto", "Leeds", "Osaka", "Quito", "Tartu", "Perth", "Lagos", "Bergen"]


def _history(i: int) -> list[dict[str, Any]]:
    pet, city = PETS[i], CITIES[i]
    lines = [
        f"My dog {pet} loves the beach near {city}.",
        f"I moved to {city} two years ago for work.",
        f"My neighbour Ines{i} teaches chemistry at the school in {city}.",
        f"We hiked the hills above {city} with {pet} last Sunday.",
    ] + [
        f"Note {n}: I tried recipe number {i}{n} with lentils and {pet} watched." for n in range(16)
    ]
    return [{"userId": USERS[i], "text": t, "speaker": "Dana"} for t in lines]


@pytest.fixture(scope="module")
def small(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    """A service whose cache budget holds about three of its eight users."""
    api, _ = open_api(tmp_path_factory.mktemp("small"), extractor, embedder, cache_mb=0.2)
    try:
        yield api
    finally:
        close_api(api)


def _ask(api: Api, i: int) -> list[str]:
    block = api.ok(CONTEXT, user=USERS[i], message=f"Where does {PETS[i]} like to go?")["context"]
    return [m["memory"]["id"] for m in block["memories"]]


def test_users_over_budget_are_evicted_and_answer_as_before(small: Api) -> None:
    service, vectors = small.runtime.service, small.runtime.vectors
    budget = service.caches.usage()["budget_bytes"]
    first: dict[int, list[str]] = {}
    for i in range(len(USERS)):
        small.ok(REMEMBER_MANY, inputs=_history(i))
        first[i] = _ask(small, i)
        usage = service.caches.usage()
        assert usage["bytes"] <= budget
        # what is resident is what the books hold: evicted users left FAISS, BM25 and catalogue
        assert vectors.resident() <= service.caches.held() | {USERS[i]}
        assert service.caches.lexical.resident() <= service.caches.held() | {USERS[i]}
    usage = service.caches.usage()
    assert usage["evictions"] > 0 and usage["users"] < len(USERS)
    evicted = [i for i in range(len(USERS)) if USERS[i] not in service.caches.held()]
    assert evicted and 0 in evicted
    reloads = small.runtime.reconcile["reloads"]
    for i in evicted:
        assert _ask(small, i) == first[i]
    # the index came back from its file, at the graph's mark: nothing reconciled, no model ran
    assert small.runtime.reconcile["reloads"] == reloads
    assert service.caches.usage()["bytes"] <= budget


def test_eviction_keeps_writes_of_the_evicted_user(small: Api) -> None:
    service = small.runtime.service
    for i in range(len(USERS)):  # touch everyone, so that u0 is evicted again
        _ask(small, i)
    assert "u0" not in service.caches.held()
    made = small.ok(
        REMEMBER_MANY, inputs=[{"userId": "u0", "text": "Biscuit learned to open the fridge."}]
    )["rememberMany"]
    block = small.ok(CONTEXT, user="u0", message="What did Biscuit learn?")["context"]
    assert made[0]["id"] in [m["memory"]["id"] for m in block["memories"]]


def test_calls_for_many_unknown_users_stay_within_budget(small: Api) -> None:
    from graph.caches import PER_USER

    service, vectors = small.runtime.service, small.runtime.vectors
    budget = service.caches.usage()["budget_bytes"]
    for n in range(2 * budget // PER_USER):
        service.caches.follow(f"nobody-{n}")
    usage = service.caches.usage()
    assert usage["bytes"] <= budget and usage["users"] <= budget // PER_USER
    assert vectors.resident() <= service.caches.held()
