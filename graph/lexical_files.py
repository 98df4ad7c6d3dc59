"""Users' BM25 indexes on disk: `<data>/lexical/<sha256(user)>.bm25`, one file per user.

A restart used to rebuild each user's index from the graph on the user's first call: reading
every text, tokenising and stemming it, and bm25s indexing it took 6.8 s of a 50,000-memory
user's first call. The file holds the index as `Snapshot` arrays (the base's score matrix, every
memory's tokens as ids into the file's vocabulary, their texts' digests) and the change mark the
index holds at least (graph/follow.py); the first call loads it and applies the changes since.

The file is a JSON header (the mark, the tokenizer, each array's dtype, shape and offset) and the
arrays' raw bytes, which a load maps into memory instead of reading (a 50,000-memory user's file
is about 50 MB; read through numpy's zip container with its checksums, 0.4 s of the first call).

A file is a cache and is never trusted beyond what it proves: it is written to a temporary file
and renamed, so a crash leaves the older file whole; a file of another format, another tokenizer
or with arrays that do not fit together is logged and ignored (the index is built from the graph,
as without a file). A forgotten memory's tokens leave the disk with the file: the caller unlinks
it when a memory of the user is removed, and writes a compacted index later (graph/caches.py).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
import numpy.typing as npt

from graph.lexical import DIGEST_BYTES, K1, B, Snapshot
from graph.records import Mark
from graph.user_files import UserFiles

log = logging.getLogger("recollect.lexical")

# bump when what a file holds or how its tokens are made changes
FORMAT = 3
MAGIC = b"RCLXBM25"
ALIGN = 64  # the header and each array padded to this many bytes
SUFFIX = ".bm25"
ARRAYS = ("data", "indices", "indptr", "tokens", "offsets", "digests")


def _tokenizer() -> dict[str, object]:
    """What the saved tokens depend on: a file made by another tokenizer is not used."""
    import Stemmer

    return {
        "bm25s": bm25s.__version__,
        "stemmer": getattr(Stemmer, "__version__", "?"),
        "stopwords": "en",
        "k1": K1,
        "b": B,
    }


class LexicalFiles(UserFiles):
    """Saves and loads users' index snapshots under one directory."""

    suffix = SUFFIX

    def save(self, user_id: str, snapshot: Snapshot, mark: Mark) -> None:
        """Writes the snapshot and the mark it holds at least, atomically (temporary file,
        fsync, rename); an empty index removes the file instead."""
        if not snapshot.ids:
            self.drop(user_id)
            return
        arrays = {
            "ids": _joined(snapshot.ids),
            "terms": _joined(snapshot.terms),
            **{name: np.ascontiguousarray(getattr(snapshot, name)) for name in ARRAYS},
        }
        layout: dict[str, list[object]] = {}
        offset = 0
        for name, array in arrays.items():
            layout[name] = [array.dtype.str, list(array.shape), offset]
            offset += -(-array.nbytes // ALIGN) * ALIGN  # each array starts aligned
        header = json.dumps(
            {
                "format": FORMAT,
                "tokenizer": _tokenizer(),
                "epoch": mark.epoch,
                "seq": mark.seq,
                "base_size": snapshot.base_size,
                "arrays": layout,
                "bytes": offset,
            }
        ).encode("utf-8")
        with self.replacing(user_id) as out:
            out.write(MAGIC + len(header).to_bytes(8, "little") + header)
            out.write(bytes(_pad(len(MAGIC) + 8 + len(header))))
            for array in arrays.values():
                out.write(array.tobytes())
                out.write(bytes(_pad(array.nbytes)))

    def load(self, user_id: str) -> tuple[Snapshot, Mark] | None:
        """The user's saved snapshot (its arrays mapped, not read) and its mark; None when there
        is none, or it is unusable (logged: torn, another format or tokenizer, arrays that do
        not fit together)."""
        path = self.path(user_id)
        if not path.exists():
            return None
        try:
            meta, arrays = _mapped(path)
            if meta.get("format") != FORMAT or meta.get("tokenizer") != _tokenizer():
                log.info("a BM25 index of another format found; it will be rebuilt")
                return None
            snapshot = Snapshot(
                ids=_split(arrays["ids"]),
                base_size=int(meta["base_size"]),
                terms=_split(arrays["terms"]),
                **{name: arrays[name] for name in ARRAYS},
            )
            mark = Mark(meta["epoch"], int(meta["seq"]))
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("unreadable BM25 index %s (%s); it will be rebuilt", path.name, error)
            return None
        problem = _misfit(snapshot)
        if problem:
            log.warning(
                "BM25 index %s does not fit together (%s); it will be rebuilt", path.name, problem
            )
            return None
        return snapshot, mark


def _pad(size: int) -> int:
    """Bytes from `size` to the next multiple of ALIGN."""
    return -size % ALIGN


def _mapped(path: Path) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """A file's header and its arrays, views of one read-only mapping of the file (one mapping
    per user: a process may hold thousands); ValueError when it is not whole."""
    with path.open("rb") as handle:
        lead = handle.read(len(MAGIC) + 8)
        if len(lead) != len(MAGIC) + 8 or not lead.startswith(MAGIC):
            raise ValueError("not a BM25 index file")
        size = int.from_bytes(lead[len(MAGIC) :], "little")
        meta = json.loads(handle.read(size).decode("utf-8"))
    if not isinstance(meta, dict):
        raise ValueError("the header is no object")
    start = len(MAGIC) + 8 + size
    start += _pad(start)
    if path.stat().st_size != start + int(meta["bytes"]):
        raise ValueError("the file is cut short or too long")
    raw = np.asarray(np.memmap(path, dtype=np.uint8, mode="r"))
    arrays: dict[str, npt.NDArray[Any]] = {}
    for name, (dtype, shape, offset) in meta["arrays"].items():
        kind = np.dtype(dtype)
        if kind.hasobject:
            raise ValueError("an array of objects")
        count = int(np.prod(shape))
        at = start + int(offset)
        arrays[name] = raw[at : at + count * kind.itemsize].view(kind).reshape(shape)
    return meta, arrays


def _joined(words: list[str]) -> np.ndarray:
    """Strings as one UTF-8 byte array, a newline between two: a fixed-width string array would
    make every term as wide as the longest. Tokens are runs of word characters and ids hex, so
    neither holds a newline (checked)."""
    text = "\n".join(words)
    if text.count("\n") != max(len(words) - 1, 0):
        raise ValueError("a saved term or memory id holds a newline")
    return np.frombuffer(text.encode("utf-8"), dtype=np.uint8)


def _split(stored: np.ndarray) -> list[str]:
    text = stored.tobytes().decode("utf-8")
    return text.split("\n") if text else []


def _misfit(s: Snapshot) -> str | None:
    """What in a loaded snapshot does not fit together, or None: a file torn inside its arrays
    or written by other code must not index past an array's end."""
    documents, columns = len(s.ids), len(s.indptr) - 1
    checks = [
        (0 <= s.base_size <= documents, "base size"),
        (columns <= len(s.terms), "vocabulary"),
        (len(s.offsets) == documents + 1, "offsets"),
        (s.digests.shape == (documents, DIGEST_BYTES), "digests"),
        (len(s.data) == len(s.indices) and columns >= 0, "score arrays"),
    ]
    for ok, name in checks:
        if not ok:
            return name
    if columns and (int(s.indptr[-1]) != len(s.data) or (np.diff(s.indptr) < 0).any()):
        return "score columns"
    if len(s.indices) and not (int(s.indices.min()) >= 0 and int(s.indices.max()) < s.base_size):
        return "score rows"
    if (
        int(s.offsets[0]) != 0
        or int(s.offsets[-1]) != len(s.tokens)
        or (np.diff(s.offsets) < 0).any()
    ):
        return "token offsets"
    if len(s.tokens) and not (int(s.tokens.min()) >= 0 and int(s.tokens.max()) < len(s.terms)):
        return "token ids"
    base_tokens = s.tokens[: int(s.offsets[s.base_size])]
    if len(base_tokens) and int(base_tokens.max()) >= columns:
        return "base tokens"
    return None


def _within(values: npt.NDArray[np.integer[Any]], limit: int) -> bool:
    """Every value in [0, limit)."""
    return not len(values) or (int(values.min()) >= 0 and int(values.max()) < limit)
