"""The per-user FAISS store and the stored form of embeddings (real faiss, no model needed)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from graph.vectors import VectorStore, decode_embedding, encode_embedding


def _unit(rows: int, dims: int = 8, seed: int = 0) -> np.ndarray:
    matrix = np.random.default_rng(seed).normal(size=(rows, dims)).astype(np.float32)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def test_embedding_codec_is_exact_and_reads_the_list_form() -> None:
    vector = _unit(1, 384)[0]
    stored = encode_embedding(vector)
    assert isinstance(stored, str) and len(stored) == 2048  # base64 of 384 × 4 bytes
    assert np.array_equal(decode_embedding(stored), vector)
    assert np.array_equal(decode_embedding(vector.tolist()), vector)
    assert decode_embedding(stored).dtype == np.float32


def test_add_replaces_search_ranks_and_flush_survives_a_reload(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, 8, "model-a")
    matrix = _unit(3)
    ids = ["00000000000000a1", "00000000000000a2", "00000000000000a3"]
    store.add("u", ids, matrix)
    store.add("u", ids[:1], matrix[1:2])  # the same id again replaces, never duplicates
    assert store.count("u") == 3
    hits = store.search("u", matrix[2], 3)
    assert hits[0][0] == ids[2] and hits[0][1] == pytest.approx(1.0, abs=1e-5)
    assert store.count("other") == 0
    assert store.flush() == 1
    again = VectorStore(tmp_path, 8, "model-a")
    assert again.ids("u") == set(ids)
    assert np.allclose(again.vectors("u", ids[:1])[ids[0]], matrix[1])
    # an index written by another model is not trusted
    assert VectorStore(tmp_path, 8, "model-b").count("u") == 0


def test_add_refuses_a_mismatched_matrix(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, 8, "model-a")
    with pytest.raises(ValueError, match="expected 2×8 vectors"):
        store.add("u", ["00000000000000a1", "00000000000000a2"], _unit(3))


def test_rows_searched_together_find_what_each_row_finds_alone(tmp_path: Path) -> None:
    # a message and its parts are searched in one call (graph/recall/candidates.py): the same
    # hits and the same cosines as a search per row, whatever the number of rows
    store = VectorStore(tmp_path, 384, "model-a")
    matrix = _unit(3000, 384, seed=1)
    ids = [f"{i:016x}" for i in range(1, 3001)]
    store.add("u", ids, matrix)
    queries = _unit(4, 384, seed=2)
    together = store.search_rows("u", queries, 32)
    assert len(together) == 4
    for row, hits in zip(queries, together, strict=True):
        assert hits == store.search("u", row, 32)
    assert together[0] != together[1]
    assert store.search_rows("empty", queries, 32) == [[], [], [], []]


def test_stored_vectors_are_read_in_one_matrix_and_missing_ids_left_out(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, 8, "model-a")
    matrix = _unit(5)
    ids = [f"{i:016x}" for i in range(1, 6)]
    store.add("u", ids, matrix)
    wanted = [ids[3], ids[0], ids[4]]
    present, stored = store.matrix("u", wanted)
    assert present == wanted and np.array_equal(stored, matrix[[3, 0, 4]])
    # an id the index lacks (never added, or removed) is left out, the order kept
    store.remove("u", [ids[0]])
    present, stored = store.matrix("u", ["00000000000000ff", *wanted])
    assert present == [ids[3], ids[4]] and np.array_equal(stored, matrix[[3, 4]])
    assert store.matrix("u", [])[1].shape == (0, 8)
    assert store.matrix("u", ["00000000000000ff"])[1].shape == (0, 8)
    assert list(store.vectors("u", wanted)) == [ids[3], ids[4]]
    assert np.array_equal(store.vectors("u", wanted)[ids[4]], matrix[4])


def test_a_memory_is_found_by_its_passages_counted_once_and_gone_with_it(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, 8, "model-a")
    vectors = _unit(6, seed=3)
    ids = ["00000000000000b1", "00000000000000b2", "00000000000000b3"]
    # b1 has two passages (rows 3 and 4), the others none
    empty = np.zeros((0, 8), np.float32)
    store.add("u", ids, vectors[:3], [vectors[3:5], empty, empty])
    assert store.count("u") == 3 and store.ids("u") == set(ids)
    hits = store.search("u", vectors[4], 3)
    assert hits[0] == (ids[0], pytest.approx(1.0, abs=1e-5))  # found by passage 2
    assert [h[0] for h in hits].count(ids[0]) == 1 and len(hits) == 3
    owned, rows = store.passage_matrix("u", ids)
    assert owned == [(ids[0], 1), (ids[0], 2)] and np.allclose(rows, vectors[3:5])
    store.add("u", ids[:1], vectors[:1], [vectors[5:6]])  # new passages replace the old
    assert store.passage_matrix("u", ids)[0] == [(ids[0], 1)]
    assert store.flush() == 1
    again = VectorStore(tmp_path, 8, "model-a")
    assert again.count("u") == 3
    owned, rows = again.passage_matrix("u", ids)
    assert owned == [(ids[0], 1)] and np.allclose(rows, vectors[5:6])
    assert again.search("u", vectors[5], 1) == [(ids[0], pytest.approx(1.0, abs=1e-5))]
    assert again.remove("u", ids[:1]) == 1
    assert again.count("u") == 2 and again.passage_matrix("u", ids)[0] == []
    assert all(h[0] != ids[0] for h in again.search("u", vectors[5], 3))


def test_a_search_answers_k_memories_however_many_passages_crowd_it(tmp_path: Path) -> None:
    store = VectorStore(tmp_path, 8, "model-a")
    vectors = _unit(6, seed=5)
    ids = [f"00000000000000c{i}" for i in range(6)]
    crowd = np.repeat(vectors[:1], 40, axis=0)  # 40 passages all nearest to the query
    empty = np.zeros((0, 8), np.float32)
    store.add("u", ids, vectors, [crowd, *([empty] * 5)])
    hits = store.search("u", vectors[0], 3)
    assert len(hits) == 3 and len({h[0] for h in hits}) == 3 and hits[0][0] == ids[0]
    assert len(store.search("u", vectors[0], 10)) == 6  # every memory, none twice
