"""Entity-first retrieval: the message's entities → one-hop expansion → candidates → score → block.

1. Mentions of the message (spaCy, plus n-grams of the message matched against the user's known
   entity names, so lower-case or NER-missed names still count), resolved against the catalogue.
2. Per seed, up to `expand_per_seed` neighbours: relations of a type the message cues first
   ("work" → WORKS_AT), then relations backed by pinned or importance-3 memories (`strong`),
   then the strongest by count. Memories that are the evidence of a cued relation of a seed are
   candidates too, and count as a structural match inside Similarity (graph/scoring.py).
3. Candidates: memories mentioning seeds or expanded entities (newest `per_entity` each) ∪ FAISS
   top-k for the message.
4. Score with graph/scoring.py; every memory carries its parts and `via`.
5. Entity cards and memories rendered within the token budget (graph/context.py).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from extraction.keys import slug
from extraction.resolver import Resolver
from graph.errors import InvalidInput
from graph.recall import scoring
from graph.recall.block import Ranked, Window, compose, minimum_tokens
from graph.recall.scoring import Weights
from graph.recall.sessions import turn_window
from graph.records import EntityRecord, MemoryFacts, MemoryRecord
from graph.service import MemoryService

Vector = npt.NDArray[np.float32]

_WORD = re.compile(r"[\w'’-]+", re.UNICODE)


@dataclass(frozen=True)
class ContextRequest:
    user_id: str
    message: str
    as_of: float | None = None
    max_memories: int = 8
    token_budget: int | None = None
    weights: Weights = field(default_factory=Weights)
    speaker: str | None = None
    max_cards: int = 5
    expand_per_seed: int = 2
    per_entity: int = 50
    hub_mentions: int = 2_000
    card_relations: int = 20  # strongest relations per card, besides those of a cued type
    evidence_per_relation: int = 20  # newest evidence memories of each cued relation
    cued_evidence: int = 100  # evidence memories of cued relations, strongest relations first
    vector_k: int = 50
    lexical_k: int = 50
    neighbour_pool: int = 30
    session_id: str | None = None
    max_episodes: int = 2


@dataclass(frozen=True)
class ScoredMemory:
    memory: MemoryRecord
    score: float
    similarity: float
    recency: float
    frequency: float
    via: tuple[str, ...]
    neighbour: float = 0.0  # the share of the best adjacent turn's score added to `score`


@dataclass(frozen=True)
class _Scored:
    """A candidate while it is ranked: its facts only, not yet its text."""

    facts: MemoryFacts
    score: float
    similarity: float
    recency: float
    frequency: float
    via: tuple[str, ...]
    neighbour: float = 0.0

    def full(self, memory: MemoryRecord) -> ScoredMemory:
        return ScoredMemory(
            memory,
            self.score,
            self.similarity,
            self.recency,
            self.frequency,
            self.via,
            self.neighbour,
        )


@dataclass
class ContextResult:
    text: str
    tokens: int
    cards: list[EntityRecord]
    memories: list[ScoredMemory]
    seeds: list[str]
    expanded: list[str]
    episodes: list[ScoredMemory] = field(default_factory=list)
    window: Window | None = None
    pruned: list[str] = field(default_factory=list)


def message_keys(
    service: MemoryService, user_id: str, message: str, speaker: str | None
) -> tuple[list[str], frozenset[str]]:
    """Known entity keys the message refers to (in order of appearance) and its relation cues."""
    resolver = service.catalog(user_id)
    keys: list[str] = []
    extraction = service.extractor.extract(message, speaker)
    for mention in extraction.mentions:
        found = resolver.resolve_key(mention.key)
        if found and found not in keys:
            keys.append(found)
    words = _WORD.findall(message)
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            value = slug(" ".join(words[start : start + size]))
            for key in resolver.named(value) if value else ():
                if key not in keys:
                    keys.append(key)
    return keys, extraction.cues


def retrieve(service: MemoryService, request: ContextRequest) -> ContextResult:
    request.weights.validate()
    as_of = request.as_of if request.as_of is not None else time.time()
    time_line, user_line = _header_lines(service, request, as_of)
    floor = minimum_tokens(time_line, user_line)
    if request.token_budget is not None and request.token_budget < floor:
        raise InvalidInput(
            "tokenBudget",
            f"is {request.token_budget}; at least {floor} needed for the time and user lines",
        )
    # the message is embedded on the query pool while this thread reads the graph
    embedding = service.embed_query(embedding_text(request.message, None))
    try:
        return _retrieve(service, request, as_of, time_line, user_line, embedding)
    finally:
        embedding.cancel()  # a failed call leaves no work queued; a running one just finishes


def _retrieve(
    service: MemoryService,
    request: ContextRequest,
    as_of: float,
    time_line: str,
    user_line: str,
    embedding: Future[Vector],
) -> ContextResult:
    user_id = request.user_id
    window = None
    if request.session_id is not None:
        window = turn_window(service, user_id, request.session_id)
    resolver = service.catalog(user_id)
    seeds, cues = message_keys(service, user_id, request.message, request.speaker)

    # one-hop expansion
    seed_cards = service.store.entities(user_id, seeds, request.card_relations, cues)
    expanded: dict[str, str] = {}  # key -> "REL from seed"
    for seed in seeds:
        card = seed_cards.get(seed)
        if card is None:
            continue
        ranked = sorted(
            card.relations, key=lambda r: (r.type in cues, r.strong > 0, r.count), reverse=True
        )
        taken = 0
        for rel in ranked:
            if taken >= request.expand_per_seed:
                break
            if rel.target in seeds or rel.target in expanded:
                continue
            expanded[rel.target] = f"{rel.type} of {seed}"
            taken += 1

    # memories that are the evidence of a relation the message asks about
    cued: dict[str, str] = {}
    evidence = service.store.relation_evidence(
        user_id, seeds, sorted(cues), request.evidence_per_relation
    )
    # strongest relations first, until `cued_evidence` memories (an org WORKS_AT-related to
    # hundreds of people would otherwise make each of their statements a candidate)
    evidence.sort(key=lambda r: (r.get("strong") or 0, r.get("count") or 0), reverse=True)
    for row in evidence:
        for memory_id in reversed(row["evidence"] or ()):  # newest first
            if len(cued) >= request.cued_evidence:
                break
            cued.setdefault(memory_id, f"relation:{row['type']}:{row['target']}")

    # candidates: an entity mentioned by more than `hub_mentions` memories (the user, a constant
    # topic) is no way to find one memory — reading its memories would grow with the user's
    # history; it still counts for scoring through `relevant`
    counts = {key: entity.mention_count for key, entity in resolver.entities.items()}
    sources = [k for k in [*seeds, *expanded] if counts.get(k, 0) <= request.hub_mentions]
    entity_ids = service.store.entity_memory_ids(user_id, sources, request.per_entity)
    k = max(request.vector_k, request.max_memories * 4)
    lexical = service.lexical.get(user_id).scores(request.message)
    lexical_top = lexical.top(max(request.lexical_k, k))
    lexical_set = set(lexical_top)
    max_count = max(counts.values(), default=0)
    relevant = set(seeds) | set(expanded)
    weights = request.weights

    def facts_of(ids: list[str]) -> dict[str, MemoryFacts]:
        found = service.store.memory_facts(user_id, ids)
        return {str(i): m for i, m in found.items() if m.occurred_at <= as_of}

    # the candidates known without the message's vector are read while it is being computed
    early_ids = [*lexical_top, *cued]
    for ids in entity_ids.values():
        early_ids.extend(ids)
    early = facts_of(early_ids)
    query = embedding.result()
    vector_hits = dict(service.vectors.search(user_id, query, k))
    cosine: dict[str, float] = {str(k): v for k, v in vector_hits.items()}

    def with_cosine(found: dict[str, MemoryFacts]) -> dict[str, MemoryFacts]:
        missing = [i for i in found if i not in cosine]
        for memory_id, vector in service.vectors.vectors(user_id, missing).items():
            cosine[memory_id] = float(np.dot(vector, query))
        return found

    def fetch(ids: list[str]) -> dict[str, MemoryFacts]:
        return with_cosine(facts_of(ids))

    late = facts_of([i for i in vector_hits if i not in early])
    candidates = with_cosine({**late, **early})

    def score_one(memory_id: str, memory: MemoryFacts, extra: tuple[str, ...] = ()) -> _Scored:
        sim = scoring.similarity(
            cosine.get(memory_id, 0.0),
            lexical.normalized(memory_id),
            weights.lexical,
            memory_id in cued,
        )
        rec = scoring.recency(memory.occurred_at, as_of, weights.half_life_days)
        linked = [k for k in memory.entity_keys if k in relevant]
        freq = max((scoring.frequency(counts.get(k, 0), max_count) for k in linked), default=0.0)
        via = [f"entity:{k}" for k in linked if k in seeds]
        via += [f"expanded:{k} ({expanded[k]})" for k in linked if k in expanded]
        if memory_id in cued:
            via.append(cued[memory_id])
        if memory_id in vector_hits:
            via.append("similarity")
        if memory_id in lexical_set:
            via.append("lexical")
        if memory.pinned:
            via.append("pinned")
        via.extend(extra)
        score = scoring.combine(weights, sim, rec, freq)
        return _Scored(memory, score, sim, rec, freq, tuple(via))

    scored = {i: score_one(i, m) for i, m in candidates.items()}
    if weights.neighbours > 0 and scored:
        scored = _with_neighbours(
            service, user_id, scored, fetch, score_one, weights.neighbours, request.neighbour_pool
        )
    ordered = sorted(scored.values(), key=lambda s: (s.score, s.facts.occurred_at), reverse=True)
    shown = {t.id for t in (window.first + window.last)} if window else set()
    own_episode = f"episode:{request.session_id}"
    top = [s for s in ordered if s.facts.kind != "episode" and s.facts.id not in shown]
    top = top[: request.max_memories]
    episodes = [
        s for s in ordered if s.facts.kind == "episode" and s.facts.external_id != own_episode
    ][: request.max_episodes]
    records = service.store.memories(user_id, [s.facts.id for s in top + episodes])
    shown_top = [s.full(records[s.facts.id]) for s in top if s.facts.id in records]
    shown_episodes = [s.full(records[s.facts.id]) for s in episodes if s.facts.id in records]

    # cards: seeds first, then expanded entities
    card_keys = [*seeds, *expanded][: request.max_cards]
    cards_by_key = dict(seed_cards)
    cards_by_key.update(
        service.store.entities(
            user_id, [k for k in card_keys if k not in seed_cards], request.card_relations, cues
        )
    )
    cards = [cards_by_key[k] for k in card_keys if k in cards_by_key]
    block = compose(
        time_line,
        user_line,
        cards,
        [Ranked(s.memory, s.score) for s in shown_top],
        [Ranked(s.memory, s.score) for s in shown_episodes],
        window,
        _target_labels(resolver, cards),
        request.token_budget,
    )
    shown_ids = set(block.memory_ids) | set(block.episode_ids)
    kept = [s for s in shown_top if s.memory.id in shown_ids]
    kept_episodes = [s for s in shown_episodes if s.memory.id in shown_ids]
    service.touch_later(user_id, [s.memory.id for s in kept + kept_episodes])
    return ContextResult(
        block.text,
        block.tokens,
        block.cards,
        kept,
        seeds,
        list(expanded),
        kept_episodes,
        block.window,
        block.pruned,
    )


def _target_labels(resolver: Resolver, cards: list[EntityRecord]) -> dict[str, str]:
    """Display labels of the entities the cards' relations point at (only those)."""
    targets = {rel.target for card in cards for rel in card.relations}
    return {k: resolver.entities[k].label for k in targets if k in resolver.entities}


def _header_lines(service: MemoryService, request: ContextRequest, as_of: float) -> tuple[str, str]:
    """The time line and the user line: when it is, who the user is, how long since last time."""
    now = datetime.fromtimestamp(as_of, tz=UTC)
    time_line = f"[NOW] {now.strftime('%Y-%m-%d %H:%M')} UTC ({now.strftime('%A')})"
    name = request.speaker or service.main_speaker(request.user_id)
    user_line = f"[USER] {request.user_id}" + (f" — {name}" if name else "")
    last = service.store.last_session(request.user_id, request.session_id)
    if last and last.get("last_turn_at") is not None:
        days = max(0, int((as_of - float(last["last_turn_at"])) // 86_400))
        ago = "today" if days == 0 else "1 day ago" if days == 1 else f"{days} days ago"
        user_line += f"; last session {last['id']} {ago}"
    return time_line, user_line


def _with_neighbours(
    service: MemoryService,
    user_id: str,
    scored: dict[str, _Scored],
    fetch: Callable[[list[str]], dict[str, MemoryFacts]],
    score_one: Callable[..., _Scored],
    share: float,
    pool_size: int,
) -> dict[str, _Scored]:
    """Adjacent turns of a session answer each other ("Did you go?" "Yes, last Sunday!"): the best
    `pool_size` memories bring their NEXT-chain neighbours in as candidates, and every memory adds
    `share` × the better of its neighbours' own scores to its score."""
    pool = sorted(scored.values(), key=lambda s: s.score, reverse=True)[:pool_size]
    links = service.store.neighbours(user_id, [s.facts.id for s in pool])
    adjacent: dict[str, set[str]] = {}
    for memory_id, pair in links.items():
        for other in pair:
            if other:
                adjacent.setdefault(memory_id, set()).add(other)
                adjacent.setdefault(other, set()).add(memory_id)
    fresh = [i for i in adjacent if i not in scored]
    for memory_id, memory in fetch(fresh).items():
        scored[memory_id] = score_one(memory_id, memory, ("neighbour",))
    out: dict[str, _Scored] = {}
    for memory_id, item in scored.items():
        best = max(
            (scored[o].score for o in adjacent.get(memory_id, ()) if o in scored), default=0.0
        )
        bonus = share * best
        out[memory_id] = replace(item, score=item.score + bonus, neighbour=bonus) if bonus else item
    return out
