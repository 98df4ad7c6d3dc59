"""The per-user caches of one process and their coherence with the graph.

Per user: the FAISS index (graph/vectors.py), the BM25 index (graph/lexical.py), the entity
catalogue (extraction/resolver.py's Resolver), the turns per speaker, the memory facts
(graph/memory_facts.py) and the relations (graph/relation_facts.py). The graph is the source of
truth and they follow it: before a call that reads them, `follow` reads the user's change mark
and, when it moved elsewhere (another process, a replica, a crash after the graph write),
graph/follow.py brings FAISS and BM25 up to it and the rest is read again. This process's own
writes patch them in place under `lock` (the relations by reading back what a write touched; a
forget or a pin drops them, to be read again). Users are held within a byte budget, least
recently used first (graph/residency.py).

Locks: `lock` is the write lock — writes, catching up and evictions never interleave; the
catalogue lock guards the dictionaries of catalogues, speaker counts and held copies (memory
facts, relations); the copies lock guards reading and patching one user's copy. Taken in that
order.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from extraction.keys import is_agent_voice
from extraction.protocols import TextEmbedder
from extraction.resolver import Catalog, Resolver
from graph import heap
from graph.background import Background
from graph.cache_files import CacheFiles
from graph.follow import catch_up
from graph.ids import MemoryId
from graph.lexical import LexicalIndexes, Persisted, Saving
from graph.memory_facts import UserFacts
from graph.reconcile import ReconcileReport, sweep
from graph.records import Mark, MemoryFacts, RelationRecord
from graph.relation_facts import Capped, UserRelations
from graph.residency import CACHE_MB, Residency, Trimmer
from graph.store import Store
from graph.vectors import VectorStore
from graph.vocabulary import SINGLE_VALUED_TYPES

# what one known entity or candidate topic of a user's catalogue holds in memory (its record,
# names, alias and slug indexes): 580 bytes measured with tracemalloc on 600 real turns of
# bench/realtext.py (899 entities, 1,226 candidate topics)
PER_ENTITY = 600
# after a read of a user's memory facts or relations that the graph's changes made useless (another
# process writing meanwhile), none is tried again for this long: each costs about a second per
# 10,000 memories
FACTS_RETRY_SECONDS = 10.0
# what holding any user costs beyond that (an empty FAISS index object, the books' entries): every
# user weighs at least this, so calls for many unknown users cannot grow the caches past budget
PER_USER = 4096
# a user's BM25 file is written at most this often while they write (and at eviction and close):
# it costs about a FAISS file's bytes, and one that lags only makes the next start apply a
# longer delta from the graph
LEXICAL_SAVE_SECONDS = 60.0

Neighbours = tuple[dict[str, tuple[str | None, str | None]], dict[MemoryId, MemoryFacts]]


Copy = TypeVar("Copy", UserFacts, UserRelations)


@dataclass
class _Copies(Generic[Copy]):
    """One kind of per-user copy of the graph held in process (memory facts, relations): the
    copies held, the users whose copy is being read, and when a failed read may be tried again."""

    read: Callable[[str], Copy]  # the user's copy, read from the graph
    held: dict[str, Copy] = field(default_factory=dict)
    loading: set[str] = field(default_factory=set)
    retry: dict[str, float] = field(default_factory=dict)  # user → no read before (monotonic)


class UserCaches:
    def __init__(
        self,
        store: Store,
        vectors: VectorStore,
        embedder: TextEmbedder,
        background: Background,
        flush_seconds: float,
        cache_bytes: int = CACHE_MB * 2**20,
        files: CacheFiles | None = None,
    ) -> None:
        self._store = store
        self._flush_seconds = flush_seconds
        self._last_flush = 0.0
        self._last_lexical_save = 0.0
        self._files = files
        self._catalog_saved: dict[str, Mark] = {}  # the mark each user's catalogue file holds
        self._catalog_drops: dict[str, int] = {}  # catalogue files dropped per user, since start
        self.vectors = vectors
        self._embedder = embedder
        self._background = background
        self.lexical = LexicalIndexes(
            store.memory_texts,
            schedule=lambda rebuild, user: background.run(rebuild, user, user=user),
            persisted=(
                None
                if files is None
                else Persisted(files.lexical, store.change_log, store.memories_since)
            ),
        )
        self.lock = threading.Lock()
        self._catalog_lock = threading.Lock()
        self._catalogs: dict[str, Resolver] = {}
        self._speakers: dict[str, Counter[str]] = {}  # turns per speaker
        # the ids of the user's two most recent sessions, and the change mark they were read at
        self._recent: dict[str, tuple[Mark, tuple[str, ...]]] = {}
        self._facts = _Copies(lambda user: UserFacts.load(store.user_facts(user)))
        self._relations = _Copies(lambda user: UserRelations.load(store.user_relations(user)))
        self._copies_lock = threading.Lock()
        self._residency = Residency(cache_bytes)
        self._trimmer = Trimmer()
        self.reconciled = ReconcileReport()  # what following the store did since start
        self.catalogs_loaded = 0  # catalogues taken from their files, since start

    # -- following the store (graph/follow.py) -------------------------------------------------

    def follow(self, user_id: str) -> None:
        """Brings the user's caches up to the graph's change mark before a call that reads them:
        one small statement when nothing changed elsewhere, the delta (or a reload) when it did.
        Also books the call for the cache budget."""
        mark = self._store.change_mark(user_id)
        if not (self._residency.holds(user_id) and self.vectors.mark(user_id) == mark):
            with self.lock:
                self.follow_locked(user_id, mark)
        self.use(user_id)

    def follow_locked(self, user_id: str, mark: Mark | None = None) -> None:
        """`follow` for a caller holding `lock` (a write, which must resolve against what every
        process wrote); `mark` is the graph's, when just read."""
        if not self._residency.holds(user_id):
            # cold (never used, or evicted): the FAISS index comes from its file and is brought
            # up to date below; anything else still held of the user is from before (the
            # catalogue's file is used only at the graph's mark: it stays)
            self.lexical.drop(user_id)
            self.forget_catalog(user_id, keep_file=True)
        held = self.vectors.mark(user_id)
        if held == (mark or self._store.change_mark(user_id)):
            return
        caught = catch_up(
            self._store, self.vectors, self.lexical, self._embedder, user_id, self.reconciled
        )
        if caught != held:
            self.forget_catalog(user_id)  # entities and speakers changed elsewhere: read again

    def advance(self, user_id: str, marks: Sequence[Mark | None]) -> None:
        """After this process's own changes are applied to its caches: the held mark moves along
        the changes it made, as long as they come right after it (when another process wrote in
        between, the next `follow` applies that delta, ours included, which is idempotent)."""
        for mark in marks:
            if mark is not None and mark.follows(self.vectors.mark(user_id)):
                self.vectors.set_mark(user_id, mark)

    # -- the budget (graph/residency.py) -------------------------------------------------------

    def _weight(self, user_id: str) -> int:
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            entities = len(resolver.entities) + len(resolver.candidates) if resolver else 0
            facts = self._facts.held.get(user_id)
            relations = self._relations.held.get(user_id)
        return (
            PER_USER
            + self.vectors.nbytes(user_id)
            + self.lexical.nbytes(user_id)
            + PER_ENTITY * entities
            + (facts.nbytes if facts is not None else 0)
            + (relations.nbytes if relations is not None else 0)
        )

    def use(self, user_id: str) -> None:
        """Books the user's call and weight; evicts the least recently used users over budget."""
        victims = self._residency.use(user_id, self._weight(user_id))
        if victims:
            with self.lock:
                for victim in victims:
                    if not self._residency.holds(victim):  # not loaded again meanwhile
                        self._evict(victim)
            if self._trimmer.due():
                self._background.run(self._trimmer.trim)

    def prewarm(self, user_id: str) -> None:
        """Loads what a user's first context call reads (graph/prewarm.py): FAISS brought up to
        the graph, the catalogue, the BM25 index and the speaker counts; then books the weight
        they added."""
        self.follow(user_id)
        self.catalog(user_id)
        self.lexical.get(user_id)
        self.main_speaker(user_id)
        self.use(user_id)

    def filled(self, share: float) -> bool:
        """Whether the held users weigh at least `share` of the budget."""
        return self._residency.total >= share * self._residency.budget

    def _evict(self, user_id: str) -> None:
        """Lets the user go from memory, their indexes saved first (the caller holds `lock`)."""
        mark = self.vectors.mark(user_id)
        saving = self.lexical.snapshot(user_id)
        taken = self._catalog_to_save(user_id, mark)
        if saving is not None or taken is not None:  # written off the request path
            self._background.run(self._write_files, user_id, saving, taken, mark, user=user_id)
        self.vectors.evict(user_id)
        self.lexical.drop(user_id)
        self.forget_catalog(user_id, keep_file=True)

    def drop_user(self, user_id: str) -> None:
        """Everything held of a user who is gone (forgetUser; the caller holds `lock`)."""
        self.vectors.drop_user(user_id)
        self.lexical.drop_user(user_id)
        self.forget_catalog(user_id)
        self._residency.forget(user_id)

    def flush(self, force: bool = False) -> None:
        """Saves the FAISS files, at most every `flush_seconds` unless forced, and the changed
        BM25 and catalogue files at most every LEXICAL_SAVE_SECONDS, on the background thread
        (here when forced: the service is closing). They are caches, brought up to the graph's
        mark when loaded, so a crash between two saves loses nothing. Not called under `lock`."""
        now = time.monotonic()
        if force or now - self._last_flush >= self._flush_seconds:
            self._last_flush = now
            self.vectors.flush()
        if force or now - self._last_lexical_save >= LEXICAL_SAVE_SECONDS:
            self._last_lexical_save = now
            with self._catalog_lock:
                catalogs = {u: self._catalog_saved.get(u) for u in self._catalogs}
            unsaved = {u for u, saved in catalogs.items() if saved != self.vectors.held_mark(u)}
            for user_id in sorted({*self.lexical.unsaved(), *unsaved}):
                if force:
                    self.save_files(user_id, compact=True)
                else:
                    self._background.run(self.save_files, user_id, user=user_id)

    def save_files(self, user_id: str, compact: bool = False) -> None:
        """Saves the user's BM25 index and catalogue, when changed, with the mark they hold (at
        least, for BM25). An index holding removed memories is compacted first when `compact`;
        else it waits for the compaction its removal scheduled (graph/lexical.py)."""
        if compact:
            self.lexical.compact(user_id)
        with self.lock:  # the held mark is a lower bound of what the caches hold under the lock
            saving = self.lexical.snapshot(user_id)
            mark = self.vectors.held_mark(user_id)
            catalog = self._catalog_to_save(user_id, mark)
        self._write_files(user_id, saving, catalog, mark)

    def _write_files(
        self,
        user_id: str,
        saving: Saving | None,
        taken: tuple[int, Catalog] | None,
        mark: Mark | None,
    ) -> None:
        if saving is not None:
            self.lexical.write(saving, mark)
        self._write_catalog(user_id, taken, mark)

    def _catalog_to_save(self, user_id: str, mark: Mark | None) -> tuple[int, Catalog] | None:
        """The user's held catalogue, when its file does not hold it at `mark` yet, with the
        count of the user's catalogue files dropped so far (the caller holds `lock`: no write
        patches it meanwhile)."""
        if self._files is None or mark is None or mark.epoch is None:
            return None
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            if resolver is None or self._catalog_saved.get(user_id) == mark:
                return None
            return self._catalog_drops.get(user_id, 0), resolver.catalog()

    def _write_catalog(
        self, user_id: str, taken: tuple[int, Catalog] | None, mark: Mark | None
    ) -> None:
        """Writes a catalogue taken by `_catalog_to_save`, unless the user's file was dropped
        since it was taken (a forget: the file must not name what was forgotten)."""
        if taken is None or mark is None or self._files is None:
            return
        drops, catalog = taken
        with self._catalog_lock:
            if self._catalog_drops.get(user_id, 0) == drops:
                self._files.catalog.save(user_id, catalog, mark)
                self._catalog_saved[user_id] = mark

    def holds(self, user_id: str) -> bool:
        return self._residency.holds(user_id)

    def held(self) -> set[str]:
        """The users whose caches are held now."""
        return self._residency.held()

    def sizes(self) -> dict[str, int]:
        """Users held in each per-user cache (for /metrics)."""
        with self._catalog_lock:
            catalogs = len(self._catalogs)
            facts = len(self._facts.held)
            relations = len(self._relations.held)
        return {
            "vectors": self.vectors.cached_users(),
            "lexical": self.lexical.cached_users(),
            "catalog": catalogs,
            "facts": facts,
            "relations": relations,
        }

    def usage(self) -> dict[str, int]:
        """The caches against their budget (for /metrics and /healthz): users held, bytes they
        weighed when last used, the budget, evictions since start."""
        return {
            "users": self._residency.users,
            "bytes": self._residency.total,
            "budget_bytes": self._residency.budget,
            "evictions": self._residency.evictions,
        }

    def sweep(self) -> None:
        """Drops the vector files of users the graph no longer holds (start-up, in the
        background: each user's index is otherwise reconciled on its first call)."""
        sweep(self._store, self.vectors, self.reconciled, self._files)

    # -- catalogue and speakers ----------------------------------------------------------------

    def catalog(self, user_id: str) -> Resolver:
        """The user's known entities (read from the graph once, then kept in step by writes)."""
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            if resolver is None:
                resolver = self._saved_catalog(user_id) or self._read_catalog(user_id)
                self._catalogs[user_id] = resolver
            return resolver

    def _read_catalog(self, user_id: str) -> Resolver:
        """The catalogue read from the graph (caller holds `_catalog_lock`)."""
        known = self._store.catalog(user_id)
        roles = self._store.role_catalog(user_id)
        held = self._store.topic_candidates(user_id)
        with heap.long_lived() as built:
            resolver = Resolver(known, roles, held)
            built.keep()
        return resolver

    def _saved_catalog(self, user_id: str) -> Resolver | None:
        """The catalogue a file holds at the graph's mark now (caller holds `_catalog_lock`)."""
        if self._files is None:
            return None
        mark = self._store.change_mark(user_id)
        with heap.long_lived() as built:  # the file's read is local: no statement inside
            saved = self._files.catalog.load(user_id, mark)
            if saved is None:
                return None
            resolver = Resolver.from_catalog(saved)
            built.keep()
        self._catalog_saved[user_id] = mark
        self.catalogs_loaded += 1
        return resolver

    def forget_catalog(
        self, user_id: str, keep_facts: bool = False, keep_file: bool = False
    ) -> None:
        """Drops what is read again from the graph on the next call: the catalogue (and its
        file, unless `keep_file`: it may name a forgotten entity), the speaker counts, the
        relations and (unless this process patched them) the memory facts."""
        with self._catalog_lock:
            self._catalogs.pop(user_id, None)
            if not keep_file:
                self._catalog_saved.pop(user_id, None)
                self._catalog_drops[user_id] = self._catalog_drops.get(user_id, 0) + 1
                if self._files is not None:
                    self._files.catalog.drop(user_id)
            self._speakers.pop(user_id, None)
            self._recent.pop(user_id, None)
            self._relations.held.pop(user_id, None)
            if not keep_facts:
                self._facts.held.pop(user_id, None)

    def forget_relations(self, user_id: str) -> None:
        """Drops the user's held relations after a change this process does not patch them for
        (a forget, a pin): they are read again in the background."""
        with self._catalog_lock:
            self._relations.held.pop(user_id, None)

    def main_speaker(self, user_id: str) -> str | None:
        """The speaker with the most turns (ties: the first name in order), never an agent's own
        voice (`is_agent_voice`): in a chat with an assistant the two alternate turn by turn, and
        the user is the one the memory is about. Counted by the graph
        once per user, then kept in step by this process's writes: the graph count is
        O(memories) and a context call without `speaker` needs it."""
        with self._catalog_lock:
            counts = self._speakers.get(user_id)
        if counts is None:
            with self.lock:  # no write may land between the count and the cache
                counts = Counter(self._store.speaker_turns(user_id))
                with self._catalog_lock:
                    counts = self._speakers.setdefault(user_id, counts)
        with self._catalog_lock:
            people = [(n, c) for n, c in counts.items() if not is_agent_voice(n)]
        best = min(people, key=lambda item: (-item[1], item[0]), default=None)
        return best[0] if best is not None and best[1] > 0 else None

    def last_session_id(self, user_id: str, exclude: str | None) -> str | None:
        """The user's most recent session other than `exclude` (the current one), for the user
        line of a context block. Finding it sorts all of the user's sessions (6 ms for 4,746 on
        FalkorDB, on every call), and the order changes only with a write that moves a session's
        last turn, which moves the user's change mark: so the two newest are held with the mark
        they were read at, read again once it moved. The mark is the one `follow` brought the
        caches to, taken before the read: a write landing in between makes the held order newer
        than its mark, never older, and the next call re-reads it."""
        mark = self.vectors.mark(user_id)
        with self._catalog_lock:
            held = self._recent.get(user_id)
        if held is not None and mark is not None and held[0] == mark:
            recent = held[1]
        else:
            recent = tuple(self._store.recent_sessions(user_id))
            if mark is not None:
                with self._catalog_lock:
                    self._recent[user_id] = (mark, recent)
        return next((session for session in recent if session != exclude), None)

    def spoke(self, user_id: str, speakers: Iterable[str]) -> None:
        """Turns this process wrote, by speaker (the caller holds `lock`)."""
        with self._catalog_lock:
            counts = self._speakers.get(user_id)
            if counts is not None:
                counts.update(speakers)

    # -- held copies: memory facts (graph/memory_facts.py), relations (graph/relation_facts.py) --

    def _held(self, copies: _Copies[Copy], user_id: str) -> Copy | None:
        """The user's copy when this process holds it; else None, and it is read from the graph
        in the background (a 10,000-memory user takes about a second): until then the caller
        reads the graph, as it would without the copy."""
        with self._catalog_lock:
            held = copies.held.get(user_id)
            if (
                held is not None
                or user_id in copies.loading
                or time.monotonic() < copies.retry.get(user_id, 0.0)
            ):
                return held
            copies.loading.add(user_id)
        self._background.run(self._load, copies, user_id, user=user_id)
        return None

    def _load(self, copies: _Copies[Copy], user_id: str) -> None:
        """Reads the user's copy without the write lock and keeps it only when it is the graph
        at the mark the other caches hold: every change a copy follows (write, merge, pin,
        forget) advances the mark, so an unchanged mark around the read means the rows are that
        state; otherwise the next call tries again."""
        kept = False
        try:
            before = self._store.change_mark(user_id)
            held = copies.read(user_id)
            if self._store.change_mark(user_id) != before:
                return
            with self.lock:
                if self._residency.holds(user_id) and self.vectors.mark(user_id) == before:
                    with self._catalog_lock:
                        copies.held.setdefault(user_id, held)
                    kept = True
        finally:
            with self._catalog_lock:
                copies.loading.discard(user_id)
                if kept:
                    copies.retry.pop(user_id, None)
                else:
                    copies.retry[user_id] = time.monotonic() + FACTS_RETRY_SECONDS

    def _held_facts(self, user_id: str) -> UserFacts | None:
        return self._held(self._facts, user_id)

    def _held_relations(self, user_id: str) -> UserRelations | None:
        return self._held(self._relations, user_id)

    def new_facts(self, user_id: str) -> None:
        """A user without memories gets empty copies at once, which its writes then fill: no
        read of the graph is ever needed (a user ingested through this process is held from its
        first call). The caller holds `lock` with the caches at the graph's mark, so an empty
        FAISS index means an empty user."""
        with self._catalog_lock:
            if self.vectors.count(user_id) == 0:
                self._facts.held.setdefault(user_id, UserFacts())
                self._relations.held.setdefault(user_id, UserRelations())

    def patch_facts(self, user_id: str, change: Callable[[UserFacts], object]) -> None:
        """Applies this process's change to the user's memory facts when they are held (the
        caller holds `lock`)."""
        with self._catalog_lock:
            held = self._facts.held.get(user_id)
        if held is not None:
            with self._copies_lock:
                change(held)

    def relations_changed(
        self,
        user_id: str,
        pairs: Iterable[tuple[str, str]] = (),
        sources: Iterable[str] = (),
        around: Iterable[str] = (),
    ) -> None:
        """After this process's write: the held relations take what the graph now holds between
        the `pairs` (source, target), of the one-value facts of `sources` and around the merged
        entities `around`, read back in one statement; none when the relations are not held or
        nothing was touched (the caller holds `lock`)."""
        with self._catalog_lock:
            held = self._relations.held.get(user_id)
        pairs, sources, around = sorted(set(pairs)), sorted(set(sources)), sorted(set(around))
        if held is None or not (pairs or sources or around):
            return
        found = self._store.relations_touched(user_id, pairs, sources, around)
        single = frozenset(SINGLE_VALUED_TYPES)
        with self._copies_lock:
            held.replace(found, pairs, dict.fromkeys(sources, single), around)

    def may_hold(self, user_id: str, facts: Iterable[tuple[str, str, str | None]]) -> list[bool]:
        """For each (source, type, target or None), whether the user's graph may hold it: False
        only when the held relations copy says it does not (an ending of a fact never stated
        need not be looked for in the graph); True for all when no copy is held."""
        wanted = list(facts)
        held = self._held_relations(user_id)
        if held is None:
            return [True] * len(wanted)
        with self._copies_lock:
            return [held.holds(src, rel_type, dst) for src, rel_type, dst in wanted]

    def relations(
        self,
        user_id: str,
        keys: Iterable[str],
        limit: int,
        cued: Iterable[str],
        evidence: int,
        bare: Iterable[str] = (),
        capped: Capped | None = None,
    ) -> Mapping[str, tuple[RelationRecord, ...]] | None:
        """The relations each entity's context card carries (graph/relation_facts.py), from the
        held copy; None when it is not held (it is read in the background), and the caller reads
        the graph. The `bare` keys get none; the `capped` keys at most `capped.cued` of a cued
        type besides their strongest."""
        held = self._held_relations(user_id)
        if held is None:
            return None
        wanted, skipped, capped = list(dict.fromkeys(keys)), set(bare), capped or Capped()
        with self._copies_lock:
            return {
                k: ()
                if k in skipped
                else held.card(k, limit, cued, evidence, capped.cued if k in capped.keys else None)
                for k in wanted
            }

    def memory_facts(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryFacts]:
        """What scoring reads of each memory: the copy's when held, else the graph's."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.memory_facts(user_id, ids)
        with self._copies_lock:
            return held.facts(ids)

    def turn_neighbours(self, user_id: str, ids: Sequence[str]) -> Neighbours:
        """Each memory's previous and next turn in its session (NEXT chain), and their facts."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.neighbour_facts(user_id, ids)
        with self._copies_lock:
            return held.neighbours(ids)

    def entity_memory_ids(
        self, user_id: str, keys: Iterable[str], limit: int
    ) -> dict[str, list[MemoryId]]:
        """The newest `limit` memories mentioning each entity (the copy's, or the graph's)."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.entity_memory_ids(user_id, keys, limit)
        with self._copies_lock:
            return held.newest(keys, limit)
