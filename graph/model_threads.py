"""The two models and the threads they run on.

spaCy (the extractor) and MiniLM (the embedder) are both CPU-bound; torch releases the GIL, so a
batch is parsed on the extraction thread while the calling thread embeds it and the two share the
cores instead of taking turns (docs/performance.md); once the parse is done, the extraction thread
embeds the chunks of the batch the calling thread has not reached. A context call embeds its
message, and the parts of a message of several parts, on the query pool while its own thread reads
the graph and parses the message; one text at a time goes through the exported model
(`embed_one`, onnxruntime), since the eager one holds the GIL through each layer's Python and
took turns with the parse.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text, embedding_threads
from extraction.model import Extraction
from extraction.protocols import TextEmbedder, TextExtractor

Vector = npt.NDArray[np.float32]
# texts per chunk a thread takes of a batch's embedding (`_Chunks`)
EMBED_CHUNK = 32


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


class _Chunks:
    """A batch's texts to embed, in chunks that two threads take in turn: the calling thread,
    and the extraction thread once its parse is done, when the model runs on one thread (two
    cores: one fewer than the cores, extraction/embedder.py model_threads; with more, each
    thread's torch pool would take all but one core and the two would contend). On two cores
    a batch's embedding alone kept the second core idle after the parse: on the bulk ingest of
    LoCoMo dev the parse took 18 s of 48 and the calling thread's embedding 39
    (docs/performance.md). Texts of a similar length share a chunk (less padding). The other
    thread starts once this one has embedded a chunk: the eager model's first call sets its
    tokenizer's truncation and padding, which two threads must not set at once."""

    def __init__(self, texts: list[str], embedder: TextEmbedder, size: int = EMBED_CHUNK) -> None:
        self._texts = texts
        self._embedder = embedder
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        self._chunks = [order[at : at + size] for at in range(0, len(order), size)]
        self._rows: list[Vector | None] = [None] * len(self._chunks)
        self._next = 0
        self._lock = threading.Lock()
        self.begun = threading.Event()

    def work(self) -> None:
        """Embeds chunks no thread has taken, until none is left."""
        while True:
            with self._lock:
                n = self._next
                if n >= len(self._chunks):
                    return
                self._next += 1
            self._rows[n] = self._embedder.embed([self._texts[i] for i in self._chunks[n]])
            self.begun.set()

    def cancel(self) -> None:
        """No chunk is taken any more (the calling thread failed)."""
        with self._lock:
            self._next = len(self._chunks)

    def result(self) -> Vector:
        """The vectors in the texts' order (every chunk embedded)."""
        out = np.zeros((len(self._texts), self._embedder.dimensions), dtype=np.float32)
        for chunk, rows in zip(self._chunks, self._rows, strict=True):
            if rows is None:
                raise RuntimeError("a chunk of the batch was not embedded")
            out[chunk] = rows
        return out


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
        """One message as `context` reads it (with its parts and what it asks for)."""
        return self.extractor.extract(text, speaker)

    def read_and_embed(
        self, items: Sequence[tuple[str, str | None]]
    ) -> tuple[list[Extraction], Vector]:
        """Texts to store, as (text, speaker): their extractions (parsed on the extraction thread)
        and their vectors ("Speaker: text", embedded on this one), side by side; once the parse
        is done, the extraction thread embeds the chunks this one has not taken (`_Chunks`)."""
        texts = [embedding_text(text, speaker) for text, speaker in items]
        known = [self._ahead.get(text) for text in texts]
        if texts and all(v is not None for v in known):
            reading = self._extraction.submit(self.extractor.extract_many, list(items))
            return reading.result(), np.stack([v for v in known if v is not None])
        chunks = _Chunks(texts, self.embedder)
        helped = chunks if embedding_threads() == 1 else None
        extracting = self._extraction.submit(self._read_then_help, list(items), helped)
        try:
            chunks.work()
        except BaseException:
            chunks.cancel()
            raise
        finally:
            chunks.begun.set()  # also when no chunk was embedded (empty, failed): no wait
            extractions = extracting.result()  # never leave spaCy working for a failed request
        return extractions, chunks.result()

    def _read_then_help(
        self, items: list[tuple[str, str | None]], chunks: _Chunks | None
    ) -> list[Extraction]:
        extractions = self.extractor.extract_many(items)
        if chunks is not None:
            chunks.begun.wait()
            chunks.work()
        return extractions

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
        on its own task: the exported model holds no GIL, so the pool's two threads embed two
        parts side by side (17 of 100 real questions have parts; two parts one after the other
        took 48 ms, side by side 24, on two cores)."""
        tasks = tuple(self._queries.submit(self.embedder.embed_one, t) for t in texts)
        return Rows(tasks, self.embedder.dimensions)
