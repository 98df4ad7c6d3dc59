"""Full collections freeze what survives them; dropped caches thaw it (graph/heap.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from graph import heap
from tests.conftest import Api
from tests.documents import REMEMBER_MANY


@pytest.fixture
def freezing() -> Iterator[None]:
    heap.freeze_survivors()
    heap.freeze_survivors()  # idempotent: one hook
    try:
        yield
    finally:
        heap.stop_freezing()


def test_a_full_collection_freezes_its_survivors_and_a_young_one_does_not(freezing: None) -> None:
    assert gc.callbacks.count(heap._after_collection) == 1
    long_lived = [[i] for i in range(1000)]
    gc.collect()
    after_full = heap.frozen()
    assert after_full >= len(long_lived)
    young = [[i] for i in range(1000)]
    gc.collect(0)
    assert heap.frozen() == after_full
    assert young and long_lived
    heap.thaw()
    assert heap.frozen() == 0


def test_without_the_hook_nothing_is_frozen() -> None:
    heap.stop_freezing()
    gc.collect()
    assert heap.frozen() == 0
    assert heap._after_collection not in gc.callbacks


def test_dropping_a_users_held_copies_thaws_them(api: Api, freezing: None) -> None:
    service, user = api.runtime.service, "heap-user"
    inputs = [
        {"userId": user, "speaker": "Dana", "text": "I bought a kayak in May.", "sessionId": "s1"}
    ]
    api.ok(REMEMBER_MANY, inputs=inputs)
    assert service.caches._held_facts(user) is not None
    gc.collect()
    assert heap.frozen() > 0
    service.caches.forget_catalog(user)
    assert heap.frozen() == 0
    gc.collect()  # the next full pass freezes the survivors again
    assert heap.frozen() > 0
