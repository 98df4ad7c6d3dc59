"""The one place where exceptions become GraphQL errors with `extensions.code`.

RecollectError subclasses carry their code; GraphQL's own coercion and validation errors (a
malformed DateTime, a wrong type, an unknown field) are the client's fault: BAD_USER_INPUT. Anything
else is an internal error whose message is masked (it is logged with its traceback).
"""

from __future__ import annotations

import logging
from typing import Any

from graphql import GraphQLError

from graph.errors import RecollectError

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


def format_error(error: GraphQLError) -> dict[str, Any]:
    formatted: dict[str, Any] = dict(error.formatted)
    original = error.original_error
    code = error_code(error)
    if isinstance(original, RecollectError):
        formatted["message"] = str(original)
    elif code == "INTERNAL_SERVER_ERROR":
        log.error("unhandled error in %s", error.path, exc_info=original)
        formatted["message"] = "internal error"
    extensions = dict(formatted.get("extensions") or {})
    extensions["code"] = code
    formatted["extensions"] = extensions
    return formatted
