"""The documented rules that turn session tallies (graph/profile/tally.py) into profiles. Pure.

Expertise, per area (an entity the person's own typed facts point at: what they work as or on,
study, practise, play, make, volunteer at, go to, are a member of), counted over all their ended
sessions:

    turns     their turns stating a fact about the area, or naming it (in any session)
    sessions  the sessions those turns fall in (a turn without a session: its UTC day)
    specific  of those turns, the ones giving dates, numbers, proper names or domain terms

    expert    turns >= 6, sessions >= 3 and specific >= 3
    moderate  turns >= 3 and sessions >= 2, or specific >= 2
    surface   otherwise

Items are ordered deepest first, then by turns, sessions and area; at most `MAX_ITEMS` are kept.

Style, from the person's own turns: verbosity by words per turn (terse below 12, verbose above 35,
moderate between); structured data when at least 30 % of turns give a date, a number or a name;
responds to follow-ups when at least 60 % of the questions someone else put to them were answered
by their next turn (and at least three were put; with fewer, null: not known).

Relationship stage, from sessions completed (each UTC day of turns without a session counts as
one more), the days between the first and the last, and personal disclosures (turns about family,
health or feelings):

    TRUSTED      sessions >= 8, days >= 30, disclosures >= 10 of at least 2 kinds
    COMFORTABLE  sessions >= 4, days >= 7, disclosures >= 3
    DEVELOPING   sessions >= 2
    NEW          otherwise

Preferred name: the last "call me …" / "my name is …" the person said (a name set by hand with
setUserSettings wins, graph/write/profiles.py). Topics declined: their refusals, each once, in the
order said.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from extraction.keys import is_agent_voice
from graph.profile.tally import SessionTally, SpeakerTally
from graph.records import ExpertiseItem, Profile, Style

DEPTHS = ("surface", "moderate", "expert")
STAGES = ("NEW", "DEVELOPING", "COMFORTABLE", "TRUSTED")
MAX_ITEMS = 20
_DAY = 86_400.0


@dataclass
class _Sum:
    """One speaker's tallies added up, session by session."""

    entity: str | None = None
    sessions: list[str] = field(default_factory=list)  # ended sessions, for sessionsCompleted
    occasions: list[str] = field(default_factory=list)  # those and the sessionless days
    turns: int = 0
    words: int = 0
    structured: int = 0
    asked: int = 0
    answered: int = 0
    first: float | None = None
    last: float | None = None
    areas: dict[str, list[tuple[str, SpeakerTally]]] = field(default_factory=dict)
    mentions: Mapping[str, list[str]] = field(default_factory=dict)  # area key -> turn ids
    specific: set[str] = field(default_factory=set)
    session_of: dict[str, str] = field(default_factory=dict)  # turn id -> occasion
    order: dict[str, int] = field(default_factory=dict)  # turn id -> place in all their turns
    declined: list[str] = field(default_factory=list)
    name: str | None = None
    disclosures: dict[str, int] = field(default_factory=dict)

    def add(self, tally: SessionTally, s: SpeakerTally) -> None:
        # a day and a session may share an id: the occasion's key keeps them apart
        session_id = f"{'day' if tally.day else 'session'}:{tally.session_id}"
        self.entity = self.entity or s.entity
        self.occasions.append(session_id)
        if not tally.day:
            self.sessions.append(tally.session_id)
        self.turns += s.turns
        self.words += s.words
        self.structured += s.structured
        self.asked += s.asked
        self.answered += s.answered
        self.first = s.first if self.first is None else self.first
        self.last = s.last if s.last is not None else self.last
        for key in s.areas:
            self.areas.setdefault(key, []).append((session_id, s))
        self.specific |= set(s.specific)
        for turn_id in s.turn_ids:
            self.session_of[turn_id] = session_id
            self.order[turn_id] = len(self.order)
        self.declined += [topic for topic, _ in s.declined if topic not in self.declined]
        if s.names:
            self.name = str(s.names[-1][0])
        for kind, ids in s.disclosures.items():
            self.disclosures[kind] = self.disclosures.get(kind, 0) + len(ids)


def areas(tallies: Iterable[SessionTally]) -> list[str]:
    """The keys of every area the tallies' own facts point at (their turns are read next)."""
    return sorted({k for t in tallies for s in t.speakers.values() for k in s.areas})


def build(
    tallies: Iterable[SessionTally], turns: Mapping[str, Mapping[str, list[str]]] | None = None
) -> list[Profile]:
    """Every speaker's profile from the tallies of the user's ended sessions, in any order, and
    `turns`: speaker -> area key -> their ended sessions' turns naming it."""
    sums: dict[str, _Sum] = {}
    for tally in sorted(tallies, key=lambda t: (t.started, t.session_id)):
        for speaker, counted in sorted(tally.speakers.items()):
            if is_agent_voice(speaker):
                continue  # the assistant the user talks to is no person the memory knows
            sums.setdefault(speaker, _Sum()).add(tally, counted)
    for speaker, total in sums.items():
        total.mentions = (turns or {}).get(speaker, {})
    return [_profile(speaker, total) for speaker, total in sorted(sums.items())]


def _profile(speaker: str, total: _Sum) -> Profile:
    items = sorted(
        (_item(key, total) for key in total.areas),
        key=lambda i: (-DEPTHS.index(i.depth), -i.turns, -i.sessions, i.area),
    )
    disclosed = sum(total.disclosures.values())
    days = (total.last - total.first) / _DAY if total.first is not None and total.last else 0.0
    return Profile(
        speaker=speaker,
        entity_key=total.entity,
        style=style(total.turns, total.words, total.structured, total.asked, total.answered),
        expertise=tuple(items[:MAX_ITEMS]),
        topics_declined=tuple(total.declined),
        sessions_completed=len(total.sessions),
        entries_contributed=total.turns,
        first_active_at=total.first,
        last_active_at=total.last,
        preferred_name=total.name,
        relationship_stage=stage(len(total.occasions), days, disclosed, len(total.disclosures)),
        disclosures=disclosed,
        last_session_id=total.sessions[-1] if total.sessions else None,
    )


def _item(key: str, total: _Sum) -> ExpertiseItem:
    """An area with its turns from every session: those stating a fact about it and the
    person's other turns naming it."""
    stating: list[str] = []
    types: set[str] = set()
    label = ""
    for _, counted in total.areas[key]:
        area = counted.areas[key]
        label = area.label
        types |= set(area.types)
        stating += area.evidence
    named = [i for i in total.mentions.get(key, []) if i in total.session_of]
    evidence = list(dict.fromkeys([*stating, *named]))
    sessions = len({total.session_of[i] for i in evidence if i in total.session_of})
    specific = sum(1 for i in evidence if i in total.specific)
    level = depth(len(evidence), sessions, specific)
    return ExpertiseItem(
        area=label,
        area_key=key,
        depth=level,
        reason=reason(label, sorted(types), len(evidence), sessions, specific),
        evidence=tuple(sorted(evidence, key=lambda i: total.order.get(i, 0))),
        turns=len(evidence),
        sessions=sessions,
        specific=specific,
        types=tuple(sorted(types)),
    )


def depth(turns: int, sessions: int, specific: int) -> str:
    if turns >= 6 and sessions >= 3 and specific >= 3:
        return "expert"
    if (turns >= 3 and sessions >= 2) or specific >= 2:
        return "moderate"
    return "surface"


_SAYS = {
    "WORKS_AS": "works as {area}",
    "WORKS_ON": "works on {area}",
    "STUDIES": "studies {area}",
    "PRACTICES": "practises {area}",
    "PLAYS": "plays {area}",
    "MADE": "made {area}",
    "VOLUNTEERS_AT": "volunteers at {area}",
    "ATTENDED": "went to {area}",
    "MEMBER_OF": "is a member of {area}",
}


def reason(area: str, types: Sequence[str], turns: int, sessions: int, specific: int) -> str:
    """ "practises painting and made painting; 7 turns over 3 sessions, 4 with dates, numbers,
    names or terms" """
    says = " and ".join(_SAYS.get(t, t.lower() + " {area}").format(area=area) for t in types)
    plural = "" if turns == 1 else "s"
    over = "1 session" if sessions == 1 else f"{sessions} sessions"
    detail = f"{specific} with dates, numbers, names or terms"
    return f"{says}; {turns} turn{plural} over {over}, {detail}"


def style(turns: int, words: int, structured: int, asked: int, answered: int) -> Style:
    per_turn = words / turns if turns else 0.0
    verbosity = "terse" if per_turn < 12 else "verbose" if per_turn > 35 else "moderate"
    share = structured / turns if turns else 0.0
    answered_share = answered / asked if asked else None
    follows = answered_share >= 0.6 if answered_share is not None and asked >= 3 else None
    return Style(
        verbosity=verbosity,
        provides_structured_data=share >= 0.3,
        responds_to_follow_ups=follows,
        words_per_turn=round(per_turn, 1),
        structured_share=round(share, 3),
        answered_share=round(answered_share, 3) if answered_share is not None else None,
    )


def stage(sessions: int, days: float, disclosures: int, kinds: int) -> str:
    if sessions >= 8 and days >= 30 and disclosures >= 10 and kinds >= 2:
        return "TRUSTED"
    if sessions >= 4 and days >= 7 and disclosures >= 3:
        return "COMFORTABLE"
    if sessions >= 2:
        return "DEVELOPING"
    return "NEW"
