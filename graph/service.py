"""The memory service: the operations callers mean — remember, forget, pin, merge, and the checked
reads the API serves — over one store, its per-user caches and the two models.

It assembles the parts and owns none of their work:

    store       graph/store.py        named statements in, records out (the graph is the truth)
    caches      graph/caches.py       FAISS, BM25, catalogue, speakers, memory facts per user,
                                      following the graph's change sequence, within a budget
    models      graph/model_threads.py       spaCy and MiniLM and the threads they run on
    background  graph/background.py   the one thread for work no request waits for
    screen      graph/write/screen.py the storage policy for personal data and secrets
    writes      graph/write/          the write pipeline (remember) and the edits (forget, pin,
                                      merge, forgetUser); session ends in graph/write/sessions.py
    profiles    graph/write/profiles.py  profiles folded from session tallies, in the background

Reads that only restate the store are not repeated here: recall (graph/recall/) and the API reach
`store`, `caches` and `models` directly. Synchronous by design; the API calls it from worker
threads.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from extraction.keys import ENTITY_TYPES
from extraction.protocols import TextEmbedder, TextExtractor
from graph.background import Background
from graph.cache_files import CacheFiles
from graph.caches import UserCaches
from graph.errors import InvalidInput, NotFound
from graph.ids import MemoryId as MemoryId
from graph.limits import MAX_PAGE, Limits
from graph.model_threads import Models
from graph.prewarm import BUDGET_SHARE, PREWARM_USERS, Prewarm
from graph.profile import view
from graph.profile.coverage import Index as Index
from graph.profile.view import ProfileView as ProfileView
from graph.profile_store import day_of
from graph.recall.retrieval import ContextRequest as ContextRequest
from graph.recall.retrieval import ContextResult as ContextResult
from graph.recall.retrieval import ScoredMemory as ScoredMemory
from graph.recall.retrieval import check_request as check_request
from graph.recall.retrieval import retrieve
from graph.reconcile import ReconcileReport
from graph.records import EntityRecord, MemoryRecord
from graph.residency import CACHE_MB
from graph.store import Store
from graph.validation import NewMemory, check_memory_id, check_no_nul, check_user_id
from graph.vectors import VectorStore
from graph.write import sessions
from graph.write.edits import Edits
from graph.write.pipeline import AfterWrite, RememberResult, WritePipeline
from graph.write.policy import PiiPolicy
from graph.write.profiles import ProfileWriter
from graph.write.screen import Screen, load_detector
from graph.write.sessions import SessionSummary as SessionSummary
from graph.write.stored import Stored as Stored

# what api/ reads of graph/ beside the service: its calls' requests and answers (the `as` imports
# above re-export them), graph/records.py, graph/errors.py and the modules tests/test_layout.py
# lists in API_SURFACE
__all__ = ["MemoryService", "RememberResult"]


class MemoryService:
    def __init__(
        self,
        store: Store,
        vectors: VectorStore,
        extractor: TextExtractor,
        embedder: TextEmbedder,
        limits: Limits,
        flush_seconds: float,
        cache_bytes: int = CACHE_MB * 2**20,
        screen: Screen | None = None,
        merge_facts: bool = False,
        files: CacheFiles | None = None,
    ) -> None:
        self.store = store
        self.limits = limits
        self.background = Background()
        self.models = Models(extractor, embedder)
        self.caches = UserCaches(
            store, vectors, embedder, self.background, flush_seconds, cache_bytes, files
        )
        # the storage policy for personal data and secrets; the default one unless given
        self.screen = screen or Screen(PiiPolicy(), load_detector)
        self._writer = WritePipeline(
            store, self.caches, self.models, limits, self.background, self.screen
        )
        self._writer.merge_facts = merge_facts
        self._edits = Edits(store, self.caches)
        self.profiles = ProfileWriter(store, self.background)
        self._writer.after_sessionless = self.profiles.days_changed
        self._writer.after_changed = self.profiles.changed
        self._edits.after_merge = self.profiles.corrected
        self.prewarming: Prewarm | None = None

    def prewarm(self, users: int = PREWARM_USERS) -> Prewarm:
        """Starts loading the caches of the `users` most recently active users on a thread of
        their own (graph/prewarm.py), until the caches hold BUDGET_SHARE of their budget."""
        self.prewarming = Prewarm(
            self.store.users,
            self.caches.vectors.saved_at,
            self.caches.prewarm,
            lambda: self.caches.filled(BUDGET_SHARE),
            users,
        )
        self.prewarming.start()
        return self.prewarming

    def close(self) -> None:
        if self.prewarming is not None:
            self.prewarming.stop()
        self.background.close()
        self.models.close()
        self.caches.flush(force=True)

    @property
    def after_write(self) -> AfterWrite | None:
        """Called off the request path after turns with a sessionId were written (the runtime
        ends idle sessions with it)."""
        return self._writer.after_write

    @after_write.setter
    def after_write(self, callback: AfterWrite | None) -> None:
        self._writer.after_write = callback

    @property
    def ingested(self) -> int:
        """Memories written since start (for /metrics)."""
        return self._writer.ingested

    @property
    def reconciled(self) -> ReconcileReport:
        """What following the store did since start (graph/follow.py)."""
        return self.caches.reconciled

    # -- writes ---------------------------------------------------------------------------------

    def remember_many(self, inputs: Sequence[NewMemory]) -> RememberResult:
        """Validates the whole batch, then writes what is new (graph/write/pipeline.py)."""
        return self._writer.remember_many(inputs)

    def forget(self, user_id: str, memory_id: str) -> bool:
        """Forgets one memory; a turn leaves its profiles in the background (its session, or
        its UTC day when it has none, is tallied again)."""
        check_memory_id(user_id, memory_id)
        found = self.store.memories(user_id, [memory_id]).get(MemoryId(memory_id))
        done = self._edits.forget(user_id, memory_id)
        if found is not None and found.kind == "turn":
            if found.session_id is not None:
                self.profiles.session_ended(user_id, found.session_id)
            else:
                self.profiles.days_changed(user_id, [day_of(found.occurred_at)])
        return done

    def forget_user(self, user_id: str) -> int:
        return self._edits.forget_user(user_id)

    def pin(self, user_id: str, memory_id: str, pinned: bool) -> MemoryRecord:
        return self._edits.pin(user_id, memory_id, pinned)

    def unmerge(self, user_id: str, memory_id: str) -> MemoryRecord:
        return self._edits.unmerge(user_id, memory_id)

    def merge_entities(self, user_id: str, sources: Sequence[str], into: str) -> EntityRecord:
        return self._edits.merge_entities(user_id, sources, into)

    # -- reads with their checks ----------------------------------------------------------------

    def memory(self, user_id: str, memory_id: str) -> MemoryRecord:
        """One memory; NotFound for an unknown or malformed id."""
        check_memory_id(user_id, memory_id)
        found = self.store.memories(user_id, [memory_id]).get(MemoryId(memory_id))
        if found is None:  # a stated fact merged into another stays readable by id
            found = self.store.absorbed(user_id, [memory_id]).get(MemoryId(memory_id))
        if found is None:
            raise NotFound(f"no memory {memory_id!r} for this user")
        return found

    def list_entities(
        self,
        user_id: str,
        entity_type: str | None,
        search: str | None,
        after: str | None,
        limit: int,
    ) -> tuple[list[str], int]:
        """One page of entity keys (plus one more, to tell whether a next page exists) in key
        order, and the total count; `search` matches labels and aliases case-insensitively."""
        needle = _entity_search(user_id, entity_type, search)
        keys = self.store.list_entity_keys(user_id, entity_type, needle, after, limit + 1)
        total = self.store.count_entities(user_id, entity_type, needle)
        return keys, total

    def key_named(self, user_id: str, name: str) -> str:
        """The entity a name or alias stands for: an exact label or alias first, the most
        mentioned of the matches otherwise (MCP's and the Python API's `entity(name=…)`). The
        matches as `list_entities` finds them, without its count, which no one reads here."""
        needle = _entity_search(user_id, None, name)
        keys = self.store.list_entity_keys(user_id, None, needle, None, MAX_PAGE + 1)
        found = self.store.entities(user_id, keys)
        wanted = name.strip().casefold()
        names = {k: {e.label.casefold(), *map(str.casefold, e.aliases)} for k, e in found.items()}
        exact = [k for k in keys if wanted in names.get(k, set())]
        if not (exact or keys):
            raise NotFound(f"no entity named {name!r} for this user")
        return max(exact or keys, key=lambda k: found[k].mention_count if k in found else 0)

    # -- context, sessions and profiles: the rooms' operations, with the service as their parts --

    def context(self, request: ContextRequest) -> ContextResult:
        """The context block and what it was built from (graph/recall/retrieval.py)."""
        return retrieve(self, request)

    def end_session(self, user_id: str, session_id: str) -> SessionSummary:
        """Writes the session's episode now (graph/write/sessions.py)."""
        return sessions.end_session(self, user_id, session_id)

    def end_idle_sessions(self, user_id: str, latest: float, idle_gap: float) -> list[str]:
        """Ends the user's sessions idle for `idle_gap` seconds before `latest`."""
        return sessions.end_idle_sessions(self, user_id, latest, idle_gap)

    def profile(self, user_id: str, speaker: str | None = None) -> ProfileView | None:
        """A person's profile with the user's settings (graph/profile/view.py)."""
        return view.read_profile(self, user_id, speaker)

    def set_user_settings(
        self, user_id: str, timezone: str | None, preferred_name: str | None
    ) -> ProfileView:
        return view.set_user_settings(self, user_id, timezone, preferred_name)

    def refresh_profile(self, user_id: str) -> ProfileView | None:
        return view.refresh_profile(self, user_id)

    def knowledge_index(self, user_id: str, domain: str | None = None) -> Index:
        return view.knowledge_index(self, user_id, domain)

    # -- off the request path -------------------------------------------------------------------

    def touch_later(self, user_id: str, ids: Sequence[str]) -> None:
        """Access statistics are written off the request path; a failure never fails a request."""
        if ids:
            self.background.run(self.store.touch, user_id, list(ids), time.time(), user=user_id)

    def drain(self) -> None:
        """Waits for the background work submitted so far (tests, shutdown)."""
        self.background.drain()


def _entity_search(user_id: str, entity_type: str | None, search: str | None) -> str | None:
    """The checked arguments of a search for entities, and what the statements match: the
    search text trimmed and lowercased (None for no search)."""
    check_user_id(user_id)
    if entity_type is not None and entity_type not in ENTITY_TYPES:
        raise InvalidInput("type", f"is {entity_type!r}; allowed {', '.join(ENTITY_TYPES)}")
    check_no_nul(search, "search")
    return search.strip().lower() if search and search.strip() else None
