"""The store, the caches that follow it, the write path, and in `graph.recall` the reads.

The store: the engine's lifecycle (engine.py), the one seam to the database (executor.py,
queries.py), persistence of memories, entities and relations (store.py), the graph vocabulary,
FAISS and BM25 indexes keyed by memory id (vectors.py, lexical.py), reconciliation and export,
input validation and limits. The per-user caches and their coherence (caches.py, follow.py,
memory_facts.py, residency.py), the models and their threads (models.py, background.py). The
write path (graph/write/). The memory service (service.py): the thin facade callers use. Recall
(graph/recall/): retrieval stages, scoring, the session window, episodes, the context block.

May import `extraction` (plain data and models); must never import `api`.
"""
