"""The closed vocabulary of entity labels and relationship types, each type with an example.

Labels and relationship types are never built from user text: the extractor may only emit the names
here, the statements that write them spell each one out literally, and tests keep the two in sync
and check that every example sentence yields its type with the real spaCy model.
"""

from __future__ import annotations

import re

from extraction import kinds
from extraction.model import RELATION_TYPES

# entity type (the key prefix) -> node label
ENTITY_LABELS: dict[str, str] = {
    "person": "Person",
    "place": "Place",
    "org": "Org",
    "project": "Project",
    "event": "Event",
    "topic": "Topic",
    "pet": "Pet",
    "work": "Work",  # a title: a book, film, show, song, game
    "language": "Language",  # a natural or programming language
    "agent": "Agent",  # the assistant the user talks to: a voice of the memories, no person
}

# relation type -> (what it means, an example said by "Alice", the (subject, object) it yields;
# the object by its key's slug, since the small model may type a title as an org or a topic)
EXAMPLES: dict[str, tuple[str, str, tuple[str, str]]] = {
    "WORKS_AT": ("employer or workplace", "I work at Acme Corp.", ("alice", "acme_corp")),
    "WORKS_AS": ("occupation", "I'm a nurse at the city hospital.", ("alice", "nurse")),
    "WORKS_ON": ("a project one works on", "I'm on the Orion project at work.", ("alice", "orion")),
    "STUDIES": (
        "a subject studied or trained",
        "I'm studying psychology.",
        ("alice", "psychology"),
    ),
    "LIVES_IN": ("home", "My sister Mary lives in Boston.", ("mary", "boston")),
    "MOVED_TO": ("a move", "We moved to Denver last spring.", ("alice", "denver")),
    "FROM": ("origin: born, raised, from", "I'm from Sweden originally.", ("alice", "sweden")),
    "VISITED": ("a place travelled to", "Last summer I traveled to Japan.", ("alice", "japan")),
    "ATTENDED": (
        "an event, class, school or group gone to",
        "I went to an LGBTQ support group yesterday.",
        ("alice", "lgbtq_support_group"),
    ),
    "MEMBER_OF": (
        "a club, team or community joined",
        "I joined the Boston Chess Club last year.",
        ("alice", "boston_chess_club"),
    ),
    "VOLUNTEERS_AT": (
        "unpaid work for a place or cause",
        "I volunteer at the animal shelter on weekends.",
        ("alice", "animal_shelter"),
    ),
    "SUPPORTS": (
        "a person encouraged, a cause supported, donated or raised money for",
        "I raised money for cancer research.",
        ("alice", "cancer_research"),
    ),
    "FAMILY_OF": (
        "a relative, role on the edge",
        "My sister Mary lives in Boston.",
        ("alice", "mary"),
    ),
    "PARTNER_OF": ("spouse or partner", "My husband Tom loves to cook.", ("alice", "tom")),
    "FRIEND_OF": (
        "friend, colleague, mentor; role on the edge",
        "My friend Priya visited Paris.",
        ("alice", "priya"),
    ),
    "HAS_PET": ("a pet, by name when named", "We adopted a puppy named Luna.", ("alice", "luna")),
    "OWNS": ("a thing bought or owned", "I bought a new car last week.", ("alice", "car")),
    "LIKES": ("a liking, interest or favourite", "I love pottery.", ("alice", "pottery")),
    "DISLIKES": ("a dislike", "I hate running in the rain.", ("alice", "running")),
    "PRACTICES": ("a hobby or activity done", "I started surfing years ago.", ("alice", "surfing")),
    "PLAYS": ("an instrument or sport played", "I play the violin in a band.", ("alice", "violin")),
    "MADE": (
        "a thing painted, written, built",
        "I painted a sunset last week.",
        ("alice", "sunset"),
    ),
    "READ": ("a book read", "I just finished reading Dune.", ("alice", "dune")),
    "WATCHED": (
        "a film or show watched",
        "We watched Inception last night.",
        ("alice", "inception"),
    ),
    "PLANS": (
        "a plan or goal; the verb on the edge",
        "I'm planning to run a marathon.",
        ("alice", "marathon"),
    ),
    "RELATED_TO": (
        "named together in one sentence, no typed fact",
        "Sarah and Tom met in Chicago.",
        ("sarah", "tom"),
    ),
}

# relation type -> the kinds of object it accepts (its range; extraction/kinds.py decides an
# object's kind and holds the word lists): an object outside the range is no fact of that type.
# Examples said by "Alice" whose object is outside the range (or an idiom), so they yield no fact
# of the type; a test runs each through the real model beside the examples above.
RANGES = kinds.RANGES
# relation type -> the entity types its subject may be (its domain; extraction/kinds.py): a
# fact whose subject is outside it is no fact of that type ("Denver works at a school")
DOMAINS = kinds.DOMAINS


def outside_domain(relation: str, subject_key: str) -> bool:
    """Whether a fact of this type with this subject breaks the relation's domain."""
    return not kinds.in_domain(relation, subject_key)


NOT_FACTS: dict[str, tuple[str, ...]] = {
    "ATTENDED": (
        "I came out on top in the end.",
        "Wish I had a vacation lined up.",  # wished for, not had
    ),
    "MADE": (
        "We make a good team.",
        "We made great progress this week.",
        "I made so many mistakes.",
        "I made a scene at the party.",  # a listed expression rated figurative (2.82)
        "We're building a strong brand.",  # a support-verb construction
        "I'm growing my customer base.",
    ),
    "VISITED": (
        "I'll visit Rome next year.",  # a future is a plan (PLANS Rome), no visit
        "We can bring positive changes to the neighborhood.",  # nothing carried there
        "I can't wait to visit Paris.",  # looked forward to: PLANS Paris
    ),
    "HAS_PET": ("I'll think about it and maybe get a cat.",),
    "PLANS": (
        "I wanted to take them all home.",
        "I want to give you a heads up.",
        "I'm planning to take the plunge next year.",  # "take the plunge" 2.1
        "I want to try my luck at the casino.",  # "luck": an abstract noun (1.33)
    ),
    "LIKES": (
        "Thanks so much, I appreciate your kind words.",
        "I really value our friendship.",
        "I love your encouragement.",
        "I love the freedom it gives me.",  # a quality or a state: "freedom" rated 2.3
        "I love the color and texture.",  # what a thing is like, not the thing
        "We enjoy each other's company.",
    ),
    "PRACTICES": (
        "I started hitting the gym last week.",
        "I've been trying out new recipes.",  # dishes cooked, no activity practised
    ),
    "STUDIES": ("I learned a ton from it.",),
    "MOVED_TO": ("I moved on to a better habit.",),
    "FAMILY_OF": (
        "My family is doing great.",
        'Liza said: "We pleaded with police to let us help our brother."',  # the quoted "our"
    ),
    "WORKS_AS": (
        "I am aspiring to become an Electrical Engineer. Being an individual who enjoys a "
        "dynamic environment, I aspire to get involved with projects.",
    ),
    "SUPPORTS": ("We have been fighting a frustrating battle with the council.",),  # against
    "PLAYS": ("I play a huge role in the club.",),
}

# relation type -> how an episode says it: "{src} attended {dst}." ({role} is the edge's role,
# e.g. sister, dog, or the planned verb). RELATED_TO states nothing and has none.
PHRASES: dict[str, str] = {
    "WORKS_AT": "{src} works at {dst}",
    "WORKS_AS": "{src} works as {dst}",
    "WORKS_ON": "{src} works on {dst}",
    "STUDIES": "{src} studies {dst}",
    "LIVES_IN": "{src} lives in {dst}",
    "MOVED_TO": "{src} moved to {dst}",
    "FROM": "{src} is from {dst}",
    "VISITED": "{src} visited {dst}",
    "ATTENDED": "{src} attended {dst}",
    "MEMBER_OF": "{src} joined {dst}",
    "VOLUNTEERS_AT": "{src} volunteers at {dst}",
    "SUPPORTS": "{src} supports {dst}",
    "FAMILY_OF": "{src}'s {role} is {dst}",
    "PARTNER_OF": "{src}'s partner is {dst}",
    "FRIEND_OF": "{src}'s {role} is {dst}",
    "HAS_PET": "{src} has a {role} named {dst}",
    "OWNS": "{src} has {dst}",
    "LIKES": "{src} likes {dst}",
    "DISLIKES": "{src} dislikes {dst}",
    "PRACTICES": "{src} does {dst}",
    "PLAYS": "{src} plays {dst}",
    "MADE": "{src} made {dst}",
    "READ": "{src} read {dst}",
    "WATCHED": "{src} watched {dst}",
    "PLANS": "{src} plans to {role} {dst}",
}

# facts that hold one value at a time, by group: a newer memory stating another value of the same
# group supersedes the older relation (it keeps its evidence and gets `valid_to`). A move is a new
# home, so MOVED_TO and LIVES_IN are one group. Several values stated by one memory ("I'm a nurse
# and a teacher") are all current.
SINGLE_VALUED: tuple[tuple[str, ...], ...] = (
    ("LIVES_IN", "MOVED_TO"),
    ("WORKS_AT",),
    ("WORKS_AS",),
    ("WORKS_ON",),
    ("PARTNER_OF",),
)
SINGLE_VALUED_TYPES: tuple[str, ...] = tuple(t for group in SINGLE_VALUED for t in group)

__all__ = [
    "DOMAINS",
    "EDGE_TYPES",
    "SINGLE_VALUED",
    "SINGLE_VALUED_TYPES",
    "PHRASES",
    "RANGES",
    "NOT_FACTS",
    "ENTITY_LABELS",
    "EXAMPLES",
    "NODE_LABELS",
    "RELATION_TYPES",
    "check_identifier",
    "outside_domain",
]

# ChangeLog: one per user, its change sequence (graph/follow.py); Profile: one per person who
# speaks in a user's memories, Expertise: its items, UserSettings: timezone and name set by hand
# (graph/write/profiles.py), KnowledgeIndex: one per user and domain (graph/write/knowledge.py),
# DayTally: the profile tally of one UTC day of a user's turns without a session
NODE_LABELS: tuple[str, ...] = (
    "Memory",
    "Entity",
    "Session",
    "ChangeLog",
    # a stated fact merged into another (graph/write/merge_rules.py): inactive, readable by id
    "Absorbed",
    "Profile",
    "Expertise",
    "UserSettings",
    "KnowledgeIndex",
    "DayTally",
    *ENTITY_LABELS.values(),
)
# MENTIONS: memory -> entity; NEXT: a session's turns in ingest order; IN_SESSION: turn -> session;
# SUMMARIZED_BY: session -> its episodic summary memory; PROFILE_OF: profile -> the person's
# entity; HAS_EXPERTISE: profile -> item; ABOUT: item -> the entity it is about
# MERGED_FROM: a stated fact -> one it absorbed (graph/write/merge_rules.py)
EDGE_TYPES: tuple[str, ...] = (
    "MENTIONS",
    "NEXT",
    "IN_SESSION",
    "SUMMARIZED_BY",
    "MERGED_FROM",
    "PROFILE_OF",
    "HAS_EXPERTISE",
    "ABOUT",
    *RELATION_TYPES,
)

_IDENTIFIER = re.compile(r"^[A-Z][A-Za-z_]{0,63}$")


def check_identifier(name: str) -> str:
    """Returns `name` if it is a vocabulary label or relationship type, else raises ValueError."""
    if not _IDENTIFIER.match(name) or name not in NODE_LABELS + EDGE_TYPES:
        raise ValueError(f"{name!r} is not in the graph vocabulary")
    return name
