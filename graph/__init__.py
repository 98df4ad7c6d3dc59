"""The store, the caches that follow it, the pure stages, the read, write and profile rooms, and
the service on top: docs/layers.md maps them, tests/test_layout.py keeps imports running down.

May import `extraction` (plain data and models); must never import `api`.
"""
