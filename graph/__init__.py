"""The store and, in `graph.recall`, what the service does with it.

The store: the engine's lifecycle (engine.py), the one seam to the database (executor.py,
queries.py), persistence of memories, entities and relations (store.py, batch.py), the graph
vocabulary, FAISS and BM25 indexes keyed by memory id (vectors.py, lexical.py), start-up
reconciliation, export, input validation and limits, and the memory service (service.py) that
every caller goes through. Recall (graph/recall/): retrieval stages, scoring, sessions and
episodes, the context block.

May import `extraction` (plain data and models); must never import `api`.
"""
