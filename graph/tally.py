"""How many statements one request sends to the graph.

On Bolt every statement is a network round trip, so the number per `context` call is what a
remote Neo4j adds to its latency; /metrics reports it per GraphQL operation and bench/perf.py
prints it. The count lives in a context variable that the request path sets: worker threads
started through anyio inherit it, the service's background thread does not (its writes are not
the request's).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass


@dataclass
class Tally:
    statements: int = 0


_current: ContextVar[Tally | None] = ContextVar("recollect_statement_tally", default=None)


@contextmanager
def counting() -> Iterator[Tally]:
    """Counts the statements run in this context (and the threads that inherit it)."""
    tally = Tally()
    token = _current.set(tally)
    try:
        yield tally
    finally:
        _current.reset(token)


def count_statement() -> None:
    tally = _current.get()
    if tally is not None:
        tally.statements += 1
