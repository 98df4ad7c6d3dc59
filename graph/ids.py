"""The one node-id type shared by graph and vectors, and the name of a user's files.

A memory id is 16 lowercase hex digits (a random positive 63-bit number). The graph stores it as
`id`; only graph/vectors.py turns it into FAISS's int64, by reading the hex.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import NewType

MemoryId = NewType("MemoryId", str)

_PATTERN = re.compile(r"^[0-9a-f]{16}$")


def new_memory_id() -> MemoryId:
    return MemoryId(f"{secrets.randbits(63):016x}")


def is_memory_id(value: str) -> bool:
    return bool(_PATTERN.match(value))


def user_stem(user_id: str) -> str:
    """The name a user's files on disk take (FAISS, BM25): a hash, so no user id is written."""
    return hashlib.sha256(user_id.encode("utf-8")).hexdigest()[:32]
