"""The merge stage of the write path: each new stated fact (a `factType`, outside a session) is
planned against the user's active stated facts of the same speaker (graph/write/merge_rules.py), and
what passes both gates folds the earlier facts into the new one — the new memory is written with
the merged text and vector, keeping its own to restore on `unmerge`, and the earlier ones are
absorbed after the batch's statement (cypher/absorb_memories.cypher).

What the decision reads of the world, here:
- nearest: the user's FAISS index (top NEAREST), then the records, keeping stated facts of the
  same speaker outside sessions; their relations are parsed again from their text, their
  vectors read from the index;
- neighbours: the merged text's hybrid scores against the user's memories — retrieval's own
  similarity (graph/recall/scoring.py): the cosine clipped to [0, 1] blended with BM25 as a share
  of the best BM25 score, at the shipped preset's lexical share — scored with the sources in
  the index (the best BM25 is theirs: the merged text holds their words), then the sources set
  aside and the top 3 kept. Candidates: the dense top NEIGHBOURS and the BM25 top NEIGHBOURS.

Runs under the write lock (it reads the user's index). A fact may also absorb a fact earlier in
its own batch (two facts of one rememberMany): the earlier one is written by the batch's statement
and absorbed after it. Conversation turns and episodes are never merged.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from extraction.embedder import embedding_text
from extraction.model import Extraction
from graph.caches import UserCaches
from graph.ids import MemoryId
from graph.model_threads import Models, Vector
from graph.recall.config import PRESETS
from graph.recall.scoring import similarity
from graph.records import MemoryRecord
from graph.store import Store
from graph.validation import NewMemory
from graph.write.merge_rules import Fact, Probe, Refusal, plan

NEAREST = 5
REFUSALS_KEPT = 1_000
NEIGHBOURS = 20  # candidates per ranking for the neighbour gate's top 3
LEXICAL_SHARE = PRESETS["default"].weights.lexical


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
        # what the gates did since start, for benches and /metrics: merges and refusals by gate,
        # and the latest refusals' values
        self.outcomes: Counter[str] = Counter()
        self.refused: deque[Refusal] = deque(maxlen=REFUSALS_KEPT)

    def fold(
        self,
        user_id: str,
        memories: Sequence[NewMemory],
        ids: Sequence[str],
        extractions: Sequence[Extraction],
        matrix: Vector,
    ) -> dict[int, Folded]:
        """By position in the batch: the new facts that absorbed earlier ones — stored facts, or
        facts earlier in the batch (written by the batch's statement, absorbed after it)."""
        out: dict[int, Folded] = {}
        taken: set[str] = set()  # never absorb a memory twice
        earlier: list[Fact] = []  # the batch's facts so far, as they stand after their merges
        for p, (memory, memory_id) in enumerate(zip(memories, ids, strict=True)):
            if not mergeable(memory):
                continue
            # as parsed, unresolved, like the stored facts it meets: "my sister" is a reference
            # that any sister's name matches (merge.py `_same_object`)
            extraction = extractions[p]
            new = Fact(
                memory_id,
                memory.text,
                memory.speaker,
                matrix[p],
                frozenset(extraction.keys()),
                frozenset((r.src, r.type, r.dst) for r in extraction.relations),
            )
            batch = [f for f in earlier if f.id not in taken]
            probe = self._probe(user_id, memory.speaker, frozenset(taken), batch)
            kept, merges, refusals = plan(new, probe)
            self.outcomes.update(["merged"] * len(merges) + [r.gate for r in refusals])
            self.refused.extend(refusals)
            earlier.append(kept)
            if merges:
                absorbed = tuple(m.absorbed for m in merges)
                taken.update(absorbed)
                out[p] = Folded(kept.text, kept.vector, absorbed)
        return out

    def _probe(
        self, user_id: str, speaker: str | None, taken: frozenset[str], batch: Sequence[Fact]
    ) -> Probe:
        """Stored vectors embed "Speaker: text" (extraction/embedder.py): so do these. `batch`:
        the batch's earlier facts, which the index does not hold yet."""

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
            own = [f for f in batch if f.speaker == speaker and f.id not in aside]
            scored = [(f, float(vector @ f.vector)) for f in [*self._facts(user_id, facts), *own]]
            return sorted(scored, key=lambda h: -h[1])

        def neighbours(text: str, vector: Vector, aside: frozenset[str]) -> list[float]:
            return self._neighbours(user_id, speaker, text, vector, aside)

        return Probe(nearest, embed, neighbours)

    def _neighbours(
        self, user_id: str, speaker: str | None, text: str, vector: Vector, aside: frozenset[str]
    ) -> list[float]:
        """The merged text's top-3 hybrid scores, in [0, 1], with `aside` set aside (see the
        module docstring)."""
        dense = dict(self._caches.vectors.search(user_id, vector, NEIGHBOURS + len(aside)))
        lexical = self._caches.lexical.get(user_id).scores(embedding_text(text, speaker))
        wanted = [m for m in lexical.top(NEIGHBOURS + len(aside)) if m not in dense]
        for m, other in self._caches.vectors.vectors(user_id, wanted).items():
            dense[MemoryId(m)] = float(other @ vector)
        scores = [
            similarity(cosine, lexical.normalized(m), LEXICAL_SHARE)
            for m, cosine in dense.items()
            if m not in aside
        ]
        return sorted(scores, reverse=True)[:3]

    def _facts(self, user_id: str, found: Sequence[MemoryRecord]) -> list[Fact]:
        """The records as the rule reads them: relations parsed again from their text, vectors
        read from the user's index (what was stored: "Speaker: text", the merged text if any)."""
        if not found:
            return []
        stored = self._caches.vectors.vectors(user_id, [str(r.id) for r in found])
        found = [r for r in found if str(r.id) in stored]
        extractions = self._models.extractor.extract_many([(r.text, r.speaker) for r in found])
        return [
            Fact(
                str(r.id),
                r.text,
                r.speaker,
                stored[str(r.id)],
                frozenset(e.keys()),
                frozenset((x.src, x.type, x.dst) for x in e.relations),
            )
            for r, e in zip(found, extractions, strict=True)
        ]
