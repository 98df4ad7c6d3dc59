"""FAISS indexes, one per user, keyed by memory id (the only place ids become FAISS int64).

Each index lives in `<data>/vectors/<sha256(user)>.faiss` beside a `.json` with the model id,
dimensions and the user's change mark the index holds at least (graph/follow.py); both are written
to a temporary file and renamed, so a crash never leaves a torn file. The graph is the source of
truth (embeddings are stored on the memory nodes too): an index is a cache, loaded on a user's first
call and brought up to the graph's mark then (graph/follow.py). Saving is debounced; call `flush`.
Indexes are held in memory until the service evicts them (graph/residency.py).

A person's long text has *passages* beside its own vector (extraction/chunks.py): vectors of its
later parts, under FAISS ids derived from the memory id and the passage's number and counted in
the `.json`. A search answers memories, each by its best vector; `ids` and `count` are of
memories. Passages are not stored in the graph: a rebuild embeds them again from the text.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import faiss
import numpy as np
import numpy.typing as npt

from extraction.chunks import passages
from extraction.protocols import TextEmbedder
from graph.ids import MemoryId, user_stem
from graph.records import Mark

log = logging.getLogger("recollect.vectors")

Vectors = npt.NDArray[np.float32]


def _best_per_memory(
    ids: npt.NDArray[np.int64],
    scores: npt.NDArray[np.float32],
    owners: dict[int, tuple[str, int]],
    k: int,
) -> list[tuple[MemoryId, float]]:
    """One search row's hits as memories (a passage answers for its memory), each at its best
    score, best first, at most `k`."""
    best: dict[MemoryId, float] = {}
    for key, score in zip(ids.tolist(), scores.tolist(), strict=True):
        if key < 0:
            continue
        owner = owners.get(key)
        memory_id = MemoryId(owner[0]) if owner is not None else from_faiss_id(key)
        if memory_id not in best:  # FAISS answers best first
            best[memory_id] = float(score)
    return list(best.items())[:k]


def to_faiss_id(memory_id: str) -> int:
    return int(memory_id, 16)


def from_faiss_id(value: int) -> MemoryId:
    return MemoryId(f"{int(value):016x}")


def encode_embedding(vector: npt.ArrayLike) -> str:
    """The form an embedding is stored in on a memory node: base64 of little-endian float32.

    Exact, a quarter of the size of a list of decimal floats, and one string parameter instead of
    384 numbers that the FalkorDB client would format into the statement text one by one (that
    formatting and its parsing were a fifth of ingest time)."""
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_embedding(stored: str | Sequence[float]) -> Vectors:
    """Reads an embedding back; a list of floats (the form before base64) is accepted too."""
    if isinstance(stored, str):
        return np.frombuffer(base64.b64decode(stored), dtype="<f4").astype(np.float32)
    return np.asarray(stored, dtype=np.float32)


def passage_id(memory_id: str, number: int) -> int:
    """The FAISS id of a memory's passage `number` (1 is the text's second part): 63 bits of a
    hash, so no memory's id (random 63 bits) meets one but by a chance of about 2^-63 per pair."""
    digest = hashlib.blake2b(f"{memory_id}/{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & (2**63 - 1)


def passage_vectors(
    embedder: TextEmbedder, items: Sequence[tuple[str, str | None]]
) -> list[Vectors]:
    """Each (text, speaker)'s passage vectors (zero rows for most texts), embedded in one batch."""
    texts = [passages(text, speaker) for text, speaker in items]
    flat = [t for ts in texts for t in ts]
    rows = embedder.embed(flat) if flat else np.zeros((0, embedder.dimensions), np.float32)
    ends = np.cumsum([len(ts) for ts in texts], dtype=np.int64)
    return [rows[end - len(ts) : end] for ts, end in zip(texts, ends.tolist(), strict=True)]


class _UserIndex:
    def __init__(self, dims: int) -> None:
        self.index: Any = faiss.IndexIDMap2(faiss.IndexFlatIP(dims))
        self.dirty = False
        self.passages: dict[str, int] = {}  # memory id → its passages
        self.owners: dict[int, tuple[str, int]] = {}  # a passage's FAISS id → (memory, number)
        # the change mark the index holds at least; None: unknown (a new index, or a file written
        # before marks), which graph/follow.py answers by reconciling the whole user
        self.mark: Mark | None = None

    def set_passages(self, memory_id: str, count: int) -> None:
        for number in range(1, self.passages.pop(memory_id, 0) + 1):
            self.owners.pop(passage_id(memory_id, number), None)
        if count:
            self.passages[memory_id] = count
            for number in range(1, count + 1):
                self.owners[passage_id(memory_id, number)] = (memory_id, number)

    def passage_ids(self, memory_ids: Iterable[str]) -> list[int]:
        return [
            passage_id(m, number)
            for m in memory_ids
            for number in range(1, self.passages.get(m, 0) + 1)
        ]


class VectorStore:
    def __init__(self, directory: Path, dims: int, model_id: str) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.dims = dims
        self.model_id = model_id
        self._users: dict[str, _UserIndex] = {}
        self._lock = threading.RLock()

    # -- loading and saving -------------------------------------------------------------------

    def _paths(self, user_id: str) -> tuple[Path, Path]:
        stem = user_stem(user_id)
        return self.directory / f"{stem}.faiss", self.directory / f"{stem}.json"

    def saved_at(self, user_id: str) -> float | None:
        """When the user's index was last saved (its file's time), or None without a file."""
        try:
            return self._paths(user_id)[1].stat().st_mtime
        except OSError:
            return None

    def _get(self, user_id: str) -> _UserIndex:
        with self._lock:
            entry = self._users.get(user_id)
            if entry is None:
                entry = self._load(user_id)
                self._users[user_id] = entry
            return entry

    def _load(self, user_id: str) -> _UserIndex:
        entry = _UserIndex(self.dims)
        index_path, meta_path = self._paths(user_id)
        if not index_path.exists() or not meta_path.exists():
            return entry
        try:
            meta = json.loads(meta_path.read_text())
            if meta.get("model_id") != self.model_id or meta.get("dims") != self.dims:
                log.info("vector index of another model found; it will be rebuilt")
                entry.dirty = True
                return entry
            entry.index = faiss.read_index(str(index_path))
            for memory_id, count in dict(meta.get("passages", {})).items():
                entry.set_passages(str(memory_id), int(count))
            # the index and its .json are renamed one after the other: a crash between leaves a
            # pair that disagrees (passages without their count), rebuilt from the graph
            if "ntotal" in meta and int(meta["ntotal"]) != int(entry.index.ntotal):
                raise ValueError("the index and its .json disagree")
            if "seq" in meta:
                entry.mark = Mark(meta.get("epoch"), int(meta["seq"]))
        except (OSError, ValueError, RuntimeError):
            log.warning("unreadable vector index %s; it will be rebuilt", index_path.name)
            entry = _UserIndex(self.dims)
            entry.dirty = True
        return entry

    def cached_users(self) -> int:
        """Users whose index is held in memory (for /metrics)."""
        with self._lock:
            return len(self._users)

    def flush(self) -> int:
        """Saves every changed index atomically; returns how many were written."""
        written = 0
        with self._lock:
            for user_id, entry in list(self._users.items()):
                if entry.dirty:
                    self._save(user_id, entry)
                    written += 1
        return written

    def _save(self, user_id: str, entry: _UserIndex) -> None:
        """Writes one index and its meta atomically (an empty index: both files go)."""
        index_path, meta_path = self._paths(user_id)
        if entry.index.ntotal == 0:
            for path in (index_path, meta_path):
                path.unlink(missing_ok=True)
        else:
            tmp = index_path.with_suffix(".faiss.tmp")
            faiss.write_index(entry.index, str(tmp))
            os.replace(tmp, index_path)
            meta_tmp = meta_path.with_suffix(".json.tmp")
            meta: dict[str, Any] = {
                "model_id": self.model_id,
                "dims": self.dims,
                "ntotal": int(entry.index.ntotal),
            }
            if entry.passages:
                meta["passages"] = entry.passages
            if entry.mark is not None:
                meta.update(epoch=entry.mark.epoch, seq=entry.mark.seq)
            meta_tmp.write_text(json.dumps(meta))
            os.replace(meta_tmp, meta_path)
        entry.dirty = False

    def evict(self, user_id: str) -> None:
        """Saves the user's index if it changed and lets it go from memory (the file stays)."""
        with self._lock:
            entry = self._users.pop(user_id, None)
            if entry is not None and entry.dirty:
                self._save(user_id, entry)

    def resident(self) -> set[str]:
        """Users whose index is held in memory."""
        with self._lock:
            return set(self._users)

    def nbytes(self, user_id: str) -> int:
        """What the user's index holds in memory: the vectors, the id map both ways (FAISS's
        IndexIDMap2 keeps a reverse hash map)."""
        with self._lock:
            entry = self._users.get(user_id)
            return 0 if entry is None else int(entry.index.ntotal) * (self.dims * 4 + 48)

    def mark(self, user_id: str) -> Mark | None:
        with self._lock:
            return self._get(user_id).mark

    def held_mark(self, user_id: str) -> Mark | None:
        """The mark of the user's index when it is held in memory; None, without loading it,
        when it is not (a save that comes after the user's eviction has nothing to save)."""
        with self._lock:
            entry = self._users.get(user_id)
            return None if entry is None else entry.mark

    def set_mark(self, user_id: str, mark: Mark) -> None:
        with self._lock:
            entry = self._get(user_id)
            if entry.mark != mark:
                entry.mark = mark
                entry.dirty = True

    # -- reads and writes ---------------------------------------------------------------------

    def add(
        self,
        user_id: str,
        ids: Sequence[str],
        vectors: Vectors,
        passages: Sequence[Vectors] | None = None,
    ) -> None:
        """Adds (or replaces) memories' vectors, and with `passages` (one matrix per memory, of
        zero rows for most) their passages' (which replace any the memory had)."""
        if not ids:
            return
        if vectors.shape != (len(ids), self.dims):
            raise ValueError(f"expected {len(ids)}×{self.dims} vectors, got {vectors.shape}")
        with self._lock:
            entry = self._get(user_id)
            faiss_ids = np.array([to_faiss_id(i) for i in ids], dtype=np.int64)
            entry.index.remove_ids(faiss.IDSelectorBatch(faiss_ids))
            entry.index.add_with_ids(np.ascontiguousarray(vectors, dtype=np.float32), faiss_ids)
            if passages is not None:
                self._add_passages(entry, ids, passages)
            entry.dirty = True

    def _add_passages(
        self, entry: _UserIndex, ids: Sequence[str], passages: Sequence[Vectors]
    ) -> None:
        old = np.array(entry.passage_ids(ids), dtype=np.int64)
        if old.size:
            entry.index.remove_ids(faiss.IDSelectorBatch(old))
        for memory_id, rows in zip(ids, passages, strict=True):
            entry.set_passages(memory_id, len(rows))
            if len(rows):
                keys = np.array(entry.passage_ids([memory_id]), dtype=np.int64)
                entry.index.add_with_ids(np.ascontiguousarray(rows, dtype=np.float32), keys)

    def remove(self, user_id: str, ids: Iterable[str]) -> int:
        """Removes memories' vectors and their passages'; returns how many memories had one."""
        wanted = list(ids)
        faiss_ids = np.array([to_faiss_id(i) for i in wanted], dtype=np.int64)
        if faiss_ids.size == 0:
            return 0
        with self._lock:
            entry = self._get(user_id)
            removed = int(entry.index.remove_ids(faiss.IDSelectorBatch(faiss_ids)))
            passage_keys = np.array(entry.passage_ids(wanted), dtype=np.int64)
            if passage_keys.size:
                entry.index.remove_ids(faiss.IDSelectorBatch(passage_keys))
                for memory_id in wanted:
                    entry.set_passages(memory_id, 0)
            entry.dirty = entry.dirty or removed > 0 or passage_keys.size > 0
            return removed

    def drop_user(self, user_id: str) -> None:
        with self._lock:
            self._users.pop(user_id, None)
            for path in self._paths(user_id):
                path.unlink(missing_ok=True)

    def ids(self, user_id: str) -> set[MemoryId]:
        with self._lock:
            entry = self._get(user_id)
            if entry.index.ntotal == 0:
                return set()
            raw = faiss.vector_to_array(entry.index.id_map)
            return {from_faiss_id(v) for v in raw if int(v) not in entry.owners}

    def count(self, user_id: str) -> int:
        """Memories with a vector (passages not counted)."""
        with self._lock:
            entry = self._get(user_id)
            return int(entry.index.ntotal) - len(entry.owners)

    def search(self, user_id: str, query: Vectors, k: int) -> list[tuple[MemoryId, float]]:
        return self.search_rows(user_id, query.reshape(1, -1), k)[0]

    def search_rows(
        self, user_id: str, queries: Vectors, k: int
    ) -> list[list[tuple[MemoryId, float]]]:
        """The `k` nearest memories of each row of `queries`, in one search: a message and its
        parts are searched together, FAISS's threads taking the rows side by side, where a search
        per row scanned the whole index once each (at 50,000 memories a scan is memory-bound,
        8-16 ms on a two-core machine)."""
        with self._lock:
            entry = self._get(user_id)
            if entry.index.ntotal == 0 or k <= 0:
                return [[] for _ in range(len(queries))]
            # a memory may be found by several of its vectors (passages): ask for more, twice as
            # many each time, until every row has k memories or the index is exhausted
            rows = np.ascontiguousarray(queries, np.float32)
            total = int(entry.index.ntotal)
            wanted = min(total, k + min(len(entry.owners), k))
            while True:
                scores, found = entry.index.search(rows, wanted)
                hits = [
                    _best_per_memory(ids, row, entry.owners, k)
                    for ids, row in zip(found, scores, strict=True)
                ]
                if wanted >= total or all(len(h) >= k for h in hits):
                    return hits
                wanted = min(total, 2 * wanted)

    def passage_matrix(
        self, user_id: str, ids: Iterable[str]
    ) -> tuple[list[tuple[str, int]], Vectors]:
        """The passages of the given memories, as (memory, number) and the rows of one matrix."""
        with self._lock:
            entry = self._get(user_id)
            owned = [(m, n) for m in ids for n in range(1, entry.passages.get(m, 0) + 1)]
            if not owned:
                return [], np.zeros((0, self.dims), dtype=np.float32)
            keys = np.array([passage_id(m, n) for m, n in owned], dtype=np.int64)
            try:
                return owned, entry.index.reconstruct_batch(keys)
            except RuntimeError:  # a passage the index lacks: never expected, never fatal
                log.warning("a passage missing from a vector index; passages left out")
                return [], np.zeros((0, self.dims), dtype=np.float32)

    def vectors(self, user_id: str, ids: Iterable[str]) -> dict[str, Vectors]:
        """Stored vectors of the given memories (those present in the index)."""
        present, stored = self.matrix(user_id, ids)
        return dict(zip(present, stored, strict=True))

    def matrix(self, user_id: str, ids: Iterable[str]) -> tuple[list[str], Vectors]:
        """The given memories present in the index, and their stored vectors as the rows of one
        matrix: read in one call (a context call reads about 200, which one `reconstruct` each
        took 2.5 ms against 0.1), one by one only when some id is missing."""
        wanted = list(ids)
        with self._lock:
            entry = self._get(user_id)
            keys = np.array([to_faiss_id(i) for i in wanted], dtype=np.int64)
            try:
                return wanted, entry.index.reconstruct_batch(keys)
            except RuntimeError:  # an id the index lacks: find which
                pass
            present: list[str] = []
            rows: list[Vectors] = []
            for memory_id, key in zip(wanted, keys.tolist(), strict=True):
                try:
                    rows.append(entry.index.reconstruct(key))
                except RuntimeError:
                    continue
                present.append(memory_id)
        return present, np.array(rows, dtype=np.float32).reshape(len(rows), self.dims)

    def stored_stems(self) -> set[str]:
        """File stems of indexes on disk (user ids are hashed, so stems, not ids)."""
        return {p.stem for p in self.directory.glob("*.faiss")}

    def drop_stem(self, stem: str) -> None:
        for suffix in (".faiss", ".json"):
            (self.directory / f"{stem}{suffix}").unlink(missing_ok=True)

    @staticmethod
    def stem_of(user_id: str) -> str:
        return user_stem(user_id)
