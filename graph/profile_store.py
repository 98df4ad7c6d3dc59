"""The statements of profiles and user settings, run through the store's one seam
(`Store._run`), records out. Every statement is scoped by `user_id`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time

from graph.records import (
    CoverageMention,
    CoverageRelation,
    ExpertiseItem,
    OpenThreads,
    Params,
    Profile,
    Row,
    SelfFact,
    Style,
)

PROFILE_STATEMENTS = {
    "turn_self_facts",
    "session_tallies",
    "area_turns",
    "set_session_tally",
    "day_turns",
    "sessionless_days",
    "day_tallies",
    "set_day_tally",
    "drop_day_tally",
    "write_profiles",
    "get_profiles",
    "profile_header",
    "set_user_settings",
    "get_user_settings",
    "coverage_mentions",
    "coverage_relations",
    "index_threads",
    "set_knowledge_index",
    "get_knowledge_index",
    "knowledge_domains",
}

Run = Callable[..., list[Row]]
_DAY = 86_400.0


def day_of(stamp: float) -> str:
    """The UTC day of a time, as a DayTally names it ("2026-01-05", "0147-07-28"): ISO 8601 with
    a four-digit year, which `day_turn_ids` reads back. strftime's %Y gave "147-07-28" for the
    year 147, which the API accepts; the profile fold then failed on every run for that user."""
    return datetime.fromtimestamp(stamp, tz=UTC).date().isoformat()


@dataclass(frozen=True)
class Stored:
    """A session's or day's stored tallies: the profile's and the knowledge index's (JSON)."""

    name: str  # the session id, or the UTC day
    tally: str | None
    coverage: str | None


@dataclass(frozen=True)
class Settings:
    """What the user set by hand."""

    timezone: str | None = None
    preferred_name: str | None = None


@dataclass(frozen=True)
class Header:
    """What a context block shows of the person: settings, stage, style, first items."""

    timezone: str | None = None
    preferred_name: str | None = None
    relationship_stage: str | None = None
    style: Style | None = None
    items: tuple[tuple[str, str], ...] = ()  # (area, depth)
    # when the speaker last spoke in what the stored profile folds: a block asked as of an
    # earlier moment folds the tallies of that moment instead (graph/recall/header.py)
    last_active_at: float | None = None


class ProfileStore:
    def __init__(self, run: Run) -> None:
        self._run = run

    def self_facts(self, user_id: str, ids: Sequence[str], types: Sequence[str]) -> list[SelfFact]:
        """The typed facts of `types` that the turns `ids` state about their own speaker."""
        rows = self._run("turn_self_facts", user_id=user_id, ids=list(ids), types=list(types))
        return [
            SelfFact(
                speaker_key=r["speaker_key"],
                type=r["type"],
                area_key=r["area_key"],
                area_label=r["area_label"],
                evidence=tuple(sorted(set(r["evidence"]))),
            )
            for r in rows
        ]

    def area_turns(self, user_id: str, keys: Sequence[str]) -> dict[str, dict[str, list[str]]]:
        """speaker -> area key -> the ids of their ended sessions' turns naming it."""
        out: dict[str, dict[str, list[str]]] = {}
        if not keys:
            return out
        for row in self._run("area_turns", user_id=user_id, keys=sorted(set(keys))):
            out.setdefault(str(row["speaker"]), {})[str(row["key"])] = list(row["ids"])
        return out

    def tallies(self, user_id: str) -> list[Stored]:
        """The stored tallies of every ended session (None where there is none yet)."""
        rows = self._run("session_tallies", user_id=user_id)
        return [Stored(r["id"], r.get("tally"), r.get("coverage")) for r in rows]

    def set_tally(self, user_id: str, session_id: str, tally: str, coverage: str) -> None:
        self._run(
            "set_session_tally",
            user_id=user_id,
            session_id=session_id,
            tally=tally,
            coverage=coverage,
        )

    def coverage_rows(
        self, user_id: str, ids: Sequence[str]
    ) -> tuple[list[CoverageMention], list[CoverageRelation]]:
        """The entities the turns `ids` mention (not as speaker) and the relations they back."""
        mentions = self._run("coverage_mentions", user_id=user_id, ids=list(ids))
        relations = self._run("coverage_relations", user_id=user_id, ids=list(ids))
        return (
            [CoverageMention.from_row(row) for row in mentions],
            [CoverageRelation.from_row(row) for row in relations],
        )

    def day_turn_ids(self, user_id: str, day: str) -> list[str]:
        """The ids of the user's turns without a session said on `day` (UTC), in order."""
        start = datetime.combine(date.fromisoformat(day), time(), tzinfo=UTC).timestamp()
        rows = self._run("day_turns", user_id=user_id, start=start, end=start + _DAY)
        return [str(r["id"]) for r in rows]

    def sessionless_days(self, user_id: str) -> list[str]:
        """Every UTC day with turns of the user's without a session."""
        rows = self._run("sessionless_days", user_id=user_id)
        return [day_of(int(r["day"]) * _DAY) for r in rows if r.get("day") is not None]

    def day_tallies(self, user_id: str) -> list[Stored]:
        """The stored tallies of every day with sessionless turns, by day."""
        rows = self._run("day_tallies", user_id=user_id)
        return [Stored(r["day"], r.get("tally"), r.get("coverage")) for r in rows]

    def set_day_tally(
        self, user_id: str, day: str, tally: str | None, coverage: str | None = None
    ) -> None:
        """Stores a day's tallies; None drops them (no sessionless turn is left that day)."""
        if tally is None:
            self._run("drop_day_tally", user_id=user_id, day=day)
        else:
            self._run("set_day_tally", user_id=user_id, day=day, tally=tally, coverage=coverage)

    def write(self, user_id: str, profiles: Sequence[Profile], now: float) -> None:
        self._run(
            "write_profiles", user_id=user_id, profiles=[_params(p) for p in profiles], now=now
        )

    def read(self, user_id: str, speaker: str | None) -> list[Profile]:
        rows = self._run("get_profiles", user_id=user_id, speaker=speaker)
        return [_profile(r) for r in rows]

    def header(self, user_id: str, speaker: str | None, items: int) -> Header:
        rows = self._run("profile_header", user_id=user_id, speaker=speaker, items=items)
        row = rows[0] if rows else {}
        stage = row.get("relationship_stage")
        style = _style(row) if row.get("verbosity") else None
        return Header(
            timezone=row.get("timezone"),
            preferred_name=row.get("set_name") or row.get("said_name"),
            relationship_stage=stage,
            style=style,
            # with no item, the optional match projects a map of nulls on FalkorDB
            items=tuple(
                (str(i["area"]), str(i["depth"]))
                for i in row.get("items") or ()
                if i and i.get("area") is not None
            ),
            last_active_at=row.get("last_active_at"),
        )

    def set_settings(
        self, user_id: str, timezone: str | None, name: str | None, now: float, *, which: set[str]
    ) -> Settings:
        rows = self._run(
            "set_user_settings",
            user_id=user_id,
            timezone=timezone,
            preferred_name=name,
            set_timezone="timezone" in which,
            set_name="preferred_name" in which,
            now=now,
        )
        row = rows[0] if rows else {}
        return Settings(row.get("timezone"), row.get("preferred_name"))

    def settings(self, user_id: str) -> Settings:
        rows = self._run("get_user_settings", user_id=user_id)
        row = rows[0] if rows else {}
        return Settings(row.get("timezone"), row.get("preferred_name"))


class KnowledgeStore:
    """The knowledge index's store: one (:KnowledgeIndex) per user and domain ('' for all), its
    index as JSON; it is folded from the sessions' and days' shares (graph/write/knowledge.py)."""

    def __init__(self, run: Run) -> None:
        self._run = run

    def threads(self, user_id: str, limit: int) -> list[OpenThreads]:
        """The open threads of the user's newest ended sessions that have some."""
        rows = self._run("index_threads", user_id=user_id, limit=limit)
        return [OpenThreads.from_row(row) for row in rows]

    def save(self, user_id: str, domain: str | None, index: str, now: float) -> None:
        self._run("set_knowledge_index", user_id=user_id, domain=domain or "", index=index, now=now)

    def load(self, user_id: str, domain: str | None) -> str | None:
        rows = self._run("get_knowledge_index", user_id=user_id, domain=domain or "")
        return str(rows[0]["index"]) if rows and rows[0].get("index") else None

    def domains(self, user_id: str) -> list[str | None]:
        """The domains with a stored index (None: all the user's memories)."""
        return [r["domain"] or None for r in self._run("knowledge_domains", user_id=user_id)]


def _params(p: Profile) -> Params:
    return {
        "speaker": p.speaker,
        "entity_key": p.entity_key,
        "verbosity": p.style.verbosity,
        "provides_structured_data": p.style.provides_structured_data,
        "responds_to_follow_ups": p.style.responds_to_follow_ups,
        "words_per_turn": p.style.words_per_turn,
        "structured_share": p.style.structured_share,
        "answered_share": p.style.answered_share,
        "topics_declined": list(p.topics_declined),
        "sessions_completed": p.sessions_completed,
        "entries_contributed": p.entries_contributed,
        "first_active_at": p.first_active_at,
        "last_active_at": p.last_active_at,
        "preferred_name": p.preferred_name,
        "relationship_stage": p.relationship_stage,
        "disclosures": p.disclosures,
        "last_session_id": p.last_session_id,
        "expertise": [
            {
                "area": i.area,
                "area_key": i.area_key,
                "depth": i.depth,
                "reason": i.reason,
                "evidence": list(i.evidence),
                "turns": i.turns,
                "sessions": i.sessions,
                "specific": i.specific,
                "types": list(i.types),
                "rank": rank,
            }
            for rank, i in enumerate(p.expertise)
        ],
    }


def _style(row: Row) -> Style:
    follows = row.get("responds_to_follow_ups")
    answered = row.get("answered_share")
    return Style(
        verbosity=str(row.get("verbosity")),
        provides_structured_data=bool(row.get("provides_structured_data")),
        responds_to_follow_ups=None if follows is None else bool(follows),
        words_per_turn=float(row.get("words_per_turn") or 0.0),
        structured_share=float(row.get("structured_share") or 0.0),
        answered_share=None if answered is None else float(answered),
    )


def _profile(row: Row) -> Profile:
    items = tuple(
        ExpertiseItem(
            area=str(i["area"]),
            area_key=str(i["area_key"]),
            depth=str(i["depth"]),
            reason=str(i["reason"]),
            evidence=tuple(i.get("evidence") or ()),
            turns=int(i.get("turns") or 0),
            sessions=int(i.get("sessions") or 0),
            specific=int(i.get("specific") or 0),
            types=tuple(i.get("types") or ()),
        )
        for i in row.get("items") or ()
        if i and i.get("area") is not None
    )
    return Profile(
        speaker=str(row["speaker"]),
        entity_key=row.get("entity_key"),
        style=_style(row),
        expertise=items,
        topics_declined=tuple(row.get("topics_declined") or ()),
        sessions_completed=int(row.get("sessions_completed") or 0),
        entries_contributed=int(row.get("entries_contributed") or 0),
        first_active_at=row.get("first_active_at"),
        last_active_at=row.get("last_active_at"),
        preferred_name=row.get("preferred_name"),
        relationship_stage=str(row.get("relationship_stage") or "NEW"),
        disclosures=int(row.get("disclosures") or 0),
        last_session_id=row.get("last_session_id"),
    )
