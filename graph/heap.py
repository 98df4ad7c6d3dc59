"""Long-lived caches kept out of the garbage collector's full passes.

A 50,000-memory user's held copies (graph/memory_facts.py, graph/relation_facts.py) and
catalogue are about a million objects the collector tracks. CPython's full collection
(generation 2) walks every one of them while holding the GIL: 0.9 s on the Intel machine of
docs/benchmarks.md with a benchmark beside it, once every few hundred context calls, and every
call in flight waits for it (the 50k p99 of 812 ms). What survives a full collection is what lives
long; `gc.freeze` moves it to the permanent generation, which later collections skip, so the next
full pass walks only what was made since.

Frozen objects that are dropped are still freed by their reference counts; only a reference
cycle among them would stay. So whatever drops caches (an eviction, a user forgotten, a catalogue
read again, a runtime closed) calls `thaw`: the next full collection sees everything again and
freezes what then survives.

Process-wide, like the collector; `freeze_survivors` is called by a serving runtime (api/runtime.py)
and is idempotent. Imports nothing of the package.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

_lock = threading.Lock()


def freeze_survivors() -> None:
    """From now on, every full collection freezes what it leaves alive."""
    with _lock:
        if _after_collection not in gc.callbacks:
            gc.callbacks.append(_after_collection)


def stop_freezing() -> None:
    """Removes the hook and thaws (for tests, and a process that stops serving)."""
    with _lock:
        if _after_collection in gc.callbacks:
            gc.callbacks.remove(_after_collection)
    thaw()


def thaw() -> None:
    """Hands every frozen object back to the collector: caches were dropped, and any reference
    cycle among them can only be found by a pass that sees them."""
    gc.unfreeze()


def frozen() -> int:
    return gc.get_freeze_count()


def _after_collection(phase: str, info: dict[str, Any]) -> None:
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()
