"""The memory service: ingest, deletion and reads, over one executor, one vector store and the
models. Owns the per-user caches (entity catalogue, turns per speaker), the write lock and the
threads that run models beside the request thread.

Write order for a batch: validate all → idempotency look-up → extract (nlp.pipe, on the extraction
thread) beside embed (batched, on the request thread), outside the write lock → under it:
idempotency again, resolve, one graph statement, FAISS. The graph is the source of truth: a crash
after the graph write leaves a memory without a vector, which `reconcile` (run at start) repairs.
Synchronous by design; the API calls it from worker threads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from extraction.embedder import Embedder, embedding_text
from extraction.extractor import Extractor
from extraction.model import Extraction
from extraction.resolver import Resolver
from graph import ingest
from graph.errors import NotFound
from graph.ids import MemoryId, is_memory_id, new_memory_id
from graph.ingest import NewMemory
from graph.lexical import LexicalIndexes
from graph.records import EntityRecord, MemoryRecord
from graph.store import Store
from graph.vectors import VectorStore, decode_embedding, encode_embedding, to_faiss_id

log = logging.getLogger("recollect.service")


@dataclass
class RememberResult:
    records: list[MemoryRecord]
    created: list[bool]


@dataclass
class ReconcileReport:
    users: int = 0
    added: int = 0
    removed: int = 0
    reembedded: int = 0
    dropped_indexes: int = 0


class MemoryService:
    def __init__(
        self,
        store: Store,
        vectors: VectorStore,
        extractor: Extractor,
        embedder: Embedder,
        max_text_chars: int = 20_000,
        max_batch: int = 1_000,
        flush_seconds: float = 5.0,
    ) -> None:
        self.store = store
        self.vectors = vectors
        self.extractor = extractor
        self.embedder = embedder
        self.max_text_chars = max_text_chars
        self.max_batch = max_batch
        self.flush_seconds = flush_seconds
        self._last_flush = 0.0
        self._write_lock = threading.Lock()
        self._catalog_lock = threading.Lock()
        self._catalogs: dict[str, Resolver] = {}
        self._speakers: dict[str, Counter[str]] = {}  # turns per speaker, guarded by _catalog_lock
        self.lexical = LexicalIndexes(
            store.memory_texts, schedule=lambda rebuild, user: self.background(rebuild, user)
        )
        # called off the request path after turns with a sessionId were written
        self.after_write: Callable[[str, float, set[str]], object] | None = None
        self._background = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-bg")
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

    # -- catalogue ----------------------------------------------------------------------------

    def catalog(self, user_id: str) -> Resolver:
        with self._catalog_lock:
            resolver = self._catalogs.get(user_id)
            if resolver is None:
                resolver = Resolver(self.store.catalog(user_id))
                self._catalogs[user_id] = resolver
            return resolver

    def _forget_catalog(self, user_id: str) -> None:
        with self._catalog_lock:
            self._catalogs.pop(user_id, None)
            self._speakers.pop(user_id, None)

    def main_speaker(self, user_id: str) -> str | None:
        """The speaker with the most turns (ties: the first name in order). Counted by the graph
        once per user, then kept in step by this service's writes: the graph count is O(memories)
        and a context call without `speaker` needs it."""
        with self._catalog_lock:
            counts = self._speakers.get(user_id)
        if counts is None:
            with self._write_lock:  # no write may land between the count and the cache
                counts = Counter(self.store.speaker_turns(user_id))
                with self._catalog_lock:
                    counts = self._speakers.setdefault(user_id, counts)
        with self._catalog_lock:
            best = min(counts.items(), key=lambda item: (-item[1], item[0]), default=None)
        return best[0] if best is not None and best[1] > 0 else None

    def embed_query(self, text: str) -> Future[npt.NDArray[np.float32]]:
        """Embeds a message on the query pool, so the caller can read the graph meanwhile."""
        return self._queries.submit(lambda: self.embedder.embed([text])[0])

    # -- ingest -------------------------------------------------------------------------------

    def remember_many(self, inputs: Sequence[NewMemory]) -> RememberResult:
        batch = list(inputs)
        ingest.validate_batch(batch, self.max_text_chars, self.max_batch)
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
                    sessions = {t.session_id for t in turns if t.session_id}
                    self.background(self.after_write, user_id, latest, sessions)
        by_id: dict[MemoryId, MemoryRecord] = {}
        for user_id, positions in by_user.items():
            by_id.update(self.store.memories(user_id, [ids[i] or "" for i in positions]))
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
            self.vectors.flush()

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
        existing = self.store.find_existing(user_id, external, [hashes[i] for i in positions])
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
            # a concurrent request may have written the same memories meanwhile: check again
            fresh = self._dedupe(user_id, batch, fresh, hashes, ids, created)
            if not fresh:
                return
            extractions = [extracted[i] for i in fresh]
            resolver = self.catalog(user_id)
            resolver.learn_speakers(extractions)
            resolved: list[Extraction] = []
            aliases: dict[str, set[str]] = defaultdict(set)
            for i, extraction in zip(fresh, extractions, strict=True):
                result, learned = resolver.resolve(extraction)
                if batch[i].kind == "episode":
                    # a summary repeats its session's facts: mentions yes, evidence no
                    result = replace(result, relations=[])
                resolved.append(result)
                for key, names in learned.items():
                    aliases[key] |= names
            vectors = np.stack([embedded[i] for i in fresh])
            sessions = sorted({s for i in fresh if (s := batch[i].session_id)})
            params = _batch_params(
                user_id,
                [batch[i] for i in fresh],
                [ids[i] or "" for i in fresh],
                [hashes[i] for i in fresh],
                resolved,
                aliases,
                [encode_embedding(v) for v in vectors],
                self.embedder.model_id,
                now,
                self.store.last_in_sessions(user_id, sessions),
            )
            self.store.write_batch(user_id, **params)
            with self._catalog_lock:
                speakers = self._speakers.get(user_id)
                if speakers is not None:
                    speakers.update(
                        s for i in fresh if (s := batch[i].speaker) and batch[i].kind == "turn"
                    )
            # counts in the cached catalogue follow the write
            for entity in params["entities"]:
                known = resolver.entities.get(entity["key"])
                if known is not None:
                    resolver.learn(
                        replace(known, mention_count=known.mention_count + entity["count"])
                    )
            self.vectors.add(user_id, [ids[i] or "" for i in fresh], vectors)
            self.lexical.add(
                user_id,
                [ids[i] or "" for i in fresh],
                [embedding_text(batch[i].text, batch[i].speaker) for i in fresh],
            )

    # -- deletion and pinning -----------------------------------------------------------------

    def forget(self, user_id: str, memory_id: str) -> bool:
        _check_ids(user_id, memory_id)
        with self._write_lock:
            if not self.store.memories(user_id, [memory_id]):
                raise NotFound(f"no memory {memory_id!r} for this user")
            self.store.forget(user_id, memory_id)
            self.vectors.remove(user_id, [memory_id])
            self.vectors.flush()
            self.lexical.remove(user_id, [memory_id])
            self._forget_catalog(user_id)
        return True

    def forget_user(self, user_id: str) -> int:
        ingest.check_user_id(user_id)
        with self._write_lock:
            count = self.store.forget_user(user_id)
            self.vectors.drop_user(user_id)
            self.lexical.drop(user_id)
            self._forget_catalog(user_id)
        return count

    def pin(self, user_id: str, memory_id: str, pinned: bool) -> MemoryRecord:
        _check_ids(user_id, memory_id)
        with self._write_lock:
            if not self.store.set_pinned(user_id, memory_id, pinned):
                raise NotFound(f"no memory {memory_id!r} for this user")
        return self.memory(user_id, memory_id)

    # -- reads --------------------------------------------------------------------------------

    def memory(self, user_id: str, memory_id: str) -> MemoryRecord:
        _check_ids(user_id, memory_id)
        found = self.store.memories(user_id, [memory_id]).get(MemoryId(memory_id))
        if found is None:
            raise NotFound(f"no memory {memory_id!r} for this user")
        return found

    def entities(self, user_id: str, keys: Sequence[str]) -> dict[str, EntityRecord]:
        return self.store.entities(user_id, keys)

    def background(self, fn: Callable[..., object], *args: object) -> None:
        """Runs `fn` on the service's single background thread; failures are logged."""

        def run() -> None:
            try:
                fn(*args)
            except Exception:  # noqa: BLE001 - background work must not kill the thread
                log.warning("background task %s failed", getattr(fn, "__name__", fn), exc_info=True)

        self._background.submit(run)

    def drain(self) -> None:
        """Waits for the background work submitted so far (tests, shutdown)."""
        self._background.submit(lambda: None).result()

    def touch_later(self, user_id: str, ids: Sequence[str]) -> None:
        """Access statistics are written off the request path; a failure never fails a request."""
        if ids:
            self.background(self.store.touch, user_id, list(ids), time.time())

    # -- start-up reconciliation --------------------------------------------------------------

    def reconcile(self) -> ReconcileReport:
        """Makes every user's FAISS index agree with the graph (the source of truth)."""
        report = ReconcileReport()
        users = self.store.users()
        stems = {VectorStore.stem_of(u) for u in users}
        for stem in self.vectors.stored_users() - stems:
            self.vectors.drop_stem(stem)
            report.dropped_indexes += 1
        for user_id in users:
            report.users += 1
            graph_ids = self.store.memory_vector_ids(user_id)
            index_ids = self.vectors.ids(user_id)
            extra = index_ids - set(graph_ids)
            missing = [i for i in graph_ids if i not in index_ids]
            if extra:
                report.removed += self.vectors.remove(user_id, extra)
            for start in range(0, len(missing), 256):
                chunk = missing[start : start + 256]
                rows = self.store.memory_embeddings(user_id, chunk)
                ready = [
                    r
                    for r in rows
                    if r.get("embedding_model") == self.embedder.model_id and r.get("embedding")
                ]
                stale = [r for r in rows if r not in ready]
                if ready:
                    matrix = np.stack([decode_embedding(r["embedding"]) for r in ready])
                    self.vectors.add(user_id, [r["id"] for r in ready], matrix)
                    report.added += len(ready)
                if stale:
                    matrix = self.embedder.embed(
                        [embedding_text(r["text"], r.get("speaker")) for r in stale]
                    )
                    self.vectors.add(user_id, [r["id"] for r in stale], matrix)
                    report.reembedded += len(stale)
        self.vectors.flush()
        if report.added or report.removed or report.reembedded or report.dropped_indexes:
            log.info("vector reconciliation: %s", report)
        return report


def _check_ids(user_id: str, memory_id: str) -> None:
    """A malformed memory id cannot name a memory: NOT_FOUND, like an unknown one."""
    ingest.check_user_id(user_id)
    if not is_memory_id(memory_id):
        raise NotFound(f"no memory {memory_id!r} for this user")


def _batch_params(
    user_id: str,
    memories: list[NewMemory],
    ids: list[str],
    hashes: list[str],
    extractions: list[Extraction],
    aliases: dict[str, set[str]],
    vectors: list[str],
    model_id: str,
    now: float,
    session_tails: dict[str, str],
) -> dict[str, list[dict[str, Any]]]:
    """Pre-aggregates a batch into the flat lists write_memories.cypher unwinds.

    `created_at` grows by a microsecond per position so the batch's order is kept, and each
    memory of a session is chained (NEXT) after the session's previous one."""
    memory_rows: list[dict[str, Any]] = []
    next_edges: list[dict[str, str]] = []
    sessions: dict[str, dict[str, Any]] = {}
    in_session: list[dict[str, str]] = []
    tails = dict(session_tails)
    entities: dict[str, dict[str, Any]] = {}
    mentions: list[dict[str, Any]] = []
    relations: dict[tuple[str, str, str], dict[str, Any]] = {}
    for position, (memory, memory_id, digest, extraction, vector) in enumerate(
        zip(memories, ids, hashes, extractions, vectors, strict=True)
    ):
        occurred = memory.occurred_at if memory.occurred_at is not None else now
        if memory.session_id:
            if memory.session_id in tails:
                next_edges.append({"from": tails[memory.session_id], "to": memory_id})
            tails[memory.session_id] = memory_id
            session = sessions.setdefault(
                memory.session_id,
                {
                    "id": memory.session_id,
                    "count": 0,
                    "started_at": occurred,
                    "last_turn_at": occurred,
                },
            )
            session["count"] += 1
            session["started_at"] = min(session["started_at"], occurred)
            session["last_turn_at"] = max(session["last_turn_at"], occurred)
            in_session.append({"memory_id": memory_id, "session_id": memory.session_id})
        importance = 1 if memory.importance is None else memory.importance
        pinned = bool(memory.pinned)
        memory_rows.append(
            {
                "id": memory_id,
                "text": memory.text,
                "caption": _caption(memory.text),
                "speaker": memory.speaker,
                "session_id": memory.session_id,
                "occurred_at": occurred,
                "created_at": now + position * 1e-6,
                "external_id": memory.external_id,
                "content_hash": digest,
                "importance": importance,
                "pinned": pinned,
                "category": memory.category,
                "fact_type": memory.fact_type,
                "kind": memory.kind,
                "vector_id": to_faiss_id(memory_id),
                "embedding": vector,
                "embedding_model": model_id,
            }
        )
        for mention in extraction.mentions:
            entity = entities.setdefault(
                mention.key,
                {
                    "key": mention.key,
                    "type": mention.type,
                    "label": mention.label,
                    "aliases": sorted(aliases.get(mention.key, set())),
                    "count": 0,
                    "first_seen": occurred,
                    "last_seen": occurred,
                },
            )
            entity["count"] += 1
            entity["first_seen"] = min(entity["first_seen"], occurred)
            entity["last_seen"] = max(entity["last_seen"], occurred)
            mentions.append(
                {"memory_id": memory_id, "key": mention.key, "as_speaker": mention.as_speaker}
            )
        for rel in extraction.relations:
            row = relations.setdefault(
                (rel.src, rel.type, rel.dst),
                {
                    "src": rel.src,
                    "type": rel.type,
                    "dst": rel.dst,
                    "role": rel.role,
                    "count": 0,
                    "strong": 0,
                    "evidence": [],
                    "first_seen": occurred,
                    "last_seen": occurred,
                },
            )
            row["count"] += 1
            row["strong"] += 1 if pinned or importance >= 3 else 0
            row["evidence"].append(memory_id)
            row["first_seen"] = min(row["first_seen"], occurred)
            row["last_seen"] = max(row["last_seen"], occurred)
            row["role"] = row["role"] or rel.role
    return {
        "memories": memory_rows,
        "entities": list(entities.values()),
        "mentions": mentions,
        "relations": list(relations.values()),
        "next": next_edges,
        "sessions": list(sessions.values()),
        "in_session": in_session,
    }


def _caption(text: str, limit: int = 60) -> str:
    """A short caption for Neo4j Browser."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
