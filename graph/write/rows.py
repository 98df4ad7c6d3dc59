"""A batch of new memories as the rows `cypher/write_memories.cypher` unwinds: memories, entities,
mentions, relations, sessions, session membership, the NEXT chain and earlier memories said again.

Pre-aggregating in Python keeps the statement a plain walk over each list, so a batch is one atomic
statement on both engines. The rows are frozen and typed: the store turns them into parameters
(`BatchRows.params`) and the memory-facts copy reads them (graph/memory_facts.py), each by field.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from extraction.model import ANY, KnownEntity
from extraction.resolver import Resolution
from extraction.when import event_interval
from graph.validation import DEFAULT_IMPORTANCE, MAX_IMPORTANCE, NewMemory
from graph.vectors import to_faiss_id
from graph.vocabulary import SINGLE_VALUED_TYPES


@dataclass(frozen=True)
class MemoryRow:
    id: str
    text: str
    caption: str  # a short caption for Neo4j Browser
    speaker: str | None
    session_id: str | None
    occurred_at: float
    event_start: float | None  # the time the text speaks of (extraction/when.py)
    event_end: float | None
    created_at: float
    external_id: str | None
    content_hash: str
    importance: int
    pinned: bool
    category: str | None
    fact_type: str | None
    kind: str
    vector_id: int
    embedding: str  # base64 of little-endian float32
    embedding_model: str
    topic_candidates: list[str] | None
    repeat_of: str | None
    redactions: list[str] | None = None  # the types the storage policy redacted from the text
    # a stated fact that absorbed others (graph/write/merge.py): its own text and embedding,
    # restored by unmerge; `text` and `embedding` are the merged ones
    own_text: str | None = None
    own_embedding: str | None = None
    domain: str | None = None  # the knowledge index is kept per (user, domain)


@dataclass(frozen=True)
class EntityRow:
    key: str
    type: str
    label: str
    aliases: tuple[str, ...]
    count: int  # mentions this batch adds
    first_seen: float
    last_seen: float
    gender: str | None
    unnamed: bool
    plural: bool


@dataclass(frozen=True)
class MentionRow:
    memory_id: str
    key: str
    as_speaker: bool


@dataclass(frozen=True)
class RelationRow:
    src: str
    type: str
    dst: str
    role: str | None
    count: int
    strong: int  # of `count`, said by pinned or importance-3 memories
    evidence: tuple[str, ...]
    first_seen: float
    last_seen: float


@dataclass(frozen=True)
class EndingRow:
    """A fact a memory says stopped holding ("I quit the club"): every `type` relation from `src`
    to `dst` (None: to anyone) stated before `at` is history from `at` on; `at` is by when the
    memory says it happened when it names a time ("when I visited Rome in 2019" ends no plan
    made since), else when it was said."""

    src: str
    type: str
    dst: str | None
    at: float
    memory_id: str


@dataclass(frozen=True)
class NextRow:
    """One link of a session's chain of turns: `before` is followed by `after`."""

    before: str
    after: str


@dataclass(frozen=True)
class SessionRow:
    id: str
    count: int
    started_at: float
    last_turn_at: float


@dataclass(frozen=True)
class InSessionRow:
    memory_id: str
    session_id: str


@dataclass(frozen=True)
class RepeatRow:
    """An earlier memory said again in this batch, and how often (graph/repeats.py)."""

    id: str
    count: int


@dataclass(frozen=True)
class BatchRows:
    memories: tuple[MemoryRow, ...]
    entities: tuple[EntityRow, ...]
    mentions: tuple[MentionRow, ...]
    relations: tuple[RelationRow, ...]
    next: tuple[NextRow, ...]
    sessions: tuple[SessionRow, ...]
    in_session: tuple[InSessionRow, ...]
    repeated: tuple[RepeatRow, ...]
    # sources whose one-value-at-a-time facts this batch states: their validity is recomputed
    single_valued_sources: tuple[str, ...]
    # facts the batch's memories say stopped holding (extraction/endings.py)
    endings: tuple[EndingRow, ...] = ()

    def params(self) -> dict[str, Any]:
        """The statement's parameters: lists of maps (tuples become lists; the engines' clients
        send lists)."""
        return {
            "memories": [asdict(r) for r in self.memories],
            "entities": [asdict(r) | {"aliases": list(r.aliases)} for r in self.entities],
            "mentions": [asdict(r) for r in self.mentions],
            "relations": [asdict(r) | {"evidence": list(r.evidence)} for r in self.relations],
            "next": [{"from": r.before, "to": r.after} for r in self.next],
            "sessions": [asdict(r) for r in self.sessions],
            "in_session": [asdict(r) for r in self.in_session],
            "repeated": [asdict(r) for r in self.repeated],
            "single_valued_sources": list(self.single_valued_sources),
            "endings": [asdict(r) for r in self.endings if r.dst is not None],
            "endings_any": [asdict(r) for r in self.endings if r.dst is None],
        }


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
