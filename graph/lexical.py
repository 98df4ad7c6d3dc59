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
thread during a bulk ingest.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import bm25s
import numpy as np
import numpy.typing as npt

from extraction.embedder import embedding_text
from graph.records import StoredText

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
# document and per base token kept for the next rebuild (`nbytes`)
PER_DOCUMENT, PER_TERM, PER_TOKEN = 200, 190, 55
PER_KEPT_DOCUMENT, PER_KEPT_TOKEN = 250, 8

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
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


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


class LexicalIndex:
    """One user's index: base + tail − removed (see the module docstring). Thread-safe."""

    def __init__(
        self, ids: Sequence[str], texts: Sequence[str], known: Mapping[str, Kept] | None = None
    ) -> None:
        """`known`: tokens of an earlier index, by memory id, taken where the text is the same."""
        self._lock = threading.Lock()
        self._ids = list(ids)  # base ids, then tail ids
        self._positions = {memory_id: i for i, memory_id in enumerate(self._ids)}
        self._base_size = len(self._ids)
        self._bm25: Any = None
        kept = _kept_tokens(self._ids, texts, known or {})
        tokens = [k.tokens for k in kept]
        # every memory's tokens, base and tail, for the next rebuild
        self._kept: dict[str, Kept] = dict(zip(self._ids, kept, strict=True))
        if tokens:
            self._bm25 = bm25s.BM25(k1=K1, b=B)
            self._bm25.index(tokens, show_progress=False)
        self._base_df: Counter[str] = Counter(t for doc in tokens for t in set(doc))
        self._df = Counter(self._base_df)  # base and tail
        self._total_length = sum(len(doc) for doc in tokens)
        self._removed: set[str] = set()
        self._removed_base: list[int] = []
        # the tail: per term, the tail positions holding it and their term frequencies
        self._postings: dict[str, list[tuple[int, int]]] = {}
        self._tail_tokens: list[list[str]] = []

    def __len__(self) -> int:
        with self._lock:
            return len(self._ids) - len(self._removed)

    def nbytes(self) -> int:
        """What the index holds in memory, estimated (graph/residency.py weighs users by it): the
        base's sparse score matrix exactly, Python's per-document, per-term and per-posting
        objects at sizes measured with tracemalloc (tests/test_residency.py checks the estimate
        against a measurement)."""
        with self._lock:
            arrays = 0
            terms = len(self._df)
            if self._bm25 is not None:
                arrays = sum(
                    int(a.nbytes) for a in self._bm25.scores.values() if hasattr(a, "nbytes")
                )
                terms += len(self._bm25.vocab_dict)
            tail = sum(len(doc) for doc in self._tail_tokens)
            return (
                arrays
                + (PER_DOCUMENT + PER_KEPT_DOCUMENT) * len(self._ids)
                + PER_TERM * terms
                + PER_TOKEN * tail
                + PER_KEPT_TOKEN * (self._total_length - tail)
            )

    def outgrown(self, share: float = 0.05, floor: int = 64) -> bool:
        """True when the tail or the removals exceed `floor` + `share` of the base."""
        limit = floor + share * self._base_size
        with self._lock:
            return len(self._tail_tokens) > limit or len(self._removed) > limit

    def add(self, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Appends memories to the tail (ids already present or removed are skipped)."""
        fresh = [(i, t) for i, t in zip(ids, texts, strict=True) if i not in self._positions]
        if fresh:
            tokenized = _tokens([t for _, t in fresh])
            self._add_tokens(
                [i for i, _ in fresh],
                [Kept(_digest(t), doc) for (_, t), doc in zip(fresh, tokenized, strict=True)],
            )

    def kept(self) -> dict[str, Kept]:
        """Every memory's tokens, for the rebuild that replaces this index."""
        with self._lock:
            return dict(self._kept)

    def _add_tokens(self, ids: Sequence[str], kept: Sequence[Kept]) -> None:
        with self._lock:
            for memory_id, entry in zip(ids, kept, strict=True):
                if memory_id in self._positions:
                    continue
                doc = entry.tokens
                self._kept[memory_id] = entry
                tail_position = len(self._tail_tokens)
                self._positions[memory_id] = len(self._ids)
                self._ids.append(memory_id)
                self._tail_tokens.append(doc)
                self._total_length += len(doc)
                for term, tf in Counter(doc).items():
                    self._postings.setdefault(term, []).append((tail_position, tf))
                    self._df[term] += 1

    def carry_over(self, older: LexicalIndex) -> None:
        """Takes the writes and removals `older` saw after this index's snapshot was read."""
        with older._lock:
            tail_ids = older._ids[older._base_size :]
            tail = [older._kept[i] for i in tail_ids]
            removed = set(older._removed)
        self._add_tokens(tail_ids, tail)
        self.remove(removed)

    def remove(self, ids: Iterable[str]) -> None:
        with self._lock:
            for memory_id in ids:
                position = self._positions.get(memory_id)
                if position is None or memory_id in self._removed:
                    continue
                self._removed.add(memory_id)
                if position < self._base_size:
                    self._removed_base.append(position)

    def scores(self, query: str) -> LexicalScores:
        """BM25 scores of the query against every memory of the user."""
        terms = _tokens([query])[0]
        if not terms:
            return _NO_SCORES
        with self._lock:
            base = self._base_scores(terms)
            tail = self._tail_scores(terms)
            raw = np.concatenate([base, tail]) if len(tail) else base
            if self._removed:
                raw[[self._positions[i] for i in self._removed]] = 0.0
            covered = self._covered(terms, raw)
            return LexicalScores(self._ids, self._positions, raw, self._unknown(terms), covered)

    def _unknown(self, terms: list[str]) -> float:
        """The IDF-weighted share of `terms` that no memory holds (under the lock). A very
        common English word ("where", "do", "his": Zipf ≥ COMMON_ZIPF) that no memory holds is
        not counted as unknown: a new user's three memories lack them by chance, a long history
        never does."""
        from wordfreq import zipf_frequency

        documents = len(self._ids)
        weights = [(_idf(self._df.get(t, 0), documents), self._df.get(t, 0), t) for t in terms]
        total = sum(w for w, _, _ in weights)
        missing = [w for w, df, t in weights if df == 0 and zipf_frequency(t, "en") < COMMON_ZIPF]
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
        column = self._bm25.vocab_dict.get(term) if self._bm25 is not None else None
        if column is None:
            return False
        matrix = self._bm25.scores  # bm25s's CSC matrix: per term, the documents that hold it
        start, end = matrix["indptr"][column], matrix["indptr"][column + 1]
        return bool((matrix["indices"][start:end] == position).any())

    def _base_scores(self, terms: list[str]) -> Scores:
        """bm25s scores of the base, each term's rescaled from the base's IDF to the IDF of base
        and tail together, so that base and tail rank on one scale."""
        out = np.zeros(self._base_size)
        if self._bm25 is None:
            return out
        documents = len(self._ids)
        for term, repeats in Counter(terms).items():
            base_df = self._base_df.get(term, 0)
            if not base_df:
                continue
            then = _idf(base_df, self._base_size)
            now = _idf(self._df[term], documents)
            term_scores = np.asarray(self._bm25.get_scores([term]), dtype=np.float64)
            out += (repeats * now / then) * term_scores
        return out

    def _tail_scores(self, terms: list[str]) -> Scores:
        """Lucene BM25 of the tail, with document frequencies and lengths of base and tail."""
        size = len(self._tail_tokens)
        out = np.zeros(size)
        if not size:
            return out
        documents = len(self._ids)
        average = self._total_length / documents if documents else 1.0
        lengths = np.fromiter((len(d) for d in self._tail_tokens), dtype=np.float64, count=size)
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


class LexicalIndexes:
    """One LexicalIndex per user: built from the graph on first use, then kept in step by `add`
    and `remove`; rebuilt by `schedule` (the service's background thread) once outgrown."""

    def __init__(
        self,
        load: Callable[[str], list[StoredText]],
        schedule: Callable[[Callable[[str], None], str], None] | None = None,
    ) -> None:
        self._load = load
        self._schedule = schedule
        self._indexes: dict[str, LexicalIndex] = {}
        # changes that arrive while a user's first index is read from the graph: a write may land
        # after the snapshot, and must not be missed
        self._pending: dict[str, list[tuple[str, list[str], list[str]]]] = {}
        self._rebuilding: set[str] = set()
        self._unindexed: dict[str, int] = {}  # memories written to users without an index
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()  # one first build at a time
        # bm25s sets its logger to DEBUG when imported: a log line for every index built
        logging.getLogger("bm25s").setLevel(logging.WARNING)

    def cached_users(self) -> int:
        """Users whose BM25 index is held in memory (for /metrics)."""
        with self._lock:
            return len(self._indexes)

    def drop(self, user_id: str) -> None:
        """Forgets the user's index; the next query builds it from the graph."""
        with self._lock:
            self._indexes.pop(user_id, None)
            self._unindexed.pop(user_id, None)

    def nbytes(self, user_id: str) -> int:
        with self._lock:
            index = self._indexes.get(user_id)
        return 0 if index is None else index.nbytes()

    def resident(self) -> set[str]:
        with self._lock:
            return set(self._indexes)

    def add(self, user_id: str, ids: Sequence[str], texts: Sequence[str]) -> None:
        """Memories just written, as "Speaker: text"; call it after the graph write."""
        self._change(user_id, "add", ids, texts)

    def remove(self, user_id: str, ids: Sequence[str]) -> None:
        """Memories just deleted; call it after the graph write."""
        self._change(user_id, "remove", ids, [])

    def _change(self, user_id: str, op: str, ids: Sequence[str], texts: Sequence[str]) -> None:
        with self._lock:
            index = self._indexes.get(user_id)
            if index is None:
                pending = self._pending.get(user_id)
                if pending is not None:
                    pending.append((op, list(ids), list(texts)))
                    return
                warm = op == "add" and self._unindexed_grew(user_id, len(ids))
        if index is None:
            # no index yet: the first query reads the graph, unless a large write just made one
            # worth building now, off the request path (a bulk import's first question)
            if warm and self._schedule is not None:
                self._schedule(self._warm, user_id)
            return
        _apply(index, op, ids, texts)
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
                index = self._build(user_id)
            except BaseException:
                with self._lock:
                    self._pending.pop(user_id, None)
                raise
            with self._lock:
                for op, ids, texts in self._pending.pop(user_id, []):
                    _apply(index, op, ids, texts)
                self._indexes[user_id] = index
        return index

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


def _idf(df: int, documents: int) -> float:
    """Lucene's IDF, as bm25s computes it."""
    return math.log(1 + (documents - df + 0.5) / (df + 0.5))


def _apply(index: LexicalIndex, op: str, ids: Sequence[str], texts: Sequence[str]) -> None:
    if op == "add":
        index.add(ids, texts)
    else:
        index.remove(ids)
