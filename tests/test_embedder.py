from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from unittest.mock import patch

import numpy as np
import pytest

import extraction.embedder as embedder_module
from extraction.embedder import (
    DIMENSIONS,
    Embedder,
    ModelVerificationError,
    embedding_text,
    model_dir,
    verify_weights,
)
from extraction.extractor import Extractor
from graph.model_threads import EMBED_CHUNK, Models


def test_shipped_weights_verify() -> None:
    verify_weights(model_dir())


def test_tampered_weights_fail_with_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "model.safetensors").write_bytes(b"not the weights")
    with pytest.raises(ModelVerificationError, match="expected 53aa5117.*reinstall"):
        verify_weights(tmp_path)


def test_missing_weights_fail(tmp_path: Path) -> None:
    with pytest.raises(ModelVerificationError, match="embedding weights missing"):
        verify_weights(tmp_path)


def test_embeddings_are_normalised_and_batched(embedder: Embedder) -> None:
    texts = ["My sister lives in Boston.", "Mary lives in Boston.", "I like turtles."]
    vectors = embedder.embed(texts)
    assert vectors.shape == (3, DIMENSIONS) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2]
    single = embedder.embed([texts[0]])[0]
    assert float(single @ vectors[0]) > 0.999
    assert embedder.embed([]).shape == (0, DIMENSIONS)


def test_embedding_text_carries_the_speaker() -> None:
    assert embedding_text("I live in Oslo.", "Ann") == "Ann: I live in Oslo."
    assert embedding_text("I live in Oslo.", None) == "I live in Oslo."


@pytest.mark.parametrize(
    "text",
    [
        "Hi",
        "When did Dana move to Lisbon?",
        "Sam: " + "we talked for hours about the garden, the dog and the trip " * 30,  # cut at 128
        "¿Dónde está la biblioteca? 東京に行きました。",
    ],
)
def test_one_text_through_the_traced_model_is_the_eager_vector(
    embedder: Embedder, text: str
) -> None:
    """The message path (`embed_one`) runs an ONNX export of the model in onnxruntime: it
    must give the batch path's vector, for texts short, long (cut at the embedded window) and
    not English."""
    assert embedder.trace() is not None  # this torch exports: the fast path is the one tested
    one = embedder.embed_one(text)
    assert one.shape == (DIMENSIONS,) and one.dtype == np.float32
    assert abs(float(one @ embedder.embed([text])[0]) - 1.0) < 1e-5


def test_a_trace_that_strays_is_refused(
    embedder: Embedder, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An export whose vectors differ from the eager model's (a library change baking a shape
    into the graph) is not used, nor saved: `embed_one` falls back to the batch path."""
    fresh = Embedder(cache=tmp_path)
    assert fresh._traced is None  # nothing traced until asked: a one-shot command stays eager
    monkeypatch.setattr(fresh, "_traced_vector", lambda traced, text: -fresh.embed([text])[0])
    assert fresh.trace() is None
    assert list(tmp_path.iterdir()) == []
    vector = fresh.embed_one("When did Dana move to Lisbon?")
    assert float(vector @ embedder.embed(["When did Dana move to Lisbon?"])[0]) > 0.9999


def test_a_messages_parts_are_embedded_row_by_row_in_order(
    embedder: Embedder, extractor: Extractor
) -> None:
    """The parts of a message are embedded as separate tasks on the query pool (side by side on
    two cores); the rows come back in the parts' order, each the vector of its own part."""
    models = Models(extractor, embedder)
    try:
        parts = ["Did Tom become a parent in May?", "Alex adopted a greyhound.", "Lisbon"]
        rows = models.embed_queries(parts)
        assert len(rows.tasks) == 3
        got = rows.result()
        assert got.shape == (3, DIMENSIONS) and got.dtype == np.float32
        for row, part in zip(got, parts, strict=True):
            assert abs(float(row @ embedder.embed([part])[0]) - 1.0) < 1e-5
        assert models.embed_queries([]).result().shape == (0, DIMENSIONS)
    finally:
        models.close()


def _batch(n: int) -> list[tuple[str, str | None]]:
    """`n` texts to store of mixed lengths."""
    return [
        (f"My sister Ana{'.' * (k % 7)} moved to Porto {'again ' * (k % 11)}in {1990 + k}.", "Kim")
        for k in range(n)
    ]


def test_a_batch_is_embedded_by_both_threads_in_its_own_order(
    extractor: Extractor, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A batch to store, of more texts than one chunk, of mixed lengths, the model on one
    thread: the calling thread and the extraction thread (after its parse) embed its chunks;
    every row is its own text's vector, every extraction its own text's, in the batch's order.
    After its first chunk the calling thread waits until the other has taken one, so the test
    does not hang on timing: without the help it fails after 20 s."""
    monkeypatch.setattr(embedder_module, "_threads", 1)
    models = Models(extractor, embedder)
    caller = threading.current_thread()
    threads: list[str] = []
    helped = threading.Event()
    embed = embedder.embed

    def counted(texts: list[str]) -> np.ndarray:
        me = threading.current_thread()
        if me is not caller:
            helped.set()
        elif me.name in threads:
            assert helped.wait(timeout=20), "the extraction thread never embedded a chunk"
        threads.append(me.name)
        return embed(texts)

    try:
        items = _batch(3 * EMBED_CHUNK + 5)
        with patch.object(embedder, "embed", counted):
            extractions, vectors = models.read_and_embed(items)
        assert len(set(threads)) == 2 and len(threads) == 4, threads
        assert vectors.shape == (len(items), DIMENSIONS)
        expected = embedder.embed([embedding_text(t, s) for t, s in items])
        assert np.abs(vectors - expected).max() < 1e-5
        assert [e.keys() for e in extractions] == [e.keys() for e in extractor.extract_many(items)]
    finally:
        models.close()


def test_a_model_on_several_threads_embeds_a_batch_on_the_calling_thread_only(
    extractor: Extractor, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With torch on more than one thread each, two embedding threads would contend for the
    cores: the extraction thread does not help."""
    monkeypatch.setattr(embedder_module, "_threads", 2)
    models = Models(extractor, embedder)
    threads: set[str] = set()
    embed = embedder.embed

    def counted(texts: list[str]) -> np.ndarray:
        threads.add(threading.current_thread().name)
        return embed(texts)

    try:
        with patch.object(embedder, "embed", counted):
            _, vectors = models.read_and_embed(_batch(3 * EMBED_CHUNK))
        assert threads == {threading.current_thread().name} and len(vectors) == 3 * EMBED_CHUNK
    finally:
        models.close()


def test_a_chunk_that_fails_fails_the_batch_and_leaves_the_threads_free(
    extractor: Extractor, embedder: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second chunk's embedding raises: the batch raises that error, no thread is left
    waiting, and the next batch is embedded whole."""
    monkeypatch.setattr(embedder_module, "_threads", 1)
    models = Models(extractor, embedder)
    calls: list[int] = []
    embed = embedder.embed

    def failing(texts: list[str]) -> np.ndarray:
        calls.append(len(texts))
        if len(calls) == 2:
            raise RuntimeError("the model ran out of memory")
        return embed(texts)

    outcome: list[BaseException | int] = []

    def batch() -> None:
        try:
            outcome.append(len(models.read_and_embed(_batch(4 * EMBED_CHUNK))[1]))
        except RuntimeError as error:
            outcome.append(error)

    try:
        with patch.object(embedder, "embed", failing):
            worker = threading.Thread(target=batch)
            worker.start()
            worker.join(timeout=60)
        assert not worker.is_alive(), "the failed batch left a thread waiting"
        assert isinstance(outcome[0], RuntimeError)
        batch()
        assert outcome[1] == 4 * EMBED_CHUNK
    finally:
        models.close()


SAVED = """
import json, sys
from pathlib import Path
from extraction.embedder import Embedder
vector = Embedder(cache=Path(sys.argv[1])).embed_one(sys.argv[2])
print(json.dumps({"eager": "sentence_transformers" in sys.modules, "torch": "torch" in sys.modules,
                  "vector": vector.tolist()}))
"""


def _in_a_fresh_process(cache: Path, text: str) -> dict[str, Any]:
    out = subprocess.run(  # noqa: S603 - this interpreter
        [sys.executable, "-c", SAVED, str(cache), text],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).parent.parent,
    )
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def test_a_saved_trace_embeds_a_message_without_the_eager_model(
    embedder: Embedder, tmp_path: Path
) -> None:
    """The first process exports the model and saves it; the next one embeds a message
    through it without importing sentence-transformers (4.4 s of a one-shot command) or torch
    (1.1 s), and the vector is the eager one's."""
    text = "When did Dana move to Lisbon?"
    first = _in_a_fresh_process(tmp_path, text)
    assert first["eager"]  # nothing saved yet: exported from the eager model, then saved
    assert sorted(p.suffix for p in tmp_path.iterdir()) == [".npy", ".onnx"]
    second = _in_a_fresh_process(tmp_path, text)
    assert not second["eager"] and not second["torch"]
    want = embedder.embed([text])[0]
    assert abs(float(np.asarray(second["vector"], dtype=np.float32) @ want) - 1.0) < 1e-5


def test_a_torn_saved_trace_is_traced_again(tmp_path: Path) -> None:
    fresh = Embedder(cache=tmp_path)
    assert fresh.trace() is not None
    (model,) = tmp_path.glob("*.onnx")
    model.write_bytes(model.read_bytes()[: model.stat().st_size // 2])
    again = Embedder(cache=tmp_path)
    assert again.trace() is not None  # exported from the eager model, and saved whole again
    assert Embedder(cache=tmp_path)._saved_trace() is not None


def test_an_empty_saved_trace_file_is_traced_again_not_fatal(tmp_path: Path) -> None:
    """A power cut can leave a zero-length file behind a rename: the start must not fail."""
    Embedder(cache=tmp_path).trace()
    (probes,) = tmp_path.glob("*.npy")
    probes.write_bytes(b"")
    again = Embedder(cache=tmp_path)
    assert again.trace() is not None
    assert Embedder(cache=tmp_path)._saved_trace() is not None  # saved whole again


def test_an_export_that_cannot_be_saved_is_still_used(embedder: Embedder, tmp_path: Path) -> None:
    """A cache that cannot be written (here a file where the directory should be) loses the
    saved copy, not the fast path: the export runs from memory."""
    blocked = tmp_path / "cache"
    blocked.write_text("not a directory")
    fresh = Embedder(cache=blocked)
    assert fresh.trace() is not None
    text = "When did Dana move to Lisbon?"
    assert abs(float(fresh.embed_one(text) @ embedder.embed([text])[0]) - 1.0) < 1e-5
