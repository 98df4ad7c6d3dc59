"""The merge stage of the write path: each new stated fact (a `factType`, outside a session) is
planned against the user's active stated facts of the same speaker (graph/write/merge.py), and
what passes both gates folds the earlier facts into the new one — the new memory is written with
the merged text and vector, keeping its own to restore on `unmerge`, and the earlier ones are
absorbed after the batch's statement (cypher/absorb_memories.cypher).

What the decision reads of the world, here:
- nearest: the user's FAISS index (top NEAREST), then the records, keeping stated facts of the
  same speaker outside sessions; their relations are parsed again from their text and their
  vectors embedded again (short texts; the model is deterministic);
- neighbours: the merged vector's top-3 dense cosines in the user's index with the sources set
  aside, clipped to [0, 1] — dense only, not the hybrid (dense + BM25) score the issue names.

Runs under the write lock (it reads the user's index). Conversation turns and episodes are never
merged, nor facts within one batch (the earlier ones are not in the index yet).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from extraction.embedder import embedding_text
from extraction.resolver import Resolution
from graph.caches import UserCaches
from graph.models import Models, Vector
from graph.records import MemoryRecord
from graph.store import Store
from graph.validation import NewMemory
from graph.write.merge import Fact, Probe, plan

NEAREST = 5


@dataclass(frozen=True)
class Folded:
    """A new fact that absorbed earlier ones: its merged text and vector, and the ids absorbed."""

    text: str
    vector: Vector
    absorbed: tuple[str, ...]


def mergeable(memory: NewMemory) -> bool:
    return memory.fact_type is not None and memory.session_id is None and memory.kind == "turn"


class Merger:
    def __init__(self, store: Store, caches: UserCaches, models: Models) -> None:
        self._store = store
        self._caches = caches
        self._models = models

    def fold(
        self,
        user_id: str,
        memories: Sequence[NewMemory],
        ids: Sequence[str],
        resolutions: Sequence[Resolution],
        matrix: Vector,
    ) -> dict[int, Folded]:
        """By position in the batch: the new facts that absorbed earlier ones."""
        out: dict[int, Folded] = {}
        taken: set[str] = set(ids)  # never absorb a memory of this batch, nor one twice
        for p, (memory, memory_id) in enumerate(zip(memories, ids, strict=True)):
            if not mergeable(memory):
                continue
            extraction = resolutions[p].extraction
            new = Fact(
                memory_id,
                memory.text,
                memory.speaker,
                matrix[p],
                frozenset(extraction.keys()),
                frozenset((r.src, r.type, r.dst) for r in extraction.relations),
            )
            probe = self._probe(user_id, memory.speaker, frozenset(taken))
            kept, merges, _ = plan(new, probe)
            if merges:
                absorbed = tuple(m.absorbed for m in merges)
                taken.update(absorbed)
                out[p] = Folded(kept.text, kept.vector, absorbed)
        return out

    def _probe(self, user_id: str, speaker: str | None, taken: frozenset[str]) -> Probe:
        """Stored vectors embed "Speaker: text" (extraction/embedder.py): so do these."""

        def embed(text: str) -> Vector:
            matrix: Vector = self._models.embedder.embed([embedding_text(text, speaker)])
            return cast(Vector, matrix[0])

        def nearest(
            vector: Vector, speaker: str | None, aside: frozenset[str]
        ) -> list[tuple[Fact, float]]:
            hits = self._caches.vectors.search(user_id, vector, NEAREST)
            wanted = [m for m, _ in hits if m not in aside and m not in taken]
            records = self._store.memories(user_id, wanted) if wanted else {}
            facts = [
                r
                for r in records.values()
                if r.fact_type and not r.session_id and r.kind == "turn" and r.speaker == speaker
            ]
            scored = [(f, float(vector @ f.vector)) for f in self._facts(facts)]
            return sorted(scored, key=lambda h: -h[1])

        def neighbours(_text: str, vector: Vector, aside: frozenset[str]) -> list[float]:
            hits = self._caches.vectors.search(user_id, vector, 3 + len(aside))
            return [min(1.0, max(0.0, c)) for m, c in hits if m not in aside][:3]

        return Probe(nearest, embed, neighbours)

    def _facts(self, found: Sequence[MemoryRecord]) -> list[Fact]:
        """The records as the rule reads them: relations parsed again, vectors embedded again."""
        if not found:
            return []
        items = [(r.text, r.speaker) for r in found]
        extractions = self._models.extractor.extract_many(items)
        vectors = self._models.embedder.embed([embedding_text(t, s) for t, s in items])
        return [
            Fact(
                str(r.id),
                r.text,
                r.speaker,
                vectors[i],
                frozenset(e.keys()),
                frozenset((x.src, x.type, x.dst) for x in e.relations),
            )
            for i, (r, e) in enumerate(zip(found, extractions, strict=True))
        ]
