"""Small stand-ins for unit tests of logic (query shape, ranking stages): an executor that records
each statement and answers from canned rows, and model stand-ins that satisfy the protocols of
extraction/protocols.py. Never the evidence that a feature works: that is the end-to-end tests on
the real engine and models."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from extraction.model import Extraction
from graph.queries import Queries

Row = dict[str, Any]
Answer = Callable[[dict[str, Any]], list[Row]]


class RecordingExecutor:
    """The executor seam in memory: every statement must exist in cypher/ (as on the real engines),
    each call is recorded with its parameters, and `answers[name](params)` gives the rows."""

    def __init__(self, answers: dict[str, Answer] | None = None) -> None:
        self.queries = Queries("falkordb")
        self.answers = answers or {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.threads: list[str] = []  # the thread each call ran on

    def run(self, name: str, params: dict[str, Any] | None = None) -> list[Row]:
        self.queries[name]  # an unknown statement fails here, as it would at start-up
        values = dict(params or {})
        self.calls.append((name, values))
        self.threads.append(threading.current_thread().name)
        answer = self.answers.get(name)
        return answer(values) if answer else []

    def apply_schema(self) -> None:
        pass

    def ping(self) -> bool:
        return True

    def close(self) -> None:
        pass

    def names(self, thread: str | None = None) -> list[str]:
        """The statements run, in order; with `thread`, those of threads whose name starts so."""
        return [
            name
            for (name, _), ran_on in zip(self.calls, self.threads, strict=True)
            if thread is None or ran_on.startswith(thread)
        ]

    def params(self, name: str) -> list[dict[str, Any]]:
        return [values for called, values in self.calls if called == name]


class FakeEmbedder:
    """Bag-of-words vectors from word hashes: texts sharing words are similar, deterministically."""

    model_id = "fake-embedder"
    dimensions = 16

    def embed_one(self, text: str) -> npt.NDArray[np.float32]:
        return self.embed([text])[0]

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out = np.zeros((len(texts), self.dimensions), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in text.lower().split():
                digest = hashlib.sha256(word.strip(".,!?").encode()).digest()
                out[row, digest[0] % self.dimensions] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out


class FakeExtractor:
    """Returns the extraction given for a text (an empty one otherwise)."""

    name = "fake-extractor"

    def __init__(self, table: dict[str, Extraction] | None = None) -> None:
        self.table = table or {}

    def extract_many(self, items: Sequence[tuple[str, str | None]]) -> list[Extraction]:
        return [self.table.get(text, Extraction()) for text, _ in items]

    def reported_many(
        self, items: Sequence[tuple[str, str]], listeners: Mapping[str, str] | None = None
    ) -> list[str]:
        return [f"{speaker}: {text}" for text, speaker in items]

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        return self.extract_many([(text, speaker)])[0]
