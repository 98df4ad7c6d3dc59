"""Which users' caches this process holds, least recently used first, within a byte budget.

A user's caches (FAISS index, BM25 index, entity catalogue, speaker counts) are loaded on the
user's first call and cost memory in proportion to the user's history; a service for thousands of
users cannot keep them all. The service reports what each user weighs after each call; once the
total passes the budget the least recently used users are chosen for eviction (never the user of
the call that reported: a single user larger than the budget is served, then evicted by the next).
An evicted user's next call loads the caches again: the FAISS index from its file, BM25 and the
catalogue from the graph (graph/follow.py brings them up to date).

Pure bookkeeping, thread-safe; evicting is the caller's job (graph/caches.py does it under its
write lock, so a write never loses its catalogue mid-way).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
import time
from collections import OrderedDict

# the default budget (RECOLLECT_CACHE_MB): with the models (~1 GB resident) a service fits in 2 GB
CACHE_MB = 1024


class Residency:
    def __init__(self, budget_bytes: int) -> None:
        if budget_bytes <= 0:
            raise ValueError(f"the cache budget must be positive, got {budget_bytes} bytes")
        self.budget = budget_bytes
        self.evictions = 0
        self._weights: OrderedDict[str, int] = OrderedDict()
        self._total = 0
        self._lock = threading.Lock()

    def holds(self, user_id: str) -> bool:
        with self._lock:
            return user_id in self._weights

    def use(self, user_id: str, weight: int) -> list[str]:
        """Records a call of the user and what its caches weigh now; returns the users to evict
        (least recently used first), already taken off the books."""
        with self._lock:
            self._total += weight - self._weights.get(user_id, 0)
            self._weights[user_id] = weight
            self._weights.move_to_end(user_id)
            victims: list[str] = []
            while self._total > self.budget and len(self._weights) > 1:
                victim, held = next(iter(self._weights.items()))
                if victim == user_id:
                    break
                del self._weights[victim]
                self._total -= held
                victims.append(victim)
            self.evictions += len(victims)
            return victims

    def forget(self, user_id: str) -> None:
        """Takes a user off the books without counting an eviction (forgetUser)."""
        with self._lock:
            self._total -= self._weights.pop(user_id, 0)

    @property
    def users(self) -> int:
        with self._lock:
            return len(self._weights)

    @property
    def total(self) -> int:
        """Bytes the held users weighed when last reported."""
        with self._lock:
            return self._total

    def held(self) -> set[str]:
        with self._lock:
            return set(self._weights)


class Trimmer:
    """Hands memory freed by evictions back to the operating system (glibc's `malloc_trim`), at
    most once every `every` seconds: Python and FAISS free an evicted user's objects into the
    allocator, which otherwise keeps the pages. A no-op where the C library has no malloc_trim."""

    def __init__(self, every: float = 5.0) -> None:
        self.every = every
        self._last = 0.0
        self._lock = threading.Lock()
        name = ctypes.util.find_library("c")
        library = ctypes.CDLL(name) if name else None
        self._trim = getattr(library, "malloc_trim", None)

    def due(self) -> bool:
        """True (and the clock restarted) when a trim may run now."""
        with self._lock:
            now = time.monotonic()
            if self._trim is None or now - self._last < self.every:
                return False
            self._last = now
            return True

    def trim(self) -> None:
        if self._trim is not None:
            self._trim(0)
