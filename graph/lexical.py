"""A per-user BM25 index (bm25s) over "Speaker: text", the lexical half of Similarity.

Indexes are caches built from the graph on first use and rebuilt after the user's memories change
(writes mark them stale; the rebuild happens at the next query, off the write path). Names and rare
words that embeddings blur ("Caroline", "LGBTQ", "pottery") are exactly what BM25 keeps.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

import bm25s
import numpy as np

from extraction.embedder import embedding_text

_STEMMER: Any = None


def _stem(words: list[str]) -> list[str]:
    """English Snowball stems ("visited" and "visiting" meet); the stemmer is built on first use."""
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    return list(_STEMMER.stemWords(words))


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    tokenized = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_stem, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokenized]


class LexicalScores:
    """BM25 scores of one query over all of a user's memories, kept as one array: the top few are
    found by partition and any candidate's score is a look-up (a dict of every matching memory
    grew with the user's history, and most of it was never read)."""

    def __init__(self, ids: Sequence[str], positions: dict[str, int], raw: Any) -> None:
        self._ids = ids
        self._positions = positions
        self._raw = raw
        self.best = float(raw.max()) if len(raw) else 0.0

    def top(self, k: int) -> list[str]:
        """Ids of the `k` best-scoring memories that share a term with the query, best first."""
        if self.best <= 0 or k <= 0:
            return []
        k = min(k, len(self._raw))
        part = np.argpartition(-self._raw, k - 1)[:k]
        ranked = part[np.argsort(-self._raw[part], kind="stable")]
        return [self._ids[int(i)] for i in ranked if self._raw[int(i)] > 0]

    def normalized(self, memory_id: str) -> float:
        """The memory's score as a share of the best one (0 when it shares no term)."""
        position = self._positions.get(memory_id)
        if position is None or self.best <= 0:
            return 0.0
        return float(self._raw[position]) / self.best


_NO_SCORES = LexicalScores([], {}, np.zeros(0))


class LexicalIndex:
    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.ids = list(ids)
        self._positions = {memory_id: i for i, memory_id in enumerate(self.ids)}
        self._bm25: Any = None
        if self.ids:
            self._bm25 = bm25s.BM25()
            self._bm25.index(_tokens(texts), show_progress=False)

    def scores(self, query: str) -> LexicalScores:
        """BM25 scores of the query against every memory of the user."""
        if self._bm25 is None:
            return _NO_SCORES
        tokens = _tokens([query])[0]
        if not tokens:
            return _NO_SCORES
        raw = np.asarray(self._bm25.get_scores(tokens), dtype=np.float64)
        return LexicalScores(self.ids, self._positions, raw)


class LexicalIndexes:
    """One LexicalIndex per user, rebuilt lazily after `invalidate`."""

    def __init__(self, load: Callable[[str], list[dict[str, Any]]]) -> None:
        self._load = load
        self._indexes: dict[str, LexicalIndex] = {}
        self._lock = threading.Lock()

    def invalidate(self, user_id: str) -> None:
        with self._lock:
            self._indexes.pop(user_id, None)

    def get(self, user_id: str) -> LexicalIndex:
        with self._lock:
            index = self._indexes.get(user_id)
        if index is not None:
            return index
        rows = self._load(user_id)
        index = LexicalIndex(
            [r["id"] for r in rows], [embedding_text(r["text"], r.get("speaker")) for r in rows]
        )
        with self._lock:
            self._indexes[user_id] = index
        return index
