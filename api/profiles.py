"""GraphQL types of knowing the person (`profile`, `knowledgeIndex`, `setUserSettings`,
`refreshProfile`) and their resolvers. The rules live in graph/profile/ (what a profile and an
index say, by documented rules) and graph/write/ (when they are built); the checks (timezone,
name, domain) in graph/profile/view.py, so MCP gets the same messages. Evidence memories of all
items load through the request's memory DataLoader (api/loaders.py): one call per response.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry
from strawberry.types import Info

from api.loaders import Context, call
from api.present import moment
from api.types import Memory
from graph.limits import check_range
from graph.records import MAX_EVIDENCE
from graph.records import ExpertiseItem as ItemRecord
from graph.service import Index as IndexRecord
from graph.service import ProfileView


def _arg(text: str) -> object:
    return strawberry.argument(description=text)


@strawberry.type(description="How a person talks, from their own turns (graph/profile/rules.py).")
class Style:
    verbosity: str = strawberry.field(description="terse, moderate or verbose (words per turn)")
    provides_structured_data: bool = strawberry.field(
        description="At least 30 % of their turns give a date, a number or a name"
    )
    responds_to_follow_ups: bool | None = strawberry.field(
        description="At least 60 % of the questions put to them answered by their next turn; "
        "null with fewer than three questions"
    )
    words_per_turn: float
    structured_share: float
    answered_share: float | None


@strawberry.type(description="Something a person knows or does, with the turns that show it.")
class Expertise:
    area: str
    area_key: str = strawberry.field(description="The entity it is about")
    depth: str = strawberry.field(description="surface, moderate or expert, by documented rules")
    reason: str
    turns: int
    sessions: int
    specific: int = strawberry.field(
        description="Turns giving dates, numbers, proper names or domain terms"
    )
    types: list[str] = strawberry.field(description="The typed facts behind it (PLAYS, …)")
    evidence_ids: strawberry.Private[tuple[str, ...]]
    user_id: strawberry.Private[str]

    @strawberry.field(description="The turns that show it, newest first.")
    async def evidence(self, info: Info[Context, None], first: int | None = 5) -> list[Memory]:
        first = check_range(5 if first is None else first, "first", 1, MAX_EVIDENCE)
        ids = list(self.evidence_ids[::-1][:first])
        loaded = await info.context.memory_loader.load_many([(self.user_id, i) for i in ids])
        return [Memory.from_record(r) for r in loaded if r is not None]

    @classmethod
    def from_record(cls, user_id: str, item: ItemRecord) -> Expertise:
        return cls(
            area=item.area,
            area_key=item.area_key,
            depth=item.depth,
            reason=item.reason,
            turns=item.turns,
            sessions=item.sessions,
            specific=item.specific,
            types=list(item.types),
            evidence_ids=item.evidence,
            user_id=user_id,
        )


@strawberry.type(description="What the memory knows of one person who speaks in it.")
class Profile:
    speaker: str
    preferred_name: str | None = strawberry.field(
        description="Set by hand (setUserSettings), else the last 'call me …' they said"
    )
    relationship_stage: str = strawberry.field(
        description="NEW, DEVELOPING, COMFORTABLE or TRUSTED, by documented rules"
    )
    timezone: str | None = strawberry.field(description="The user's IANA zone, set by hand")
    expertise: list[Expertise]
    style: Style
    topics_declined: list[str]
    sessions_completed: int
    entries_contributed: int = strawberry.field(description="Their turns in ended sessions")
    first_active_at: datetime | None
    last_active_at: datetime | None
    last_session_id: str | None
    built: bool = strawberry.field(description="False until a session of theirs has ended")

    @classmethod
    def from_view(cls, user_id: str, view: ProfileView) -> Profile:
        p = view.profile
        return cls(
            speaker=p.speaker,
            preferred_name=view.preferred_name,
            relationship_stage=p.relationship_stage,
            timezone=view.timezone,
            expertise=[Expertise.from_record(user_id, i) for i in p.expertise],
            style=Style(
                verbosity=p.style.verbosity,
                provides_structured_data=p.style.provides_structured_data,
                responds_to_follow_ups=p.style.responds_to_follow_ups,
                words_per_turn=p.style.words_per_turn,
                structured_share=p.style.structured_share,
                answered_share=p.style.answered_share,
            ),
            topics_declined=list(p.topics_declined),
            sessions_completed=p.sessions_completed,
            entries_contributed=p.entries_contributed,
            first_active_at=moment(p.first_active_at),
            last_active_at=moment(p.last_active_at),
            last_session_id=p.last_session_id,
            built=view.built,
        )


async def resolve_profile(
    info: Info[Context, None],
    user_id: strawberry.ID,
    speaker: Annotated[
        str | None, _arg("Whose profile: a speaker's name; the user's main speaker when null")
    ] = None,
) -> Profile | None:
    ctx = info.context
    user = ctx.scope(str(user_id))
    view = await call(ctx.service.profile, user, speaker)
    return Profile.from_view(user, view) if view is not None else None


async def resolve_set_user_settings(
    info: Info[Context, None],
    user_id: strawberry.ID,
    timezone: Annotated[str | None, _arg("An IANA zone name, e.g. Europe/Lisbon")] = None,
    preferred_name: Annotated[str | None, _arg("How the user wants to be called")] = None,
) -> Profile:
    ctx = info.context
    user = ctx.scope(str(user_id))
    view = await call(ctx.service.set_user_settings, user, timezone, preferred_name)
    return Profile.from_view(user, view)


async def resolve_refresh_profile(
    info: Info[Context, None], user_id: strawberry.ID
) -> Profile | None:
    ctx = info.context
    user = ctx.scope(str(user_id))
    view = await call(ctx.service.refresh_profile, user)
    return Profile.from_view(user, view) if view is not None else None


@strawberry.type(description="What the memory holds about one category of the user's life.")
class KnowledgeCategory:
    name: str
    entry_count: int = strawberry.field(description="Distinct memories backing it")
    unique_topics: int
    well_covered: list[str]
    weak: list[str]


@strawberry.type
class PeriodCount:
    period: str = strawberry.field(description="A decade (1990s), a year or a month (2023-05)")
    count: int


@strawberry.type
class PlaceCount:
    label: str
    count: int


@strawberry.type(description="Something the memory lacks, with a question an agent could ask.")
class KnowledgeGap:
    kind: str = strawberry.field(
        description="OPEN_THREAD, UNNAMED_PERSON, UNTIMED_FACT or THIN_CATEGORY"
    )
    reason: str
    question: str


@strawberry.type(description="What the memory knows and lacks (graph/profile/coverage.py).")
class KnowledgeIndex:
    domain: str | None
    total_entries: int
    last_reindexed: datetime | None
    categories: list[KnowledgeCategory]
    themes: list[str] = strawberry.field(description="Topics that recur over 3 or more sessions")
    temporal_coverage: list[PeriodCount]
    places: list[PlaceCount]
    gaps: list[KnowledgeGap]

    @classmethod
    def from_record(cls, domain: str | None, index: IndexRecord) -> KnowledgeIndex:
        return cls(
            domain=domain,
            total_entries=index.total_entries,
            last_reindexed=moment(index.built_at),
            categories=[
                KnowledgeCategory(
                    name=c.name,
                    entry_count=c.entry_count,
                    unique_topics=c.unique_topics,
                    well_covered=list(c.well_covered),
                    weak=list(c.weak),
                )
                for c in index.categories
            ],
            themes=list(index.themes),
            temporal_coverage=[PeriodCount(period=p, count=n) for p, n in index.temporal],
            places=[PlaceCount(label=p, count=n) for p, n in index.places],
            gaps=[
                KnowledgeGap(kind=g.kind, reason=g.reason, question=g.question) for g in index.gaps
            ],
        )


async def resolve_knowledge_index(
    info: Info[Context, None],
    user_id: strawberry.ID,
    domain: Annotated[
        str | None, _arg("One domain of the user's memories (e.g. village-history); all if null")
    ] = None,
) -> KnowledgeIndex:
    ctx = info.context
    user = ctx.scope(str(user_id))
    index = await call(ctx.service.knowledge_index, user, domain)
    return KnowledgeIndex.from_record(domain, index)
