"""The confidence's inputs per question, for fitting it (bench/fit_confidence.py): one in-process
context call with both floors off, and what the confidence stage saw — its signals, the ranking
it judged and whether its best memory was a structural match. Used by bench/locomo.py and
bench/longmemeval.py with `--signals FILE`; the GraphQL calls the benches score are not touched.

With `--rankings FILE` the same benches write every candidate of the call's ranking with its
features (graph/recall/features.py) and its blend score: what bench/train_ranker.py fits the
learnt ranker on.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graph.recall.confidence import structural_match
from graph.recall.config import DEFAULT_CONFIG, RetrievalConfig, trees_base
from graph.recall.features import NAMES, row
from graph.recall.retrieval import ContextRequest, rank_candidates, retrieve


def _request(
    user: str,
    message: str,
    speaker: str | None,
    as_of: str,
    depth: int,
    config: RetrievalConfig = DEFAULT_CONFIG,
) -> ContextRequest:
    """The preset's call (the shipped default unless told) with both floors off."""
    when = datetime.fromisoformat(as_of)
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return ContextRequest(
        user_id=user,
        message=message,
        as_of=when.timestamp(),
        max_memories=depth,
        speaker=speaker,
        min_score=0.0,
        min_confidence=0.0,
        config=config,
    )


def ranking(
    runtime: Any, user: str, message: str, speaker: str | None, as_of: str, depth: int
) -> dict[str, Any]:
    """Every candidate of one call of the blend the learnt trees start from (config.trees_base,
    so a shipped ranker never trains on its own output): [external id, blend score without the
    neighbour share, the neighbour share, *features in `features` order]."""
    blend = trees_base()
    found = rank_candidates(runtime.service, _request(user, message, speaker, as_of, depth, blend))
    candidates = [
        [
            s.memory.external_id,
            s.score - s.neighbour,
            s.neighbour,
            *row(found.features[s.memory.id], s.neighbour),
        ]
        for s in found.scored
        if s.memory.id in found.features and s.memory.external_id is not None
    ]
    return {"features": list(NAMES), "candidates": candidates}


def probe(
    runtime: Any, user: str, message: str, speaker: str | None, as_of: str, depth: int
) -> dict[str, Any]:
    """The signals, confidence and unfloored top `depth` (external id, score) of one call."""
    request = _request(user, message, speaker, as_of, depth)
    result = retrieve(runtime.service, request)
    return {
        **_missing(runtime, user, message, speaker),
        "signals": asdict(result.signals) if result.signals else {},
        "confidence": result.confidence,
        "noted": bool(result.conflicts),
        "structural": structural_match(result.memories),
        # the score the relevance floor compares (the blend's, under a learnt ranker), in the
        # ranking's order: what bench/fit_confidence.py floors
        "ranked": [[m.memory.external_id, m.floor_score] for m in result.memories],
    }


def add_probe_arguments(parser: argparse.ArgumentParser) -> None:
    """The options bench/locomo.py and bench/longmemeval.py share: what they write beside their
    tables, and the questions unanswerable by construction."""
    parser.add_argument(
        "--signals",
        help="also write each question's confidence signals and unfloored ranking to this JSON "
        "lines file (bench/probe.py; for bench/fit_confidence.py)",
    )
    parser.add_argument(
        "--unanswerable",
        action="store_true",
        help="also ask questions unanswerable by construction (bench/unanswerable.py)",
    )
    parser.add_argument(
        "--rankings",
        help="also write every candidate's features and the evidence to this JSON lines file "
        "(bench/probe.py; for bench/train_ranker.py)",
    )


def settled(runtime: Any, user: str) -> None:
    """The user's ingest finished before anything is asked: the background work it queued done
    (episodes of ended sessions, the BM25 index's rebuilds) and the BM25 index built again whole
    from the graph. A BM25 index is a base plus a tail of later memories whose scores are rescaled
    to the whole's IDF; where that split falls depends on when the background rebuilds ran, so
    without this two runs of a bench wrote different lexical features (LoCoMo dev, every question
    of a conversation, by up to 0.004 of the BM25 share) and the ranker's training data, and the
    trees fitted on it, differed from run to run. The bench is the service's only client here:
    nothing is queued after the drain."""
    runtime.service.drain()
    runtime.service.caches.lexical.rebuild(user)


class Probes:
    """Rows of (question, label, probe) written as JSON lines to `path`, and of (question, label,
    ranking) to `rankings` (None: nothing)."""

    def __init__(self, path: str | None, rankings: str | None = None) -> None:
        self.path = Path(path) if path else None
        self.rankings = Path(rankings) if rankings else None
        for target in (self.path, self.rankings):
            if target:
                target.write_text("", encoding="utf-8")

    @property
    def wanted(self) -> bool:
        """Whether anything is written (then the bench settles each user first: `settled`)."""
        return self.path is not None or self.rankings is not None

    def add(self, runtime: Any, row: dict[str, Any], speaker: str | None, depth: int) -> None:
        asked = (runtime, row["user"], row["question"], speaker, row["as_of"], depth)
        if self.path is not None:
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row | probe(*asked)) + "\n")
        if self.rankings is not None:
            with self.rankings.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(row | ranking(*asked)) + "\n")


def _missing(runtime: Any, user: str, message: str, speaker: str | None) -> dict[str, Any]:
    """The message's words that no memory holds (not very common English) and its named
    things (mentions that are not people) that the catalogue does not know: for judging
    notes about them. Reads the lexical index's document frequencies (a bench may)."""
    from wordfreq import zipf_frequency

    from graph.lexical import COMMON_ZIPF, _tokens

    service = runtime.service
    index = service.caches.lexical.get(user)
    words = []
    for word in dict.fromkeys(message.replace("'s", " ").split()):
        tokens = _tokens([word])[0]
        clean = word.strip("?,.!'\"()").lower()
        unknown = tokens and all(index._df.get(t, 0) == 0 for t in tokens)
        if unknown and zipf_frequency(clean, "en") < COMMON_ZIPF:
            words.append(clean)
    said = service.models.extract(message, speaker)
    resolver = service.caches.catalog(user)
    things = [
        (m.label, m.type, resolver.resolve_key(m.key) is not None, m.candidate)
        for m in said.mentions
        if not m.key.startswith(("person:", "ref:")) and not m.tentative
    ]
    people = [
        (m.label, resolver.resolve_key(m.key) is not None)
        for m in said.mentions
        if m.key.startswith("person:")
    ]
    return {"unknown_words": words, "things": things, "people": people}
