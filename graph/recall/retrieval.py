"""Entity-first retrieval for `context`: the stages of graph/recall/stages.py run in order, with the
service's reads between them.

1. Seeds: the message's mentions (spaCy) and n-grams naming known entities, resolved against the
   user's catalogue; the relation types its words cue ("work" → WORKS_AT, WORKS_ON).
2. Expansion: per seed, up to `expand_per_seed` linked entities (cued types first, then relations
   backed by pinned or importance-3 memories, then the most frequent).
3. Cued evidence: memories recorded as evidence of a seed's relation of a cued type; they are
   candidates and count as a structural match inside Similarity (graph/recall/scoring.py).
4. Candidates: the newest `per_entity` memories of each seed and expanded entity (hubs excepted),
   ∪ BM25 top-k ∪ FAISS top-k ∪ cued evidence, each read as its facts only (time, kind, pinned,
   entity keys): from the service's in-process copy (graph/memory_facts.py) once it holds the
   user, else from the graph while the message is embedded.
5. Scoring (stages.Scorer), then each of the best `neighbour_pool` brings its session neighbours
   in and every memory adds `neighbours` × its best neighbour's score.
6. Selection: memories not in the current session's window, episodes of other sessions.
7. The block (graph/recall/block.py): header, entity cards, memories, episodes, the window, within
   the token budget; full records are read only for what is shown.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from extraction.resolver import Resolver
from extraction.when import event_interval
from graph import validation
from graph.errors import InvalidInput
from graph.ids import MemoryId
from graph.lexical import LexicalScores
from graph.limits import DEFAULT_MAX_MEMORIES, MAX_MEMORIES, Limits, check_range
from graph.recall import tense
from graph.recall.block import Ranked, Window, compose, minimum_tokens
from graph.recall.config import DEFAULT_CONFIG, RetrievalConfig
from graph.recall.sessions import turn_window
from graph.recall.stages import (
    Scored,
    Scorer,
    adjacency,
    card_keys,
    collapse,
    cue_lifts,
    cued_evidence,
    entity_sources,
    expand,
    find_seeds,
    hubs,
    neighbour_bonus,
    rank,
    relation_evidence,
    select,
    time_lifts,
)
from graph.records import MAX_EVIDENCE, EntityRecord, MemoryFacts, MemoryRecord
from graph.service import MemoryService

Vector = npt.NDArray[np.float32]
ScoredMemory = Scored[MemoryRecord]


@dataclass(frozen=True)
class ContextRequest:
    """What the caller asks; how to search is `config`, a named preset (graph/recall/config.py)."""

    user_id: str
    message: str
    as_of: float | None = None
    max_memories: int = DEFAULT_MAX_MEMORIES
    token_budget: int | None = None
    speaker: str | None = None
    session_id: str | None = None
    config: RetrievalConfig = DEFAULT_CONFIG


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


def check_request(request: ContextRequest, limits: Limits) -> None:
    """Every argument check of a context call, for every entry point; errors name the field."""
    validation.check_user_id(request.user_id)
    if not request.message.strip():
        raise InvalidInput("message", "must not be empty")
    validation.check_no_nul(request.message, "message")
    validation.check_no_nul(request.speaker, "speaker")
    validation.check_no_nul(request.session_id, "sessionId")
    if len(request.message) > limits.max_text_chars:
        raise InvalidInput(
            "message",
            f"is {len(request.message)} characters; at most {limits.max_text_chars} allowed",
        )
    check_range(request.max_memories, "maxMemories", 1, MAX_MEMORIES)
    if request.token_budget is not None:
        check_range(request.token_budget, "tokenBudget", 1, limits.max_token_budget)
    request.config.weights.validate()


def retrieve(service: MemoryService, request: ContextRequest) -> ContextResult:
    check_request(request, service.limits)
    # the caches (FAISS, BM25, catalogue) first catch up with what other processes changed
    service.follow(request.user_id)
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


@dataclass
class Candidates:
    """The memories that may answer, as facts (those that happened by `as_of`), with the cosine
    of each to the message (the best over the message and its parts) and what BM25 and FAISS
    found."""

    facts: dict[str, MemoryFacts]
    cosine: dict[str, float]
    queries: Vector  # the message's vector, then its parts', one row each
    lexical: LexicalScores
    vector_hits: frozenset[str]
    lexical_hits: frozenset[str]
    # memories closer to one of the message's parts than to the whole message
    part_hits: frozenset[str] = frozenset()


def _retrieve(
    service: MemoryService,
    request: ContextRequest,
    as_of: float,
    time_line: str,
    user_line: str,
    embedding: Future[Vector],
) -> ContextResult:
    user_id, config = request.user_id, request.config
    window = None
    if request.session_id is not None:
        window = turn_window(service, user_id, request.session_id, config)
    resolver = service.catalog(user_id)
    said = service.extract(request.message, request.speaker)
    seeds = find_seeds(said, resolver, request.message)
    # a time the message names ("what did I do last weekend?"), resolved against asOf
    when = event_interval(said.dates, as_of) if config.time_lift > 0 else None
    # mention counts of the entities scoring links to (not the whole catalogue: a call must not
    # cost in proportion to the user's history)
    counts = _mentions(resolver, seeds.keys)
    # the seeds' cards carry every relation of a cued type with enough evidence for the cued
    # candidates: one statement for both. A hub's card (the user, a constant topic) is read with
    # its relations only when the message cues a type: ranking its thousands of relations costs in
    # proportion to the user's history, and its strongest few say nothing about this message
    seed_cards = service.entities(
        user_id,
        seeds.keys,
        config.card_relations,
        seeds.cues,
        max(MAX_EVIDENCE, config.evidence_per_relation),
        bare=() if seeds.cues else hubs(seeds.keys, counts, config.hub_mentions),
    )
    expanded = expand(seeds, seed_cards, config.expand_per_seed)
    counts.update(_mentions(resolver, expanded))
    evidence = relation_evidence(seed_cards, seeds.cues, config.evidence_per_relation)
    cued = cued_evidence(evidence, config.cued_evidence)
    lifts = cue_lifts(evidence, cued, seeds.keys, config.paired_lift, config.cued_lift)
    asked = tense.focus(request.message)
    lifts = time_lifts(evidence, lifts, asked, config.superseded_demotion, config.paired_lift)
    sources = entity_sources([*seeds.keys, *expanded], counts, config.hub_mentions)
    entity_ids = service.entity_memory_ids(user_id, sources, config.per_entity)
    early = [i for ids in entity_ids.values() for i in ids]
    timed = service.memories_in_time(user_id, when, config.time_candidates) if when else []
    # a message of several parts ("which came first, A or B?") is compared part by part too
    pieces = [embedding_text(p, None) for p in said.parts] if config.message_parts else []
    parts = service.embed_queries(pieces) if pieces else None
    try:
        candidates = _gather(service, request, as_of, [*cued, *early, *timed], embedding, parts)
    finally:
        if parts is not None:
            parts.cancel()  # as the message's: a failed call leaves no work queued
    scorer = Scorer(
        request.config.weights,
        as_of,
        seeds.keys,
        expanded,
        cued,
        lifts,
        counts,
        resolver.most_mentions,
        candidates.lexical,
        candidates.vector_hits,
        candidates.lexical_hits,
        when,
        config.time_lift,
        config.speaker_lift,
        seeds.people,
    )
    cosine, by_part = candidates.cosine, candidates.part_hits
    scored = {
        i: scorer.score(m, cosine.get(i, 0.0), ("part",) if i in by_part else ())
        for i, m in candidates.facts.items()
    }
    if config.weights.neighbours > 0 and scored:
        scored = _with_neighbours(service, request, as_of, candidates, scorer, scored)
    on_screen = {str(t.id) for t in (window.first + window.last)} if window else set()
    own_episode = f"episode:{request.session_id}" if request.session_id is not None else None
    ranked = rank(scored.values())
    if config.repeat_cosine < 1:
        ranked = _collapse_repeats(service, request, ranked)
    top, episodes = select(
        ranked, on_screen, own_episode, request.max_memories, config.max_episodes
    )
    records = service.memories(user_id, [s.memory.id for s in top + episodes])
    shown_top = [s.shown(records[s.memory.id]) for s in top if s.memory.id in records]
    shown_episodes = [s.shown(records[s.memory.id]) for s in episodes if s.memory.id in records]

    keys = card_keys(seeds, expanded, config.max_cards)
    cards_by_key = dict(seed_cards)
    missing = [k for k in keys if k not in seed_cards]
    bare = hubs(missing, counts, config.hub_mentions)  # expanded hubs: display only
    cards_by_key.update(
        service.entities(user_id, missing, config.card_relations, seeds.cues, bare=bare)
    )
    cards = [cards_by_key[k] for k in keys if k in cards_by_key]
    targets = {rel.target for card in cards for rel in card.relations}
    labels = {k: resolver.entities[k].label for k in targets if k in resolver.entities}
    block = compose(
        time_line,
        user_line,
        cards,
        [Ranked(s.memory, s.score) for s in shown_top],
        [Ranked(s.memory, s.score) for s in shown_episodes],
        window,
        labels,
        request.token_budget,
        config.card_relations_shown,
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
        seeds.keys,
        list(expanded),
        kept_episodes,
        block.window,
        block.pruned,
    )


def _mentions(resolver: Resolver, keys: Iterable[str]) -> dict[str, int]:
    """Mention counts of the known `keys`, from the catalogue."""
    known = resolver.entities
    return {k: known[k].mention_count for k in keys if k in known}


def _facts(
    service: MemoryService, user_id: str, as_of: float, ids: list[str], skew_hours: float
) -> dict[str, MemoryFacts]:
    return _happened(service.memory_facts(user_id, ids), as_of, skew_hours)


def _happened(
    found: Mapping[MemoryId, MemoryFacts], as_of: float, skew_hours: float
) -> dict[str, MemoryFacts]:
    """The memories said by `as_of`, give or take the clocks' skew: a question asked in the past
    sees nothing said well after it (RetrievalConfig.clock_skew_hours says why not exactly)."""
    latest = as_of + skew_hours * 3600.0
    return {str(i): m for i, m in found.items() if m.occurred_at <= latest}


def _collapse_repeats(
    service: MemoryService, request: ContextRequest, ranked: list[Scored[MemoryFacts]]
) -> list[Scored[MemoryFacts]]:
    """Near-identical turns among the best 3 × maxMemories shown once (stages.collapse); the
    rest of the ranking follows unchanged."""
    config = request.config
    turns = [s for s in ranked if s.memory.kind != "episode"]
    head = turns[: request.max_memories * 3]
    in_head = {s.memory.id for s in head}
    rest = [s for s in ranked if s.memory.id not in in_head]
    vectors = service.stored_vectors(request.user_id, [s.memory.id for s in head])
    return rank([*collapse(head, vectors, config.repeat_cosine, config.weights), *rest])


def _fill_cosine(
    service: MemoryService,
    user_id: str,
    queries: Vector,
    cosine: dict[str, float],
    ids: list[str],
    by_part: set[str] | None = None,
) -> None:
    """Cosines of memories not scored yet, from their stored vectors: the best over the rows of
    `queries` (the message, then its parts); those whose best is a part's go into `by_part`."""
    missing = [i for i in ids if i not in cosine]
    for memory_id, vector in service.stored_vectors(user_id, missing).items():
        scores = queries @ vector
        best = int(np.argmax(scores))
        cosine[memory_id] = float(scores[best])
        if best > 0 and by_part is not None:
            by_part.add(memory_id)


def _gather(
    service: MemoryService,
    request: ContextRequest,
    as_of: float,
    known: list[str],
    embedding: Future[Vector],
    parts: Future[Vector] | None = None,
) -> Candidates:
    """Reads the candidates: those known without the message's vector (BM25's, the cued evidence,
    the entities' memories in `known`) while it is computed, then FAISS's for the message and
    for each of its parts."""
    user_id, config = request.user_id, request.config
    k = max(config.vector_k, request.max_memories * 4)
    lexical = service.lexical_scores(user_id, request.message)
    lexical_top = lexical.top(max(config.lexical_k, k))
    skew = config.clock_skew_hours
    early = _facts(service, user_id, as_of, [*lexical_top, *known], skew)
    query = embedding.result()
    queries = query.reshape(1, -1) if parts is None else np.vstack([query, parts.result()])
    vector_hits: dict[MemoryId, float] = {}
    for row in queries:
        for memory_id, score in service.search_vectors(user_id, row, k):
            vector_hits[memory_id] = max(score, vector_hits.get(memory_id, -1.0))
    late = _facts(service, user_id, as_of, [i for i in vector_hits if i not in early], skew)
    facts = {**late, **early}
    # FAISS's scores are the cosines of its hits; of a message with parts, every candidate's
    # best cosine over the parts is computed from its vector
    cosine = {str(i): score for i, score in vector_hits.items()} if parts is None else {}
    by_part: set[str] = set()
    _fill_cosine(service, user_id, queries, cosine, list(facts), by_part)
    return Candidates(
        facts,
        cosine,
        queries,
        lexical,
        frozenset(vector_hits),
        frozenset(lexical_top),
        frozenset(by_part),
    )


def _with_neighbours(
    service: MemoryService,
    request: ContextRequest,
    as_of: float,
    candidates: Candidates,
    scorer: Scorer,
    scored: dict[str, Scored[MemoryFacts]],
) -> dict[str, Scored[MemoryFacts]]:
    """The best `neighbour_pool` memories bring their session neighbours in as candidates, then
    every memory gets the neighbour bonus (stages.neighbour_bonus)."""
    user_id = request.user_id
    pool = sorted(scored.values(), key=lambda s: s.score, reverse=True)
    pool = pool[: request.config.neighbour_pool]
    links, around = service.turn_neighbours(user_id, [s.memory.id for s in pool])
    adjacent = adjacency(links)
    skew = request.config.clock_skew_hours
    found = {i: m for i, m in _happened(around, as_of, skew).items() if i not in scored}
    by_part = set(candidates.part_hits)
    _fill_cosine(service, user_id, candidates.queries, candidates.cosine, list(found), by_part)
    for memory_id, memory in found.items():
        cosine = candidates.cosine.get(memory_id, 0.0)
        extra = ("neighbour", "part") if memory_id in by_part else ("neighbour",)
        scored[memory_id] = scorer.score(memory, cosine, extra)
    return neighbour_bonus(scored, adjacent, request.config.weights.neighbours)


def _header_lines(service: MemoryService, request: ContextRequest, as_of: float) -> tuple[str, str]:
    """The time line and the user line: when it is, who the user is, how long since last time."""
    now = datetime.fromtimestamp(as_of, tz=UTC)
    time_line = f"[NOW] {now.strftime('%Y-%m-%d %H:%M')} UTC ({now.strftime('%A')})"
    name = request.speaker or service.main_speaker(request.user_id)
    user_line = f"[USER] {request.user_id}" + (f" — {name}" if name else "")
    last = service.last_session(request.user_id, request.session_id)
    if last and last.get("last_turn_at") is not None:
        days = max(0, int((as_of - float(last["last_turn_at"])) // 86_400))
        ago = "today" if days == 0 else "1 day ago" if days == 1 else f"{days} days ago"
        user_line += f"; last session {last['id']} {ago}"
    return time_line, user_line
