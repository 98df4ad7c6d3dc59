"""How close each candidate is to what a message asks, the names of the people it is about left
out (extraction/content.py says why): a learnt ranker's features (graph/recall/features.py),
beside the cosine to the message as said, which the blend, the floors and the confidence keep
reading.

Computed whenever the message names someone: one more embedding on the query pool, started as
soon as the seeds are known and computed beside the lookup's reads, and one product of the
candidates' stored vectors with it (a context call reads about 200 vectors in one call, 0.1 ms).
Its best is the confidence's `content` signal under every preset (graph/recall/confidence.py);
where a learnt ranker or a bench reads the features, FAISS's top-k for it joins the candidates
too (graph/recall/candidates.py), and the hand blends' candidates stay theirs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from extraction.content import name_words, without_names
from extraction.embedder import embedding_text
from extraction.resolver import Resolver
from graph.model_threads import Models, Rows, Vector
from graph.recall.scoring import rank_among


def embed_content(
    models: Models, message: str, resolver: Resolver, people: Sequence[str]
) -> Rows | None:
    """The message without the names of `people` (the seeds' people: whom it is about), being
    embedded on the query pool; None when it names none of them."""
    entities = resolver.entities
    words = name_words(entities[k] for k in people if k in entities)
    content = without_names(message, words)
    if content == message or not content:
        return None
    return models.embed_queries([embedding_text(content, None)])


@dataclass(frozen=True)
class ContentMatch:
    """Each candidate's cosine to the message without its people's names, clipped to [0, 1],
    and those cosines negated and ascending (so that bisect counts the greater ones)."""

    cosine: Mapping[str, float]
    ordered: tuple[float, ...]

    @classmethod
    def of(cls, ids: Sequence[str], stored: Vector, vector: Vector) -> ContentMatch:
        """The cosines to `vector` of the memories `ids`, whose stored vectors are the rows of
        `stored` (a memory the index lacks has none, and counts as 0)."""
        scores = (stored @ vector.reshape(-1)).tolist() if len(ids) else []
        cosine = {i: min(1.0, max(0.0, s)) for i, s in zip(ids, scores, strict=True)}
        return cls(cosine, tuple(sorted(-v for v in cosine.values())))

    @property
    def best(self) -> float:
        return -self.ordered[0] if self.ordered else 0.0

    def of_memory(self, memory_id: str) -> float:
        return self.cosine.get(memory_id, 0.0)

    def rank(self, value: float) -> int:
        """1 + how many candidates are closer than `value`."""
        return rank_among(self.ordered, value)
