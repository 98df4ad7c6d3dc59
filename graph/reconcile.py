"""Reconciliation: a user's FAISS index is made to agree with the graph, the source of truth.

Embeddings and their model id are stored on memory nodes; the FAISS files are caches. A crash
between the graph write and the index save leaves a memory without its vector, a deleted memory
may leave one behind, an index of another model is rebuilt, and a replica's index misses what
other processes wrote. graph/follow.py applies the changes since the index's mark when it can and
reconciles the whole user here when it cannot; `sweep` drops the files of users that are gone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from extraction.embedder import embedding_text
from extraction.protocols import TextEmbedder
from graph.cache_files import CacheFiles
from graph.records import StoredVector
from graph.store import Store
from graph.vectors import Vectors, VectorStore, decode_embedding, passage_vectors

log = logging.getLogger("recollect.reconcile")

CHUNK = 256


@dataclass
class ReconcileReport:
    """Counts since start: vectors added from stored embeddings, removed, embedded again (another
    model), index files of gone users dropped; changes applied as deltas and whole-user reloads."""

    users: int = 0
    added: int = 0
    removed: int = 0
    reembedded: int = 0
    dropped_indexes: int = 0
    deltas: int = 0
    reloads: int = 0


def add_rows(
    vectors: VectorStore,
    embedder: TextEmbedder,
    user_id: str,
    rows: Sequence[StoredVector],
    report: ReconcileReport,
) -> None:
    """Adds memories' vectors: the stored embedding when of this model, else embedded again; the
    passages of a person's long text are embedded from the text (the graph does not keep them)."""
    ready = [r for r in rows if r.ready_for(embedder.model_id)]
    stale = [r for r in rows if not r.ready_for(embedder.model_id)]
    if ready:
        matrix = np.stack([decode_embedding(r.embedding) for r in ready if r.embedding])
        vectors.add(user_id, [r.id for r in ready], matrix, _passages(embedder, ready))
        report.added += len(ready)
    if stale:
        matrix = embedder.embed([embedding_text(r.text, r.speaker) for r in stale])
        vectors.add(user_id, [r.id for r in stale], matrix, _passages(embedder, stale))
        report.reembedded += len(stale)


def _passages(embedder: TextEmbedder, rows: Sequence[StoredVector]) -> list[Vectors]:
    return passage_vectors(embedder, [(r.text, r.speaker) for r in rows])


def reconcile_user(
    store: Store,
    vectors: VectorStore,
    embedder: TextEmbedder,
    user_id: str,
    report: ReconcileReport,
) -> None:
    """Adds the vectors the index misses and removes those of memories that are gone."""
    report.users += 1
    graph_ids = store.memory_vector_ids(user_id)
    index_ids = vectors.ids(user_id)
    extra = index_ids - set(graph_ids)
    missing = [i for i in graph_ids if i not in index_ids]
    if extra:
        report.removed += vectors.remove(user_id, extra)
    for start in range(0, len(missing), CHUNK):
        add_rows(
            vectors,
            embedder,
            user_id,
            store.memory_embeddings(user_id, missing[start : start + CHUNK]),
            report,
        )


def sweep(
    store: Store,
    vectors: VectorStore,
    report: ReconcileReport,
    files: CacheFiles | None = None,
) -> None:
    """Drops the index files (FAISS, and the BM25 and catalogue files when kept) of users the
    graph no longer holds (forgotten through another process). Runs off the start-up path: it
    reads every user id once."""
    stems = {VectorStore.stem_of(u) for u in store.users()}
    for stem in vectors.stored_stems() - stems:
        vectors.drop_stem(stem)
        report.dropped_indexes += 1
    if files is not None:
        for kept in (files.lexical, files.catalog):
            for stem in kept.stored_stems() - stems:
                kept.drop_stem(stem)
    if report.dropped_indexes:
        log.info("dropped %d vector indexes of users that are gone", report.dropped_indexes)
