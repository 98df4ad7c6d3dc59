"""The public Python API, importable as `recollect` (pyproject.toml finds this folder under api/
as the top-level package `recollect`): the names a program needs, re-exported from where they
live, so `recollect.InvalidInput` is the very class the service raises. See api/in_process.py.
"""

from api.in_process import (
    ContextResult,
    EntityRecord,
    MemoryRecord,
    NewMemory,
    ProfileView,
    Recollect,
    Remembered,
)
from api.settings import Settings
from graph.errors import (
    Forbidden,
    InvalidInput,
    NotFound,
    RecollectError,
    StoreUnavailable,
)

__all__ = [
    "ContextResult",
    "EntityRecord",
    "Forbidden",
    "InvalidInput",
    "MemoryRecord",
    "NewMemory",
    "NotFound",
    "ProfileView",
    "Recollect",
    "RecollectError",
    "Remembered",
    "Settings",
    "StoreUnavailable",
]
