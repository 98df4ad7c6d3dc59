"""The store: engine lifecycle, query execution, persistence, vectors, retrieval and context.

May import `extraction` (plain data and models); must never import `api`.
"""
