"""Builds a batch's rows (graph/batch.py) from what the pipeline wrote: memories, entities,
mentions, relations, sessions, session membership, the NEXT chain and earlier memories said again.

Pre-aggregating in Python keeps the statement a plain walk over each list, so a batch is one atomic
statement on both engines.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from extraction.model import ANY, KnownEntity
from extraction.resolver import Resolution
from extraction.when import event_interval
from graph.batch import (
    BatchRows,
    EndingRow,
    EntityRow,
    InSessionRow,
    MemoryRow,
    MentionRow,
    NextRow,
    RelationRow,
    RepeatRow,
    SessionRow,
    external_key,
)
from graph.validation import DEFAULT_IMPORTANCE, MAX_IMPORTANCE, NewMemory
from graph.vectors import to_faiss_id
from graph.vocabulary import SINGLE_VALUED_TYPES


@dataclass(frozen=True)
class Written:
    """One new memory as the batch writes it: the input, its id and content hash, what the
    resolver made of its text, and its vector (base64, graph/vectors.py encode_embedding)."""

    memory: NewMemory
    id: str
    content_hash: str
    resolution: Resolution
    embedding: str
    own_text: str | None = None  # a fact that absorbed others: its own text and embedding
    own_embedding: str | None = None


@dataclass
class _Sum:
    """A relation or entity row being summed over the batch."""

    count: int = 0
    first_seen: float = float("inf")
    last_seen: float = float("-inf")
    strong: int = 0
    role: str | None = None
    evidence: list[str] = field(default_factory=list)

    def saw(self, when: float) -> None:
        self.count += 1
        self.first_seen = min(self.first_seen, when)
        self.last_seen = max(self.last_seen, when)


def build_rows(
    written: Sequence[Written],
    known: Mapping[str, KnownEntity],
    model_id: str,
    now: float,
    session_tails: Mapping[str, str],
    repeat_of: Mapping[str, str],
    earlier_at: Mapping[str, float] | None = None,
) -> BatchRows:
    """The rows of a batch, in the order given. `created_at` grows by a microsecond per position
    so the batch's order is kept; each memory of a session is chained (NEXT) after the session's
    previous one (`session_tails`: the last memory of each session before this batch). `known`
    (the resolver's catalogue) gives what a person known by role carries: gender, unnamed,
    plural. `repeat_of` maps a new memory to the earlier one it repeats (graph/repeats.py);
    `earlier_at`, the stored memories that topics promoted now mention to when they were said."""
    occurred = [w.memory.occurred_at if w.memory.occurred_at is not None else now for w in written]
    sessions = _sessions(written, occurred, session_tails)
    said_at = dict(earlier_at or {})
    said_at.update((w.id, when) for w, when in zip(written, occurred, strict=True))
    entities, mentions = _entities(written, occurred, known, said_at)
    relations = _relations(written, occurred)
    return BatchRows(
        memories=tuple(
            _memory_row(w, when, now + position * 1e-6, model_id, repeat_of.get(w.id))
            for position, (w, when) in enumerate(zip(written, occurred, strict=True))
        ),
        entities=entities,
        mentions=mentions,
        relations=relations,
        next=sessions[0],
        sessions=sessions[1],
        in_session=sessions[2],
        repeated=tuple(
            RepeatRow(original, n) for original, n in Counter(repeat_of.values()).items()
        ),
        single_valued_sources=tuple(
            sorted({r.src for r in relations if r.type in SINGLE_VALUED_TYPES})
        ),
        endings=tuple(
            EndingRow(e.src, e.type, None if e.dst == ANY else e.dst, _spoken_of(w, when), w.id)
            for w, when in zip(written, occurred, strict=True)
            for e in w.resolution.extraction.endings
        ),
    )


def _spoken_of(w: Written, occurred: float) -> float:
    """By when what a memory says had happened: the end of the time it names ("in 2019": by
    2020; "last week": by this week), never after it was said; else when it was said."""
    event = event_interval(w.resolution.extraction.dates, occurred)
    return min(event[1], occurred) if event else occurred


def _memory_row(
    w: Written, occurred: float, created: float, model_id: str, repeat_of: str | None
) -> MemoryRow:
    memory = w.memory
    event = event_interval(w.resolution.extraction.dates, occurred)
    return MemoryRow(
        id=w.id,
        text=memory.text,
        caption=caption(memory.text),
        speaker=memory.speaker,
        session_id=memory.session_id,
        occurred_at=occurred,
        event_start=event[0] if event else None,
        event_end=event[1] if event else None,
        created_at=created,
        external_id=memory.external_id,
        external_key=external_key(memory.user_id, memory.external_id),
        content_hash=w.content_hash,
        importance=_importance(memory),
        pinned=bool(memory.pinned),
        category=memory.category,
        fact_type=memory.fact_type,
        kind=memory.kind,
        domain=memory.domain,
        vector_id=to_faiss_id(w.id),
        embedding=w.embedding,
        embedding_model=model_id,
        topic_candidates=w.resolution.candidates or None,
        repeat_of=repeat_of,
        redactions=list(memory.redactions) or None,
        own_text=w.own_text,
        own_embedding=w.own_embedding,
    )


def _importance(memory: NewMemory) -> int:
    return DEFAULT_IMPORTANCE if memory.importance is None else memory.importance


def _sessions(
    written: Sequence[Written], occurred: Sequence[float], tails: Mapping[str, str]
) -> tuple[tuple[NextRow, ...], tuple[SessionRow, ...], tuple[InSessionRow, ...]]:
    """The NEXT links, the sessions touched (turns added, first and last turn) and membership."""
    last = dict(tails)
    links: list[NextRow] = []
    spans: dict[str, _Sum] = {}
    members: list[InSessionRow] = []
    for w, when in zip(written, occurred, strict=True):
        session = w.memory.session_id
        if not session:
            continue
        if session in last:
            links.append(NextRow(last[session], w.id))
        last[session] = w.id
        spans.setdefault(session, _Sum()).saw(when)
        members.append(InSessionRow(w.id, session))
    rows = tuple(SessionRow(s, n.count, n.first_seen, n.last_seen) for s, n in spans.items())
    return tuple(links), rows, tuple(members)


def _entities(
    written: Sequence[Written],
    occurred: Sequence[float],
    known: Mapping[str, KnownEntity],
    said_at: Mapping[str, float],
) -> tuple[tuple[EntityRow, ...], tuple[MentionRow, ...]]:
    """Each entity mentioned, with the mentions this batch adds (candidate topics promoted now
    mention their earlier memories too, seen when those were said: `said_at`), and the
    MENTIONS rows."""
    aliases: dict[str, set[str]] = {}
    for w in written:
        for key, names in w.resolution.aliases.items():
            aliases.setdefault(key, set()).update(names)
    sums: dict[str, _Sum] = {}
    labels: dict[str, tuple[str, str]] = {}
    mentions: list[MentionRow] = []
    for w, when in zip(written, occurred, strict=True):
        extraction = w.resolution.extraction
        back = [(earlier, key, False) for earlier, key in w.resolution.back_mentions]
        own = [(w.id, m.key, m.as_speaker) for m in extraction.mentions]
        here = {m.key: (m.type, m.label) for m in extraction.mentions}
        for mentioning, key, as_speaker in own + back:
            labels.setdefault(key, here[key])
            sums.setdefault(key, _Sum()).saw(said_at.get(mentioning, when))
            mentions.append(MentionRow(mentioning, key, as_speaker))
    rows = []
    for key, total in sums.items():
        entity_type, label = labels[key]
        facts = known.get(key)
        rows.append(
            EntityRow(
                key=key,
                type=entity_type,
                label=label,
                aliases=tuple(sorted(aliases.get(key, set()))),
                count=total.count,
                first_seen=total.first_seen,
                last_seen=total.last_seen,
                gender=facts.gender if facts else None,
                unnamed=bool(facts and facts.unnamed),
                plural=bool(facts and facts.plural),
            )
        )
    return tuple(rows), tuple(mentions)


def _relations(written: Sequence[Written], occurred: Sequence[float]) -> tuple[RelationRow, ...]:
    """Typed relations summed per (source, type, target): count, strength, evidence, first and
    last seen, the first role stated."""
    sums: dict[tuple[str, str, str], _Sum] = {}
    for w, when in zip(written, occurred, strict=True):
        strong = 1 if w.memory.pinned or _importance(w.memory) >= MAX_IMPORTANCE else 0
        for rel in w.resolution.extraction.relations:
            total = sums.setdefault((rel.src, rel.type, rel.dst), _Sum())
            total.saw(when)
            total.strong += strong
            total.evidence.append(w.id)
            total.role = total.role or rel.role
    return tuple(
        RelationRow(
            src=src,
            type=rel_type,
            dst=dst,
            role=total.role,
            count=total.count,
            strong=total.strong,
            evidence=tuple(total.evidence),
            first_seen=total.first_seen,
            last_seen=total.last_seen,
        )
        for (src, rel_type, dst), total in sums.items()
    )


def caption(text: str, limit: int = 60) -> str:
    """A short caption for Neo4j Browser."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
