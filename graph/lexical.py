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


class LexicalIndex:
    def __init__(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        self.ids = list(ids)
        self._bm25: Any = None
        if self.ids:
            self._bm25 = bm25s.BM25()
            self._bm25.index(_tokens(texts), show_progress=False)

    def scores(self, query: str) -> dict[str, float]:
        """BM25 score of every memory that shares a term with the query."""
        if self._bm25 is None:
            return {}
        tokens = _tokens([query])[0]
        if not tokens:
            return {}
        raw = np.asarray(self._bm25.get_scores(tokens), dtype=np.float64)
        hits = np.nonzero(raw > 0)[0]
        return {self.ids[int(i)]: float(raw[int(i)]) for i in hits}


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
