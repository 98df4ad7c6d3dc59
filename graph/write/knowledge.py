"""Keeping the knowledge indexes current, off the request path: when a session ends (after the
profiles are folded, graph/write/profiles.py) every index the user has — all their memories, and
each domain asked for before — is folded again from the ended sessions' and sessionless days'
shares (graph/profile/coverage_tally.py, tallied with their profile tallies) and built
(graph/profile/coverage.py), then stored as JSON on a (:KnowledgeIndex) node. `knowledgeIndex`
reads the stored one, and folds it on first use of a domain (graph/write/profiles.py read_index).

An update reads one small share per session and day, not the user's memories, entities and
relations: bench/profiles.py measures it beside the tally of one session.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

from graph import heap
from graph.profile import coverage, coverage_tally
from graph.profile.coverage_tally import CoverageTally
from graph.store import Store

log = logging.getLogger("recollect.knowledge")
OPEN_THREADS_READ = 20  # newest ended sessions with open threads, for the gaps


def build_index(
    store: Store, user_id: str, domain: str | None, shares: Sequence[CoverageTally]
) -> coverage.Index:
    """Folds the shares into one index (of `domain`, all with None) and stores it."""
    started = time.perf_counter()
    threads = store.knowledge.threads(user_id, OPEN_THREADS_READ)
    # the fold's tens of thousands of small objects all live until the index is built: with the
    # collector on, 150 of a 180 ms fold at 10k memories (bench/profiles.py --scale)
    with heap.collection_paused():
        index = coverage.build(coverage_tally.fold(shares, domain, threads), time.time())
    store.knowledge.save(user_id, domain, coverage.to_json(index), index.built_at or 0.0)
    log.info(
        "knowledge index of %s: %d entries in %.0f ms",
        user_id,
        index.total_entries,
        (time.perf_counter() - started) * 1000,
    )
    return index


def refresh_indexes(store: Store, user_id: str, shares: Sequence[CoverageTally]) -> None:
    """Folds again every index the user has, and the one over all their memories."""
    domains = store.knowledge.domains(user_id)
    for domain in [None, *[d for d in domains if d is not None]]:
        build_index(store, user_id, domain, shares)
