"""Extractive summaries without an LLM: TextRank (PageRank over sentence similarity, networkx).

Pure apart from the vectors handed in; sentences come back in their original order.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import networkx as nx
import numpy as np
import numpy.typing as npt

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'“])")


def sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text.strip())]
    return [p for p in parts if len(p.split()) >= 3]


def rank(vectors: npt.NDArray[np.float32], k: int) -> list[int]:
    """Indexes of the `k` most central items (PageRank on cosine similarity), in input order."""
    n = len(vectors)
    if n <= k:
        return list(range(n))
    similarity = np.clip(vectors @ vectors.T, 0.0, None)
    np.fill_diagonal(similarity, 0.0)
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    for i in range(n):
        for j in range(i + 1, n):
            if similarity[i, j] > 0:
                graph.add_edge(i, j, weight=float(similarity[i, j]))
    try:
        scores = nx.pagerank(graph, weight="weight")
    except nx.PowerIterationFailedConvergence:
        scores = {i: float(similarity[i].sum()) for i in range(n)}
    best = sorted(range(n), key=lambda i: (-scores.get(i, 0.0), i))[:k]
    return sorted(best)


def summarize(items: Sequence[str], vectors: npt.NDArray[np.float32], k: int) -> list[str]:
    return [items[i] for i in rank(vectors, k)]
