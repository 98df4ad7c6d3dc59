"""Plain data produced by extraction: mentions (typed slug keys) and typed relations."""

from __future__ import annotations

from dataclasses import dataclass, field

# The relation types the extractor may emit. graph/vocabulary.py adopts this tuple as the graph's
# relationship-type vocabulary (graph may import extraction, never the reverse).
RELATION_TYPES: tuple[str, ...] = (
    "WORKS_AT",
    "LIVES_IN",
    "FAMILY_OF",
    "FRIEND_OF",
    "MEMBER_OF",
    "WORKS_ON",
    "LIKES",
    "VISITED",
    "RELATED_TO",
)


@dataclass(frozen=True)
class Mention:
    key: str  # "<type>:<slug>", e.g. "person:john_doe"
    type: str
    label: str  # display form, e.g. "John Doe"
    as_speaker: bool = False


@dataclass(frozen=True)
class Relation:
    src: str  # entity key
    type: str  # from graph vocabulary (the extractor only emits those names)
    dst: str
    role: str | None = None


@dataclass
class Extraction:
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    # relation types the text's words point at ("work" -> WORKS_AT, WORKS_ON), for retrieval
    cues: frozenset[str] = frozenset()

    def keys(self) -> list[str]:
        return [m.key for m in self.mentions]


@dataclass(frozen=True)
class KnownEntity:
    key: str
    type: str
    label: str
    aliases: tuple[str, ...] = ()
    mention_count: int = 0
