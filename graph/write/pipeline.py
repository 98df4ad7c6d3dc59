"""The write path of `remember` and `rememberMany`, as named stages.

For a batch, per user:

1. validate the whole batch (graph/validation.py), then the storage policy (graph/write/screen.py)
   redacts personal data and secrets or refuses them: one bad input rejects the batch, nothing is
   written, and every later stage sees the redacted text only;
2. idempotency: an input whose externalId (or, without one, normalised text and speaker) is known
   is that memory, as is a repeat within the batch;
3. the models, outside the write lock so concurrent batches run them side by side: spaCy on the
   extraction thread beside the embedder (graph/model_threads.py);
4. under the write lock: the caches follow the graph (graph/caches.py), idempotency again (another
   request may have written the same inputs meanwhile), the resolver settles names, pronouns and
   roles against the user's catalogue, near-duplicates are linked (graph/repeats.py);
5. one statement writes the batch (graph/write/rows.py, atomic on both engines), then any merges
   of people known by role into their names;
6. this process's caches follow its own write: memory facts, speaker counts, catalogue counts,
   FAISS and BM25, and the held change mark.

Afterwards, off the request path, sessions the batch left idle are ended (`after_write`).
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from extraction.embedder import embedding_text
from extraction.model import Extraction
from extraction.resolver import Resolution, Resolver
from graph.background import Background
from graph.batch import BatchRows
from graph.caches import UserCaches
from graph.errors import Conflict, NotFound
from graph.ids import MemoryId, new_memory_id
from graph.limits import Limits
from graph.memory_facts import UserFacts
from graph.model_threads import Models, Vector
from graph.profile_store import day_of
from graph.records import Mark, MemoryRecord
from graph.repeats import REPEAT_COSINE, Said, closest_repeat, said_whole
from graph.store import Store
from graph.validation import NewMemory, content_hash, validate_batch
from graph.vectors import encode_embedding, passage_vectors
from graph.write.confirming import confirmations, with_confirmations
from graph.write.merge_stage import Folded, Merger
from graph.write.rows import Written, build_rows
from graph.write.screen import Screen
from graph.write.stored import Stored, decide

log = logging.getLogger("recollect.write")

# turns of a session read back for its people when the cache is cold (pronouns in the next turn)
SESSION_TURNS = 8
# tries of a write that meets another process's same input (each try checks again first)
CONFLICT_TRIES = 3

# called off the request path after turns with a sessionId were written: (user_id, event time of
# the newest turn written)
AfterWrite = Callable[[str, float], object]


@dataclass
class RememberResult:
    records: list[MemoryRecord]
    created: list[bool]
    # how each was stored: NEW, REPEAT, MERGED or REDACTED, with the earlier memory's id
    stored: list[Stored]


@dataclass
class _Slots:
    """A batch's outcome by position: the memory each input is, and whether this call made it."""

    ids: list[MemoryId | None]
    created: list[bool]
    # user -> earlier memories whose facts this batch changed: linked to a topic that recurs
    # now (MENTIONS added), or mentioning an entity merged or retyped (their mentions moved)
    changed: dict[str, set[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class _Prepared:
    """Inputs of one user that need writing, with what the models made of them (by position)."""

    hashes: dict[int, str]
    fresh: list[int]
    extractions: dict[int, Extraction]
    vectors: dict[int, Vector]
    # the passages of a person's long text (graph/vectors.py), by position; zero rows for most
    passages: dict[int, Vector]
    # the mark this process's caches held before idempotency was checked: when the caches still
    # hold it under the write lock (after following the graph), nothing was written since
    seen_at: Mark | None


class WritePipeline:
    def __init__(
        self,
        store: Store,
        caches: UserCaches,
        models: Models,
        limits: Limits,
        background: Background,
        screen: Screen,
    ) -> None:
        self._screen = screen
        self.merger = Merger(store, caches, models)
        # new memory id -> the first earlier fact it absorbed, until the batch's answer reads it
        self.merged: dict[str, str] = {}
        self.merge_facts = False  # merge stated facts on write (graph/write/merge_stage.py)
        self._store = store
        self._caches = caches
        self._models = models
        self._limits = limits
        self._background = background
        self.after_write: AfterWrite | None = None
        # queues the profile update of the days of new turns without a session (it runs in the
        # background: graph/write/profiles.py)
        self.after_sessionless: Callable[[str, list[str]], object] | None = None
        # told of earlier memories whose facts a batch changed (a recurring topic linked to
        # them, an entity they name merged or retyped): their sessions' tallies are stale
        # (graph/write/profiles.py)
        self.after_changed: Callable[[str, list[str]], object] | None = None
        self.ingested = 0  # memories written since start (for /metrics)

    def remember_many(self, inputs: Sequence[NewMemory]) -> RememberResult:
        batch = list(inputs)
        validate_batch(batch, self._limits.max_text_chars, self._limits.max_batch)
        batch = self._screen.batch(batch)  # before anything is written anywhere
        now = time.time()
        slots = _Slots([None] * len(batch), [False] * len(batch))
        by_user: dict[str, list[int]] = defaultdict(list)
        for i, memory in enumerate(batch):
            by_user[memory.user_id].append(i)
        for user_id, positions in by_user.items():
            prepared = self._prepare(user_id, batch, positions, slots)
            if prepared is not None and self._commit_retrying(user_id, batch, prepared, slots, now):
                self._caches.use(user_id)
        self._caches.flush()
        self._after(batch, by_user, slots, now)
        return self._result(by_user, slots)

    def _after(
        self, batch: list[NewMemory], by_user: dict[str, list[int]], slots: _Slots, now: float
    ) -> None:
        """Schedules `after_write` for each user whose new turns carry a session; tells
        `after_changed` of the earlier memories whose facts the batch changed, then
        `after_sessionless` of the UTC days of the new turns that carry no session."""
        for user_id, positions in by_user.items():
            created = [batch[i] for i in positions if slots.created[i]]
            turns = [t for t in created if t.session_id]
            if turns and self.after_write is not None:
                latest = max(t.occurred_at or now for t in turns)
                self._background.run(self.after_write, user_id, latest, user=user_id)
            # before the days' update is queued: that update tallies the changed ones too
            changed = slots.changed.get(user_id)
            if changed and self.after_changed is not None:
                self.after_changed(user_id, sorted(changed))
            days = {
                day_of(now if t.occurred_at is None else t.occurred_at)
                for t in created
                if not t.session_id and t.kind == "turn"
            }
            if days and self.after_sessionless is not None:
                self.after_sessionless(user_id, sorted(days))

    def _result(self, by_user: dict[str, list[int]], slots: _Slots) -> RememberResult:
        """The records of every input, as stored (a known input returns the existing memory)."""
        by_id: dict[MemoryId, MemoryRecord] = {}
        for user_id, positions in by_user.items():
            by_id.update(self._store.memories(user_id, [slots.ids[i] or "" for i in positions]))
        final = [MemoryId(i or "") for i in slots.ids]
        missing = [i for i in final if i not in by_id]
        for user_id in by_user if missing else ():
            # a fact of this batch absorbed by a later one of it (graph/write/merge_stage.py)
            by_id.update(self._store.absorbed(user_id, missing))
        lost = [i for i in final if i not in by_id]
        if lost:
            raise NotFound(f"memories {lost} vanished while being written")
        records = [by_id[i] for i in final]
        stored = [
            decide(r, made, self.merged.pop(str(r.id), None) if made else None)
            for r, made in zip(records, slots.created, strict=True)
        ]
        return RememberResult(records, list(slots.created), stored)

    # -- stages ---------------------------------------------------------------------------------

    def _prepare(
        self, user_id: str, batch: list[NewMemory], positions: list[int], slots: _Slots
    ) -> _Prepared | None:
        """Idempotency, then the models for what is new; None when nothing is."""
        hashes = {i: content_hash(batch[i]) for i in positions}
        seen_at = self._caches.vectors.mark(user_id)
        fresh = self._dedupe(user_id, batch, positions, hashes, slots)
        if not fresh:
            return None
        extractions, vectors = self._models.read_and_embed(
            [(batch[i].text, batch[i].speaker) for i in fresh]
        )
        read = dict(zip(fresh, extractions, strict=True))
        said = confirmations(self._store, user_id, batch, fresh)  # a bare "Yes" to a question
        speakers = {p: batch[p].speaker for p in said}
        with_confirmations(read, said, speakers, self._models.extractor.extract_many)
        passages = passage_vectors(
            self._models.embedder, [(batch[i].text, batch[i].speaker) for i in fresh]
        )
        return _Prepared(
            hashes,
            fresh,
            read,
            dict(zip(fresh, vectors, strict=True)),
            dict(zip(fresh, passages, strict=True)),
            seen_at,
        )

    def _dedupe(
        self,
        user_id: str,
        batch: list[NewMemory],
        positions: list[int],
        hashes: dict[int, str],
        slots: _Slots,
    ) -> list[int]:
        """Maps inputs that already exist (same externalId; without one, same normalised text and
        speaker; or the same within this batch) to their memory; returns the positions to create."""
        external = [e for i in positions if (e := batch[i].external_id)]
        existing = self._store.find_existing(user_id, external, [hashes[i] for i in positions])
        by_external = {row.external_id: row.id for row in existing if row.external_id}
        by_hash = {row.content_hash: row.id for row in existing}
        fresh: list[int] = []
        seen: dict[str, MemoryId] = {}  # externalId or content hash → memory, within the batch
        for i in positions:
            key = batch[i].external_id
            if key is not None:
                found = by_external.get(key) or seen.get("external:" + key)
            else:
                found = by_hash.get(hashes[i]) or seen.get("hash:" + hashes[i])
            if found:
                slots.ids[i] = MemoryId(found)
                slots.created[i] = False
                continue
            prior = slots.ids[i]  # kept from the check before the models ran
            memory_id = prior if slots.created[i] and prior is not None else new_memory_id()
            slots.ids[i] = memory_id
            slots.created[i] = True
            fresh.append(i)
            seen["external:" + key if key is not None else "hash:" + hashes[i]] = memory_id
        return fresh

    def _commit_retrying(
        self, user_id: str, batch: list[NewMemory], prepared: _Prepared, slots: _Slots, now: float
    ) -> bool:
        """`_commit`, again when the graph refuses the write because another process stored one
        of these inputs (the same externalId) since they were checked: the caches follow what it
        wrote, the check runs again and maps the input to that process's memory, so both
        processes answer with one id (graph/executor.py UNIQUE)."""
        for _ in range(CONFLICT_TRIES - 1):
            try:
                return self._commit_or_forget(user_id, batch, prepared, slots, now)
            except Conflict:
                log.info("a write met another process's same input; checking again")
                prepared = replace(prepared, seen_at=None)
        return self._commit_or_forget(user_id, batch, prepared, slots, now)

    def _commit_or_forget(
        self, user_id: str, batch: list[NewMemory], prepared: _Prepared, slots: _Slots, now: float
    ) -> bool:
        """`_commit`; when it fails, the held catalogue goes: resolving the batch taught it
        entities the graph never got, which a catalogue saved at the unchanged mark would keep
        (graph/catalog_files.py)."""
        try:
            return self._commit(user_id, batch, prepared, slots, now)
        except BaseException:
            self._caches.forget_catalog(user_id)
            raise

    def _commit(
        self, user_id: str, batch: list[NewMemory], prepared: _Prepared, slots: _Slots, now: float
    ) -> bool:
        """Under the write lock: resolve, link repeats, write, and follow the write. False when
        another request wrote every input meanwhile."""
        caches = self._caches
        with caches.lock:
            # the catalogue resolves against what every process wrote; the sessions' newest turns
            # (where the batch's join their NEXT chains) are read with the mark
            continued = sorted({s for i in prepared.fresh if (s := batch[i].session_id)})
            start = self._store.write_start(user_id, continued)
            caches.follow_locked(user_id, start.mark)
            caches.new_facts(user_id)
            # a concurrent request may have written the same memories meanwhile: check again,
            # unless the graph's mark is the one seen before the first check (the marks grow
            # with every change, so an equal mark means no change in between)
            fresh = prepared.fresh
            if prepared.seen_at is None or caches.vectors.mark(user_id) != prepared.seen_at:
                fresh = self._dedupe(user_id, batch, fresh, prepared.hashes, slots)
            if not fresh:
                return False
            resolver = caches.catalog(user_id)
            extractions = [prepared.extractions[i] for i in fresh]
            resolver.learn_speakers(extractions)
            ids = [slots.ids[i] or "" for i in fresh]
            memories = [batch[i] for i in fresh]
            resolutions = self._resolve(user_id, resolver, memories, ids, extractions)
            matrix = np.stack([prepared.vectors[i] for i in fresh])
            repeat_of = self._repeats(user_id, memories, ids, resolutions, matrix)
            folded = (
                self.merger.fold(user_id, memories, ids, extractions, matrix)
                if self.merge_facts
                else {}
            )
            written = _written(fresh, memories, ids, resolutions, matrix, prepared, folded)
            memories = [w.memory for w in written]  # merged texts, for BM25
            matrix = np.stack([_vector(matrix[p], folded.get(p)) for p in range(len(fresh))])
            # earlier memories that topics this batch promotes now mention
            earlier = {m for r in resolutions for m, _ in r.back_mentions}
            rows = build_rows(
                written,
                resolver.entities,
                self._models.embedder.model_id,
                now,
                start.tails,
                repeat_of,
                self._said_at(user_id, earlier - set(ids)),
            )
            rows = self._endings_held(user_id, rows)
            passages = [
                prepared.passages[i] if m.text == batch[i].text else None
                for i, m in zip(fresh, memories, strict=True)
            ]
            merged = self._write(user_id, resolver, rows, resolutions, memories, (matrix, passages))
            self._absorb(user_id, {ids[p]: f.absorbed for p, f in folded.items()}, now)
        slots.changed.setdefault(user_id, set()).update(earlier | merged)
        return True

    def _endings_held(self, user_id: str, rows: BatchRows) -> BatchRows:
        """The batch's endings of facts the graph may hold: every thing done ends a plan of it,
        and most such plans were never stated; looking for each in the graph would read the
        subject's relations (the user's thousands) for nothing. The batch's own relations are
        not held yet, so an ending of one of them is kept."""
        if not rows.endings:
            return rows
        stated = {(r.src, r.type, r.dst) for r in rows.relations}
        held = self._caches.may_hold(user_id, [(e.src, e.type, e.dst) for e in rows.endings])
        kept = tuple(
            e
            for e, may in zip(rows.endings, held, strict=True)
            if may or (e.src, e.type, e.dst) in stated
        )
        return replace(rows, endings=kept)

    def _absorb(self, user_id: str, absorbed: dict[str, tuple[str, ...]], now: float) -> None:
        """The earlier facts the batch's new ones merged: inactive in the graph, out of this
        process's caches (under the lock)."""
        caches = self._caches
        for kept, gone in absorbed.items():
            mark = self._store.absorb(user_id, kept, gone, now)
            caches.vectors.remove(user_id, gone)
            caches.lexical.remove(user_id, list(gone))
            caches.patch_facts(user_id, partial(_forgot, gone=gone))
            caches.advance(user_id, [mark])
            self.merged.update({kept: gone[0]})

    def _write(
        self,
        user_id: str,
        resolver: Resolver,
        rows: BatchRows,
        resolutions: Sequence[Resolution],
        memories: Sequence[NewMemory],
        vectors: tuple[Vector, Sequence[Vector | None]],
    ) -> set[str]:
        """The statement, the merges it implies, then this process's caches (under the lock).
        `vectors`: the memories' own, and their passages' (None where a merge changed the text:
        embedded here). Returns the memories that mentioned an entity merged away or backed its
        relations."""
        matrix, embedded = vectors
        caches = self._caches
        marks: list[Mark | None] = [self._store.write_batch(user_id, rows)]
        self.ingested += len(rows.memories)
        merges = [pair for resolution in resolutions for pair in resolution.merges]
        changed: set[str] = set()
        for source, target in merges:
            merge = self._store.merge_entities(user_id, source, target)
            if merge is not None:
                marks.append(merge.mark)
                changed.update(merge.changed)
        caches.patch_facts(user_id, lambda held: _wrote(held, rows, merges))
        ended = rows.endings
        caches.relations_changed(
            user_id,
            pairs=[(r.src, r.dst) for r in rows.relations]
            + [(e.src, e.dst) for e in ended if e.dst is not None],
            sources=rows.single_valued_sources,
            around=[key for pair in merges for key in pair]
            + [e.src for e in ended if e.dst is None],
        )
        caches.spoke(user_id, [s for m in memories if (s := m.speaker) and m.kind == "turn"])
        # counts in the cached catalogue follow the write
        for entity in rows.entities:
            known = resolver.entities.get(entity.key)
            if known is not None:
                resolver.learn(replace(known, mention_count=known.mention_count + entity.count))
        ids = [row.id for row in rows.memories]
        again = [(m.text, m.speaker) for m, p in zip(memories, embedded, strict=True) if p is None]
        made = iter(passage_vectors(self._models.embedder, again))
        passages = [p if p is not None else next(made) for p in embedded]
        caches.vectors.add(user_id, ids, matrix, passages)
        caches.lexical.add(user_id, ids, [embedding_text(m.text, m.speaker) for m in memories])
        caches.advance(user_id, marks)
        return changed

    def _said_at(self, user_id: str, stored: set[str]) -> dict[str, float]:
        """When the stored memories that topics promoted now mention were said (one statement,
        only when a batch promotes one): a topic is first seen when it was first said."""
        if not stored:
            return {}
        found = self._store.memories(user_id, [MemoryId(m) for m in stored])
        return {str(k): m.occurred_at for k, m in found.items()}

    def _resolve(
        self,
        user_id: str,
        resolver: Resolver,
        memories: Sequence[NewMemory],
        ids: Sequence[str],
        extractions: Sequence[Extraction],
    ) -> list[Resolution]:
        """Each memory's extraction resolved in order, sessions read in when cold."""
        resolutions: list[Resolution] = []
        for memory, memory_id, extraction in zip(memories, ids, extractions, strict=True):
            session_id = memory.session_id
            if session_id and not resolver.knows_session(session_id):
                people, speakers = self._store.session_people(user_id, session_id, SESSION_TURNS)
                resolver.seed_session(session_id, people, speakers)
            if memory.kind == "episode":
                # a summary repeats its session's facts and is written by us: it mentions the
                # entities the turns made by their keys, but adds no entity, alias or fact
                known = [m for m in extraction.mentions if m.key in resolver.entities]
                extraction = Extraction(known, [], extraction.cues)
            stated = memory.fact_type is not None
            resolutions.append(resolver.resolve(extraction, memory_id, session_id, stated))
        return resolutions

    def _repeats(
        self,
        user_id: str,
        memories: Sequence[NewMemory],
        ids: Sequence[str],
        resolutions: Sequence[Resolution],
        matrix: Vector,
    ) -> dict[str, str]:
        """New memory id → the earlier memory it repeats (graph/repeats.py): the nearest
        stored vectors and the batch's earlier turns, through the gate."""
        said = [
            Said(
                memory_id,
                memory.speaker,
                memory.kind,
                frozenset(resolution.extraction.keys()),
                said_whole(memory.text),
            )
            for memory, memory_id, resolution in zip(memories, ids, resolutions, strict=True)
        ]
        hits = self._repeat_hits(user_id, ids, matrix)
        wanted = {m for found in hits for m, _ in found} - set(ids)
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

    def _repeat_hits(
        self, user_id: str, ids: Sequence[str], matrix: Vector
    ) -> list[list[tuple[str, float]]]:
        """Per new memory, the stored memories and the batch's earlier ones at least
        REPEAT_COSINE close."""
        hits: list[list[tuple[str, float]]] = []
        batch_cosine = matrix @ matrix.T  # the batch's earlier turns count too
        for p in range(len(ids)):
            stored = self._caches.vectors.search(user_id, matrix[p], 3)
            earlier = np.flatnonzero(batch_cosine[p, :p] >= REPEAT_COSINE)
            within = [(ids[int(q)], float(batch_cosine[p, q])) for q in earlier]
            hits.append([(str(m), c) for m, c in [*stored, *within] if c >= REPEAT_COSINE])
        return hits


def _written(
    fresh: Sequence[int],
    memories: Sequence[NewMemory],
    ids: Sequence[str],
    resolutions: Sequence[Resolution],
    matrix: Vector,
    prepared: _Prepared,
    folded: dict[int, Folded],
) -> list[Written]:
    """The batch's memories as written: a fact that absorbed earlier ones carries the merged
    text and vector, and its own to restore on unmerge."""
    out: list[Written] = []
    for p, (i, memory, memory_id, resolution) in enumerate(
        zip(fresh, memories, ids, resolutions, strict=True)
    ):
        fold = folded.get(p)
        own = encode_embedding(matrix[p])
        if fold is None:
            out.append(Written(memory, memory_id, prepared.hashes[i], resolution, own))
            continue
        merged = replace(memory, text=fold.text)
        embedding = encode_embedding(fold.vector)
        written = Written(merged, memory_id, prepared.hashes[i], resolution, embedding)
        out.append(replace(written, own_text=memory.text, own_embedding=own))
    return out


def _forgot(held: UserFacts, gone: Sequence[str]) -> None:
    for memory_id in gone:
        held.forgot(memory_id)


def _vector(own: Vector, fold: Folded | None) -> Vector:
    return own if fold is None else fold.vector


def _wrote(held: UserFacts, rows: BatchRows, merges: Sequence[tuple[str, str]]) -> None:
    """A batch's write and then its merges, in the order the graph applied them."""
    held.wrote(rows)
    for source, target in merges:
        held.merged(source, target)
