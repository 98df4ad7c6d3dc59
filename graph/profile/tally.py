"""One ended session's contribution to the profiles of the people who spoke in it: a tally per
speaker, computed from that session's turns and the typed facts they state, and stored on the
session node as JSON (`profile_tally`). Turns written without a sessionId are tallied the same
way per UTC day of their `occurredAt`: a `(:DayTally {user_id, day})` holds that day's tally
(`day` true), so a user who never names a session still gets a profile.

A profile is a fold over the tallies of the user's ended sessions (graph/profile/rules.py), so an
incremental update (tally the session that just ended, fold them all) and a rebuild (tally every
session again, fold) agree by construction — as long as no later write changed an earlier
session's turns or facts, which `refreshProfile` then corrects. Evidence ids are the session's own
turns only, so a tally never depends on other sessions.

Pure: the store's rows are handed in (graph/write/profiles.py reads them).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field

from graph.profile import signals
from graph.records import MemoryRecord, SelfFact

TALLY_VERSION = 3
# entity types that count as names in a turn (topics are common nouns)
NAMED_TYPES = frozenset({"person", "place", "org", "event", "project", "pet"})


@dataclass
class AreaTally:
    label: str
    types: list[str] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # turns stating it, in session order


@dataclass
class SpeakerTally:
    entity: str | None = None
    turns: int = 0
    words: int = 0
    structured: int = 0
    asked: int = 0  # questions put to them by someone else
    answered: int = 0  # of those, answered by their next turn
    first: float | None = None
    last: float | None = None
    areas: dict[str, AreaTally] = field(default_factory=dict)
    declined: list[list[str]] = field(default_factory=list)  # [topic, turn id]
    names: list[list[str | float]] = field(default_factory=list)  # [name, said at, turn id]
    disclosures: dict[str, list[str]] = field(default_factory=dict)  # kind -> turn ids
    # which of their turns give specifics (an area gathers its turns from every session, read
    # from the graph at each fold: graph/profile_store.py area_turns)
    specific: list[str] = field(default_factory=list)
    turn_ids: list[str] = field(default_factory=list)  # their turns, in order


@dataclass
class SessionTally:
    session_id: str
    started: float
    ended: float
    speakers: dict[str, SpeakerTally] = field(default_factory=dict)
    day: bool = False  # the sessionless turns of one UTC day ("2026-01-05"), not a session

    def to_json(self) -> str:
        return json.dumps({"v": TALLY_VERSION, **asdict(self)}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> SessionTally | None:
        """None for a tally of another version (the session is tallied again)."""
        raw = json.loads(text)
        if raw.get("v") != TALLY_VERSION:
            return None
        speakers = {}
        for name, s in raw["speakers"].items():
            areas = {k: AreaTally(**a) for k, a in s.pop("areas").items()}
            speakers[name] = SpeakerTally(**s, areas=areas)
        return cls(raw["session_id"], raw["started"], raw["ended"], speakers, bool(raw.get("day")))


@dataclass(frozen=True)
class TurnFacts:
    """What the graph found in a turn: its entities by key and type, and who said it."""

    entity_types: Mapping[str, str]
    speaker_keys: tuple[str, ...] = ()


def tally_session(
    session_id: str,
    turns: Sequence[MemoryRecord],
    found: Mapping[str, TurnFacts],
    facts: Sequence[SelfFact],
    *,
    day: bool = False,
) -> SessionTally:
    """The session's (or sessionless day's) tally: per speaker their turns, words, structured and
    specific turns, questions put to them and answered, refusals, names asked for, disclosures,
    and the areas of their own facts with the turns stating them."""
    tally = SessionTally(session_id, turns[0].occurred_at, turns[-1].occurred_at, day=day)
    previous: MemoryRecord | None = None
    asked_by: signals.Said | None = None  # what the previous turn said, when it had a speaker
    for turn in turns:
        if turn.speaker is None:
            previous, asked_by = turn, None
            continue
        person = tally.speakers.setdefault(turn.speaker, SpeakerTally())
        seen = _found(found, str(turn.id))
        said = signals.read(turn.text, _names(seen))
        _count_turn(person, turn, seen, said)
        asked = previous is not None and previous.speaker not in (None, turn.speaker)
        if asked and asked_by is not None and asked_by.question:
            person.asked += 1
            person.answered += said.answers
        previous, asked_by = turn, said
    _add_areas(tally, turns, facts)
    return tally


def _count_turn(
    person: SpeakerTally, turn: MemoryRecord, seen: TurnFacts, said: signals.Said
) -> None:
    if said.specific:
        person.specific.append(str(turn.id))
    if person.entity is None and seen.speaker_keys:
        person.entity = seen.speaker_keys[0]
    person.turns += 1
    person.turn_ids.append(str(turn.id))
    person.words += said.words
    person.structured += said.structured
    person.first = turn.occurred_at if person.first is None else person.first
    person.last = turn.occurred_at
    person.declined += [[topic, str(turn.id)] for topic in said.declined]
    if said.name is not None:
        person.names.append([said.name, turn.occurred_at, str(turn.id)])
    for kind in said.disclosures:
        person.disclosures.setdefault(kind, []).append(str(turn.id))


def _names(seen: TurnFacts) -> int:
    return sum(
        1
        for key, kind in seen.entity_types.items()
        if kind in NAMED_TYPES and key not in seen.speaker_keys
    )


def _add_areas(
    tally: SessionTally, turns: Sequence[MemoryRecord], facts: Sequence[SelfFact]
) -> None:
    """Each speaker's own facts of the session by area, with the turns stating them; the fold
    adds their other turns naming the area, from every session."""
    by_id = {str(t.id): t for t in turns}
    order = {str(t.id): n for n, t in enumerate(turns)}
    for fact in facts:
        stating = [i for i in fact.evidence if i in by_id]
        speaker = by_id[stating[0]].speaker if stating else None
        if speaker is None or speaker not in tally.speakers:
            continue
        area = tally.speakers[speaker].areas.setdefault(fact.area_key, AreaTally(fact.area_label))
        area.types = sorted({*area.types, fact.type})
        area.evidence = sorted({*area.evidence, *stating}, key=order.__getitem__)


def _found(found: Mapping[str, TurnFacts], turn_id: str) -> TurnFacts:
    return found.get(turn_id) or TurnFacts({})
