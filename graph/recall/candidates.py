"""The memories that may answer a message, read as their facts (stages 4–5 of
graph/recall/retrieval.py):

- gathered: BM25's top-k, the lookup's candidates (cued evidence, the entities' newest memories,
  a named time's memories) while the message is embedded, then FAISS's top-k for the message and
  for each of its parts; each with its cosine to the message (the best over the message and its
  parts) and only if it was said by `asOf`, give or take the clocks' skew;
- the best `neighbour_pool` bring their session neighbours in, and every memory gains a share of
  its best neighbour's score (stages.neighbour_bonus);
- near-identical turns among the best are shown once (stages.collapse).

Facts come from the caches' in-process copy (graph/memory_facts.py) once it holds the user, else
from the graph.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from graph.ids import MemoryId
from graph.lexical import LexicalScores
from graph.model_threads import Rows, Vector
from graph.recall.reads import RecallReads
from graph.recall.request import ContextRequest
from graph.recall.stages import Scored, Scorer, adjacency, collapse, neighbour_bonus, rank
from graph.records import MemoryFacts
from graph.request_cost import Laps

Key = TypeVar("Key")


@dataclass(frozen=True)
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
    # per row of `queries`, the best cosine of any candidate: a part that nothing matches (one
    # of "Tom or Alex" never mentioned) is evidence for the block's confidence
    row_best: tuple[float, ...] = ()
    # memories whose best cosine is one of their passages' (a long text's later part,
    # graph/vectors.py), with the passage's number
    passage_hits: Mapping[str, int] = field(default_factory=dict)
    # the message without the names of the people it is about, embedded, when it names someone
    # and the features are read (graph/recall/content.py)
    content: Vector | None = None
    content_hits: frozenset[str] = frozenset()  # what FAISS found for it

    def via(self, memory_id: str, *more: str) -> tuple[str, ...]:
        """What the memory's cosine says of how it was found, for `via`."""
        passage = self.passage_hits.get(memory_id)
        return (
            *more,
            *(("part",) if memory_id in self.part_hits else ()),
            *((f"passage:{passage}",) if passage is not None else ()),
        )


def gather(
    reads: RecallReads,
    request: ContextRequest,
    as_of: float,
    known: list[str],
    embedding: Future[Vector],
    parts: Rows | None = None,
    nouns: Sequence[str] = (),
    content: Rows | None = None,
    search_content: bool = True,
) -> Candidates:
    """Reads the candidates: those known without the message's vector (BM25's, and `known`)
    while it is computed, then FAISS's for the message, each of its parts, and its `content`
    (without its people's names, graph/recall/content.py) if `search_content` (a learnt
    ranker's or a bench's: the hand blends' stay theirs). `nouns` only inform `unmentioned`."""
    user_id, config = request.user_id, request.config
    caches = reads.caches
    laps = Laps()
    k = max(config.vector_k, request.max_memories * 4)
    lexical = caches.lexical.get(user_id).scores(request.message, nouns)
    lexical_top = lexical.top(max(config.lexical_k, k))
    laps.lap("bm25")
    skew = config.clock_skew_hours
    early = happened(caches.memory_facts(user_id, [*lexical_top, *known]), as_of, skew)
    laps.lap("candidates")
    query = embedding.result()
    queries = query.reshape(1, -1) if parts is None else np.vstack([query, parts.result()])
    laps.lap("embed")  # waiting for the message's vector, computed beside the reads above
    vector_hits: dict[MemoryId, float] = {}
    for hits in caches.vectors.search_rows(user_id, queries, k):
        for memory_id, score in hits:
            vector_hits[memory_id] = max(score, vector_hits.get(memory_id, -1.0))
    content_row = content.result()[0] if content is not None else None
    content_hits = _content_hits(reads, user_id, content_row, k) if search_content else []
    laps.lap("faiss")
    late_ids = [i for i in dict.fromkeys((*vector_hits, *content_hits)) if i not in early]
    late = happened(caches.memory_facts(user_id, late_ids), as_of, skew)
    facts = {**late, **early}
    # FAISS's scores are the cosines of its hits; of a message with parts, every candidate's
    # best cosine over the parts is computed from its vector
    cosine = {str(i): score for i, score in vector_hits.items()} if parts is None else {}
    by_part: set[str] = set()
    best = np.full(len(queries), -1.0)
    fill_cosine(reads, user_id, queries, cosine, list(facts), by_part, best)
    passage_hits: dict[str, int] = {}
    raise_by_passages(reads, user_id, queries, cosine, list(facts), passage_hits, by_part, best)
    laps.lap("candidates")
    return Candidates(
        facts=facts,
        cosine=cosine,
        queries=queries,
        lexical=lexical,
        vector_hits=frozenset(vector_hits),
        lexical_hits=frozenset(lexical_top),
        part_hits=frozenset(by_part),
        row_best=tuple(float(b) for b in best),
        passage_hits=passage_hits,
        content=content_row,
        content_hits=frozenset(str(i) for i in content_hits),
    )


def _content_hits(
    reads: RecallReads, user_id: str, content: Vector | None, k: int
) -> list[MemoryId]:
    """FAISS's top-k for the message without its people's names: the turns that say what it
    asks, whoever said them (on LoCoMo dev they hold 6.5% more of the multi-hop evidence than
    the other channels' candidates)."""
    if content is None:
        return []
    return [
        i
        for hits in reads.caches.vectors.search_rows(user_id, content.reshape(1, -1), k)
        for i, _ in hits
    ]


def happened(
    found: Mapping[MemoryId, MemoryFacts], as_of: float, skew_hours: float
) -> dict[str, MemoryFacts]:
    """The memories said by `as_of`, give or take the clocks' skew: a question asked in the past
    sees nothing said well after it (RetrievalConfig.clock_skew_hours says why not exactly)."""
    latest = as_of + skew_hours * 3600.0
    return {str(i): m for i, m in found.items() if m.occurred_at <= latest}


def fill_cosine(
    reads: RecallReads,
    user_id: str,
    queries: Vector,
    cosine: dict[str, float],
    ids: list[str],
    by_part: set[str] | None = None,
    row_best: npt.NDArray[np.float64] | None = None,
) -> None:
    """Cosines of memories not scored yet, from their stored vectors: the best over the rows of
    `queries` (the message, then its parts); those whose best is a part's go into `by_part`;
    each row's best cosine so far into `row_best`."""
    missing = [i for i in ids if i not in cosine]
    present, stored = reads.caches.vectors.matrix(user_id, missing)
    if not present:
        return
    for memory_id, column, top in _best_rows(present, stored, queries, row_best):
        cosine[memory_id] = top
        if column > 0 and by_part is not None:
            by_part.add(memory_id)


def _best_rows(
    keys: Sequence[Key],
    stored: Vector,
    queries: Vector,
    row_best: npt.NDArray[np.float64] | None,
) -> list[tuple[Key, int, float]]:
    """Each stored vector's (one per key) best cosine over the rows of `queries` (the message,
    then its parts) and that row's number; each row's best so far raised into `row_best`."""
    scores = stored @ queries.T  # one row per stored vector, one column per row of `queries`
    if row_best is not None:
        np.maximum(row_best, scores.max(axis=0), out=row_best)
    best = scores.argmax(axis=1)
    tops = scores[np.arange(len(keys)), best]
    return list(zip(keys, best.tolist(), tops.tolist(), strict=True))


def raise_by_passages(
    reads: RecallReads,
    user_id: str,
    queries: Vector,
    cosine: dict[str, float],
    ids: list[str],
    passage_hits: dict[str, int],
    by_part: set[str],
    row_best: npt.NDArray[np.float64] | None = None,
) -> None:
    """A long text is as close to the message as its closest passage: the cosines of memories
    with passages rise to their best passage's, which `passage_hits` records (and `by_part`
    when a part of the message matched it best)."""
    owned, stored = reads.caches.vectors.passage_matrix(user_id, ids)
    if not owned:
        return
    for (memory_id, number), column, top in _best_rows(owned, stored, queries, row_best):
        # FAISS's hits already carry a memory's best vector's cosine: a passage equal to it (to
        # float32's precision) is the one that matched
        if top >= cosine.get(memory_id, -1.0) - 1e-6:
            cosine[memory_id] = top
            passage_hits[memory_id] = number
            if column > 0:
                by_part.add(memory_id)
            else:
                by_part.discard(memory_id)


def with_neighbours(
    reads: RecallReads,
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
    links, around = reads.caches.turn_neighbours(user_id, [s.memory.id for s in pool])
    adjacent = adjacency(links)
    skew = request.config.clock_skew_hours
    found = {i: m for i, m in happened(around, as_of, skew).items() if i not in scored}
    by_part = set(candidates.part_hits)
    fill_cosine(reads, user_id, candidates.queries, candidates.cosine, list(found), by_part)
    passages = dict(candidates.passage_hits)
    queries = candidates.queries
    raise_by_passages(reads, user_id, queries, candidates.cosine, list(found), passages, by_part)
    seen = replace(candidates, part_hits=frozenset(by_part), passage_hits=passages)
    for memory_id, memory in found.items():
        cosine = candidates.cosine.get(memory_id, 0.0)
        scored[memory_id] = scorer.score(memory, cosine, seen.via(memory_id, "neighbour"))
    return neighbour_bonus(scored, adjacent, request.config.weights.neighbours)


def collapse_repeats(
    reads: RecallReads, request: ContextRequest, ranked: list[Scored[MemoryFacts]]
) -> list[Scored[MemoryFacts]]:
    """Near-identical turns among the best 3 × maxMemories shown once (stages.collapse); the
    rest of the ranking follows unchanged."""
    config = request.config
    turns = [s for s in ranked if s.memory.kind != "episode"]
    head = turns[: request.max_memories * 3]
    in_head = {s.memory.id for s in head}
    rest = [s for s in ranked if s.memory.id not in in_head]
    vectors = reads.caches.vectors.vectors(request.user_id, [s.memory.id for s in head])
    return rank([*collapse(head, vectors, config.repeat_cosine, config.weights), *rest])
