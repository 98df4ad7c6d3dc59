"""Keeping the profiles current, off the request path.

When a session ends (`endSession`, or the idle-session sweep) its tally is computed from its own
turns and the facts they state (graph/profile/tally.py) and stored on the session node; then the
tallies of all the user's ended sessions are folded into profiles (graph/profile/rules.py) and the
user's (:Profile) and (:Expertise) nodes are replaced. Turns written without a sessionId are
tallied per UTC day of their occurredAt on a (:DayTally), again after each write that adds to
that day, and folded with the sessions. Forgetting a turn tallies its session (or day) again and
folds, so the turn leaves every item's evidence (an item with none left goes); `forgetUser`
deletes the profiles and day tallies with everything else. A write that changes the facts of
earlier turns — a recurring topic linked to them, an entity they name merged into another or
retyped, on write or by hand (`mergeEntities`) — has their sessions and days tallied again at the
user's next update (a hand merge queues one). `refreshProfile` tallies every ended session and
sessionless day again. Each session and day also keeps its share of the knowledge
indexes (graph/profile/coverage_tally.py), tallied with it; each update then folds the shares into
the user's indexes (graph/write/knowledge.py), so neither reads the user's whole history.

The cost of an update is one session's (or day's) turns plus one small JSON tally per ended
session and sessionless day: it grows with the number of sessions and days, never with a scan of
the user's memories, and it runs on the service's background thread, so no request waits for it
(bench/profiles.py measures it).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from graph.background import Background
from graph.ids import MemoryId
from graph.profile import coverage, rules
from graph.profile.coverage_tally import CoverageTally, tally_coverage
from graph.profile.tally import SessionTally, TurnFacts, tally_session
from graph.profile_store import Stored, day_of
from graph.records import MemoryRecord, Profile
from graph.store import Store
from graph.write.knowledge import build_index, refresh_indexes

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


@dataclass
class Due:
    """What an update tallies again: sessions by id, sessionless days by UTC day."""

    sessions: set[str] = field(default_factory=set)
    days: set[str] = field(default_factory=set)


class ProfileWriter:
    def __init__(self, store: Store, background: Background) -> None:
        self._store = store
        self._background = background
        self._pending: dict[str, Due] = {}
        # memories whose facts changed since they were tallied: their sessions and days are
        # tallied again at the user's next update
        self._changed: dict[str, set[str]] = {}
        self._lock = threading.Lock()

    def session_ended(self, user_id: str, session_id: str) -> None:
        """Queues the update for a session just ended (or one of whose turns was forgotten).
        Sessions that end while an update of the same user waits join it: a bulk ingest that
        ends thousands of sessions folds and reindexes as often as the background catches up,
        not once per session."""
        self._queue(user_id, Due(sessions={session_id}))

    def days_changed(self, user_id: str, days: Iterable[str]) -> None:
        """Queues the update for UTC days whose turns without a session were written or
        forgotten; it joins a waiting update of the user as sessions do."""
        self._queue(user_id, Due(days=set(days)))

    def changed(self, user_id: str, memory_ids: Iterable[str]) -> None:
        """Earlier memories whose facts a write changed: linked to a topic that recurs now, or
        naming an entity merged into another or retyped (its mentions and relations moved to
        another key). The tallies of their sessions (or days) hold what the graph said before,
        so the user's next update tallies those again (it looks them up, in the background).
        Schedules no update of its own: the write's session ends, or its day is tallied, next."""
        with self._lock:
            self._changed.setdefault(user_id, set()).update(memory_ids)

    def corrected(self, user_id: str, memory_ids: Iterable[str]) -> None:
        """Memories whose facts a correction by hand changed (`mergeEntities`): as `changed`,
        with the user's update queued now, since no write of the user need follow."""
        self.changed(user_id, memory_ids)
        self._queue(user_id, Due())

    def _queue(self, user_id: str, due: Due) -> None:
        with self._lock:
            waiting = user_id in self._pending
            queued = self._pending.setdefault(user_id, Due())
            queued.sessions |= due.sessions
            queued.days |= due.days
        if not waiting:
            self._background.run(self._run_pending, user_id, user=user_id)

    def _run_pending(self, user_id: str) -> None:
        with self._lock:
            due = self._pending.pop(user_id, Due())
            changed = self._changed.pop(user_id, set())
        try:
            stale = occasions(self._store, user_id, changed)
            due.sessions |= stale.sessions
            due.days |= stale.days
            fold(self._store, user_id, due)
        except BaseException:
            # the work goes back where the retry (graph/background.py) finds it
            with self._lock:
                queued = self._pending.setdefault(user_id, Due())
                queued.sessions |= due.sessions
                queued.days |= due.days
                self._changed.setdefault(user_id, set()).update(changed)
            raise

    def update(self, user_id: str, sessions: Iterable[str]) -> list[Profile]:
        """Tallies `sessions` (those that have ended) again, then folds and writes."""
        return fold(self._store, user_id, Due(sessions=set(sessions)))

    def rebuild(self, user_id: str) -> list[Profile]:
        """Tallies every ended session and sessionless day again, folds and writes:
        `refreshProfile`."""
        return fold(self._store, user_id, None)

    def tally(self, user_id: str, session_id: str) -> Counted:
        return tally(self._store, user_id, session_id)

    def index(self, user_id: str, domain: str | None) -> coverage.Index:
        """The stored knowledge index, folded now when there is none yet (`read_index`)."""
        return read_index(self._store, user_id, domain)


@dataclass(frozen=True)
class Counted:
    """A session's or sessionless day's two tallies: for the profiles and for the indexes."""

    profile: SessionTally
    coverage: CoverageTally


def fold(store: Store, user_id: str, again: Due | None) -> list[Profile]:
    """Folds the tallies of the user's ended sessions and sessionless days into profiles and
    writes them, tallying again those in `again` (all with None) and those without a current
    tally; then folds their shares into the user's knowledge indexes."""
    started = time.perf_counter()
    counted = counted_all(store, user_id, again)
    tallies = [c.profile for c in counted]
    turns = store.profiles.area_turns(user_id, rules.areas(tallies))
    profiles = rules.build(tallies, turns)
    store.profiles.write(user_id, profiles, time.time())
    log.info(
        "profiles of %s: %d sessions and days folded in %.0f ms",
        user_id,
        len(tallies),
        (time.perf_counter() - started) * 1000,
    )
    if counted:  # none: the user was forgotten since the update was queued; nothing to index
        refresh_indexes(store, user_id, [c.coverage for c in counted])
    return profiles


def occasions(store: Store, user_id: str, memory_ids: Iterable[str]) -> Due:
    """The sessions and sessionless days of the turns among `memory_ids` (others are tallied
    nowhere; a forgotten memory has left its own)."""
    turns = [m for m in store.memory_facts(user_id, memory_ids).values() if m.kind == "turn"]
    return Due(
        sessions={m.session_id for m in turns if m.session_id is not None},
        days={day_of(m.occurred_at) for m in turns if m.session_id is None},
    )


def counted_all(store: Store, user_id: str, again: Due | None) -> list[Counted]:
    """Every ended session's and sessionless day's tallies, in the order they began."""
    counted = _session_tallies(store, user_id, again) + _day_tallies(store, user_id, again)
    return sorted(counted, key=lambda c: (c.profile.started, c.profile.day, c.profile.session_id))


def read_index(store: Store, user_id: str, domain: str | None) -> coverage.Index:
    """The stored index, folded now from the stored shares when there is none yet (a domain
    asked for the first time)."""
    stored = store.knowledge.load(user_id, domain)
    if stored:
        return coverage.from_json(stored)
    shares = [c.coverage for c in counted_all(store, user_id, Due())]
    return build_index(store, user_id, domain, shares)


def _parsed(stored: Stored) -> Counted | None:
    profile = SessionTally.from_json(stored.tally) if stored.tally else None
    share = CoverageTally.from_json(stored.coverage) if stored.coverage else None
    return None if profile is None or share is None else Counted(profile, share)


def _session_tallies(store: Store, user_id: str, again: Due | None) -> list[Counted]:
    tallies: list[Counted] = []
    for stored in store.profiles.tallies(user_id):
        counted = _parsed(stored)
        if counted is None or again is None or stored.name in again.sessions:
            counted = tally(store, user_id, stored.name)
            store.profiles.set_tally(
                user_id, stored.name, counted.profile.to_json(), counted.coverage.to_json()
            )
        tallies.append(counted)
    return tallies


def _day_tallies(store: Store, user_id: str, again: Due | None) -> list[Counted]:
    """The tallies of the sessionless days: stored ones, and those of the days in `again` (every
    day with such turns on a rebuild) made anew; a day left without turns loses its tallies."""
    stored = {s.name: s for s in store.profiles.day_tallies(user_id)}
    fresh = set(store.profiles.sessionless_days(user_id)) if again is None else again.days
    tallies: list[Counted] = []
    for day in sorted(set(stored) | fresh):
        counted = _parsed(stored[day]) if day in stored else None
        if counted is None or day in fresh:
            counted = tally_day(store, user_id, day)
            if counted.profile.started == 0.0 and not counted.profile.speakers:
                store.profiles.set_day_tally(user_id, day, None)
                continue
            profile, share = counted.profile.to_json(), counted.coverage.to_json()
            store.profiles.set_day_tally(user_id, day, profile, share)
        tallies.append(counted)
    return tallies


def tally(store: Store, user_id: str, session_id: str) -> Counted:
    """One session's tallies from its turns, what the graph found in them, and its speakers' own
    facts."""
    turns = [t for t in store.session_turns(user_id, session_id) if t.kind == "turn"]
    return _tally(store, user_id, session_id, turns, day=False)


def tally_day(store: Store, user_id: str, day: str) -> Counted:
    """One UTC day's tallies of the user's turns without a session."""
    ids = store.profiles.day_turn_ids(user_id, day)
    records = store.memories(user_id, ids)
    turns = [records[MemoryId(i)] for i in ids if MemoryId(i) in records]
    return _tally(store, user_id, day, turns, day=True)


def _tally(
    store: Store, user_id: str, name: str, turns: list[MemoryRecord], *, day: bool
) -> Counted:
    if not turns:
        return Counted(SessionTally(name, 0.0, 0.0, day=day), CoverageTally(name, day))
    found = {
        str(f.id): TurnFacts({key: key.split(":", 1)[0] for key in f.entity_keys}, f.speaker_keys)
        for f in store.memory_facts(user_id, [t.id for t in turns]).values()
    }
    ids = [str(t.id) for t in turns]
    facts = store.profiles.self_facts(user_id, ids, EXPERTISE_TYPES)
    mentions, relations = store.profiles.coverage_rows(user_id, ids)
    return Counted(
        tally_session(name, turns, found, facts, day=day),
        tally_coverage(name, turns, mentions, relations, day=day),
    )
