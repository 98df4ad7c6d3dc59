"""Plain data produced by extraction: mentions (typed slug keys) and typed relations.

Some mentions are *references* the extractor cannot settle from one text alone: a pronoun whose
person was named in an earlier turn ("She teaches there now"), or an unnamed relative ("my
husband", "her mom"). They carry a `ref:` key and a `Reference`; extraction/resolver.py settles them
against the user's catalogue and the session's recent people, or drops them (and their relations).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The relation types the extractor may emit, a closed list; graph/vocabulary.py adopts it as the
# graph's relationship-type vocabulary and documents each with an example sentence.
RELATION_TYPES: tuple[str, ...] = (
    "WORKS_AT",
    "WORKS_AS",
    "WORKS_ON",
    "STUDIES",
    "LIVES_IN",
    "MOVED_TO",
    "FROM",
    "VISITED",
    "ATTENDED",
    "MEMBER_OF",
    "VOLUNTEERS_AT",
    "SUPPORTS",
    "FAMILY_OF",
    "PARTNER_OF",
    "FRIEND_OF",
    "HAS_PET",
    "OWNS",
    "LIKES",
    "DISLIKES",
    "PRACTICES",
    "PLAYS",
    "MADE",
    "READ",
    "WATCHED",
    "PLANS",
    "RELATED_TO",
)

REF_PREFIX = "ref:"
# an ending's object when it ends the fact whatever its object ("we broke up": any partner)
ANY = "*"


@dataclass(frozen=True)
class Reference:
    """What a `ref:` mention stands for: a pronoun ("she", gender "female") to find among the
    people named before it, or a relative of `owner` by `role` ("my husband": the speaker's
    husband), which is that person when the owner has exactly one such, else an unnamed person."""

    # "pronoun", "role", "addressee" (the other speaker of the session: "you") or "thing" ("the
    # project": the one project the session has named, `role` holding the entity type)
    kind: str
    gender: str | None = None  # "female", "male" or None (unknown)
    owner: str | None = None  # for roles: the owner's key (itself possibly a `ref:` key)
    role: str | None = None  # for roles: "husband", "kids", …
    plural: bool = False


@dataclass(frozen=True)
class Mention:
    key: str  # "<type>:<slug>", e.g. "person:john_doe"; "ref:…" for a reference
    type: str
    label: str  # display form, e.g. "John Doe"
    as_speaker: bool = False
    # a one-word name seen only at the start of sentences ("Glad you came"): kept only when the
    # user's catalogue knows it already, since any capitalised word can start a sentence
    tentative: bool = False
    # a noun-chunk topic that carries no fact: an entity only once it recurs in another memory
    candidate: bool = False
    reference: Reference | None = None
    gender: str | None = None  # known from a role noun ("my sister Ana"): for pronouns later
    # a name the speaker calls out to ("Thanks, Jo!", "Hey Mell,"): the listener, whom the
    # resolver may know by a longer name
    addressed: bool = False
    # typed by evidence stronger than the tagger's guess: a kind noun beside it ("the game
    # Stardew Valley") or the verb that took it ("I'm reading Dune"); corrects earlier mentions
    typed: bool = False
    # a name given to what an earlier turn spoke of ("Her name is Miso" after "I adopted a
    # cat"): the gender its pronoun said ("female", "male") or "thing" ("it"); the resolver
    # binds it to the session's latest unnamed pet or person by role that agrees
    # (extraction/naming.py)
    naming: str | None = None


@dataclass(frozen=True)
class Relation:
    src: str  # entity key
    type: str  # from graph vocabulary (the extractor only emits those names)
    dst: str
    role: str | None = None
    # the text's speaker is the one it was done to and acknowledges it ("thanks for your
    # support"): a party's own word, which attribution lets stand (extraction/attribution.py)
    attested: bool = False


@dataclass
class Extraction:
    mentions: list[Mention] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    # relation types the text's words point at ("work" -> WORKS_AT, WORKS_ON), for retrieval
    cues: frozenset[str] = frozenset()
    # the DATE spans as said ("last Saturday"); resolved against the memory's occurredAt when it
    # is written, or a question's asOf (extraction/when.py)
    dates: tuple[str, ...] = ()
    # the people the text is about: named persons standing as a clause's subject ("what did Tim
    # give John?": Tim), or owning it ("when did Mel's family go?": Mel); for retrieval
    subjects: tuple[str, ...] = ()
    # the text asks what its listener did or said ("what did you suggest?"): its speaker is not
    # who it is about
    about_listener: bool = False
    # a message that asks about several things at once, as one message per part ("which came
    # first, A or B?" → "which came first, A?", "which came first, B?"; extraction/parts.py)
    parts: tuple[str, ...] = ()
    # facts the text says stopped holding ("I quit the club", "we broke up"): `dst` is "*" for
    # any (extraction/endings.py)
    endings: list[Relation] = field(default_factory=list)
    # the entity types a question asks for ("where…?": place; "what books…?": work), for
    # retrieval (extraction/asked.py)
    asked: frozenset[str] = frozenset()
    # the common nouns its questions name, lower case (extraction/asked.py), for the block's
    # confidence: a question about a thing no memory names has no answer in memory
    asked_nouns: tuple[str, ...] = ()

    def keys(self) -> list[str]:
        return [m.key for m in self.mentions]


@dataclass(frozen=True)
class KnownEntity:
    key: str
    type: str
    label: str
    aliases: tuple[str, ...] = ()
    mention_count: int = 0
    gender: str | None = None  # "female"/"male" when a role noun said so ("my sister Ana")
    unnamed: bool = False  # "Melanie's husband": a person known only by role, until named
    plural: bool = False  # "Melanie's kids": a group known by role


@dataclass(frozen=True)
class Finding:
    """A span of personal data or a secret the screen found (extraction/pii.py): its type and
    where it sits in the text. Here, not beside Presidio, so that reading it costs no import of
    Presidio (seconds: it pulls in transformers' pipelines)."""

    type: str
    start: int
    end: int
