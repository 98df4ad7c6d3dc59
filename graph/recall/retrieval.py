"""Entity-first retrieval for `context`: the stages of graph/recall/stages.py run in order, with the
reads between them.

1.–3. The lookup (graph/recall/lookup.py): seeds, their cards and one-hop expansion, the cued
   relations' evidence and its lifts, the entities' newest memories, a named time's memories.
4. Candidates (graph/recall/candidates.py): BM25 top-k ∪ FAISS top-k (message and parts) ∪ the
   lookup's, each read as its facts only (time, kind, pinned, entity keys).
5. Scoring (stages.Scorer), then each of the best `neighbour_pool` brings its session neighbours
   in and every memory adds `neighbours` × its best neighbour's score; near-identical turns are
   shown once.
6. Selection: memories not in the current session's window, episodes of other sessions.
7. The block (graph/recall/block.py): header, entity cards, memories, episodes, the window, within
   the token budget; full records are read only for what is shown.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

from extraction.embedder import embedding_text
from graph.errors import InvalidInput
from graph.model_threads import Vector
from graph.recall.block import BlockParts, Ranked, Window, compose, minimum_tokens
from graph.recall.candidates import Candidates, collapse_repeats, gather, with_neighbours
from graph.recall.confidence import (
    AGREE_TOP,
    Assessment,
    Conflict,
    MatchEvidence,
    Signals,
    above_floor,
    agreement,
    assess,
    part_gap,
    structural_match,
    unresolved,
    voice_gap,
    with_notes,
)
from graph.recall.config import RetrievalConfig
from graph.recall.content import ContentMatch
from graph.recall.features import Features
from graph.recall.header import header_lines
from graph.recall.lookup import Lookup, look_up, read_cards
from graph.recall.ranker import shipped
from graph.recall.reads import RecallReads
from graph.recall.request import ContextRequest, check_request
from graph.recall.scoring import Fusion
from graph.recall.stages import Scored, Scorer, card_keys, cards_as_of, hubs, rank, select
from graph.recall.tense import Focus, focus
from graph.recall.walk import SEED_STARTS, personalised_pagerank
from graph.recall.window import turn_window
from graph.records import EntityRecord, MemoryFacts, MemoryRecord
from graph.request_cost import Laps

__all__ = [
    "ContextRequest",
    "ContextResult",
    "Ranking",
    "ScoredMemory",
    "check_request",
    "rank_candidates",
    "retrieve",
]

ScoredMemory = Scored[MemoryRecord]


@dataclass(frozen=True, kw_only=True)
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
    # how far the block can be trusted (graph/recall/confidence.py), and the messages' people
    # the graph holds the asked-about thing for instead
    confidence: float = 0.0
    conflicts: list[Conflict] = field(default_factory=list)
    signals: Signals | None = None  # what the confidence was computed from (for the benches)


@dataclass(frozen=True)
class Ranking:
    """Every candidate of a call as scored (neighbour shares included), best first, before and
    after near-identical turns are collapsed: bench/train_ranker.py learns from the first."""

    scored: list[Scored[MemoryFacts]]
    ranked: list[Scored[MemoryFacts]]  # after repeats are collapsed: what selection reads
    # memory id → its features (graph/recall/features.py), for rank_candidates only
    features: dict[str, Features] = field(default_factory=dict)
    # the best candidate's cosine to the message without the names of the people it is about
    # (ContentMatch.best; None when it names no one): the confidence's `content` signal
    content: float | None = None


@dataclass(frozen=True)
class _Header:
    time_line: str
    user_line: str
    profile: tuple[str, ...] = ()


def retrieve(reads: RecallReads, request: ContextRequest) -> ContextResult:
    laps = Laps()  # each stage's time, for /metrics and bench/perf.py
    with _started(reads, request) as (as_of, embedding):
        laps.lap("follow")
        header = _header(reads, request, as_of)
        laps.lap("header")
        floor = minimum_tokens(header.time_line, header.user_line)
        if request.token_budget is not None and request.token_budget < floor:
            raise InvalidInput(
                "tokenBudget",
                f"is {request.token_budget}; at least {floor} needed for the time and user lines",
            )
        return _retrieve(reads, request, as_of, header, embedding)


@contextmanager
def _started(reads: RecallReads, request: ContextRequest) -> Iterator[tuple[float, Future[Vector]]]:
    """A call's start, as `retrieve` and `rank_candidates` share it: the request checked, the
    message embedded on the query pool from the start (while this thread reads the graph and
    parses the message: the reads before the parse overlap it too), the caches (FAISS, BM25,
    catalogue) caught up with what other processes changed; yields the moment asked about and
    the embedding, which is cancelled on the way out (a failed call leaves no work queued; a
    running one just finishes)."""
    check_request(request, reads.limits)
    embedding = reads.models.embed_query(embedding_text(request.message, None))
    try:
        reads.caches.follow(request.user_id)
        as_of = request.as_of if request.as_of is not None else time.time()
        yield as_of, embedding
    finally:
        embedding.cancel()


def _retrieve(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    header: _Header,
    embedding: Future[Vector],
) -> ContextResult:
    laps = Laps()
    window = None
    if request.session_id is not None:
        window = turn_window(reads, request.user_id, request.session_id, request.config)
    laps.lap("window")
    found, candidates = _look_and_gather(reads, request, as_of, embedding)  # times its stages
    laps.skip()
    ranking = _rank(reads, request, as_of, found, candidates)
    ranked = ranking.ranked
    laps.lap("rank")
    assessment = _assess(request, found, candidates, ranked, ranking.content)
    # below the floors nothing is shown: the block says that nothing relevant was found. A
    # memory holding every word of the message that memory knows ("the quokka plush" at the end
    # of a long reply whose vector is about its start) matched, whatever its score — unless the
    # message has a word no memory holds: "what make is my car?" is not answered by the one
    # memory that says "make", when no memory ever named a car
    lexical = candidates.lexical
    whole = lexical.top(1) if lexical.covered >= 1.0 and lexical.unknown == 0 else []
    sure = assessment.confidence >= request.confidence_floor or structural_match(ranked)
    ranked = above_floor(ranked, request.floor if sure else math.inf, whole)
    on_screen = {str(t.id) for t in (window.first + window.last)} if window else set()
    own_episode = f"episode:{request.session_id}" if request.session_id is not None else None
    config = request.config
    top, episodes = select(
        ranked,
        on_screen,
        own_episode,
        request.max_memories,
        config.max_episodes,
        config.session_spread,
    )
    laps.lap("assess")
    return _compose(reads, request, as_of, header, found, window, top, episodes, assessment)


def rank_candidates(reads: RecallReads, request: ContextRequest) -> Ranking:
    """The ranking a context call makes of its candidates, whole (a bench's view: no block)."""
    with _started(reads, request) as (as_of, embedding):
        found, candidates = _look_and_gather(reads, request, as_of, embedding, every_feature=True)
        return _rank(reads, request, as_of, found, candidates, every_feature=True)


def _look_and_gather(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    embedding: Future[Vector],
    every_feature: bool = False,
) -> tuple[Lookup, Candidates]:
    """The lookup (stages 1–3), then the candidates (stage 4)."""
    laps = Laps()
    features = bool(request.config.ranker) or every_feature
    found = look_up(reads, request, as_of)  # times its own stages
    laps.skip()
    # a message of several parts ("which came first, A or B?") is compared part by part too
    pieces = [embedding_text(p, None) for p in found.said.parts]
    if not request.config.message_parts:
        pieces = []
    parts = reads.models.embed_queries(pieces) if pieces else None
    laps.lap("lookup")
    try:
        nouns = found.said.asked_nouns
        candidates = gather(
            reads,
            request,
            as_of,
            found.known,
            embedding,
            parts,
            nouns,
            found.content,
            search_content=features,
        )
    finally:
        for rows in (parts, found.content):
            if rows is not None:
                rows.cancel()  # as the message's: a failed call leaves no work queued
    laps.skip()
    return found, candidates


def _rank(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    found: Lookup,
    candidates: Candidates,
    every_feature: bool = False,
) -> Ranking:
    """Every candidate scored, neighbours brought in and lent their share, best first, with
    near-identical turns shown once; with `every_feature`, what a learnt ranker would see of
    each (a bench's)."""
    config = request.config
    # the features' inputs (ranks, the walk) only where a learnt ranker or a bench reads them
    learnt = bool(config.ranker) or every_feature
    ranks = _fusion(candidates, config) if learnt or config.fusion_k > 0 else None
    scorer = Scorer(
        weights=config.weights,
        as_of=as_of,
        seeds=found.seeds.keys,
        expanded=found.expanded,
        cued=found.cued,
        lifts=found.lifts,
        held=found.seeds.held,
        counts=found.counts,
        max_count=found.resolver.most_mentions,
        lexical=candidates.lexical,
        vector_hits=candidates.vector_hits,
        lexical_hits=candidates.lexical_hits,
        content_hits=candidates.content_hits,
        when=found.when,
        time_lift=config.time_lift,
        speaker_lift=config.speaker_lift,
        speaker_learnt=bool(config.ranker),
        people=found.seeds.people,
        fusion=ranks if config.fusion_k > 0 else None,
        ranks=ranks,
        walk=_walk(found, candidates, config) if learnt else {},
        asked=found.said.asked,
    )
    cosine = candidates.cosine
    scored = {
        i: scorer.score(m, cosine.get(i, 0.0), candidates.via(i))
        for i, m in candidates.facts.items()
    }
    if config.weights.neighbours > 0 and scored:
        scored = with_neighbours(reads, request, as_of, candidates, scorer, scored)
    content = None
    if candidates.content is not None:  # the confidence's `content`, a ranker's features
        present, stored = reads.caches.vectors.matrix(request.user_id, scored)
        match = ContentMatch.of(present, stored, candidates.content)
        scorer = replace(scorer, content=match)
        content = match.best
    if config.ranker:  # the learnt trees correct the blend (graph/recall/ranker.py)
        scored = shipped(config.ranker).rescore(scored, scorer.features)
    features = {i: scorer.features(s) for i, s in scored.items()} if every_feature else {}
    whole = rank(scored.values())
    ranked = collapse_repeats(reads, request, whole) if config.repeat_cosine < 1 else whole
    return Ranking(whole, ranked, features, content)


def _assess(
    request: ContextRequest,
    found: Lookup,
    candidates: Candidates,
    ranked: list[Scored[MemoryFacts]],
    content: float | None = None,
) -> Assessment:
    """The confidence stage (graph/recall/confidence.py) on what the lookup, the candidates and
    the ranking hold (`content`: Ranking.content): no statement of its own."""
    facts = candidates.facts.values()
    named = [m for m in found.said.mentions if not (m.tentative or m.candidate)]
    match = MatchEvidence(
        dense=max(candidates.cosine.values(), default=0.0),
        content=content,
        unknown=candidates.lexical.unknown,
        speakers=frozenset(k for m in facts for k in m.speaker_keys),
        covered=candidates.lexical.covered,
        agree=agreement(candidates.cosine, candidates.lexical.top(AGREE_TOP)),
        part_gap=part_gap(candidates.row_best),
        unresolved=unresolved(
            (m.key, found.resolver.resolve_key(m.key) is not None) for m in named
        ),
        voice=voice_gap(found.seeds.people, facts, lambda i: candidates.cosine.get(i, 0.0)),
        voice_lexical=voice_gap(found.seeds.people, facts, candidates.lexical.normalized),
        unmentioned=candidates.lexical.unmentioned,
    )
    return assess(found.seeds, found.cards, ranked, facts, match, request.config.conflict_min_count)


def _walk(found: Lookup, candidates: Candidates, config: RetrievalConfig) -> dict[str, float]:
    """The personalised PageRank feature of the candidates (graph/recall/walk.py)."""
    cosine, lexical, facts = candidates.cosine, candidates.lexical, candidates.facts
    dense = {i: cosine.get(i, 0.0) for i in facts}
    words = {i: share for i in facts if (share := lexical.normalized(i)) > 0}
    return personalised_pagerank(
        facts,
        found.seeds.keys,
        _starts(dense, facts),
        _starts(words, facts),
        found.counts,
        config.hub_mentions,
    )


def _starts(scores: Mapping[str, float], facts: Mapping[str, MemoryFacts]) -> list[str]:
    """The best few candidates by one channel, where the walk restarts. Equal scores (one rare
    word shared with many memories) are cut by time, then id, never by the order an engine's
    reads or a BM25 build listed them: the same memories on two engines, or read over Bolt,
    restarted the walk at different memories and moved its shares by half."""
    return heapq.nlargest(SEED_STARTS, scores, key=lambda i: (scores[i], facts[i].occurred_at, i))


def _fusion(candidates: Candidates, config: RetrievalConfig) -> Fusion:
    """The candidates' dense and lexical rankings, for a rank-fused similarity (with the
    preset's k) and the features' ranks."""
    ids = list(candidates.facts)
    return Fusion.of(
        (candidates.cosine.get(i, 0.0) for i in ids),
        (candidates.lexical.normalized(i) for i in ids),
        config.fusion_k if config.fusion_k > 0 else 60.0,
        config.weights.lexical,
    )


def _compose(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    header: _Header,
    found: Lookup,
    window: Window | None,
    top: list[Scored[MemoryFacts]],
    episodes: list[Scored[MemoryFacts]],
    assessment: Assessment,
) -> ContextResult:
    """Full records of what is shown, the cards, the notes, and the block within the budget."""
    user_id, config = request.user_id, request.config
    laps = Laps()
    records = reads.store.memories(user_id, [s.memory.id for s in top + episodes])
    laps.lap("records")
    shown_top = [s.shown(records[s.memory.id]) for s in top if s.memory.id in records]
    shown_episodes = [s.shown(records[s.memory.id]) for s in episodes if s.memory.id in records]
    cards = _cards(reads, request, found, as_of)
    laps.lap("cards")
    targets = {rel.target for card in cards for rel in card.relations}
    known = found.resolver.entities
    labels = {k: known[k].label for k in targets if k in known}
    conflicts = with_notes(assessment.conflicts, known)
    notes = list(dict.fromkeys(c.note for c in conflicts))
    parts = BlockParts(
        time_line=header.time_line,
        user_line=header.user_line,
        cards=cards,
        memories=[Ranked(s.memory, s.score) for s in shown_top],
        episodes=[Ranked(s.memory, s.score) for s in shown_episodes],
        window=window,
        labels=labels,
        relations_shown=config.card_relations_shown,
        history=focus(request.message) is Focus.PAST,
        notes=notes,
        nothing_relevant=not shown_top,
        profile=header.profile,
    )
    block = compose(parts, request.token_budget)
    shown_ids = set(block.memory_ids) | set(block.episode_ids)
    kept = [s for s in shown_top if s.memory.id in shown_ids]
    kept_episodes = [s for s in shown_episodes if s.memory.id in shown_ids]
    reads.touch_later(user_id, [s.memory.id for s in kept + kept_episodes])
    laps.lap("block")
    return ContextResult(
        text=block.text,
        tokens=block.tokens,
        cards=block.cards,
        memories=kept,
        seeds=found.seeds.keys,
        expanded=list(found.expanded),
        episodes=kept_episodes,
        window=block.window,
        pruned=block.pruned,
        confidence=assessment.confidence,
        conflicts=conflicts,
        signals=assessment.signals,
    )


def _cards(
    reads: RecallReads, request: ContextRequest, found: Lookup, as_of: float
) -> list[EntityRecord]:
    """Seeds' cards (read by the lookup) first, then expanded entities' (hubs display only), as
    they stood at `as_of`."""
    config = request.config
    keys = card_keys(found.seeds, found.expanded, config.max_cards)
    cards_by_key = dict(found.cards)
    missing = [k for k in keys if k not in found.cards]
    bare = hubs(missing, found.counts, config.hub_mentions)  # expanded hubs: display only
    cards_by_key.update(
        read_cards(
            reads, request.user_id, missing, config.card_relations, found.seeds.cues, bare=bare
        )
    )
    cards = [cards_by_key[k] for k in keys if k in cards_by_key]
    return cards_as_of(cards, as_of + config.clock_skew_hours * 3600.0)


def _header(reads: RecallReads, request: ContextRequest, as_of: float) -> _Header:
    """The time line (in the user's zone), the user line and the profile line's parts: when it
    is, who the user is, how long since last time (graph/recall/header.py)."""
    lines = header_lines(reads, request.user_id, request.speaker, request.session_id, as_of)
    return _Header(lines.time_line, lines.user_line, lines.profile)
