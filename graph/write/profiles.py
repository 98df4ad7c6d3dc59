"""Keeping the profiles current, off the request path.

When a session ends (`endSession`, or the idle-session sweep) its tally is computed from its own
turns and the facts they state (graph/profile/tally.py) and stored on the session node; then the
tallies of all the user's ended sessions are folded into profiles (graph/profile/rules.py) and the
user's (:Profile) and (:Expertise) nodes are replaced. Forgetting a turn tallies its session again
and folds, so the turn leaves every item's evidence (an item with none left goes); `forgetUser`
deletes the profiles with everything else. `refreshProfile` tallies every ended session again.
Each update then builds the user's knowledge indexes again (graph/write/knowledge.py).

The cost of an update is one session's turns plus one small JSON tally per ended session: it
grows with the number of sessions, never with a scan of the user's memories, and it runs on the
service's background thread, so no request waits for it (bench/profiles.py measures it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable

from graph.background import Background
from graph.profile import rules
from graph.profile.tally import SessionTally, TurnFacts, tally_session
from graph.store import Store
from graph.write.knowledge import refresh_indexes

log = logging.getLogger("recollect.profiles")

# what someone says they work as or on, study, practise, play, make, volunteer at, go to or are
# a member of: their work, study, practice, making and doing (likes are interests, not
# expertise: on LoCoMo 26 adding LIKES took the precision proxy from 0.83 to 0.78)
EXPERTISE_TYPES = (
    "WORKS_AS",
    "WORKS_ON",
    "STUDIES",
    "PRACTICES",
    "PLAYS",
    "MADE",
    "VOLUNTEERS_AT",
    "ATTENDED",
    "MEMBER_OF",
)


class ProfileWriter:
    def __init__(self, store: Store, background: Background) -> None:
        self._store = store
        self._background = background
        self._pending: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def session_ended(self, user_id: str, session_id: str) -> None:
        """Queues the update for a session just ended (or one of whose turns was forgotten).
        Sessions that end while an update of the same user waits join it: a bulk ingest that
        ends thousands of sessions folds and reindexes as often as the background catches up,
        not once per session."""
        with self._lock:
            waiting = user_id in self._pending
            self._pending.setdefault(user_id, set()).add(session_id)
        if not waiting:
            self._background.run(self._run_pending, user_id)

    def _run_pending(self, user_id: str) -> None:
        with self._lock:
            sessions = self._pending.pop(user_id, set())
        self.update(user_id, sessions)

    def update(self, user_id: str, sessions: Iterable[str]) -> list[rules.Profile]:
        """Tallies `sessions` (those that have ended) again, then folds and writes."""
        return self._fold(user_id, set(sessions))

    def rebuild(self, user_id: str) -> list[rules.Profile]:
        """Tallies every ended session again, folds and writes: `refreshProfile`."""
        return self._fold(user_id, None)

    def _fold(self, user_id: str, again: set[str] | None) -> list[rules.Profile]:
        return fold(self._store, user_id, again)

    def tally(self, user_id: str, session_id: str) -> SessionTally:
        return tally(self._store, user_id, session_id)


def fold(store: Store, user_id: str, again: set[str] | None) -> list[rules.Profile]:
    """Folds the tallies of the user's ended sessions into profiles and writes them, tallying
    again the sessions in `again` (all with None) and those without a current tally; then builds
    the user's knowledge indexes again."""
    started = time.perf_counter()
    tallies: list[SessionTally] = []
    for session_id, stored in store.profiles.tallies(user_id):
        counted = SessionTally.from_json(stored) if stored else None
        if counted is None or again is None or session_id in again:
            counted = tally(store, user_id, session_id)
            store.profiles.set_tally(user_id, session_id, counted.to_json())
        tallies.append(counted)
    turns = store.profiles.area_turns(user_id, rules.areas(tallies))
    profiles = rules.build(tallies, turns)
    store.profiles.write(user_id, profiles, time.time())
    log.info(
        "profiles of %s: %d sessions folded in %.0f ms",
        user_id,
        len(tallies),
        (time.perf_counter() - started) * 1000,
    )
    refresh_indexes(store, user_id)
    return profiles


def tally(store: Store, user_id: str, session_id: str) -> SessionTally:
    """One session's tally from its turns, what the graph found in them, and its speakers' own
    facts."""
    turns = [t for t in store.session_turns(user_id, session_id) if t.kind == "turn"]
    if not turns:
        return SessionTally(session_id, 0.0, 0.0)
    found = {
        str(f.id): TurnFacts({key: key.split(":", 1)[0] for key in f.entity_keys}, f.speaker_keys)
        for f in store.memory_facts(user_id, [t.id for t in turns]).values()
    }
    facts = store.profiles.self_facts(user_id, session_id, EXPERTISE_TYPES)
    return tally_session(session_id, turns, found, facts)
