"""Loading the caches of the most recently active users when a service starts.

After a restart every user's first call loads their FAISS index, BM25 index and entity catalogue
from the files (graph/lexical_files.py, graph/catalog_files.py) and reads what the graph changed
since: for a user of 50,000 memories about 0.6 s of the call's 0.85 s (docs/performance.md). The
users who talked last are the ones most likely to come back first, so a serving start loads them
on a thread of its own before they ask, most recent first, until `users` are held or the caches
hold half their budget: the other half stays the requests'.

"Most recent" is read from the vector files' times: a user's FAISS file is saved a few seconds
after each of their writes, and agents write every turn. A user who only read since is ordered
by their last write. No list of user ids is written anywhere for this.

A call that comes while its user is being loaded waits on the caches' locks for the rest of that
load, no longer than it would have loaded alone. The thread stops at close.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from graph import heap

log = logging.getLogger("recollect.prewarm")

# users loaded at most, by default (RECOLLECT_PREWARM_USERS; 0: none)
PREWARM_USERS = 32
# the share of the cache budget prewarming may fill; the rest is the requests'
BUDGET_SHARE = 0.5


def most_recent(
    users: Iterable[str], saved_at: Callable[[str], float | None], limit: int
) -> list[str]:
    """The `limit` users whose files were saved last, most recent first (ties by id, so the
    order is the same from one start to the next); users without a file are not loaded."""
    stamped = [(stamp, user) for user in users if (stamp := saved_at(user)) is not None]
    stamped.sort(key=lambda item: (-item[0], item[1]))
    return [user for _, user in stamped[:limit]]


@dataclass
class PrewarmReport:
    """What /healthz says of the start's prewarm."""

    planned: int = 0
    loaded: int = 0
    failed: int = 0
    seconds: float = 0.0
    done: bool = False


@dataclass
class Prewarm:
    """Loads the chosen users' caches on its own thread (`start`); `stop` ends it between users.

    `users` lists the users the graph holds, `saved_at` the time of a user's vector file,
    `load` brings one user's caches in, `full` says whether the caches hold their share."""

    users: Callable[[], Sequence[str]]
    saved_at: Callable[[str], float | None]
    load: Callable[[str], None]
    full: Callable[[], bool]
    limit: int = PREWARM_USERS
    report: PrewarmReport = field(default_factory=PrewarmReport)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        if self.limit <= 0:
            self.report.done = True
            return
        self._thread = threading.Thread(target=self._run, name="recollect-prewarm", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def _run(self) -> None:
        began = time.monotonic()
        try:
            chosen = most_recent(self.users(), self.saved_at, self.limit)
            self.report.planned = len(chosen)
            for user_id in chosen:
                if self._stopping.is_set() or self.full():
                    break
                try:
                    self.load(user_id)
                    self.report.loaded += 1
                except Exception:  # noqa: BLE001 - the user's first call loads them instead
                    self.report.failed += 1
                    log.exception("prewarming a user's caches failed")
        except Exception:  # noqa: BLE001 - a graph not reachable yet: calls load users anyway
            log.exception("listing users to prewarm failed")
        finally:
            if self.report.loaded:
                heap.settle()
            self.report.seconds = round(time.monotonic() - began, 3)
            self.report.done = True
            log.info(
                "prewarmed %d of %d users in %.1f s",
                self.report.loaded,
                self.report.planned,
                self.report.seconds,
            )
