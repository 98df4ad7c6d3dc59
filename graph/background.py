"""The service's one background thread: work no request waits for (episodes of ended sessions,
profiles and knowledge indexes, idle sessions' ends, access statistics, BM25 rebuilds, reading a
user's memory facts, trimming freed memory).

One thread on purpose: the tasks touch the same per-user caches and the same engine, and two
cores are shared with the models.

No task is dropped in silence: a failure is an ERROR with its traceback and the hash of the user
it was for, counted by task (`failures`, `recollect_background_failures_total` in /metrics), and
tried again after RETRY_DELAYS (an engine that was restarting answers the second try). A task
that fails every try is parked: /healthz lists it, and `replay` (SIGHUP to `recollect serve`,
docs/operations.md) runs the parked tasks again once the operator has fixed the cause. Every
task is safe to run again: each reads the graph afresh and writes what it computes.
"""

from __future__ import annotations

import hashlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

log = logging.getLogger("recollect.background")

# seconds before the second, third and fourth try of a failed task; then it is parked
RETRY_DELAYS = (1.0, 10.0, 60.0)
# parked tasks kept (the oldest go first): a fault that fails every write must not grow memory
PARKED_KEPT = 200


def user_hash(user_id: str | None) -> str | None:
    """What a log line or /healthz says of a user: not the id, which may be personal."""
    if user_id is None:
        return None
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:12]


@dataclass
class _Task:
    fn: Callable[..., object]
    args: tuple[object, ...]
    user: str | None
    attempt: int = 1

    @property
    def name(self) -> str:
        return str(getattr(self.fn, "__name__", self.fn))


@dataclass(frozen=True)
class Parked:
    """A task that failed every try, as /healthz shows it."""

    task: str
    user: str | None  # user_hash of the user it was for
    error: str
    attempts: int
    at: float
    _job: _Task = field(repr=False, compare=False)

    def view(self) -> dict[str, object]:
        return {
            "task": self.task,
            "user": self.user,
            "error": self.error,
            "attempts": self.attempts,
            "at": self.at,
        }


class Background:
    def __init__(self, delays: tuple[float, ...] = RETRY_DELAYS) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-bg")
        self._delays = delays
        self._pending = 0
        self._done = threading.Condition()
        self._timers: dict[threading.Timer, _Task] = {}
        self._closed = False
        self.failures: Counter[str] = Counter()  # by task name, every failed try
        self._parked: list[Parked] = []

    def run(self, fn: Callable[..., object], *args: object, user: str | None = None) -> None:
        """Queues `fn(*args)`; `user` is the user it is for (hashed in logs and /healthz)."""
        with self._done:
            self._pending += 1
        self._pool.submit(self._execute, _Task(fn, args, user))

    @property
    def pending(self) -> int:
        """Tasks queued, running or waiting to be tried again: a client that must see them
        done (a bench timing ingest) waits for zero in /metrics."""
        return self._pending

    def parked(self) -> list[Parked]:
        with self._done:
            return list(self._parked)

    def replay(self) -> int:
        """Queues every parked task again (after the operator fixed the cause); returns how many."""
        with self._done:
            parked, self._parked = self._parked, []
            self._pending += len(parked)
        for entry in parked:
            task = entry._job
            self._pool.submit(self._execute, _Task(task.fn, task.args, task.user))
        if parked:
            log.info("replaying %d parked background tasks", len(parked))
        return len(parked)

    def drain(self) -> None:
        """Waits for the tasks queued so far, those they queue in turn (an idle session's end
        queues its profile update) and their retries, for tests and shutdown."""
        with self._done:
            while self._pending:
                self._done.wait()

    def close(self) -> None:
        """Finishes the queued work, and the work it queues in turn, then stops the thread: a
        session ended in the background queues its profile update from there, and shutting
        the pool first refused that update (`recollect ingest` exiting right after its last
        batch lost the profile of the sessions that batch ended). Retries waiting for their
        delay run at once, and a task failing from then on is parked, not retried: shutting
        down does not wait out a backoff. A second call does nothing."""
        if self._closed:
            return
        with self._done:
            self._closed = True
            waiting, self._timers = self._timers, {}
        for timer, task in waiting.items():
            timer.cancel()
            self._pool.submit(self._execute, task)
        self.drain()
        self._pool.shutdown(wait=True)

    def _execute(self, task: _Task) -> None:
        try:
            task.fn(*task.args)
        except Exception as exc:  # noqa: BLE001 - background work must not kill the thread
            self._failed(task, exc)
        finally:
            with self._done:
                self._pending -= 1
                self._done.notify_all()

    def _failed(self, task: _Task, exc: Exception) -> None:
        tries = len(self._delays) + 1
        self.failures[task.name] += 1
        log.error(
            "background task %s failed (try %d of %d, user %s)",
            task.name,
            task.attempt,
            tries,
            user_hash(task.user),
            exc_info=exc,
        )
        with self._done:
            if task.attempt < tries and not self._closed:
                again = _Task(task.fn, task.args, task.user, task.attempt + 1)
                timer = threading.Timer(self._delays[task.attempt - 1], self._retry, (again,))
                timer.daemon = True
                self._timers[timer] = again
                self._pending += 1  # the retry, until it has run
                timer.start()
                return
            entry = Parked(
                task.name, user_hash(task.user), repr(exc), task.attempt, time.time(), task
            )
            self._parked = [*self._parked, entry][-PARKED_KEPT:]
        log.error(
            "background task %s parked after %d tries (user %s): /healthz lists it, and SIGHUP "
            "to the server replays it",
            task.name,
            task.attempt,
            user_hash(task.user),
        )

    def _retry(self, task: _Task) -> None:
        with self._done:
            mine = [timer for timer, waiting in self._timers.items() if waiting is task]
            if not mine:
                return  # close took it over and ran it already
            del self._timers[mine[0]]
        self._pool.submit(self._execute, task)
