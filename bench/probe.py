"""The confidence's inputs per question, for fitting it (bench/fit_confidence.py): one in-process
context call with both floors off, and what the confidence stage saw — its signals, the ranking
it judged and whether its best memory was a structural match. Used by bench/locomo.py and
bench/longmemeval.py with `--signals FILE`; the GraphQL calls the benches score are not touched.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.recall.confidence import structural_match
from graph.recall.retrieval import ContextRequest, retrieve


def probe(
    runtime: Any, user: str, message: str, speaker: str | None, as_of: str, depth: int
) -> dict[str, Any]:
    """The signals, confidence and unfloored top `depth` (external id, score) of one call."""
    when = datetime.fromisoformat(as_of)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    request = ContextRequest(
        user_id=user,
        message=message,
        as_of=when.timestamp(),
        max_memories=depth,
        speaker=speaker,
        min_score=0.0,
        min_confidence=0.0,
    )
    result = retrieve(runtime.service, request)
    return {
        "signals": asdict(result.signals) if result.signals else {},
        "confidence": result.confidence,
        "noted": bool(result.conflicts),
        "structural": structural_match(result.memories),
        "ranked": [[m.memory.external_id, m.score] for m in result.memories],
    }


class Probes:
    """Rows of (question, label, probe) written as JSON lines to `path` (None: nothing)."""

    def __init__(self, path: str | None) -> None:
        self.path = Path(path) if path else None
        if self.path:
            self.path.write_text("", encoding="utf-8")

    def add(self, runtime: Any, row: dict[str, Any], speaker: str | None, depth: int) -> None:
        if self.path is None:
            return
        found = probe(runtime, row["user"], row["question"], speaker, row["as_of"], depth)
        with self.path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row | found) + "\n")
