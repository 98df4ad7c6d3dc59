"""One exception tree for the service, translated to GraphQL codes in one place (api/errors.py).

    RecollectError
    ├── InvalidInput        bad field value from a client            → BAD_USER_INPUT
    ├── NotFound            unknown memory / entity for this user    → NOT_FOUND
    ├── Unauthenticated     missing or unknown API key               → UNAUTHENTICATED
    ├── Forbidden           key does not grant this user id          → FORBIDDEN
    ├── StoreUnavailable    engine down, unreachable or not started  → STORE_UNAVAILABLE
    │   └── DataDirInUse    another service holds the data directory
    ├── QueryFailed         the engine rejected a statement          → INTERNAL_SERVER_ERROR
    │   └── Conflict        a write met a uniqueness constraint (another process wrote the
    │                       same input at the same instant): the write path tries again
    └── ModelError          a model is missing or fails verification → INTERNAL_SERVER_ERROR

Driver exceptions are translated once, in graph/executor.py, with `raise ... from exc`.
"""

from __future__ import annotations


class RecollectError(Exception):
    code = "INTERNAL_SERVER_ERROR"


class InvalidInput(RecollectError):
    code = "BAD_USER_INPUT"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.reason = message  # without the field: a caller that names the field its own way


class NotFound(RecollectError):
    code = "NOT_FOUND"


class Unauthenticated(RecollectError):
    code = "UNAUTHENTICATED"


class Forbidden(RecollectError):
    code = "FORBIDDEN"


class StoreUnavailable(RecollectError):
    code = "STORE_UNAVAILABLE"


class DataDirInUse(StoreUnavailable):
    pass


class QueryFailed(RecollectError):
    pass


class Conflict(QueryFailed):
    pass


class ModelError(RecollectError):
    pass
