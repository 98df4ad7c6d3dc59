"""Recollect in a Python program: the service in process, with GraphQL's calls, records and errors.

    from recollect import Recollect

    with Recollect.open("recollect-data") as memory:          # or graph_uri="bolt://…"
        memory.remember("u1", "My sister Ana moved to Porto.", speaker="Alice")
        block = memory.context("u1", "Where does Ana live?")
        print(block.text)

One `Recollect` owns one runtime (api/runtime.py: the engine, the models, the service), as a
server or a CLI command does; the calls check their arguments as the API does and raise the same
exceptions (graph/errors.py: `InvalidInput` names the field, `NotFound`, `StoreUnavailable`, …),
so a program can catch `RecollectError`. It is synchronous and thread-safe like the service.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from types import TracebackType

from api.inputs import ts
from api.runtime import Runtime, start
from api.settings import Settings
from graph.errors import InvalidInput
from graph.limits import DEFAULT_MAX_MEMORIES
from graph.recall.config import DEFAULT_PROFILE, preset
from graph.records import EntityRecord, MemoryRecord
from graph.service import ContextRequest, ContextResult, ProfileView, Stored
from graph.validation import NewMemory, check_no_nul, check_user_id

__all__ = [
    "ContextResult",
    "EntityRecord",
    "MemoryRecord",
    "NewMemory",
    "ProfileView",
    "Recollect",
    "Remembered",
]


@dataclass(frozen=True)
class Remembered:
    """One stored memory and how it was stored (GraphQL's `stored`): NEW, REPEAT, MERGED or
    REDACTED, with the earlier memory's id where one applies."""

    memory: MemoryRecord
    stored: Stored


class Recollect:
    """The service of one data directory (the embedded engine) or one graph server."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime

    @classmethod
    def open(
        cls,
        data_dir: str | Path | None = None,
        *,
        graph_uri: str | None = None,
        graph_user: str | None = None,
        graph_password: str | None = None,
        settings: Settings | None = None,
    ) -> Recollect:
        """Starts the embedded engine on `data_dir` (default `recollect-data`, as `recollect
        serve`), or reaches the server at `graph_uri`, and loads the models; `settings` sets
        anything else (api/settings.py), the arguments given here over it."""
        chosen = settings or Settings()
        if data_dir is not None:
            chosen = replace(chosen, data_dir=Path(data_dir))
        if graph_uri is not None:
            chosen = replace(
                chosen, graph_uri=graph_uri, graph_user=graph_user, graph_password=graph_password
            )
        return cls(start(chosen))

    def close(self) -> None:
        """Flushes the vectors and stops the engine; the data directory is left whole."""
        self._runtime.close()

    def __enter__(self) -> Recollect:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close()

    # -- writes ---------------------------------------------------------------------------------

    def remember(
        self,
        user_id: str,
        text: str,
        *,
        speaker: str | None = None,
        session_id: str | None = None,
        occurred_at: datetime | None = None,
        external_id: str | None = None,
        importance: int | None = None,
        pinned: bool | None = None,
        category: str | None = None,
        fact_type: str | None = None,
        pii_policy: str | None = None,
        domain: str | None = None,
    ) -> Remembered:
        """GraphQL's `remember`: one turn or fact; a time without a zone is UTC."""
        memory = NewMemory(
            user_id=user_id,
            text=text,
            speaker=speaker,
            session_id=session_id,
            occurred_at=ts(occurred_at),
            external_id=external_id,
            importance=importance,
            pinned=pinned,
            category=category,
            fact_type=fact_type,
            pii_policy=pii_policy,
            domain=domain,
        )
        try:
            return self.remember_many([memory])[0]
        except InvalidInput as exc:  # the one memory's field is `text`, not `inputs[0].text`
            field = exc.field.removeprefix("inputs[0].")
            raise InvalidInput(field, exc.reason) from None

    def remember_many(self, inputs: Sequence[NewMemory]) -> list[Remembered]:
        """GraphQL's `rememberMany(inputs:)`: all are stored or none, and an error names the bad
        item as GraphQL does (`inputs[1].text: must not be empty`)."""
        result = self._runtime.service.remember_many(inputs)
        return [Remembered(r, s) for r, s in zip(result.records, result.stored, strict=True)]

    def forget(self, user_id: str, memory_id: str) -> bool:
        """GraphQL's `forget`: the memory, its vector and its evidence leave the store; NotFound
        for a memory this user does not have."""
        return self._runtime.service.forget(user_id, memory_id)

    # -- reads ----------------------------------------------------------------------------------

    def context(
        self,
        user_id: str,
        message: str,
        *,
        max_memories: int = DEFAULT_MAX_MEMORIES,
        token_budget: int | None = None,
        speaker: str | None = None,
        session_id: str | None = None,
        as_of: datetime | None = None,
        min_score: float | None = None,
        min_confidence: float | None = None,
        profile: str = DEFAULT_PROFILE,
    ) -> ContextResult:
        """GraphQL's `context`: the block an agent pastes into its prompt, with its cards,
        scored memories and confidence."""
        request = ContextRequest(
            user_id=user_id,
            message=message,
            as_of=ts(as_of),
            max_memories=max_memories,
            token_budget=token_budget,
            speaker=speaker,
            session_id=session_id,
            config=preset(profile),
            min_score=min_score,
            min_confidence=min_confidence,
        )
        return self._runtime.service.context(request)

    def entity(
        self, user_id: str, key: str | None = None, *, name: str | None = None
    ) -> EntityRecord | None:
        """GraphQL's `entity(key)`: the card, or None for a key this user has not; by `name` (a
        label or alias) as MCP's `get_entity`, NotFound when nothing is called so."""
        check_user_id(user_id)
        service = self._runtime.service
        if key is None:
            if name is None:
                raise InvalidInput("key", "give an entity key or a name")
            check_no_nul(name, "name")
            key = service.key_named(user_id, name)
        check_no_nul(key, "key")
        return service.store.entities(user_id, [key]).get(key)

    def profile(self, user_id: str, speaker: str | None = None) -> ProfileView | None:
        """GraphQL's `profile`: the user's main speaker's profile by default."""
        return self._runtime.service.profile(user_id, speaker)
