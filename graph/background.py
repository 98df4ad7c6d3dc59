"""The service's one background thread: work no request waits for (episodes of ended sessions,
access statistics, BM25 rebuilds, reading a user's memory facts, trimming freed memory).

One thread on purpose: the tasks touch the same per-user caches and the same engine, and two
cores are shared with the models. A task that fails is logged and never kills the thread.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

log = logging.getLogger("recollect.background")


class Background:
    def __init__(self) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-bg")
        self._pending = 0
        self._lock = threading.Lock()
        self._closed = False

    def run(self, fn: Callable[..., object], *args: object) -> None:
        """Queues `fn(*args)`; failures are logged with the task's name."""

        def task() -> None:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - background work must not kill the thread
                log.warning("background task %s failed", getattr(fn, "__name__", fn), exc_info=True)
            finally:
                with self._lock:
                    self._pending -= 1

        with self._lock:
            self._pending += 1
        self._pool.submit(task)

    @property
    def pending(self) -> int:
        """Tasks queued or running: a client that must see them done (a bench timing ingest)
        waits for zero in /metrics."""
        return self._pending

    def drain(self) -> None:
        """Waits for the tasks queued so far and those they queue in turn (an idle session's
        end queues its profile update), for tests and shutdown."""
        while True:
            self._pool.submit(lambda: None).result()
            with self._lock:
                if self._pending == 0:
                    return

    def close(self) -> None:
        """Finishes the queued work, and the work it queues in turn, then stops the thread: a
        session ended in the background queues its profile update from there, and shutting
        the pool first refused that update (`recollect ingest` exiting right after its last
        batch lost the profile of the sessions that batch ended). A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self.drain()
        self._pool.shutdown(wait=True)
