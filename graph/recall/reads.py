"""What a context call reads, as a protocol: the store, the user's caches, the models and the
limits, plus the one write a read makes (access statistics, off the request path).

Recall takes these parts, never the service: the service (service.py, at the top of graph/) sits
above every room and satisfies this protocol as it is, so the rooms import nothing above them and
a test can hand recall any object with these five members.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from graph.caches import UserCaches
from graph.limits import Limits
from graph.model_threads import Models
from graph.store import Store


class RecallReads(Protocol):
    @property
    def store(self) -> Store: ...

    @property
    def caches(self) -> UserCaches: ...

    @property
    def models(self) -> Models: ...

    @property
    def limits(self) -> Limits: ...

    def touch_later(self, user_id: str, ids: Sequence[str]) -> None:
        """Records that these memories were read; never fails the request."""
