"""A per-user BM25 index (bm25s) over "Speaker: text", the lexical half of Similarity.

Names and rare words that embeddings blur ("Caroline", "LGBTQ", "pottery") are exactly what BM25
keeps. An index is a cache: built from the graph on a user's first query, then kept in step by the
service's own writes without rebuilding it —

- a bm25s *base* over a snapshot of the user's memories;
- a *tail* of memories written since, scored with the same Lucene BM25 formula through a small
  inverted index; base and tail both use the IDF of base and tail together (the base's bm25s
  scores are rescaled per query term), so they rank on one scale;
- the ids *removed* since, whose base scores are zeroed.

When the tail or the removals outgrow a share of the base, a new base is built off the request
path (`schedule`) and swapped in with whatever changed meanwhile. Rebuilding on every write, as
before, made each read after a write cost O(memories) and churned memory under load.

An index keeps each memory's tokens (with a digest of the text they came from), so a rebuild
tokenises only the memories it has not seen: a history that grows to N memories is rebuilt
about 60 times on its way (each time the tail passes 5% of the base), and tokenising every
memory again each time was 20 N tokenisations, most of the rebuilds' cost on the background
thread during a bulk ingest. A base holds its tokens as ids into its own vocabulary (arrays, not a
list of strings per memory): they are what a saved index carries (graph/lexical_files.py) and
what a rebuild without the graph reads.

An index is also kept on disk (`Snapshot`, graph/lexical_files.py), with the change mark it holds
at least: after a restart a user's first query loads it and applies the changes since, where
building it again from the graph took 6.8 s of a 50,000-memory user's first call.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, Protocol

import bm25s
import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from graph.records import ChangeLog, Mark, StoredText, StoredVector, appliable

_STEMMER: Any = None
K1, B = 1.5, 0.75  # bm25s's defaults, used for the tail too
# memories written to a user that has no index yet, past which its base is built in the background
# (a bulk import of a history is followed by a question that would otherwise pay for the build:
# p50/p95 178/278 ms for the first question on LongMemEval's ~490-turn histories)
WARM_AFTER = 64
# a word at least this common in English (wordfreq's Zipf scale: "where" 6.0, "work" 6.0, "cost"
# 5.2, "sacramento" 3.9) is never evidence that the memory lacks what a message asks
COMMON_ZIPF = 5.5
# bytes per document id, per distinct term and per tail token held in Python objects, and per
# tail document kept for the next rebuild (`nbytes`; the base keeps its tokens in arrays)
PER_DOCUMENT, PER_TERM, PER_TOKEN = 200, 190, 55
PER_KEPT_DOCUMENT = 250
DIGEST_BYTES = 16

Scores = npt.NDArray[np.float64]


def _stem(words: list[str]) -> list[str]:
    """English Snowball stems ("visited" and "visiting" meet); the stemmer is built on first use."""
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    return list(_STEMMER.stemWords(words))


@dataclass(frozen=True)
class Kept:
    """A memory's tokens and a digest of the text they came from (an edited text differs)."""

    digest: bytes
    tokens: list[str]


def _digest(text: str) -> bytes:
    """16 bytes of BLAKE2b: no two texts of a user share one by chance."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=DIGEST_BYTES).digest()


def _kept_tokens(ids: Sequence[str], texts: Sequence[str], known: Mapping[str, Kept]) -> list[Kept]:
    """Each text's tokens with its digest: an earlier index's where it holds the same text, the
    rest tokenised now in one batch (tokens do not depend on the batch: a word's stem is its
    own)."""
    digests = [_digest(t) for t in texts]
    reused = [
        entry if entry is not None and entry.digest == digest else None
        for entry, digest in zip((known.get(i) for i in ids), digests, strict=True)
    ]
    missing = [texts[n] for n, entry in enumerate(reused) if entry is None]
    fresh = iter(_tokens(missing) if missing else [])
    return [
        entry if entry is not None else Kept(digest, next(fresh))
        for entry, digest in zip(reused, digests, strict=True)
    ]


def tokenised(ids: Sequence[str], texts: Sequence[str]) -> tuple[list[str], list[Kept]]:
    """Memories' tokens made for `LexicalIndex.add_kept`, outside any lock."""
    tokens = _tokens(texts) if texts else []
    return list(ids), [Kept(_digest(t), doc) for t, doc in zip(texts, tokens, strict=True)]


def _tokens(texts: Sequence[str]) -> list[list[str]]:
    tokenized = bm25s.tokenize(
        list(texts), stopwords="en", stemmer=_stem, return_ids=False, show_progress=False
    )
    return [list(t) for t in tokenized]


class LexicalScores:
    """BM25 scores of one query over all of a user's memories, kept as one array: the top few are
    found by partition and any candidate's score is a look-up (a dict of every matching memory
    grew with the user's history, and most of it was never read). `ids` and `positions` are the
    index's own append-only structures, not copies: positions past the array are newer writes."""

    def __init__(
        self,
        ids: Sequence[str],
        positions: dict[str, int],
        raw: Scores,
        unknown: float = 0.0,
        covered: float = 0.0,
        unmentioned: float = 0.0,
    ) -> None:
        self._ids = ids
        self._positions = positions
        self._raw = raw
        self.best = float(raw.max()) if len(raw) else 0.0
        # the share of the query's terms, weighted by IDF, that no memory holds ("Sacramento"
        # asked of a history that never names it): evidence for the block's confidence
        self.unknown = unknown
        # of the query's terms that some memory holds, the share (by IDF) that the best-scoring
        # memory holds: 1 when one memory holds every word of the message that memory knows
        self.covered = covered
        # 1 when a noun the query's questions name is held by no memory ("what is my blood
        # type?" asked of a history that never says "blood"): `LexicalIndex._unmentioned`
        self.unmentioned = unmentioned

    def top(self, k: int) -> list[str]:
        """Ids of the `k` best-scoring memories that share a term with the query, best first."""
        if self.best <= 0 or k <= 0:
            return []
        k = min(k, len(self._raw))
        part = np.argpartition(-self._raw, k - 1)[:k]
        ranked = part[np.argsort(-self._raw[part], kind="stable")]
        return [self._ids[int(i)] for i in ranked if self._raw[int(i)] > 0]

    def normalized(self, memory_id: str) -> float:
        """The memory's score as a share of the best one (0 when it shares no term)."""
        position = self._positions.get(memory_id)
        if position is None or position >= len(self._raw) or self.best <= 0:
            return 0.0
        return float(self._raw[position]) / self.best


_NO_SCORES = LexicalScores([], {}, np.zeros(0))


@dataclass(frozen=True)
class Snapshot:
    """What an index is made of, as arrays: what graph/lexical_files.py writes and reads.

    Memories `ids[:base_size]` are the base, the rest its tail. `terms` is the vocabulary: the
    base's terms first, one per column of the base's score matrix (`data`, `indices`, `indptr`:
    bm25s's CSC arrays — per term, the base memories that hold it and their scores), then terms
    only tail memories hold. Memory n's tokens are `tokens[offsets[n]:offsets[n + 1]]`, as
    positions in `terms`; `digests[n]` is the digest of the text they came from."""

    ids: list[str]
    base_size: int
    terms: list[str]
    data: npt.NDArray[np.float32]
    indices: npt.NDArray[np.int32]
    indptr: npt.NDArray[np.int64]
    tokens: npt.NDArray[np.int32]
    offsets: npt.NDArray[np.int64]
    digests: npt.NDArray[np.uint8]

    def kept(self, n: int) -> Kept:
        """Memory n's tokens and digest."""
        return _kept_at(self.terms, self.tokens, self.offsets, self.digests, n)


def _kept_at(
    terms: Sequence[str],
    tokens: npt.NDArray[np.int32],
    offsets: npt.NDArray[np.int64],
    digests: npt.NDArray[np.uint8],
    n: int,
) -> Kept:
    start, end = int(offsets[n]), int(offsets[n + 1])
    return Kept(digests[n].tobytes(), [terms[t] for t in tokens[start:end].tolist()])


class _Base:
    """The bm25s index of a snapshot of a user's memories, as its arrays and vocabulary, with the
    memories' tokens (as positions in the vocabulary) and digests for the next rebuild."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.size = snapshot.base_size
        columns = len(snapshot.indptr) - 1
        self.terms = snapshot.terms[:columns]
        self.vocab = {term: column for column, term in enumerate(self.terms)}
        self.data, self.indices, self.indptr = snapshot.data, snapshot.indices, snapshot.indptr
        end = int(snapshot.offsets[self.size])
        self.tokens = snapshot.tokens[:end]
        self.offsets = snapshot.offsets[: self.size + 1]
        self.digests = snapshot.digests[: self.size]

    @classmethod
    def build(cls, kept: Sequence[Kept]) -> _Base:
        """bm25s's index over the memories' tokens, through ids of a vocabulary of our own (the
        columns are then our term ids, and the tokens are kept as those ids)."""
        vocab: dict[str, int] = {}
        ids = [[vocab.setdefault(t, len(vocab)) for t in entry.tokens] for entry in kept]
        scores = {"data": np.zeros(0), "indices": np.zeros(0), "indptr": np.zeros(1)}
        if vocab:  # bm25s refuses a corpus without a term
            bm25 = bm25s.BM25(k1=K1, b=B)
            bm25.index(
                bm25s.tokenization.Tokenized(ids=ids, vocab=vocab),
                create_empty_token=False,
                show_progress=False,
            )
            scores = bm25.scores
        lengths = np.fromiter((len(doc) for doc in ids), dtype=np.int64, count=len(ids))
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        tokens = np.fromiter(
            (t for doc in ids for t in doc), dtype=np.int32, count=int(offsets[-1])
        )
        digests = np.frombuffer(b"".join(entry.digest for entry in kept), dtype=np.uint8)
        return cls(
            Snapshot(
                ids=[],
                base_size=len(kept),
                terms=list(vocab),
                data=np.asarray(scores["data"], dtype=np.float32),
                indices=np.asarray(scores["indices"], dtype=np.int32),
                indptr=np.asarray(scores["indptr"], dtype=np.int64),
                tokens=tokens,
                offsets=offsets,
                digests=digests.reshape(len(kept), DIGEST_BYTES),
            )
        )

    def document_frequencies(self) -> Counter[str]:
        """Per term, how many base memories hold it (the length of its column)."""
        return Counter(dict(zip(self.terms, np.diff(self.indptr).tolist(), strict=True)))

    def length(self) -> int:
        """Tokens in the base."""
        return int(self.offsets[-1])

    def kept(self, n: int) -> Kept:
        return _kept_at(self.terms, self.tokens, self.offsets, self.digests, n)

    def _column(self, term: str) -> slice | None:
        """Where the term's column lies in `indices` and `data` (None: no base memory holds it)."""
        column = self.vocab.get(term)
        if column is None:
            return None
        return slice(int(self.indptr[column]), int(self.indptr[column + 1]))

    def term_scores(self, term: str) -> Scores | None:
        """Every base memory's score for one term (None when no base memory holds it)."""
        span = self._column(term)
        if span is None:
            return None
        out = np.zeros(self.size)
        out[self.indices[span]] = self.data[span]
        return out

    def holds(self, position: int, term: str) -> bool:
        span = self._column(term)
        return span is not None and bool((self.indices[span] == position).any())

    def nbytes(self) -> int:
        arrays = (self.data, self.indices, self.indptr, self.tokens, self.offsets, self.digests)
        return sum(int(a.nbytes) for a in arrays)


class LexicalIndex:
    """One user's index: base + tail − removed (see the module docstring). Thread-safe."""

    def __init__(
        self, ids: Sequence[str], texts: Sequence[str], known: Mapping[str, Kept] | None = None
    ) -> None:
        """`known`: tokens of an earlier index, by memory id, taken where the text is the same."""
        self._start(list(ids), _Base.build(_kept_tokens(ids, texts, known or {})))

    @classmethod
    def from_kept(cls, ids: Sequence[str], kept: Sequence[Kept]) -> LexicalIndex:
        """An index over memories whose tokens are known (a compaction: no text is read)."""
        index = cls.__new__(cls)
        index._start(list(ids), _Base.build(kept))
        return index

    @classmethod
    def restore(cls, snapshot: Snapshot) -> LexicalIndex:
        """The index a snapshot was taken of (its tail appended again)."""
        index = cls.__new__(cls)
        index._start(snapshot.ids[: snapshot.base_size], _Base(snapshot))
        tail = range(snapshot.base_size, len(snapshot.ids))
        index.add_kept([snapshot.ids[n] for n in tail], [snapshot.kept(n) for n in tail])
        index.saved(index.version)
        return index

    def _start(self, ids: list[str], base: _Base) -> None:
        self._lock = threading.Lock()
        self._ids = ids  # base ids, then tail ids
        self._positions = {memory_id: i for i, memory_id in enumerate(self._ids)}
        self._base_size = len(self._ids)
        self._base = base
        self._base_df = base.document_frequencies()
        self._df = Counter(self._base_df)  # base and tail
        self._total_length = base.length()
        self._removed: set[str] = set()
        self._removed_base: list[int] = []
        # the tail: per term, the tail positions holding it and their term frequencies
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._tail_kept: list[Kept] = []  # the tail's memories' tokens, in tail order
        # changes made to the index (its building is the first), and how many a saved file holds
        self.version, self._saved_version = 1, 0

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids) - len(self._removed)

    @property
    def unsaved(self) -> bool:
        """Whether the index changed since it was built, loaded or last saved."""
        return self.version != self._saved_version

    def saved(self, version: int) -> None:
        """A file now holds the index as it was at `version`."""
        with self._lock:
            self._saved_version = max(self._saved_version, version)

    def nbytes(self) -> int:
        """What the index holds in memory, estimated (graph/residency.py weighs users by it): the
        base's arrays exactly, Python's per-document, per-term and per-posting objects at sizes
        measured with tracemalloc (tests/test_residency.py checks the estimate against a
        measurement)."""
        with self._lock:
            tail = sum(len(entry.tokens) for entry in self._tail_kept)
            return (
                self._base.nbytes()
                + PER_DOCUMENT * len(self._ids)
                + PER_KEPT_DOCUMENT * len(self._tail_kept)
                + PER_TERM * (len(self._df) + len(self._base.vocab))
                + PER_TOKEN * tail
            )

    def outgrown(self, share: float = 0.05, floor: int = 64) -> bool:
        """True when the tail or the removals exceed `floor` + `share` of the base."""
        limit = floor + share * self._base_size
        with self._lock:
            return len(self._tail_kept) > limit or len(self._removed) > limit

    def removed_from_base(self) -> bool:
        """Whether a memory of the base was removed: its tokens stay in the base's arrays until
        the index is compacted (`compacted`), so such an index is not saved as it is."""
        with self._lock:
            return bool(self._removed_base)

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Appends memories to the tail (ids already present or removed are skipped)."""
        fresh = [(i, t) for i, t in zip(ids, texts, strict=True) if i not in self._positions]
        if fresh:
            self.add_kept(*tokenised([i for i, _ in fresh], [t for _, t in fresh]))

    def kept(self) -> dict[str, Kept]:
        """Every memory's tokens, for the rebuild that replaces this index."""
        with self._lock:
            base = {self._ids[n]: self._base.kept(n) for n in range(self._base_size)}
            tail = zip(self._ids[self._base_size :], self._tail_kept, strict=True)
            return base | dict(tail)

    def compacted(self) -> LexicalIndex:
        """The same memories without the removed ones, all in a new base: the removed memories'
        tokens and terms are gone from it (what is saved after a forget)."""
        with self._lock:
            live = [
                (memory_id, position)
                for position, memory_id in enumerate(self._ids)
                if memory_id not in self._removed
            ]
            kept = [
                self._base.kept(p) if p < self._base_size else self._tail_kept[p - self._base_size]
                for _, p in live
            ]
        return LexicalIndex.from_kept([memory_id for memory_id, _ in live], kept)

    def snapshot(self) -> tuple[Snapshot, int]:
        """The index as arrays, to be saved, and its version; the base must hold no removed
        memory (`compacted` first), removed tail memories are left out."""
        with self._lock:
            if self._removed_base:
                raise ValueError("a base with removed memories is compacted before it is saved")
            base = self._base
            tail = [
                (memory_id, entry)
                for memory_id, entry in zip(
                    self._ids[self._base_size :], self._tail_kept, strict=True
                )
                if memory_id not in self._removed
            ]
            vocab = dict(base.vocab)
            tail_tokens = [[vocab.setdefault(t, len(vocab)) for t in e.tokens] for _, e in tail]
            lengths = [len(doc) for doc in tail_tokens]
            offsets = np.concatenate(
                [base.offsets, base.length() + np.cumsum(lengths, dtype=np.int64)]
            )
            tokens = np.concatenate(
                [base.tokens, np.fromiter(chain.from_iterable(tail_tokens), np.int32, sum(lengths))]
            )
            digests = np.concatenate(
                [
                    base.digests,
                    np.frombuffer(b"".join(e.digest for _, e in tail), np.uint8).reshape(
                        len(tail), DIGEST_BYTES
                    ),
                ]
            )
            snapshot = Snapshot(
                ids=self._ids[: self._base_size] + [memory_id for memory_id, _ in tail],
                base_size=self._base_size,
                terms=list(vocab),
                data=base.data,
                indices=base.indices,
                indptr=base.indptr,
                tokens=tokens,
                offsets=offsets,
                digests=digests,
            )
            return snapshot, self.version

    def add_kept(self, ids: Sequence[str], kept: Sequence[Kept]) -> None:
        """Appends memories whose tokens are made (`tokenised`); present ids are skipped."""
        with self._lock:
            for memory_id, entry in zip(ids, kept, strict=True):
                if memory_id in self._positions:
                    continue
                doc = entry.tokens
                tail_position = len(self._tail_kept)
                self._tail_kept.append(entry)
                self._positions[memory_id] = len(self._ids)
                self._ids.append(memory_id)
                self._total_length += len(doc)
                self.version += 1
                for term, tf in Counter(doc).items():
                    self._postings.setdefault(term, []).append((tail_position, tf))
                    self._df[term] += 1

    def carry_over(self, older: LexicalIndex) -> None:
        """Takes the writes and removals `older` saw after this index's snapshot was read."""
        with older._lock:
            tail_ids = older._ids[older._base_size :]
            tail = list(older._tail_kept)
            removed = set(older._removed)
        self.add_kept(tail_ids, tail)
        self.remove(removed)

    def remove(self, ids: Iterable[str]) -> None:
        with self._lock:
            for memory_id in ids:
                position = self._positions.get(memory_id)
                if position is None or memory_id in self._removed:
                    continue
                self._removed.add(memory_id)
                self.version += 1
                if position < self._base_size:
                    self._removed_base.append(position)

    def scores(self, query: str, nouns: Sequence[str] = ()) -> LexicalScores:
        """BM25 scores of the query against every memory of the user; `nouns`, the nouns its
        questions name (Extraction.asked_nouns), for `LexicalScores.unmentioned`."""
        terms, *named = _tokens([query, *nouns])  # one pass: a text's tokens are its own
        if not terms:
            return _NO_SCORES
        with self._lock:
            base = self._base_scores(terms)
            tail = self._tail_scores(terms)
            raw = np.concatenate([base, tail]) if len(tail) else base
            if self._removed:
                raw[[self._positions[i] for i in self._removed]] = 0.0
            return LexicalScores(
                self._ids,
                self._positions,
                raw,
                unknown=self._unknown(terms),
                covered=self._covered(terms, raw),
                unmentioned=self._unmentioned(nouns, named),
            )

    def _unmentioned(self, nouns: Sequence[str], stems: Sequence[Sequence[str]]) -> float:
        """1 when one of the `nouns` (each with its `stems`) is held by no memory under any stem
        (under the lock), else 0. Unlike `_unknown`, no share of the message: a question about
        one thing the memory never names is unanswerable however well its other words match.
        A very common noun never counts (Zipf ≥ COMMON_ZIPF, as written or as its stem, as
        `_unknown` judges: "timing" is "time"), so a noun counted here is unknown there too."""
        unheard = (
            (noun, held)
            for noun, held in zip(nouns, stems, strict=True)
            if held and all(self._df.get(t, 0) == 0 for t in held)
        )
        return 1.0 if any(_rare(noun, *held) for noun, held in unheard) else 0.0

    def _unknown(self, terms: list[str]) -> float:
        """The IDF-weighted share of `terms` that no memory holds (under the lock). A very
        common English word ("where", "do", "his": Zipf ≥ COMMON_ZIPF) that no memory holds is
        not counted as unknown: a new user's three memories lack them by chance, a long history
        never does."""
        documents = len(self._ids)
        weights = [(_idf(self._df.get(t, 0), documents), self._df.get(t, 0), t) for t in terms]
        total = sum(w for w, _, _ in weights)
        missing = [w for w, df, t in weights if df == 0 and _rare(t)]
        return sum(missing) / total if total > 0 else 0.0

    def _covered(self, terms: list[str], raw: Scores) -> float:
        """Of the `terms` some memory holds, the IDF-weighted share that the best-scoring memory
        holds (under the lock); 0 when fewer than two terms are known, as one word is no match
        of a message."""
        known = {t for t in terms if self._df.get(t, 0) > 0}
        if len(known) < 2 or not len(raw) or raw.max() <= 0:
            return 0.0
        best = int(np.argmax(raw))
        documents = len(self._ids)
        weights = {t: _idf(self._df[t], documents) for t in known}
        total = sum(weights.values())
        held = sum(w for t, w in weights.items() if self._holds(best, t))
        return held / total if total > 0 else 0.0

    def _holds(self, position: int, term: str) -> bool:
        """Whether the memory at `position` (base or tail) holds `term`."""
        if position >= self._base_size:
            tail = position - self._base_size
            return any(p == tail for p, _ in self._postings.get(term, ()))
        return self._base.holds(position, term)

    def _base_scores(self, terms: list[str]) -> Scores:
        """bm25s scores of the base, each term's rescaled from the base's IDF to the IDF of base
        and tail together, so that base and tail rank on one scale."""
        out = np.zeros(self._base_size)
        documents = len(self._ids)
        for term, repeats in Counter(terms).items():
            term_scores = self._base.term_scores(term)
            if term_scores is None:
                continue
            then = _idf(self._base_df[term], self._base_size)
            now = _idf(self._df[term], documents)
            out += (repeats * now / then) * term_scores
        return out

    def _tail_scores(self, terms: list[str]) -> Scores:
        """Lucene BM25 of the tail, with document frequencies and lengths of base and tail."""
        size = len(self._tail_kept)
        out = np.zeros(size)
        if not size:
            return out
        documents = len(self._ids)
        average = self._total_length / documents if documents else 1.0
        lengths = np.fromiter((len(e.tokens) for e in self._tail_kept), np.float64, count=size)
        norm = K1 * ((1 - B) + B * lengths / max(average, 1e-9))
        for term in terms:  # repeated terms count again, as in bm25s
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = _idf(self._df[term], documents)
            where = np.fromiter((p for p, _ in postings), dtype=np.int64, count=len(postings))
            tf = np.fromiter((f for _, f in postings), dtype=np.float64, count=len(postings))
            out[where] += idf * tf / (norm[where] + tf)
        return out


@dataclass(frozen=True)
class Saving:
    """A user's index taken to be saved: the snapshot, the index's version it was taken at, and
    the count of the user's removals then (`LexicalIndexes.write`)."""

    user_id: str
    index: LexicalIndex
    snapshot: Snapshot
    version: int
    removals: int


class SnapshotFiles(Protocol):
    """Where snapshots are kept, one per user (graph/lexical_files.py)."""

    def save(self, user_id: str, snapshot: Snapshot, mark: Mark) -> None: ...

    def load(self, user_id: str) -> tuple[Snapshot, Mark] | None: ...

    def drop(self, user_id: str) -> None: ...


@dataclass(frozen=True)
class Persisted:
    """Where users' indexes are saved (graph/lexical_files.py) and how a loaded one is brought
    up to the graph: the change log and the memories written since a mark (graph/follow.py)."""

    files: SnapshotFiles
    change_log: Callable[[str], ChangeLog]
    since: Callable[[str, int, int], list[StoredVector]]


class LexicalIndexes:
    """One LexicalIndex per user: loaded from its file (`persisted`) or built from the graph on
    first use, then kept in step by `add` and `remove`; rebuilt by `schedule` (the service's
    background thread) once outgrown. Saving is the caller's (`snapshot` under the lock that
    tells the mark the index holds at least, then `write` with that mark)."""

    def __init__(
        self,
        load: Callable[[str], list[StoredText]],
        schedule: Callable[[Callable[[str], None], str], None] | None = None,
        persisted: Persisted | None = None,
    ) -> None:
        self._load = load
        self._schedule = schedule
        self._persisted = persisted
        self._indexes: dict[str, LexicalIndex] = {}
        # changes that arrive while a user's first index is read from the graph: a write may land
        # after the snapshot, and must not be missed
        self._pending: dict[str, list[tuple[str, list[str], list[Kept]]]] = {}
        self._rebuilding: set[str] = set()
        self._unindexed: dict[str, int] = {}  # memories written to users without an index
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()  # one first build at a time
        self._save_lock = threading.Lock()  # a file is written or dropped by one thread at a time
        self._removals: dict[str, int] = {}  # removals per user since start (`write`)
        self.loaded = 0  # first builds served by a saved file, since start (for /metrics)
        # bm25s sets its logger to DEBUG when imported: a log line for every index built
        logging.getLogger("bm25s").setLevel(logging.WARNING)

    def cached_users(self) -> int:
        """Users whose BM25 index is held in memory (for /metrics)."""
        with self._lock:
            return len(self._indexes)

    def drop(self, user_id: str) -> None:
        """Forgets the user's index held in memory (its file stays); the next query loads it."""
        with self._lock:
            self._indexes.pop(user_id, None)
            self._unindexed.pop(user_id, None)

    def drop_user(self, user_id: str) -> None:
        """Forgets everything of a user who is gone, the file included."""
        self.drop(user_id)
        self._drop_file(user_id)

    def _drop_file(self, user_id: str) -> None:
        """Removes the user's file; a snapshot taken before is never written after (`write`)."""
        with self._save_lock:
            with self._lock:
                self._removals[user_id] = self._removals.get(user_id, 0) + 1
            if self._persisted is not None:
                self._persisted.files.drop(user_id)

    def nbytes(self, user_id: str) -> int:
        with self._lock:
            index = self._indexes.get(user_id)
        return 0 if index is None else index.nbytes()

    def resident(self) -> set[str]:
        with self._lock:
            return set(self._indexes)

    def add(self, user_id: str, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Memories just written, as "Speaker: text"; call it after the graph write. A user
        with no index held or being built is only counted: a later build reads the graph, which
        holds these already."""
        with self._lock:
            held = user_id in self._indexes or user_id in self._pending
            warm = not held and self._unindexed_grew(user_id, len(ids))
        if not held:
            if warm and self._schedule is not None:
                # a large write made an index worth building now, off the request path (a bulk
                # import's first question)
                self._schedule(self._warm, user_id)
            return
        fresh, kept = tokenised(ids, texts)  # outside the lock
        with self._lock:
            index = self._indexes.get(user_id)
            if index is not None:
                index.add_kept(fresh, kept)
            elif user_id in self._pending:
                self._pending[user_id].append(("add", fresh, kept))
        if index is not None:
            self._maybe_rebuild(user_id, index)

    def remove(self, user_id: str, ids: Sequence[str]) -> None:
        """Memories just deleted; call it after the graph write. The user's file goes at once
        (it may hold their tokens), and a base that held one is compacted on the background
        thread: that also lets go of a loaded file's mapping, whose disk blocks outlive the
        unlinked file while mapped (the compacted index is saved with the next save)."""
        with self._lock:
            index = self._indexes.get(user_id)
            if index is not None:
                index.remove(ids)
            elif user_id in self._pending:
                self._pending[user_id].append(("remove", list(ids), []))
        self._drop_file(user_id)
        if index is None:
            return
        if index.removed_from_base() and self._schedule is not None:
            self._schedule(self.compact, user_id)
        self._maybe_rebuild(user_id, index)

    def _unindexed_grew(self, user_id: str, added: int) -> bool:
        """Counts memories written to a user without an index (the caller holds the lock);
        True once, when they reach WARM_AFTER."""
        before = self._unindexed.get(user_id, 0)
        self._unindexed[user_id] = before + added
        return before < WARM_AFTER <= before + added

    def _warm(self, user_id: str) -> None:
        """Builds the user's base as the first query would (the build lock makes a query that
        arrives meanwhile wait for this build instead of making a second)."""
        try:
            self.get(user_id)
        finally:
            with self._lock:
                self._unindexed.pop(user_id, None)

    def get(self, user_id: str) -> LexicalIndex:
        with self._lock:
            index = self._indexes.get(user_id)
        if index is not None:
            return index
        with self._build_lock:
            with self._lock:
                index = self._indexes.get(user_id)
                if index is not None:
                    return index
                self._pending[user_id] = []
            try:
                index = self._restored(user_id) or self._build(user_id)
            except BaseException:
                with self._lock:
                    self._pending.pop(user_id, None)
                raise
            with self._lock:
                for op, ids, kept in self._pending.pop(user_id, []):
                    if op == "add":
                        index.add_kept(ids, kept)
                    else:
                        index.remove(ids)
                self._indexes[user_id] = index
        return index

    def _restored(self, user_id: str) -> LexicalIndex | None:
        """The user's saved index brought up to the graph's mark, or None when there is no
        usable file or the changes since it cannot be applied (then the stale file goes)."""
        if self._persisted is None:
            return None
        found = self._persisted.files.load(user_id)
        if found is None:
            return None
        snapshot, held = found
        log = self._persisted.change_log(user_id)
        if not appliable(held, log):
            self._drop_file(user_id)
            return None
        target = log.mark
        index = LexicalIndex.restore(snapshot)
        removed = [memory_id for seq, memory_id in log.removed if held.seq < seq <= target.seq]
        if removed:
            index.remove(removed)
            if index.removed_from_base():  # forgotten elsewhere: their tokens leave the disk
                self._drop_file(user_id)
        if target.seq > held.seq:
            rows = self._persisted.since(user_id, held.seq, target.seq)
            index.add([r.id for r in rows], [embedding_text(r.text, r.speaker) for r in rows])
        self.loaded += 1
        return index

    def unsaved(self) -> list[str]:
        """Users whose held index changed since it was built, loaded or saved."""
        with self._lock:
            return [user for user, index in self._indexes.items() if index.unsaved]

    def snapshot(self, user_id: str) -> Saving | None:
        """The user's held index as arrays to save, or None when there is nothing to save: no
        index held or persisted, or a base that holds removed memories (`compact` it first).
        The caller holds the lock that tells which mark the index holds at least, and writes
        the snapshot with it outside that lock (`write`). An index its file holds already (not
        changed since loaded or saved) is not taken again."""
        with self._lock:
            index = self._indexes.get(user_id)
            removals = self._removals.get(user_id, 0)
        if (
            index is None
            or self._persisted is None
            or not index.unsaved
            or index.removed_from_base()
        ):
            return None
        return Saving(user_id, index, *index.snapshot(), removals)

    def write(self, saving: Saving, mark: Mark | None) -> bool:
        """Writes a snapshot with the mark it holds at least; False when not written: no known
        mark, or a memory of the user was removed since the snapshot was taken (it may hold
        the memory's tokens, which must not reach the disk again)."""
        if self._persisted is None or mark is None or mark.epoch is None:
            return False
        with self._save_lock:
            with self._lock:
                if self._removals.get(saving.user_id, 0) != saving.removals:
                    return False
            self._persisted.files.save(saving.user_id, saving.snapshot, mark)
        saving.index.saved(saving.version)
        return True

    def compact(self, user_id: str) -> None:
        """Replaces the user's index by its compaction (`LexicalIndex.compacted`) with the changes
        made meanwhile, so that it can be saved without its removed memories."""
        with self._lock:
            old = self._indexes.get(user_id)
        if old is None or not old.removed_from_base():
            return
        fresh = old.compacted()
        with self._lock:
            if self._indexes.get(user_id) is old:
                fresh.carry_over(old)
                self._indexes[user_id] = fresh

    def rebuild(self, user_id: str) -> None:
        """Builds a new base from the graph and swaps it in with the changes made meanwhile
        (they went to the old index, which stays in use until the swap)."""
        try:
            with self._lock:
                old = self._indexes.get(user_id)
            if old is None:
                return
            fresh = self._build(user_id, old.kept())
            with self._lock:
                if self._indexes.get(user_id) is not old:  # dropped or replaced meanwhile
                    return
                fresh.carry_over(old)
                self._indexes[user_id] = fresh
        finally:
            with self._lock:
                self._rebuilding.discard(user_id)

    def _build(self, user_id: str, known: Mapping[str, Kept] | None = None) -> LexicalIndex:
        rows = self._load(user_id)
        return LexicalIndex(
            [r.id for r in rows], [embedding_text(r.text, r.speaker) for r in rows], known
        )

    def _maybe_rebuild(self, user_id: str, index: LexicalIndex) -> None:
        if self._schedule is None or not index.outgrown():
            return
        with self._lock:
            if user_id in self._rebuilding:
                return
            self._rebuilding.add(user_id)
        self._schedule(self.rebuild, user_id)


def _rare(*words: str) -> bool:
    """Whether every one of `words` is below COMMON_ZIPF in English (wordfreq, imported when
    first asked: it loads its tables)."""
    from wordfreq import zipf_frequency

    return all(zipf_frequency(w, "en") < COMMON_ZIPF for w in words)


def _idf(df: int, documents: int) -> float:
    """Lucene's IDF, as bm25s computes it."""
    return math.log(1 + (documents - df + 0.5) / (df + 0.5))
