"""Long-lived caches kept out of the garbage collector's full passes.

A 50,000-memory user's held copies (graph/memory_facts.py, graph/relation_facts.py) and
catalogue are about a million objects the collector tracks. CPython's full collection
(generation 2) walks every one of them while holding the GIL: 0.7–0.9 s on the Intel machine of
docs/benchmarks.md, once every few hundred context calls, and every call in flight waits for it
(the 50k p99 of 812 ms). What survives a full collection is what lives long; `gc.freeze` moves it
to the permanent generation, which later collections skip, so the next full pass walks only what
was made since.

What is frozen is everything alive at that pass, a request's own objects included. Frozen
objects that are dropped are still freed by their reference counts (the caches hold no reference
cycles), but a cycle among them (a traceback, an event loop's future) would stay until a pass sees
it again. So once the frozen count has grown by `GROWTH` since the last full walk, the next full
pass is let through whole (`gc.unfreeze` first): it frees those cycles, and the pass after it
freezes what then survives. That is CPython's own rule for full passes (when the long-lived
objects have grown by a quarter), applied to what is still alive, not to what was ever promoted.

Process-wide, like the collector: every serving runtime (api/runtime.py) calls `freeze_survivors`
and, when closed, `stop_freezing`; the hook goes when the last one stops. Imports nothing of the
package.
"""

from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

# how far the frozen objects may grow before a full pass walks them all again
GROWTH = 0.25
# seconds between two counts of the frozen objects: `gc.get_freeze_count` walks the whole frozen
# list (0.05 s at 600,000 objects), and a big user's first call sets off a run of full passes
# (after the start's freeze, 0.27 s of its 1.1 s lookup went to counting)
COUNT_SECONDS = 30.0

_lock = threading.Lock()
_users = 0  # runtimes that asked for the hook
_walked = 0  # frozen objects right after the last full walk (0: no walk yet, or thawed)
_counted_at = 0.0  # time.monotonic() of the last count
_pauses = 0  # blocks in `collection_paused` now, across threads
_enabled_before = True  # whether the collector ran before the first of them


def freeze_survivors() -> None:
    """From now on (until the matching `stop_freezing`), every full collection freezes what it
    leaves alive."""
    global _users
    with _lock:
        _users += 1
        if _after_collection not in gc.callbacks:
            gc.callbacks.append(_after_collection)


def freeze_started() -> None:
    """Collects once and freezes what a start made (modules, the models' Python objects,
    540,000 objects in a serving process): they live as long as the process, and the first full
    pass would otherwise walk them all in the middle of a call. A big user's first call after a
    restart allocates its catalogue and held copies fast enough to set off full passes; with
    the start's objects frozen before it, its lookup took 0.84 s instead of 1.1 (in process, the
    50,000-memory user of docs/benchmarks.md "Restart")."""
    global _walked, _counted_at
    with _lock:
        gc.unfreeze()  # a second start in one process: its collection sees everything again
        gc.collect()
        gc.freeze()
        _walked = gc.get_freeze_count()
        _counted_at = time.monotonic()


def settle() -> None:
    """A full pass now, on the caller's thread: with the hook installed it freezes what survives.
    A start's prewarm (graph/prewarm.py) makes a big user's catalogue and indexes, half a million
    objects; settled at its end, the full passes they would set off do not fall into the first
    calls (in process, a 0.28 s parse of a ten-word question in the first call after it)."""
    gc.collect()


@contextmanager
def collection_paused() -> Iterator[None]:
    """No automatic collection while the block runs, for code that makes many objects none of
    which is cyclic garbage (a knowledge index's fold, a catalogue). Pauses nest across threads:
    one count under the lock, the collector's state taken by the first pause and given back by
    the last, so two overlapping pauses cannot leave it off for good (reading `isenabled` and
    disabling in two steps could). Process-wide, so pure code only inside: no graph statement and
    no wait on another thread."""
    global _pauses, _enabled_before
    with _lock:
        if _pauses == 0:
            _enabled_before = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _enabled_before:
                gc.enable()


@dataclass
class Built:
    """What a `long_lived` block says of its work: `keep()` once the objects it made are whole."""

    kept: bool = False

    def keep(self) -> None:
        self.kept = True


@contextmanager
def long_lived() -> Iterator[Built]:
    """Around building objects that live as long as their user is held (a catalogue: 20,723
    entities and 85,840 held names on the 50,000-memory user, about a million objects): the
    collector paused while they are made (`collection_paused`), and, once the block has called
    `keep()` and freezing is on, frozen at the end. Built with the collector on, they set off
    about 900 young and 6 full collections that walk them again and again as they age: 0.13 s
    of that user's first call after a restart, in process (0.96–0.99 s; 0.84–0.87 s with this).

    The freeze takes every object alive then, and the growth rule counts what it took as walked
    (young objects: `gc.get_count()[0]`, counted for free), so this freeze alone does not bring
    on the full walk of everything. Nothing is frozen right after a thaw (`_walked` 0: the next
    full pass is to free what was frozen), nor when the block failed or kept nothing."""
    global _walked
    built = Built()
    with collection_paused():
        yield built
        if built.kept:
            with _lock:
                if _users and _walked:
                    _walked += gc.get_count()[0]
                    gc.freeze()


def stop_freezing() -> None:
    """One caller of `freeze_survivors` is done; with the last, the hook goes and everything is
    thawed."""
    global _users
    with _lock:
        _users = max(0, _users - 1)
        if _users:
            return
        if _after_collection in gc.callbacks:
            gc.callbacks.remove(_after_collection)
    thaw()


def thaw() -> None:
    """Hands every frozen object back to the collector: the next full pass walks them all."""
    global _walked
    gc.unfreeze()
    _walked = 0


def frozen() -> int:
    return gc.get_freeze_count()


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    global _walked, _counted_at
    if phase != "stop" or info.get("generation") != 2:
        return
    now = time.monotonic()
    if _walked and now - _counted_at >= COUNT_SECONDS:
        _counted_at = now
        if gc.get_freeze_count() > _walked * (1 + GROWTH):
            thaw()  # the next full pass walks everything, then freezes again
            return
    gc.freeze()
    if not _walked:
        _walked = gc.get_freeze_count()
        _counted_at = now
