"""The memory service: ingest, deletion and reads over one store, one vector store, one BM25 index
set and the two models. Callers (graph/recall, api/) use its methods, never the parts behind it.
Owns the per-user caches (entity catalogue, turns per speaker, memory facts), the write lock and the
threads that run models beside the request thread.

Write order for a batch: validate all → idempotency look-up → extract (nlp.pipe, on the extraction
thread) beside embed (batched, on the request thread), outside the write lock → under it: the
caches brought up to the graph's change mark, idempotency again, resolve, one graph statement
(which advances the mark), FAISS and BM25. The graph is the source of truth: the caches follow it
(graph/follow.py) on every call that reads them, so a crash after the graph write, a write through
another process or replica, and a forget elsewhere all reach this process's answers. Caches are
held for the users used most recently within a byte budget (graph/residency.py). Synchronous by
design; the API calls it from worker threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from extraction.keys import ENTITY_TYPES
from extraction.model import Extraction
from extraction.protocols import TextEmbedder, TextExtractor
from extraction.resolver import Resolution, Resolver
from graph import ingest
from graph.batch import batch_rows
from graph.errors import InvalidInput, NotFound
from graph.facts import UserFacts
from graph.follow import catch_up
from graph.ids import MemoryId, is_memory_id, new_memory_id
from graph.ingest import NewMemory
from graph.lexical import LexicalIndexes, LexicalScores
from graph.limits import Limits
from graph.neighbourhood import Neighbourhood, NeighbourhoodRequest, read_neighbourhood
from graph.reconcile import ReconcileReport, sweep
from graph.records import MAX_EVIDENCE, EntityRecord, Mark, MemoryFacts, MemoryRecord
from graph.repeats import REPEAT_COSINE, Said, closest_repeat, said_whole
from graph.residency import CACHE_MB, Residency, Trimmer
from graph.store import Store
from graph.vectors import VectorStore, encode_embedding

log = logging.getLogger("recollect.service")
# turns of a session read back for its people when the cache is cold (pronouns in the next turn)
SESSION_TURNS = 8
# what one known entity or candidate topic of a user's catalogue holds in memory (its record,
# names, alias and slug indexes): 580 bytes measured with tracemalloc on 600 real turns of
# bench/realtext.py (899 entities, 1,226 candidate topics)
PER_ENTITY = 600
# after a read of a user's memory facts that the graph's changes made useless (another process
# writing meanwhile), none is tried again for this long: each costs about a second per 10,000
FACTS_RETRY_SECONDS = 10.0
# what holding any user costs beyond that (an empty FAISS index object, the books' entries): every
# user weighs at least this, so calls for many unknown users cannot grow the caches past budget
PER_USER = 4096

Vector = npt.NDArray[np.float32]
# called off the request path after turns with a sessionId were written: (user_id, event time of
# the newest turn written)
AfterWrite = Callable[[str, float], object]


@dataclass
class RememberResult:
    records: list[MemoryRecord]
    created: list[bool]


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
    ) -> None:
        self._store = store
        self._vectors = vectors
        self.extractor = extractor
        self.embedder = embedder
        self.limits = limits
        self.flush_seconds = flush_seconds
        self._last_flush = 0.0
        self._write_lock = threading.Lock()
        self._catalog_lock = threading.Lock()
        self._catalogs: dict[str, Resolver] = {}
        self.ingested = 0  # memories written since start (for /metrics)
        self._speakers: dict[str, Counter[str]] = {}  # turns per speaker, guarded by _catalog_lock
        # memory facts per user (graph/facts.py): held under _catalog_lock, read and changed under
        # _facts_lock, changed only under the write lock; loaded on the background thread
        self._facts: dict[str, UserFacts] = {}
        self._facts_lock = threading.Lock()
        self._facts_loading: set[str] = set()  # guarded by _catalog_lock
        self._facts_retry: dict[str, float] = {}  # user → no read before (monotonic), idem
        self._residency = Residency(cache_bytes)
        self._trimmer = Trimmer()
        self.reconciled = ReconcileReport()  # what following the store did since start
        self._lexical = LexicalIndexes(
            store.memory_texts, schedule=lambda rebuild, user: self.background(rebuild, user)
        )
        self.after_write: AfterWrite | None = None
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-bg")
        self._pending = 0
        self._pending_lock = threading.Lock()
        # spaCy runs here while the embedder runs on the request thread (torch releases the GIL):
        # the two models share the cores instead of taking turns (README "Performance")
        self._extraction = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-nlp")
        # a context call embeds its message here while it reads the graph on its own thread
        self._queries = ThreadPoolExecutor(max_workers=2, thread_name_prefix="recollect-embed")

    def close(self) -> None:
        self._background.shutdown(wait=True)
        self._extraction.shutdown(wait=True)
        self._queries.shutdown(wait=True)
        self._flush_vectors(force=True)

    # -- caches that follow the store (graph/follow.py) within a budget (graph/residency.py) --

    def follow(self, user_id: str) -> None:
        """Brings this process's caches of the user up to the graph's change mark before a call
        that reads them: one small statement when nothing changed elsewhere, the delta (or a
        reload) when it did. Also records the call for the cache budget."""
        mark = self._store.change_mark(user_id)
        if not (self._residency.holds(user_id) and self._vectors.mark(user_id) == mark):
            with self._write_lock:
                self._follow_locked(user_id, mark)
        self._use(user_id)

    def _follow_locked(self, user_id: str, mark: Mark | None = None) -> None:
        """`follow` under the write lock (a write of this process never interleaves); `mark` is
        the graph's, when just read."""
        if not self._residency.holds(user_id):
            # cold (never used, or evicted): the FAISS index comes from its file and is brought
            # up to date below; anything else still held of the user is from before
            self._lexical.drop(user_id)
            self._forget_catalog(user_id)
        held = self._vectors.mark(user_id)
        if held == (mark or self._store.change_mark(user_id)):
            return
        caught = catch_up(
            self._store, self._vectors, self._lexical, self.embedder, user_id, self.reconciled
        )
        if caught != held:
            self._forget_catalog(user_id)  # entities and speakers changed elsewhere: read again

    def _advance(self, user_id: str, marks: Sequence[Mark | None]) -> None:
        """After this process's own changes are applied to its caches: the held mark moves along
        the changes it made, as long as they come right after it (when another process wrote in
        between, the next `follow` applies that delta, ours included, which is idempotent)."""
        for mark in marks:
            if mark is not None and mark.follows(self._vectors.mark(user_id)):
                self._vectors.set_mark(user_id, mark)

    def _weight(self, user_id: str) -> int:
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            entities = len(resolver.entities) + len(resolver.candidates) if resolver else 0
            facts = self._facts.get(user_id)
        return (
            PER_USER
            + self._vectors.nbytes(user_id)
            + self._lexical.nbytes(user_id)
            + PER_ENTITY * entities
            + (facts.nbytes if facts is not None else 0)
        )

    def _use(self, user_id: str) -> None:
        """Books the user's call and weight; evicts the least recently used users over budget."""
        victims = self._residency.use(user_id, self._weight(user_id))
        if victims:
            with self._write_lock:
                for victim in victims:
                    if not self._residency.holds(victim):  # not loaded again meanwhile
                        self._evict(victim)
            if self._trimmer.due():
                self.background(self._trimmer.trim)

    def _evict(self, user_id: str) -> None:
        self._vectors.evict(user_id)
        self._lexical.drop(user_id)
        self._forget_catalog(user_id)

    # -- catalogue ----------------------------------------------------------------------------

    def catalog(self, user_id: str) -> Resolver:
        """The user's known entities (read from the graph once, then kept in step by writes)."""
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            if resolver is None:
                resolver = Resolver(
                    self._store.catalog(user_id),
                    self._store.role_catalog(user_id),
                    self._store.topic_candidates(user_id),
                )
                self._catalogs[user_id] = resolver
            return resolver

    def _forget_catalog(self, user_id: str, keep_facts: bool = False) -> None:
        """Drops what is read again from the graph on the next call: the catalogue, the speaker
        counts and (unless this process patched them) the memory facts."""
        with self._catalog_lock:
            self._catalogs.pop(user_id, None)
            self._speakers.pop(user_id, None)
            if not keep_facts:
                self._facts.pop(user_id, None)

    # -- memory facts (graph/facts.py) --------------------------------------------------------

    def _held_facts(self, user_id: str) -> UserFacts | None:
        """The user's memory facts when this process holds them; else None, and they are read
        from the graph in the background (a 10,000-memory user takes about a second): until then
        the caller reads the graph, as it would without the copy."""
        with self._catalog_lock:
            held = self._facts.get(user_id)
            if (
                held is not None
                or user_id in self._facts_loading
                or time.monotonic() < self._facts_retry.get(user_id, 0.0)
            ):
                return held
            self._facts_loading.add(user_id)
        self.background(self._load_facts, user_id)
        return None

    def _load_facts(self, user_id: str) -> None:
        """Reads the user's memory facts without the write lock and keeps them only when they are
        the graph at the mark this process's other caches hold: every change of a memory's facts
        (write, merge, pin, forget) advances the mark, so an unchanged mark around the read means
        the rows are that state; otherwise the next call tries again."""
        kept = False
        try:
            before = self._store.change_mark(user_id)
            rows = self._store.user_facts(user_id)
            if self._store.change_mark(user_id) != before:
                return
            held = UserFacts.load(rows)
            with self._write_lock:
                if self._residency.holds(user_id) and self._vectors.mark(user_id) == before:
                    with self._catalog_lock:
                        self._facts.setdefault(user_id, held)
                    kept = True
        finally:
            with self._catalog_lock:
                self._facts_loading.discard(user_id)
                if kept:
                    self._facts_retry.pop(user_id, None)
                else:
                    self._facts_retry[user_id] = time.monotonic() + FACTS_RETRY_SECONDS

    def _new_facts(self, user_id: str) -> None:
        """A user without memories gets an empty copy at once, which its writes then fill: no
        read of the graph is ever needed (a user ingested through this process is held from its
        first call). The caller holds the write lock with the caches at the graph's mark, so an
        empty FAISS index means an empty user."""
        with self._catalog_lock:
            if user_id not in self._facts and self._vectors.count(user_id) == 0:
                self._facts[user_id] = UserFacts()

    def _patch_facts(self, user_id: str, change: Callable[[UserFacts], object]) -> None:
        """Applies this process's change to the user's memory facts when they are held (the
        caller holds the write lock)."""
        with self._catalog_lock:
            held = self._facts.get(user_id)
        if held is not None:
            with self._facts_lock:
                change(held)

    def main_speaker(self, user_id: str) -> str | None:
        """The speaker with the most turns (ties: the first name in order). Counted by the graph
        once per user, then kept in step by this service's writes: the graph count is O(memories)
        and a context call without `speaker` needs it."""
        with self._catalog_lock:
            counts = self._speakers.get(user_id)
        if counts is None:
            with self._write_lock:  # no write may land between the count and the cache
                counts = Counter(self._store.speaker_turns(user_id))
                with self._catalog_lock:
                    counts = self._speakers.setdefault(user_id, counts)
        with self._catalog_lock:
            best = min(counts.items(), key=lambda item: (-item[1], item[0]), default=None)
        return best[0] if best is not None and best[1] > 0 else None

    # -- models -------------------------------------------------------------------------------

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        return self.extractor.extract(text, speaker)

    def reported(
        self, items: Sequence[tuple[str, str]], listeners: Mapping[str, str] | None = None
    ) -> list[str]:
        """(sentence, speaker) pairs in the third person: "Caroline went …"; `listeners` maps a
        speaker to the one "you" is."""
        return self.extractor.reported_many(items, listeners) if items else []

    def embed(self, texts: Sequence[str]) -> Vector:
        return self.embedder.embed(texts)

    def embed_query(self, text: str) -> Future[Vector]:
        """Embeds a message on the query pool, so the caller can read the graph meanwhile."""
        return self._queries.submit(lambda: self.embedder.embed([text])[0])

    def embed_queries(self, texts: Sequence[str]) -> Future[Vector]:
        """Embeds several messages (the parts of one) on the query pool, one row each."""
        batch = list(texts)
        return self._queries.submit(lambda: self.embedder.embed(batch))

    # -- ingest -------------------------------------------------------------------------------

    def remember_many(self, inputs: Sequence[NewMemory]) -> RememberResult:
        batch = list(inputs)
        ingest.validate_batch(batch, self.limits.max_text_chars, self.limits.max_batch)
        now = time.time()
        ids: list[MemoryId | None] = [None] * len(batch)
        created = [False] * len(batch)
        by_user: dict[str, list[int]] = defaultdict(list)
        for i, memory in enumerate(batch):
            by_user[memory.user_id].append(i)
        for user_id, positions in by_user.items():
            self._remember_user(user_id, batch, positions, ids, created, now)
        self._flush_vectors()
        if self.after_write is not None:
            for user_id, positions in by_user.items():
                turns = [batch[i] for i in positions if created[i] and batch[i].session_id]
                if turns:
                    latest = max(t.occurred_at or now for t in turns)
                    self.background(self.after_write, user_id, latest)
        by_id: dict[MemoryId, MemoryRecord] = {}
        for user_id, positions in by_user.items():
            by_id.update(self._store.memories(user_id, [ids[i] or "" for i in positions]))
        final = [MemoryId(i or "") for i in ids]
        lost = [i for i in final if i not in by_id]
        if lost:
            raise NotFound(f"memories {lost} vanished while being written")
        records = [by_id[i] for i in final]
        return RememberResult(records, created)

    def _flush_vectors(self, force: bool = False) -> None:
        """Vector files are caches (reconciled at start), so saving them is debounced."""
        now = time.monotonic()
        if force or now - self._last_flush >= self.flush_seconds:
            self._last_flush = now
            self._vectors.flush()

    def _dedupe(
        self,
        user_id: str,
        batch: list[NewMemory],
        positions: list[int],
        hashes: dict[int, str],
        ids: list[MemoryId | None],
        created: list[bool],
    ) -> list[int]:
        """Maps inputs that already exist (same externalId; without one, same normalised text and
        speaker; or the same within this batch) to their memory; returns the positions to create."""
        external = [e for i in positions if (e := batch[i].external_id)]
        existing = self._store.find_existing(user_id, external, [hashes[i] for i in positions])
        by_external = {row["external_id"]: row["id"] for row in existing if row["external_id"]}
        by_hash = {row["content_hash"]: row["id"] for row in existing}
        fresh: list[int] = []
        seen_external: dict[str, MemoryId] = {}
        seen_hash: dict[str, MemoryId] = {}
        for i in positions:
            key_ext = batch[i].external_id
            found: str | None
            if key_ext is not None:
                found = by_external.get(key_ext) or seen_external.get(key_ext)
            else:
                found = by_hash.get(hashes[i]) or seen_hash.get(hashes[i])
            if found:
                ids[i] = MemoryId(found)
                created[i] = False
                continue
            prior = ids[i]  # kept from the check before the models ran
            memory_id = prior if created[i] and prior is not None else new_memory_id()
            ids[i] = memory_id
            created[i] = True
            fresh.append(i)
            if key_ext is not None:
                seen_external[key_ext] = memory_id
            else:
                seen_hash[hashes[i]] = memory_id
        return fresh

    def _remember_user(
        self,
        user_id: str,
        batch: list[NewMemory],
        positions: list[int],
        ids: list[MemoryId | None],
        created: list[bool],
        now: float,
    ) -> None:
        hashes = {i: ingest.content_hash(batch[i]) for i in positions}
        # the models run outside the write lock: concurrent batches extract and embed side by side
        fresh = self._dedupe(user_id, batch, positions, hashes, ids, created)
        if not fresh:
            return
        extracting = self._extraction.submit(
            self.extractor.extract_many, [(batch[i].text, batch[i].speaker) for i in fresh]
        )
        try:
            vectors = self.embedder.embed(
                [embedding_text(batch[i].text, batch[i].speaker) for i in fresh]
            )
        finally:
            extractions = extracting.result()  # never leave spaCy working for a failed request
        extracted = dict(zip(fresh, extractions, strict=True))
        embedded = dict(zip(fresh, vectors, strict=True))
        with self._write_lock:
            # the catalogue resolves against what every process wrote
            self._follow_locked(user_id)
            self._new_facts(user_id)
            # a concurrent request may have written the same memories meanwhile: check again
            fresh = self._dedupe(user_id, batch, fresh, hashes, ids, created)
            if not fresh:
                return
            extractions = [extracted[i] for i in fresh]
            resolver = self.catalog(user_id)
            resolver.learn_speakers(extractions)
            fresh_ids = [ids[i] or "" for i in fresh]
            resolutions = self._resolve(user_id, resolver, batch, fresh, fresh_ids, extractions)
            matrix = np.stack([embedded[i] for i in fresh])
            repeat_of = self._repeats(user_id, batch, fresh, fresh_ids, resolutions, matrix)
            sessions = sorted({s for i in fresh if (s := batch[i].session_id)})
            rows = batch_rows(
                [batch[i] for i in fresh],
                fresh_ids,
                [hashes[i] for i in fresh],
                resolutions,
                resolver.entities,
                [encode_embedding(v) for v in matrix],
                self.embedder.model_id,
                now,
                self._store.last_in_sessions(user_id, sessions),
                repeat_of,
            )
            marks: list[Mark | None] = [self._store.write_batch(user_id, **rows)]
            self.ingested += len(fresh)
            merges = [pair for resolution in resolutions for pair in resolution.merges]
            for source, target in merges:
                marks.append(self._store.merge_entities(user_id, source, target))
            self._patch_facts(user_id, lambda held: _wrote(held, rows, merges))
            with self._catalog_lock:
                speakers = self._speakers.get(user_id)
                if speakers is not None:
                    speakers.update(
                        s for i in fresh if (s := batch[i].speaker) and batch[i].kind == "turn"
                    )
            # counts in the cached catalogue follow the write
            for entity in rows["entities"]:
                known = resolver.entities.get(entity["key"])
                if known is not None:
                    resolver.learn(
                        replace(known, mention_count=known.mention_count + entity["count"])
                    )
            self._vectors.add(user_id, fresh_ids, matrix)
            self._lexical.add(
                user_id,
                fresh_ids,
                [embedding_text(batch[i].text, batch[i].speaker) for i in fresh],
            )
            self._advance(user_id, marks)
        self._use(user_id)

    def _resolve(
        self,
        user_id: str,
        resolver: Resolver,
        batch: list[NewMemory],
        fresh: list[int],
        fresh_ids: list[str],
        extractions: list[Extraction],
    ) -> list[Resolution]:
        """Each fresh memory's extraction resolved in order, sessions read in when cold."""
        resolutions: list[Resolution] = []
        for i, memory_id, extraction in zip(fresh, fresh_ids, extractions, strict=True):
            session_id = batch[i].session_id
            if session_id and not resolver.knows_session(session_id):
                people, speakers = self._store.session_people(user_id, session_id, SESSION_TURNS)
                resolver.seed_session(session_id, people, speakers)
            if batch[i].kind == "episode":
                # a summary repeats its session's facts and is written by us: it mentions the
                # entities the turns made by their keys, but adds no entity, alias or fact
                known = [m for m in extraction.mentions if m.key in resolver.entities]
                extraction = Extraction(known, [], extraction.cues)
            resolution = resolver.resolve(extraction, memory_id, session_id)
            resolutions.append(resolution)
        return resolutions

    # -- deletion and pinning -----------------------------------------------------------------

    def _repeats(
        self,
        user_id: str,
        batch: list[NewMemory],
        fresh: list[int],
        fresh_ids: list[str],
        resolutions: Sequence[Resolution],
        matrix: Vector,
    ) -> dict[str, str]:
        """New memory id → the earlier memory it repeats (graph/repeats.py): the nearest
        stored vectors and the batch's earlier turns, through the gate."""
        said = [
            Said(
                fresh_ids[p],
                batch[i].speaker,
                batch[i].kind,
                frozenset(resolutions[p].extraction.keys()),
                said_whole(batch[i].text),
            )
            for p, i in enumerate(fresh)
        ]
        hits: list[list[tuple[str, float]]] = []
        batch_cosine = matrix @ matrix.T  # the batch's earlier turns count too
        for p in range(len(fresh)):
            stored = self._vectors.search(user_id, matrix[p], 3)
            earlier = np.flatnonzero(batch_cosine[p, :p] >= REPEAT_COSINE)
            within = [(fresh_ids[q], float(batch_cosine[p, q])) for q in earlier]
            hits.append([(str(m), c) for m, c in [*stored, *within] if c >= REPEAT_COSINE])
        wanted = {m for found in hits for m, _ in found} - set(fresh_ids)
        records = self._store.memories(user_id, [MemoryId(m) for m in wanted]) if wanted else {}
        known = {
            str(r.id): Said(
                str(r.id), r.speaker, r.kind, frozenset(r.entity_keys), said_whole(r.text)
            )
            for r in records.values()
        }
        known.update({s.id: s for s in said})
        # a repeat of a repeat names the first saying
        first = {str(r.id): r.repeat_of for r in records.values() if r.repeat_of}
        out: dict[str, str] = {}
        for new, found in zip(said, hits, strict=True):
            pairs = [(known[m], c) for m, c in found if m in known]
            match = closest_repeat(new, pairs, REPEAT_COSINE)
            if match is not None:
                out[new.id] = out.get(match) or first.get(match) or match
        return out

    def cache_sizes(self) -> dict[str, int]:
        """Users held in each per-user cache (for /metrics)."""
        with self._catalog_lock:
            catalogs = len(self._catalogs)
            facts = len(self._facts)
        return {
            "vectors": self._vectors.cached_users(),
            "lexical": self._lexical.cached_users(),
            "catalog": catalogs,
            "facts": facts,
        }

    def cache_usage(self) -> dict[str, int]:
        """The per-user caches against their budget (for /metrics and /healthz): users held,
        bytes they weighed when last used, the budget, evictions since start."""
        return {
            "users": self._residency.users,
            "bytes": self._residency.total,
            "budget_bytes": self._residency.budget,
            "evictions": self._residency.evictions,
        }

    def forget(self, user_id: str, memory_id: str) -> bool:
        _check_ids(user_id, memory_id)
        with self._write_lock:
            mark = self._store.forget(user_id, memory_id)
            if mark is None:
                raise NotFound(f"no memory {memory_id!r} for this user")
            self._vectors.remove(user_id, [memory_id])
            self._lexical.remove(user_id, [memory_id])
            self._patch_facts(user_id, lambda held: held.forgot(memory_id))
            self._forget_catalog(user_id, keep_facts=True)
            self._advance(user_id, [mark])
            self._vectors.flush()
        return True

    def forget_user(self, user_id: str) -> int:
        ingest.check_user_id(user_id)
        with self._write_lock:
            count = self._store.forget_user(user_id)
            self._vectors.drop_user(user_id)
            self._lexical.drop(user_id)
            self._forget_catalog(user_id)
            self._residency.forget(user_id)
        return count

    def merge_entities(self, user_id: str, sources: Sequence[str], into: str) -> EntityRecord:
        """Corrects the graph by hand: each source entity's mentions, relations (counts summed,
        evidence joined) and names move into `into`, and the source is deleted. Idempotent: a
        source already merged into `into` (now its alias) is skipped; any other unknown key is
        NotFound. Each source is one atomic statement; the resolver learns the alias at once."""
        ingest.check_user_id(user_id)
        keys = [_check_key(k, "sources") for k in sources]
        _check_key(into, "into")
        if not keys:
            raise InvalidInput("sources", "must name at least one entity key")
        if into in keys:
            raise InvalidInput(
                "sources", f"holds the target {into!r}; an entity is not merged into itself"
            )
        with self._write_lock:
            self._follow_locked(user_id)
            resolver = self.catalog(user_id)
            if into not in resolver.entities:
                raise NotFound(f"no entity {into!r} for this user")
            for key in keys:
                if key not in resolver.entities and resolver.resolve_key(key) != into:
                    raise NotFound(f"no entity {key!r} for this user (sources)")
            for key in dict.fromkeys(keys):
                source = resolver.entities.get(key)
                if source is None:
                    continue  # merged before: the alias resolves to the target
                mark = self._store.merge_entities(user_id, key, into)
                resolver.learn_alias(into, key, [source.label, *source.aliases])
                self._patch_facts(user_id, partial(UserFacts.merged, source=key, target=into))
                self._advance(user_id, [mark])
        record = self._store.entities(user_id, [into]).get(into)
        if record is None:  # forgotten between the merge and the read
            raise NotFound(f"no entity {into!r} for this user")
        return record

    def pin(self, user_id: str, memory_id: str, pinned: bool) -> MemoryRecord:
        _check_ids(user_id, memory_id)
        with self._write_lock:
            mark = self._store.set_pinned(user_id, memory_id, pinned)
            if mark is None:
                raise NotFound(f"no memory {memory_id!r} for this user")
            self._patch_facts(user_id, lambda held: held.pinned(memory_id, pinned))
            self._advance(user_id, [mark])
        return self.memory(user_id, memory_id)

    # -- reads: memories ----------------------------------------------------------------------

    def memory(self, user_id: str, memory_id: str) -> MemoryRecord:
        _check_ids(user_id, memory_id)
        found = self._store.memories(user_id, [memory_id]).get(MemoryId(memory_id))
        if found is None:
            raise NotFound(f"no memory {memory_id!r} for this user")
        return found

    def memories(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryRecord]:
        return self._store.memories(user_id, ids)

    def memory_facts(self, user_id: str, ids: Iterable[str]) -> dict[MemoryId, MemoryFacts]:
        """What scoring reads of each memory: from the in-process copy (graph/facts.py) when it
        is held, else from the graph."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.memory_facts(user_id, ids)
        with self._facts_lock:
            return held.facts(ids)

    def find_existing(self, user_id: str, external_ids: list[str]) -> list[str]:
        """Ids of the memories with these externalIds."""
        return [row["id"] for row in self._store.find_existing(user_id, external_ids, [])]

    def turn_neighbours(
        self, user_id: str, ids: Sequence[str]
    ) -> tuple[dict[str, tuple[str | None, str | None]], dict[MemoryId, MemoryFacts]]:
        """Each memory's previous and next turn in its session (NEXT chain), and their facts."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.neighbour_facts(user_id, ids)
        with self._facts_lock:
            return held.neighbours(ids)

    def search_vectors(self, user_id: str, query: Vector, k: int) -> list[tuple[MemoryId, float]]:
        return self._vectors.search(user_id, query, k)

    def stored_vectors(self, user_id: str, ids: Iterable[str]) -> dict[str, Vector]:
        return self._vectors.vectors(user_id, ids)

    def lexical_scores(self, user_id: str, query: str) -> LexicalScores:
        return self._lexical.get(user_id).scores(query)

    def users(self) -> list[str]:
        return self._store.users()

    # -- reads: entities ----------------------------------------------------------------------

    def entities(
        self,
        user_id: str,
        keys: Sequence[str],
        max_relations: int | None = None,
        cued: Iterable[str] = (),
        evidence: int = MAX_EVIDENCE,
        bare: Iterable[str] = (),
    ) -> dict[str, EntityRecord]:
        """Entity cards; with `max_relations`, each carries its strongest relations and every
        relation of a `cued` type (context cards), without it all of them (`entity(key)`); each
        relation with its newest `evidence` memory ids. The `bare` keys' cards carry no relations
        (their relations are not read)."""
        return self._store.entities(user_id, keys, max_relations, cued, evidence, bare)

    def entity_memories(
        self, user_id: str, keys: Sequence[str], limit: int
    ) -> dict[str, list[MemoryRecord]]:
        """The newest `limit` memories mentioning each entity."""
        ids = self._store.entity_memory_ids(user_id, keys, limit)
        records = self._store.memories(user_id, [i for v in ids.values() for i in v])
        return {key: [records[i] for i in ids.get(key, []) if i in records] for key in keys}

    def entity_memory_ids(
        self, user_id: str, keys: Iterable[str], limit: int
    ) -> dict[str, list[MemoryId]]:
        """The newest `limit` memories mentioning each entity (the copy's, or the graph's)."""
        held = self._held_facts(user_id)
        if held is None:
            return self._store.entity_memory_ids(user_id, keys, limit)
        with self._facts_lock:
            return held.newest(keys, limit)

    def memories_in_time(
        self, user_id: str, when: tuple[float, float], limit: int
    ) -> list[MemoryId]:
        """The newest `limit` memories whose event time overlaps `when`, or that were said in it
        when they name no time."""
        return self._store.memories_in_time(user_id, when[0], when[1], limit)

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
        ingest.check_user_id(user_id)
        if entity_type is not None and entity_type not in ENTITY_TYPES:
            raise InvalidInput("type", f"is {entity_type!r}; allowed {', '.join(ENTITY_TYPES)}")
        ingest.check_no_nul(search, "search")
        needle = search.strip().lower() if search and search.strip() else None
        keys = self._store.list_entity_keys(user_id, entity_type, needle, after, limit + 1)
        total = self._store.count_entities(user_id, entity_type, needle)
        return keys, total

    def neighbourhood(self, request: NeighbourhoodRequest) -> Neighbourhood:
        """The explorer's view: the request's entities and those within its depth, bounded by its
        limit (graph/neighbourhood.py); read from the graph, never from the caches."""
        return read_neighbourhood(self._store, request)

    # -- reads and writes: sessions -----------------------------------------------------------

    def session(self, user_id: str, session_id: str) -> dict[str, Any] | None:
        return self._store.session(user_id, session_id)

    def session_turns(self, user_id: str, session_id: str) -> list[MemoryRecord]:
        """The session's turns in order (the NEXT chain)."""
        ids = self._store.session_turn_ids(user_id, session_id)
        records = self._store.memories(user_id, ids)
        return [records[MemoryId(i)] for i in ids if MemoryId(i) in records]

    def session_entities(self, user_id: str, session_id: str, limit: int) -> list[dict[str, Any]]:
        return self._store.session_entities(user_id, session_id, limit)

    def session_facts(self, user_id: str, session_id: str) -> list[dict[str, Any]]:
        return self._store.session_facts(user_id, session_id)

    def idle_sessions(self, user_id: str, before: float) -> list[str]:
        """Open sessions whose last turn is before `before`."""
        return self._store.idle_sessions(user_id, before)

    def last_session(self, user_id: str, exclude: str | None) -> dict[str, Any] | None:
        return self._store.last_session(user_id, exclude)

    def mark_session_ended(
        self,
        user_id: str,
        session_id: str,
        episode_id: str,
        now: float,
        topics: list[str],
        hints: dict[str, list[str]],
    ) -> None:
        """`hints`: expertise, returning and declined (graph/recall/episodes.ProfileHints)."""
        self._store.end_session(user_id, session_id, episode_id, now, topics, hints)

    def cache_window_summary(
        self, user_id: str, session_id: str, sentences: list[str], upto: int
    ) -> None:
        self._store.cache_window_summary(user_id, session_id, sentences, upto)

    # -- background work ----------------------------------------------------------------------

    def background(self, fn: Callable[..., object], *args: object) -> None:
        """Runs `fn` on the service's single background thread; failures are logged."""

        def run() -> None:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - background work must not kill the thread
                log.warning("background task %s failed", getattr(fn, "__name__", fn), exc_info=True)
            finally:
                with self._pending_lock:
                    self._pending -= 1

        with self._pending_lock:
            self._pending += 1
        self._background.submit(run)

    @property
    def background_pending(self) -> int:
        """Background tasks queued or running (episodes, access statistics, index rebuilds): a
        client that must see them done (a bench timing ingest) waits for zero in /metrics."""
        return self._pending

    def drain(self) -> None:
        """Waits for the background work submitted so far (tests, shutdown)."""
        self._background.submit(lambda: None).result()

    def touch_later(self, user_id: str, ids: Sequence[str]) -> None:
        """Access statistics are written off the request path; a failure never fails a request."""
        if ids:
            self.background(self._store.touch, user_id, list(ids), time.time())

    def sweep(self) -> None:
        """Drops the vector files of users the graph no longer holds (start-up, in the
        background: each user's index is otherwise reconciled on its first call)."""
        sweep(self._store, self._vectors, self.reconciled)


def _wrote(held: UserFacts, rows: Mapping[str, Any], merges: Sequence[tuple[str, str]]) -> None:
    """A batch's write and then its merges, in the order the graph applied them."""
    held.wrote(rows)
    for source, target in merges:
        held.merged(source, target)


def _check_key(key: str, field: str) -> str:
    ingest.check_no_nul(key, field)
    if not key.strip() or ":" not in key:
        raise InvalidInput(field, f"holds {key!r}; an entity key looks like 'person:john_doe'")
    return key


def _check_ids(user_id: str, memory_id: str) -> None:
    """A malformed memory id cannot name a memory: NOT_FOUND, like an unknown one."""
    ingest.check_user_id(user_id)
    if not is_memory_id(memory_id):
        raise NotFound(f"no memory {memory_id!r} for this user")
