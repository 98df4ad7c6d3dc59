"""Keeping the knowledge indexes current, off the request path: when a session ends (after the
profiles are folded, graph/write/profiles.py) every index the user has — all their memories, and
each domain asked for before — is built again from the graph (graph/profile/coverage.py) and
stored as JSON on a (:KnowledgeIndex) node. `knowledgeIndex` reads the stored one, and builds it
on first use of a domain.

A build reads the user's turns (times and sessions), the entities they mention and the typed
relations: it grows with the user's memories, so it runs only on the background thread and when
first asked for (bench/profiles.py measures it).
"""

from __future__ import annotations

import logging
import time

from graph.profile import coverage
from graph.store import Store

log = logging.getLogger("recollect.knowledge")
OPEN_THREADS_READ = 20  # newest ended sessions with open threads, for the gaps


def build_index(store: Store, user_id: str, domain: str | None) -> coverage.Index:
    """Builds one index from the graph and stores it."""
    started = time.perf_counter()
    index = coverage.build(store.knowledge.rows(user_id, domain, OPEN_THREADS_READ), time.time())
    store.knowledge.save(user_id, domain, coverage.to_json(index), index.built_at or 0.0)
    log.info(
        "knowledge index of %s: %d entries in %.0f ms",
        user_id,
        index.total_entries,
        (time.perf_counter() - started) * 1000,
    )
    return index


def refresh_indexes(store: Store, user_id: str) -> None:
    """Builds again every index the user has, and the one over all their memories."""
    domains = store.knowledge.domains(user_id)
    for domain in [None, *[d for d in domains if d is not None]]:
        build_index(store, user_id, domain)


def read_index(store: Store, user_id: str, domain: str | None) -> coverage.Index:
    """The stored index, built now when there is none yet."""
    stored = store.knowledge.load(user_id, domain)
    return coverage.from_json(stored) if stored else build_index(store, user_id, domain)
