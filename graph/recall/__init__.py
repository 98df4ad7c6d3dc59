"""Recall: the reads that answer `context`.

The lookup of the message in the graph (lookup.py), the candidates (candidates.py), the pure
stages and ranking maths (stages.py, scoring.py), the retrieval configuration and its named
presets (config.py), the request and its checks (request.py), the pipeline (retrieval.py), the
current session's window (window.py), the block's opening lines (header.py), the episode policy
(episodes.py, textrank.py; episodes are written by graph/write/sessions.py) and the context block
(block.py). Reaches the store, caches and models through `RecallReads` (reads.py), never the
service above it; must never import `api`.
"""
