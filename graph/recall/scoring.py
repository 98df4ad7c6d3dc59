"""Pure ranking maths, free of I/O: the spec's weighted score and its parts.

Score = w_s·Similarity + w_r·Recency + w_f·Frequency, with Recency = 0.5^(age_days / half_life)
against `as_of`, Frequency the normalised count of memories that contain the entity key, and
Similarity the cosine of the embeddings, raised for a structural match (see `similarity`). The
weights and the named presets are in graph/recall/config.py.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass

from graph.recall.config import Weights

DAY = 86_400.0


def recency(occurred_at: float, as_of: float, half_life_days: float) -> float:
    age_days = max(0.0, (as_of - occurred_at) / DAY)
    return float(0.5 ** (age_days / half_life_days))


def frequency(count: int, max_count: int) -> float:
    """log-scaled count normalised to [0, 1] by the user's most-mentioned entity."""
    if count <= 0 or max_count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(max_count)


def similarity(
    cosine: float, lexical: float = 0.0, lexical_share: float = 0.0, lift: float = 0.0
) -> float:
    """Cosine clipped to [0, 1], blended with the BM25 score normalised by the query's best
    (`lexical`, in [0, 1]) at `lexical_share`. A memory that is the recorded evidence of a
    relation the message asks about is a structural match: its similarity moves `lift` of the
    way to 1 (RetrievalConfig says how far, by how well the relation matches the message); a
    negative `lift` moves it that share of the way to 0 (the evidence of a superseded fact when
    the message asks about the present)."""
    base = (1.0 - lexical_share) * min(1.0, max(0.0, cosine)) + lexical_share * lexical
    return lifted(base, lift)


def lifted(base: float, lift: float) -> float:
    """A similarity in [0, 1] moved `lift` of the way to 1, or to 0 when `lift` is negative."""
    if lift < 0:
        return base * (1.0 - min(1.0, -lift))
    return toward_one(base, lift)


@dataclass(frozen=True)
class Fusion:
    """Similarity as reciprocal rank fusion of the dense and the lexical ranking of a call's
    candidates: each list gives 1 / (k + rank), weighted by `lexical_share`, scaled so that the
    first of both lists scores 1. Ranks, unlike raw scores, mean the same on every history: a
    cosine of 0.45 is the best match in one user's memories and noise in another's, and BM25's
    scale moves with the message's words; a rank-fused base does not drift with either.
    A memory scored later (a session neighbour) is ranked where its scores fall among the
    candidates'."""

    # the candidates' cosines and their normalised BM25 scores above 0, negated and ascending
    # (so that bisect counts the greater ones)
    cosines: tuple[float, ...]
    lexical: tuple[float, ...]
    k: float
    lexical_share: float

    @classmethod
    def of(
        cls, cosines: Iterable[float], lexical: Iterable[float], k: float, lexical_share: float
    ) -> Fusion:
        return cls(
            tuple(sorted(-v for v in cosines)),
            tuple(sorted(-v for v in lexical if v > 0)),
            k,
            lexical_share,
        )

    @property
    def best_cosine(self) -> float:
        """The best cosine among the candidates, clipped to [0, 1] (0 without candidates)."""
        return min(1.0, max(0.0, -self.cosines[0])) if self.cosines else 0.0

    def ranks(self, cosine: float, lexical: float) -> tuple[int, int | None]:
        """The 1-based rank of a cosine among the candidates' and of a normalised BM25 score
        among those above 0 (None when it is 0: it shares no word)."""
        words = rank_among(self.lexical, lexical) if lexical > 0 else None
        return rank_among(self.cosines, cosine), words

    def base(self, cosine: float, lexical: float) -> float:
        dense = 1.0 / (self.k + rank_among(self.cosines, cosine))
        words = 1.0 / (self.k + rank_among(self.lexical, lexical)) if lexical > 0 else 0.0
        fused = (1.0 - self.lexical_share) * dense + self.lexical_share * words
        return fused * (self.k + 1.0)


def rank_among(negated: tuple[float, ...], value: float) -> int:
    """1 + how many of the scores (`negated`: negated, ascending) are greater than `value`."""
    return 1 + bisect.bisect_left(negated, -value)


def toward_one(value: float, share: float) -> float:
    """`value` moved `share` of the way to 1 (a structural match raising a similarity)."""
    return value + (1.0 - value) * min(1.0, share)


def combine(weights: Weights, sim: float, rec: float, freq: float) -> float:
    total = weights.similarity + weights.recency + weights.frequency
    return (weights.similarity * sim + weights.recency * rec + weights.frequency * freq) / total
