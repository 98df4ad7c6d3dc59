from __future__ import annotations

import numpy as np

from graph.recall.textrank import rank, sentences


def test_sentences_split_and_drop_fragments() -> None:
    text = "We moved to Denver in May. Wow! The new house has a big garden. Yes."
    assert sentences(text) == ["We moved to Denver in May.", "The new house has a big garden."]


def test_rank_prefers_central_items_and_keeps_order() -> None:
    a = np.array([1.0, 0.0, 0.0])
    b = np.array([0.9, 0.1, 0.0])
    c = np.array([0.8, 0.2, 0.0])
    outlier = np.array([0.0, 0.0, 1.0])
    vectors = np.stack([outlier, a, b, c]).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    assert rank(vectors, 2) == [1, 2] or rank(vectors, 2) == [2, 3]
    assert 0 not in rank(vectors, 3)
    assert rank(vectors, 10) == [0, 1, 2, 3]
