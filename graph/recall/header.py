"""The lines a context block opens with: `[NOW]` in the user's zone, `[USER]` (name, preferred
name, last session and what it was about, relationship stage) and the parts of a compact
`[PROFILE]` line (expertise, then style), which graph/recall/block.py prunes within the budget.

Two statements (the user's settings with the stored profile's head, and the last session by its
id, which the caches hold: graph/caches.py `last_session_id`), never a read of the user's
history: the profile is built when sessions end (graph/write/profiles.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, tzinfo
from zoneinfo import ZoneInfo

from graph.profile import rules
from graph.profile.tally import SessionTally
from graph.profile_store import Header
from graph.recall.reads import RecallReads

PROFILE_ITEMS = 3  # expertise areas on the [PROFILE] line
TOPICS_SHOWN = 3  # of the last session, on the [USER] line
_DAY = 86_400


@dataclass(frozen=True)
class HeaderLines:
    time_line: str
    user_line: str
    profile: tuple[str, ...] = ()  # the [PROFILE] line's parts, most worth keeping first


def _zone(name: str | None) -> tzinfo:
    return ZoneInfo(name) if name else UTC


def time_line(as_of: float, zone: str | None) -> str:
    """ "[NOW] 2026-10-16 01:00 Europe/Lisbon (Friday)": the user's local date and time."""
    local = datetime.fromtimestamp(as_of, tz=_zone(zone))
    return f"[NOW] {local.strftime('%Y-%m-%d %H:%M')} {zone or 'UTC'} ({local.strftime('%A')})"


def _ago(days: int) -> str:
    return "today" if days == 0 else "1 day ago" if days == 1 else f"{days} days ago"


def profile_parts(name: str, head: Header) -> tuple[str, ...]:
    """ "Bea knows violin (expert)", "nursing (moderate)", …, then the style."""
    parts = [f"{area} ({depth})" for area, depth in head.items]
    if parts:
        parts[0] = f"{name} knows {parts[0]}"
    style = head.style
    if style is not None:
        said = [style.verbosity]
        if style.provides_structured_data:
            said.append("gives dates, numbers and names")
        if style.responds_to_follow_ups is not None:
            said.append(
                "answers follow-ups" if style.responds_to_follow_ups else "skips follow-ups"
            )
        parts.append(("style: " if parts else f"{name}'s style: ") + ", ".join(said))
    return tuple(parts)


def header_as_of(reads: RecallReads, user_id: str, name: str, head: Header, as_of: float) -> Header:
    """The profile head as it stood at `as_of`: the tallies of the sessions and days ended by
    then, folded as the stored profile is (graph/profile/rules.py), so that a block asked as of
    a past moment knows nothing said after it. Costs one small JSON tally per ended session;
    read only when the stored profile folds a later turn."""
    stored = reads.store.profiles.tallies(user_id) + reads.store.profiles.day_tallies(user_id)
    tallies = [
        tally
        for s in stored
        if s.tally is not None
        and (tally := SessionTally.from_json(s.tally)) is not None
        and tally.ended <= as_of
    ]
    turns = reads.store.profiles.area_turns(user_id, rules.areas(tallies)) if tallies else {}
    then = next((p for p in rules.build(tallies, turns) if p.speaker == name), None)
    chosen = reads.store.profiles.settings(user_id).preferred_name  # set by hand: any time
    if then is None:
        return Header(timezone=head.timezone, preferred_name=chosen)
    return Header(
        timezone=head.timezone,
        preferred_name=chosen or then.preferred_name,
        relationship_stage=then.relationship_stage,
        style=then.style,
        items=tuple((i.area, i.depth) for i in then.expertise[:PROFILE_ITEMS]),
        last_active_at=then.last_active_at,
    )


def header_lines(
    reads: RecallReads,
    user_id: str,
    speaker: str | None,
    session_id: str | None,
    as_of: float,
) -> HeaderLines:
    name = speaker or reads.caches.main_speaker(user_id)
    head = reads.store.profiles.header(user_id, name, PROFILE_ITEMS)
    if name and head.last_active_at is not None and head.last_active_at > as_of:
        head = header_as_of(reads, user_id, name, head, as_of)
    user_line = f"[USER] {user_id}" + (f" — {name}" if name else "")
    if head.preferred_name and head.preferred_name != name:
        user_line += f", called {head.preferred_name}"
    last_id = reads.caches.last_session_id(user_id, session_id)
    last = reads.store.session(user_id, last_id) if last_id is not None else None
    if last is not None and last.last_turn_at is not None and last.last_turn_at > as_of:
        # asked as of a past moment: the last session by then, never one that came after
        last_id = reads.store.session_before(user_id, as_of, session_id)
        last = reads.store.session(user_id, last_id) if last_id is not None else None
    if last is not None and last.last_turn_at is not None:
        user_line += (
            f"; last session {last.id} {_ago(max(0, int((as_of - last.last_turn_at) // _DAY)))}"
        )
        if last.topics:
            user_line += ", about " + ", ".join(last.topics[:TOPICS_SHOWN])
    if head.relationship_stage:
        user_line += f"; relationship {head.relationship_stage}"
    parts = profile_parts(name, head) if name else ()
    return HeaderLines(time_line(as_of, head.timezone), user_line, parts)
