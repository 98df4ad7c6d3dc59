"""Pure ranking maths, free of I/O: the spec's weighted score and its parts.

Score = w_s·Similarity + w_r·Recency + w_f·Frequency, with Recency = 0.5^(age_days / half_life)
against `as_of`, Frequency the normalised count of memories that contain the entity key, and
Similarity the cosine of the embeddings, raised for a structural match (see `similarity`). The
weights and the named presets are in graph/recall/config.py.
"""

from __future__ import annotations

import math

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
    if lift < 0:
        return base * (1.0 - min(1.0, -lift))
    return toward_one(base, lift)


def toward_one(value: float, share: float) -> float:
    """`value` moved `share` of the way to 1 (a structural match raising a similarity)."""
    return value + (1.0 - value) * min(1.0, share)


def combine(weights: Weights, sim: float, rec: float, freq: float) -> float:
    total = weights.similarity + weights.recency + weights.frequency
    return (weights.similarity * sim + weights.recency * rec + weights.frequency * freq) / total
