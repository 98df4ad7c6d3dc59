"""Pure ranking maths, free of I/O: the spec's weighted score and its parts.

Score = w_s·Similarity + w_r·Recency + w_f·Frequency, with Recency = 0.5^(age_days / half_life)
against `as_of`, Frequency the normalised count of memories that contain the entity key, and
Similarity the cosine of the embeddings, raised for a structural match (see `similarity`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

DAY = 86_400.0


@dataclass(frozen=True)
class Weights:
    similarity: float = 0.4
    recency: float = 0.3
    frequency: float = 0.3
    half_life_days: float = 14.0
    # share of Similarity that comes from BM25 (0 = embeddings only, as in the spec)
    lexical: float = 0.0
    # share of the best adjacent turn's score added to a memory's score (0 = off, as in the spec)
    neighbours: float = 0.0

    def validate(self) -> None:
        parts = (self.similarity, self.recency, self.frequency)
        if any(not math.isfinite(p) or p < 0 for p in parts) or sum(parts) <= 0:
            raise ValueError("weights must be finite, non-negative and not all zero")
        if not math.isfinite(self.half_life_days) or self.half_life_days <= 0:
            raise ValueError("halfLifeDays must be a positive number of days")
        if not math.isfinite(self.lexical) or not 0 <= self.lexical <= 1:
            raise ValueError("lexical must be between 0 and 1")
        if not math.isfinite(self.neighbours) or not 0 <= self.neighbours <= 1:
            raise ValueError("neighbours must be between 0 and 1")


# Named presets: `spec` is the formula exactly as specified; `default` is what the service ships,
# chosen on the LoCoMo dev split with bench/locomo.py (README "Retrieval quality"): conversations
# span months and questions ask about any of it, so similarity carries the score, BM25 is 30% of
# similarity, recency decays over a year instead of two weeks, and adjacent turns lend each other
# 35% of their score. Recency and frequency keep a small weight: they cost nothing measurable there
# and break ties toward what is recent and central in real use.
PRESETS: dict[str, Weights] = {
    "spec": Weights(),
    "default": Weights(
        similarity=0.9,
        recency=0.05,
        frequency=0.05,
        half_life_days=365.0,
        lexical=0.3,
        neighbours=0.35,
    ),
}


def recency(occurred_at: float, as_of: float, half_life_days: float) -> float:
    age_days = max(0.0, (as_of - occurred_at) / DAY)
    return float(0.5 ** (age_days / half_life_days))


def frequency(count: int, max_count: int) -> float:
    """log-scaled count normalised to [0, 1] by the user's most-mentioned entity."""
    if count <= 0 or max_count <= 0:
        return 0.0
    return math.log1p(count) / math.log1p(max_count)


def similarity(
    cosine: float, lexical: float = 0.0, lexical_share: float = 0.0, structural_match: bool = False
) -> float:
    """Cosine clipped to [0, 1], blended with the BM25 score normalised by the query's best
    (`lexical`, in [0, 1]) at `lexical_share`. A memory that is the recorded evidence of the very
    relation the message asks about (a seed's WORKS_AT for "where does she work?") is a structural
    match: its similarity moves halfway to 1."""
    base = (1.0 - lexical_share) * min(1.0, max(0.0, cosine)) + lexical_share * lexical
    return base + (1.0 - base) / 2 if structural_match else base


def combine(weights: Weights, sim: float, rec: float, freq: float) -> float:
    total = weights.similarity + weights.recency + weights.frequency
    return (weights.similarity * sim + weights.recency * rec + weights.frequency * freq) / total
