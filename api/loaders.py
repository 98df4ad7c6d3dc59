"""The per-request GraphQL context: the service, the caller's principal, and DataLoaders, so a list
of N entity cards (or of relation targets, or of cards' memories) costs one service call per
level of the query, not one per card."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, TypeVarTuple

import anyio.to_thread
from strawberry.dataloader import DataLoader

from api.auth import Principal
from graph import validation
from graph.records import EntityRecord, MemoryRecord
from graph.service import MemoryService

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


async def call(fn: Callable[[*Ts], T], *args: *Ts) -> T:
    """Runs a synchronous service call in a worker thread. Typed by its positional arguments
    (anyio's `run_sync` takes no keywords), so mypy checks every resolver's call."""
    return await anyio.to_thread.run_sync(fn, *args)


@dataclass
class Context:
    service: MemoryService
    principal: Principal
    metrics: Any = None  # api.metrics.Metrics of the app, when it keeps them
    entity_loader: DataLoader[tuple[str, str], EntityRecord | None] = field(init=False)
    entity_memories_loader: DataLoader[tuple[str, str, int], list[MemoryRecord]] = field(init=False)
    memory_loader: DataLoader[tuple[str, str], MemoryRecord | None] = field(init=False)

    def __post_init__(self) -> None:
        self.entity_loader = DataLoader(load_fn=self._load_entities)
        self.entity_memories_loader = DataLoader(load_fn=self._load_entity_memories)
        self.memory_loader = DataLoader(load_fn=self._load_memories)

    def scope(self, user_id: str) -> str:
        """The user id, once it is well-formed and the caller's key grants it."""
        validation.check_user_id(user_id)
        self.principal.check(user_id)
        return user_id

    async def _load_entities(self, keys: Sequence[tuple[str, str]]) -> list[EntityRecord | None]:
        by_user: dict[str, list[str]] = defaultdict(list)
        for user_id, key in keys:
            by_user[user_id].append(key)
        found: dict[tuple[str, str], EntityRecord] = {}
        for user_id, wanted in by_user.items():
            records = await call(self.service.store.entities, user_id, wanted)
            found.update({(user_id, k): v for k, v in records.items()})
        return [found.get(k) for k in keys]

    async def _load_entity_memories(
        self, keys: Sequence[tuple[str, str, int]]
    ) -> list[list[MemoryRecord]]:
        out: dict[tuple[str, str, int], list[MemoryRecord]] = {}
        groups: dict[tuple[str, int], list[str]] = defaultdict(list)
        for user_id, key, limit in keys:
            groups[(user_id, limit)].append(key)
        for (user_id, limit), entity_keys in groups.items():
            found = await call(self.service.store.entity_memories, user_id, entity_keys, limit)
            for key in entity_keys:
                out[(user_id, key, limit)] = found.get(key, [])
        return [out.get(k, []) for k in keys]

    async def _load_memories(self, keys: Sequence[tuple[str, str]]) -> list[MemoryRecord | None]:
        """Memories by (user, id): the evidence of every relation in a view is one call."""
        by_user: dict[str, list[str]] = defaultdict(list)
        for user_id, memory_id in keys:
            by_user[user_id].append(memory_id)
        found: dict[tuple[str, str], MemoryRecord] = {}
        for user_id, ids in by_user.items():
            records = await call(self.service.store.memories, user_id, ids)
            found.update({(user_id, str(k)): v for k, v in records.items()})
        return [found.get(k) for k in keys]
