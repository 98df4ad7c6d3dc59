"""The two models and the threads they run on.

spaCy (the extractor) and MiniLM (the embedder) are both CPU-bound; torch releases the GIL, so a
batch is parsed on the extraction thread while the calling thread embeds it and the two share the
cores instead of taking turns (docs/performance.md). A context call embeds its message, and the
parts of a message of several parts, on the query pool while its own thread reads the graph and
parses the message; one text at a time goes through the traced model (`embed_one`), since the
eager one holds the GIL through each layer's Python and took turns with the parse.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from extraction.model import Extraction
from extraction.protocols import TextEmbedder, TextExtractor

Vector = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Rows:
    """Vectors being computed on the query pool, one task per row."""

    tasks: tuple[Future[Vector], ...]
    dimensions: int

    def result(self) -> Vector:
        """The rows, in order (waits for every task)."""
        if not self.tasks:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        return np.stack([task.result() for task in self.tasks])

    def cancel(self) -> None:
        """Drops the tasks not started (a failed call leaves no work queued)."""
        for task in self.tasks:
            task.cancel()


class Models:
    def __init__(self, extractor: TextExtractor, embedder: TextEmbedder) -> None:
        self.extractor = extractor
        self.embedder = embedder
        self._extraction = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-nlp")
        self._queries = ThreadPoolExecutor(max_workers=2, thread_name_prefix="recollect-embed")
        # vectors embedded ahead (`embedded_ahead`), by the text embedded
        self._ahead: dict[str, Vector] = {}

    def close(self) -> None:
        self._extraction.shutdown(wait=True)
        self._queries.shutdown(wait=True)

    def extract(self, text: str, speaker: str | None = None) -> Extraction:
        """One message as `context` reads it (with its parts)."""
        return self.extractor.extract(text, speaker)

    def read_and_embed(
        self, items: Sequence[tuple[str, str | None]]
    ) -> tuple[list[Extraction], Vector]:
        """Texts to store, as (text, speaker): their extractions (parsed on the extraction thread)
        and their vectors ("Speaker: text", embedded on this one), side by side."""
        extracting = self._extraction.submit(self.extractor.extract_many, list(items))
        try:
            texts = [embedding_text(text, speaker) for text, speaker in items]
            known = [self._ahead.get(text) for text in texts]
            if texts and all(v is not None for v in known):
                vectors = np.stack([v for v in known if v is not None])
            else:
                vectors = self.embedder.embed(texts)
        finally:
            extractions = extracting.result()  # never leave spaCy working for a failed request
        return extractions, vectors

    @contextmanager
    def embedded_ahead(self, items: Sequence[tuple[str, str | None]]) -> Iterator[None]:
        """Texts about to be stored one write at a time, as (text, speaker), embedded now in one
        batch: inside the block `read_and_embed` takes their vectors from here. The episodes of
        sessions that end together are written one by one (each replaces its session's earlier
        one); one by one, their embedding was 28% of the background thread in a served ingest
        (docs/performance.md). A vector depends on its text only, so any caller may take it."""
        texts = [embedding_text(text, speaker) for text, speaker in items]
        if len(texts) > 1:
            for text, vector in zip(texts, self.embedder.embed(texts), strict=True):
                self._ahead[text] = vector
        try:
            yield
        finally:
            for text in texts:
                self._ahead.pop(text, None)

    def reported(
        self, items: Sequence[tuple[str, str]], listeners: Mapping[str, str] | None = None
    ) -> list[str]:
        """(sentence, speaker) pairs in the third person: "Caroline went …"; `listeners` maps a
        speaker to the one "you" is."""
        return self.extractor.reported_many(items, listeners) if items else []

    def embed_query(self, text: str) -> Future[Vector]:
        """Embeds a message on the query pool, so the caller can read the graph meanwhile."""
        return self._queries.submit(self.embedder.embed_one, text)

    def embed_queries(self, texts: Sequence[str]) -> Rows:
        """Embeds several messages (the parts of one) on the query pool, one row each, each part
        on its own task: the traced model holds no GIL, so the pool's two threads embed two
        parts side by side (17 of 100 real questions have parts; two parts one after the other
        took 48 ms, side by side 24, on two cores)."""
        tasks = tuple(self._queries.submit(self.embedder.embed_one, t) for t in texts)
        return Rows(tasks, self.embedder.dimensions)
