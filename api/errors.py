"""The one place where exceptions become GraphQL errors with `extensions.code`, and are logged.

RecollectError subclasses carry their code; GraphQL's own coercion and validation errors (a
malformed DateTime, a wrong type, an unknown field) are the client's fault: BAD_USER_INPUT. Anything
else is an internal error whose message is masked.

Logs are for the operator: a client's mistake (bad input, not found, unauthenticated, forbidden)
is one INFO line with its code and the field or path it concerns — no traceback, and never the
message, which can quote what the client sent; a failure of ours (the store, the engine, a bug)
is ERROR with its traceback.
"""

from __future__ import annotations

import logging
from typing import Any

from graphql import GraphQLError

from graph.errors import InvalidInput, RecollectError

log = logging.getLogger("recollect.api")


def error_code(error: GraphQLError) -> str:
    """The code a client sees for `error` (also the label /metrics counts it by)."""
    original = error.original_error
    if isinstance(original, RecollectError):
        return original.code
    if not error.path:
        # no resolver path: parsing, validation or variable coercion rejected the request
        return "BAD_USER_INPUT"
    return "INTERNAL_SERVER_ERROR"


CLIENT_CODES = frozenset({"BAD_USER_INPUT", "NOT_FOUND", "UNAUTHENTICATED", "FORBIDDEN"})


def log_error(error: GraphQLError) -> None:
    """One line per error: INFO for the client's, ERROR with a traceback for ours."""
    code = error_code(error)
    where = ".".join(str(p) for p in error.path) if error.path else "request"
    if code in CLIENT_CODES:
        original = error.original_error
        field = original.field if isinstance(original, InvalidInput) else None
        log.info("client error %s at %s%s", code, where, f" (field {field})" if field else "")
    else:
        log.error("%s at %s", code, where, exc_info=error.original_error)


def format_error(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    original = error.original_error
    code = error_code(error)
    if isinstance(original, RecollectError):
        formatted["message"] = str(original)
    elif code == "INTERNAL_SERVER_ERROR":
        formatted["message"] = "internal error"
    extensions = dict(formatted.get("extensions") or {})
    extensions["code"] = code
    formatted["extensions"] = extensions
    return formatted
