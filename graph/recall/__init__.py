"""Recall: what the service does with the store to answer `context` and to end sessions.

Retrieval stages (graph/recall/retrieval.py), the retrieval configuration and its named presets
(config.py), pure ranking maths (scoring.py), the context block composer (block.py), sessions and
their episodes (sessions.py, textrank.py). Calls the memory service, never the store or the
indexes behind it; must never import `api`.
"""
