"""From a clause's parts to relations in the document's state: who the subjects are, whether an
object is of a kind the relation accepts (extraction/kinds.py), what type an unfamiliar name takes
from the verb's range, and the one place a typed relation is added (`relate`).

Used by extraction/facts.py (the verb classes) and extraction/formulas.py (facts said in other
words); imports neither.
"""

from __future__ import annotations

from collections.abc import Iterable

from spacy.tokens import Token

from extraction import names
from extraction.clause import (
    dobjs,
    elided_subject,
    gerund_subject,
    head_lemma,
    pobjs,
    subject_tokens,
)
from extraction.kinds import (
    EVENT,
    PLACE,
    QUANTITY_HEADS,
    idiom,
    in_range,
    kind_of,
    thanks,
)
from extraction.lexicon import (
    NOT_OCCUPATIONS,
    OCCUPATIONS,
    PET_NOUNS,
    PLACE_NOUNS,
)
from extraction.mentions import DocState


def subjects_of(state: DocState, verb: Token) -> list[str]:
    tokens = subject_tokens(verb)
    if not tokens and state.speaker_key and (elided_subject(verb) or gerund_subject(verb)):
        return [state.speaker_key]
    keys = [state.key_of(t) for t in tokens]
    return [k for k in dict.fromkeys(keys) if k and not k.startswith("topic:")]


def is_place(state: DocState, token: Token) -> bool:
    """A place by its name's type, or a noun for a kind of place or venue ("the gym", "a new
    bakery"): going there is a visit, not attending anything."""
    key = state.key_of(token) or ""
    return (
        key.startswith("place:")
        or head_lemma(token) in PLACE_NOUNS
        or (not key and kind_of(token, None) == PLACE)
    )


def is_named_place(state: DocState, token: Token) -> bool:
    return (state.key_of(token) or "").startswith("place:")


def is_occupation(token: Token) -> bool:
    lemma = head_lemma(token)
    if token.pos_ != "NOUN" or lemma in NOT_OCCUPATIONS:
        return False
    return lemma in OCCUPATIONS or lemma.endswith(("ist", "ian", "tender", "smith", "keeper"))


def relate(
    state: DocState,
    subjects: list[str],
    rel: str,
    objects: Iterable[Token],
    role: str | None = None,
    people: bool = False,
) -> None:
    for obj in [o for given in objects for o in _counted(given)]:
        _implied_type(state, rel, obj)
        # judged before the object becomes a topic: a light noun ("a ton", "the top") that states
        # no fact is no topic either
        if not _stated(rel, obj, state.key_of(obj)):
            continue
        key = state.object_key(obj, people=people)
        if key is None:
            continue
        if rel == "HAS_PET" and not (key.startswith("pet:") or head_lemma(obj) in PET_NOUNS):
            continue
        for subject in subjects:
            if rel == "HAS_PET" and not key.startswith(("pet:", "ref:")):
                # "I adopted a cat": the subject's cat, named later or never; not "cat"
                state.relate(subject, rel, state.pet_reference(subject, obj), role)
                continue
            state.relate(subject, rel, key, role)


def _counted(obj: Token) -> list[Token]:
    """What a measure or collective noun counts: "a set of spatulas" is spatulas, "a mix of
    running and swimming" running and swimming, "a cup of coffee" coffee; the head alone names
    no thing."""
    if obj.lemma_.lower() not in QUANTITY_HEADS:
        return [obj]
    counted = pobjs(obj, {"of"})
    return counted or [obj]


# what the verb's range says an unfamiliar name is: "I work at Zentrix Labs" (the small model: a
# person, or nothing) is an organisation, "we moved to Kelmoor" a place, "I'm reading Dune" (a
# person, says the tagger) and "we played Overwatch" (an org) titles, "I'm learning Kotlin" (a
# place) or "I study French" (a nationality) a language, when the word may name one
IMPLIED_TYPES = {
    "WORKS_AT": "org",
    "VOLUNTEERS_AT": "org",
    "MEMBER_OF": "org",
    "MOVED_TO": "place",
    "LIVES_IN": "place",
    "FROM": "place",
    "VISITED": "place",
    "READ": "work",
    "WATCHED": "work",
    "PLAYS": "work",
    "STUDIES": "language",
    "PRACTICES": "language",
}


# a name the tagger took for a person is retyped only after these prepositions: "works for Sam"
# and "visited Sam" may well be about a person
_PLACE_PREPOSITIONS = {"at", "in", "to", "from", "into"}


# nobody reads or plays a person; one may watch one ("watched Sam"), so a person stays there
# unless the name is made of more than proper nouns ("Paddington 2", "Spirited Away")
_TITLE_OF_PERSON = {"READ", "PLAYS"}


def _implied_type(state: DocState, rel: str, obj: Token) -> None:
    """Retypes an unfamiliar proper name by the verb's range (see IMPLIED_TYPES)."""
    implied = IMPLIED_TYPES.get(rel)
    key = state.key_of(obj)
    current = (key or "topic:").split(":", 1)[0]
    tagged_person = current == "person" and obj.pos_ != "PRON"  # "Spirited Away": an adverb
    if implied == "language":  # "French" in "I study French" is an adjective to the parser
        if current != "language" and obj.pos_ != "PRON" and names.may_be_language(obj):
            state.retype(obj, implied, typed=True)
        return
    if implied is None or (obj.pos_ != "PROPN" and not (implied == "work" and tagged_person)):
        return
    if implied == "work":  # the tagger types titles as anything: a title's verb says more
        if current in {"topic", "org", "place"} or (
            tagged_person and (rel in _TITLE_OF_PERSON or not _person_like(state, key))
        ):
            state.retype(obj, implied, typed=True)
        return
    preposition = obj.head.lower_ if obj.head.dep_ == "prep" else ""
    if current == "org" and implied == "place" and preposition in _PLACE_PREPOSITIONS:
        # "I moved to Kelowna" (an org, guesses the tagger): a move, a home or an origin is a
        # place, unless the name says it is a company or is one the model surely knows ("I moved
        # to Google" is a new job)
        label = state.mentions[key].label if key in state.mentions else obj.text
        if rel != "VISITED" and not names.designated(label) and not names.well_known(label):
            state.retype(obj, implied)
        return
    if current == implied or current not in {"topic", "person"}:  # the tagger's org or place stays
        return
    if current == "person" and (
        preposition not in _PLACE_PREPOSITIONS or rel in {"VISITED", "MEMBER_OF"}
    ):
        return
    state.retype(obj, implied)


def _person_like(state: DocState, key: str | None) -> bool:
    """Whether the words of a name the tagger calls a person could be a person's name: proper
    nouns only, no number, adverb or adjective in it ("Paddington 2" and "Spirited Away" are
    titles)."""
    words = [t for t in state.doc if state.token_key.get(t.i) == key and t.pos_ != "PRON"]
    return all(t.pos_ == "PROPN" and not t.like_num for t in words)


def _stated(rel: str, obj: Token, key: str | None) -> bool:
    """Whether the clause states a fact of this type about this object: the object is of a kind
    the relation accepts (extraction/kinds.py), it is no idiom with its verb, and a liking is no
    thanks formula."""
    kind = kind_of(obj, key)
    if idiom(obj, kind) or not in_range(rel, kind):
        return False
    if any(c.dep_ == "det" and c.lower_ == "no" for c in obj.children):
        return False  # "I'm no writer", "we have no pets"
    return not (rel in {"LIKES", "MADE"} and thanks(obj))


# verbs of going along with something: what goes "with" them is carried or company, no plan's
CARRYING = {"travel", "fly", "drive", "move", "come", "bring", "take", "walk", "ride", "carry"}


def plan(state: DocState, subjects: list[str], action: Token, role: str | None = None) -> None:
    """PLANS: the object of the planned action, else the action itself ("want to travel")."""
    # "work with bloggers", "go with the pasta" plan them; "travel with luggage" plans no luggage
    places = {"to", "in", "at", "on", "for", "into"} | (
        set() if head_lemma(action) in CARRYING else {"with"}
    )
    objects = dobjs(action) or pobjs(action, places)
    if objects:
        relate(state, subjects, "PLANS", objects, role or head_lemma(action))
    else:
        relate(state, subjects, "PLANS", [action], role)


def object_kind(state: DocState, token: Token) -> str:
    return kind_of(token, state.key_of(token))


def events_among(state: DocState, objects: list[Token]) -> list[Token]:
    return [o for o in objects if object_kind(state, o) == EVENT]
