"""What one request costs: the statements it sends to the graph and the time of its stages.

On Bolt every statement is a network round trip, so the number per `context` call is what a
remote Neo4j adds to its latency; the stages (the message's parse, the wait for its embedding,
the card reads, scoring, …) say where the rest of a call's time goes. /metrics reports both per
GraphQL operation and bench/perf.py prints them. The tally lives in a context variable that the
request path sets: worker threads started through anyio inherit it, the service's background
thread does not (its work is not the request's).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass
class Tally:
    statements: int = 0
    # seconds per stage of this request; a stage timed twice (cards read in two places) adds up
    seconds: dict[str, float] = field(default_factory=dict)


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


class Laps:
    """Times consecutive sections of one function: each `lap(stage)` adds the time since the
    previous lap (or since the start) to `stage`, so the stages are disjoint and add up to the
    whole. Outside a request it only reads the clock."""

    def __init__(self) -> None:
        self._tally = _current.get()
        self._last = time.perf_counter()

    def lap(self, stage: str) -> None:
        if self._tally is None:
            return
        now = time.perf_counter()
        seconds = self._tally.seconds
        seconds[stage] = seconds.get(stage, 0.0) + now - self._last
        self._last = now

    def skip(self) -> None:
        """Starts the next lap now: the time since the last is another stage's (timed inside)."""
        self._last = time.perf_counter()
