"""Full collections freeze what survives them, and walk everything again once that grew by a
quarter (graph/heap.py). Process-wide state: each test leaves the collector as it found it."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from graph import heap


@pytest.fixture
def freezing() -> Iterator[None]:
    """The hook, with automatic collections off: only the tests' own passes run."""
    enabled = gc.isenabled()
    gc.disable()
    heap.freeze_survivors()
    try:
        yield
    finally:
        heap.stop_freezing()
        if enabled:
            gc.enable()


def test_a_full_collection_freezes_its_survivors_and_younger_ones_do_not(freezing: None) -> None:
    assert gc.callbacks.count(heap._after_collection) == 1
    long_lived = [[i] for i in range(1000)]
    gc.collect()
    after_full = heap.frozen()
    assert after_full >= len(long_lived)
    young = [[i] for i in range(1000)]
    gc.collect(0)
    gc.collect(1)
    # not `== after_full`: a frozen object dropped meanwhile (another test's leftovers, freed by
    # its reference count) lowers the count, so ask whether the young ones were frozen
    assert heap.frozen() < after_full + len(young)
    tracked = {id(o) for o in gc.get_objects()}  # the frozen generation is not listed
    assert id(young[0]) in tracked and id(young[-1]) in tracked
    assert id(long_lived[0]) not in tracked


def test_growth_past_a_quarter_lets_the_next_full_pass_walk_everything(
    freezing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(heap, "COUNT_SECONDS", 0.0)  # every full pass counts
    gc.collect()
    walked = heap.frozen()
    grown = [[i] for i in range(int(walked * heap.GROWTH) + 1000)]
    gc.collect()  # freezes `grown`: now more than a quarter above the last full walk
    assert heap.frozen() > walked * (1 + heap.GROWTH)
    gc.collect()  # sees the growth: thaws instead of freezing
    assert heap.frozen() == 0
    gc.collect()  # walks everything, then freezes what survives
    assert heap.frozen() >= len(grown)


def test_a_cycle_frozen_while_alive_is_freed_once_thawed(freezing: None) -> None:
    class Node:
        pass

    gc.collect()
    node = Node()
    node.self = node  # type: ignore[attr-defined]
    gc.collect()  # frozen while alive
    assert heap.frozen() > 0
    del node
    found = sum(1 for o in gc.get_objects() if type(o) is Node)
    assert found == 0  # frozen objects are outside the tracked generations
    heap.thaw()  # what the growth rule does: the next full pass sees the cycle
    assert sum(1 for o in gc.get_objects() if type(o) is Node) == 1
    gc.collect()
    assert sum(1 for o in gc.get_objects() if type(o) is Node) == 0


def test_the_hook_goes_with_its_last_user() -> None:
    heap.freeze_survivors()
    heap.freeze_survivors()
    heap.stop_freezing()
    assert heap._after_collection in gc.callbacks
    heap.stop_freezing()
    assert heap._after_collection not in gc.callbacks
    gc.collect()
    assert heap.frozen() == 0


def test_what_a_start_made_is_frozen_at_once(freezing: None) -> None:
    """A serving start freezes what it made (graph/heap.py freeze_started): the first full pass
    of a user's first call walks none of it, and the growth rule counts from there."""
    made = [[i] for i in range(1000)]
    heap.freeze_started()
    tracked = {id(o) for o in gc.get_objects()}
    assert id(made[0]) not in tracked and id(made[-1]) not in tracked
    assert heap.frozen() >= len(made) and heap._walked >= len(made)  # counted at the start


def test_full_passes_count_the_frozen_objects_at_most_once_a_window(
    freezing: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counting walks the whole frozen list: a run of full passes (a big user's first call)
    counts once, then freezes without counting until the window has passed."""
    counts: list[int] = []
    count = gc.get_freeze_count

    def counted() -> int:
        counts.append(1)
        return count()

    gc.collect()  # the first walk: counted once, as the base of the growth rule
    monkeypatch.setattr(heap.gc, "get_freeze_count", counted)
    long_ago = time.monotonic() - heap.COUNT_SECONDS - 1
    monkeypatch.setattr(heap, "_counted_at", long_ago)
    for _ in range(5):
        gc.collect()
    assert len(counts) == 1  # the first pass after the window counted; the next four did not
    monkeypatch.setattr(heap, "_counted_at", long_ago)  # the window has passed
    gc.collect()
    assert len(counts) == 2


def _tracked(*objects: object) -> list[bool]:
    ids = {id(o) for o in gc.get_objects()}  # the frozen generation is not listed
    return [id(o) in ids for o in objects]


def test_what_is_built_to_live_is_frozen_at_once_and_collection_resumes(freezing: None) -> None:
    """`long_lived` (a catalogue taken from its file): no collection while it builds, what it
    made frozen at the end and counted as walked, and the collector as it was before."""
    heap.freeze_started()  # a serving start: the growth rule counts from here
    walked = heap._walked
    gc.enable()
    collections: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append(info["generation"])

    gc.callbacks.append(count)
    try:
        with heap.long_lived() as built:
            assert not gc.isenabled()
            made = [[i] for i in range(20_000)]  # far past the young generation's threshold
            built.keep()
        assert gc.isenabled()
    finally:
        gc.callbacks.remove(count)
        gc.disable()  # the fixture's state
    assert collections == []
    assert _tracked(made[0], made[-1]) == [False, False]
    assert heap._walked >= walked + len(made)  # no thaw for this growth


def test_a_build_that_failed_or_kept_nothing_is_not_frozen(freezing: None) -> None:
    heap.freeze_started()
    with heap.long_lived():
        unkept = [[i] for i in range(100)]
    with pytest.raises(ValueError), heap.long_lived() as built:
        failed = [[i] for i in range(100)]
        raise ValueError("torn file")
        built.keep()
    assert _tracked(unkept[0], failed[0]) == [True, True]


def test_nothing_is_frozen_right_after_a_thaw(freezing: None) -> None:
    """After the growth rule thawed, the next full pass is to walk everything (and free frozen
    cycles): a build in between must not freeze them again."""
    heap.freeze_started()
    heap.thaw()
    with heap.long_lived() as built:
        made = [[i] for i in range(100)]
        built.keep()
    assert _tracked(made[0]) == [True]


def test_without_freezing_what_is_built_stays_with_the_collector(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A process that never asked to freeze (a one-shot CLI command) keeps its objects walked."""
    monkeypatch.setattr(heap, "_users", 0)
    enabled = gc.isenabled()
    with heap.long_lived() as built:
        made = [[i] for i in range(100)]
        built.keep()
    assert gc.isenabled() == enabled
    assert _tracked(made[0]) == [True]


def test_overlapping_pauses_give_the_collector_back_once_the_last_ends() -> None:
    """Two threads' pauses (a knowledge fold on the background thread, a catalogue on a request
    thread) that overlap in any order leave the collector as the first found it."""
    enabled = gc.isenabled()
    gc.enable()
    try:
        first, second = heap.collection_paused(), heap.collection_paused()
        first.__enter__()
        second.__enter__()
        first.__exit__(None, None, None)
        assert not gc.isenabled()  # the second still runs
        second.__exit__(None, None, None)
        assert gc.isenabled()
    finally:
        if not enabled:
            gc.disable()
