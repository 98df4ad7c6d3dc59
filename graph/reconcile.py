"""Start-up reconciliation: every user's FAISS index is made to agree with the graph.

The graph is the source of truth (embeddings and their model id are stored on memory nodes); the
FAISS files are caches. A crash between the graph write and the index save leaves a memory without
its vector, a deleted memory may leave one behind, and an index of another model is rebuilt.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from extraction.embedder import embedding_text
from extraction.protocols import TextEmbedder
from graph.store import Store
from graph.vectors import VectorStore, decode_embedding

log = logging.getLogger("recollect.reconcile")

CHUNK = 256


@dataclass
class ReconcileReport:
    users: int = 0
    added: int = 0
    removed: int = 0
    reembedded: int = 0
    dropped_indexes: int = 0


def reconcile(store: Store, vectors: VectorStore, embedder: TextEmbedder) -> ReconcileReport:
    """Adds missing vectors (from the stored embedding, or embedded again when it is of another
    model), removes vectors of deleted memories and drops index files of users that are gone."""
    report = ReconcileReport()
    users = store.users()
    stems = {VectorStore.stem_of(u) for u in users}
    for stem in vectors.stored_stems() - stems:
        vectors.drop_stem(stem)
        report.dropped_indexes += 1
    for user_id in users:
        report.users += 1
        graph_ids = store.memory_vector_ids(user_id)
        index_ids = vectors.ids(user_id)
        extra = index_ids - set(graph_ids)
        missing = [i for i in graph_ids if i not in index_ids]
        if extra:
            report.removed += vectors.remove(user_id, extra)
        for start in range(0, len(missing), CHUNK):
            rows = store.memory_embeddings(user_id, missing[start : start + CHUNK])
            ready = [
                r
                for r in rows
                if r.get("embedding_model") == embedder.model_id and r.get("embedding")
            ]
            stale = [r for r in rows if r not in ready]
            if ready:
                matrix = np.stack([decode_embedding(r["embedding"]) for r in ready])
                vectors.add(user_id, [r["id"] for r in ready], matrix)
                report.added += len(ready)
            if stale:
                texts = [embedding_text(r["text"], r.get("speaker")) for r in stale]
                matrix = embedder.embed(texts)
                vectors.add(user_id, [r["id"] for r in stale], matrix)
                report.reembedded += len(stale)
    vectors.flush()
    if report.added or report.removed or report.reembedded or report.dropped_indexes:
        log.info("vector reconciliation: %s", report)
    return report
