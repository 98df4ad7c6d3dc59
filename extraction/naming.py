"""Names given in the next breath, and types learnt from how a name is used.

People name a pet, a child, a colleague or a shop right after speaking of it:

    "I adopted a cat last year. Her name is Miso."   Miso is the cat: pet:miso, HAS_PET
    "We called the puppy Biscuit."                   Biscuit is the puppy
    "My new boss started today. His name is Tom."    Tom is the boss: FRIEND_OF (boss)
    "I got a job at a bakery called Flour Power."    WORKS_AT org:flour_power, not "bakery"
    "She's called Luna." (a turn after the kitten)   the resolver binds Luna to the kitten

The name takes the type of what it names (a pet noun: a pet; a role noun: a person; a kind of
shop, firm or club: an org; a kind of place: a place; a kind of work: a title), whatever the
tagger guessed, and it corrects earlier mentions as the role nouns' types do. Within a text the
thing named is the last pet, role or kind noun before the naming with no person named in
between; when there is none ("Her name is Miso" in a turn of its own), the name is marked
(`Mention.naming`) and extraction/resolver.py binds it to the session's latest unnamed pet or
person by role whose gender agrees.

How a name is used says what it is, more surely than the small model's guess:

    "I walked Charlie and fed him", "Charlie barks at the mailman",
    "took Charlie to the vet", "Charlie's leash"                       a pet
    "I've been coding in Kotlin"                                       a language
    "the singer Adele", "Ana, a nurse"                                 a person

Word lists of general English, never a data set's words.
"""

from __future__ import annotations

from spacy.tokens import Doc, Token

from extraction import names
from extraction.genders import is_given_name
from extraction.lexicon import (
    PET_NOUNS,
    PROGRAMMING_LANGUAGES,
    PRONOUN_GENDER,
    ROLES,
    WORK_NOUNS,
)
from extraction.mentions import DocState

NAMING_VERBS = {"call", "name", "nickname", "dub"}
# pronouns that may stand for what is named: "her name", "we called him", "it's called"
NAMED_PRONOUNS = {"her", "his", "its", "their", "him", "it", "them", "she", "he", "they"}
# kinds of organisation and of place a name is given to ("a bakery called …", "a town named …")
ORG_KINDS = {
    "bakery",
    "company",
    "firm",
    "startup",
    "business",
    "shop",
    "store",
    "boutique",
    "cafe",
    "café",
    "restaurant",
    "bar",
    "pub",
    "agency",
    "studio",
    "brand",
    "band",
    "club",
    "team",
    "school",
    "gym",
    "salon",
    "bookstore",
    "clinic",
    "charity",
    "nonprofit",
    "organization",
    "organisation",
    "group",
    "church",
    "podcast",
}
PLACE_KINDS = {
    "town",
    "city",
    "village",
    "street",
    "neighborhood",
    "neighbourhood",
    "island",
    "lake",
    "river",
    "park",
    "beach",
    "suburb",
    "county",
    "state",
    "country",
    "trail",
    "mountain",
}
# what one does to an animal and to no person in chat: "walked Charlie", "fed him"
PET_CARE_VERBS = {"walk", "feed", "groom", "bathe", "neuter", "spay", "vaccinate", "leash"}
# what animals do
ANIMAL_VERBS = {"bark", "meow", "purr", "wag", "growl", "chirp", "neigh", "hiss", "howl"}
# what only an animal has: "Charlie's leash", "Miso's litter box"
ANIMAL_THINGS = {
    "leash",
    "collar",
    "paw",
    "tail",
    "fur",
    "kibble",
    "crate",
    "litter",
    "kennel",
    "saddle",
    "bridle",
    "hoof",
    "mane",
    "vet",
    "vaccination",
    "groomer",
    "cage",
}
# where one takes an animal
ANIMAL_PLACES = {"vet", "groomer", "kennel", "shelter"}
# writing code in a language: "coding in Kotlin", "wrote it in Rust"
CODE_VERBS = {"code", "program", "write", "develop", "build", "script", "implement", "rewrite"}


def name_things(state: DocState) -> None:
    """Binds the names given in this text to what they name (see the module docstring)."""
    for token in state.doc:
        lemma = token.lemma_.lower()
        if lemma == "name" and token.pos_ == "NOUN":
            _name_noun(state, token)
        elif lemma in NAMING_VERBS and token.pos_ in {"VERB", "AUX"}:
            _naming_verb(state, token)


def type_by_use(state: DocState) -> None:
    """Retypes a name by the words around it: a pet, a language (see the module docstring)."""
    speaking = _speaker_tokens(state)
    for token in state.doc:
        if token.i in speaking:
            continue
        if token.pos_ == "PRON" and token.lower_ in {"him", "her", "he", "she"}:
            if _used_as_pet(token) and (name := _antecedent(state, token)) is not None:
                pet = state.retype(name, "pet", typed=True)  # "we walked Charlie and fed him"
                if pet is not None and pet.startswith("pet:"):
                    state.rekey(token, pet)
        elif token.pos_ != "PROPN":
            continue
        elif _used_as_pet(token):
            state.retype(token, "pet", typed=True)
        elif (_coded_in(token) or _among_code(token)) and names.may_be_language(token):
            state.retype(token, "language", typed=True)
        elif _beside_occupation(token) and not state.token_key.get(token.i, "").startswith(
            ("person:", "work:", "pet:")
        ):
            state.retype(token, "person", typed=True)  # "the singer Adele", "my dentist Dr Ruiz"


def _antecedent(state: DocState, pronoun: Token) -> Token | None:
    """The name a pronoun stands for in this text: the person it was resolved to, else the last
    name before it (a name seen only at a sentence start is no person yet: "Biscuit is a good
    boy, we took him to the vet")."""
    key = state.token_key.get(pronoun.i, "")
    for token in reversed(state.doc[: pronoun.i]):
        if key.startswith("person:") and state.token_key.get(token.i) == key:
            return token if token.pos_ == "PROPN" else None
        if not key.startswith("person:") and token.pos_ == "PROPN":
            found = state.token_key.get(token.i, "")
            return token if found.startswith(("person:", "org:", "place:", "topic:")) else None
    return None


def _speaker_tokens(state: DocState) -> set[int]:
    return {i for i, key in state.token_key.items() if key == state.speaker_key}


def _used_as_pet(token: Token) -> bool:
    head = token.head
    lemma = head.lemma_.lower()
    if token.dep_ == "dobj" and lemma in PET_CARE_VERBS and not _walked_home(head):
        # parents feed and walk children too: a given name needs an animal in the text
        return not is_given_name(token.text) or _animal_in(token.doc)
    if token.dep_ == "nsubj" and lemma in ANIMAL_VERBS:
        return True
    if token.dep_ == "poss" and (
        lemma in ANIMAL_THINGS
        or any(c.dep_ == "compound" and c.lemma_.lower() in ANIMAL_THINGS for c in head.children)
    ):
        return True  # "Luna's saddle", "Luna's vet visit"
    if token.dep_ == "pobj" and head.lower_ == "for" and head.head.pos_ == "NOUN":
        kinds = [c for c in head.head.children if c.dep_ == "compound"]
        if any(c.lemma_.lower() in PET_NOUNS for c in kinds):
            return True  # "horse treats for Luna", "dog food for Max"
    if token.dep_ == "dobj" and lemma in {"take", "bring"}:
        for prep in (c for c in head.children if c.dep_ == "prep" and c.lower_ == "to"):
            if any(o.lemma_.lower() in ANIMAL_PLACES for o in prep.children):
                return True
    return False


# occupations a person is named beside ("the singer Adele", "Ana, a nurse"): the name is a person
PERSON_NOUNS = {
    "singer",
    "actor",
    "actress",
    "rapper",
    "musician",
    "author",
    "writer",
    "artist",
    "painter",
    "poet",
    "director",
    "comedian",
    "dancer",
    "athlete",
    "player",
    "chef",
    "doctor",
    "dentist",
    "nurse",
    "teacher",
    "professor",
    "coach",
    "trainer",
    "therapist",
    "lawyer",
    "neighbor",
    "neighbour",
}


def _beside_occupation(token: Token) -> bool:
    """ "the singer Adele", "singer Adele", "Adele, the singer": a name in apposition to, or the
    head of, a noun for what a person does."""
    head = token.head
    if token.dep_ == "appos" and head.lemma_.lower() in PERSON_NOUNS and head.pos_ == "NOUN":
        return True
    return any(
        c.dep_ in {"compound", "appos"} and c.pos_ == "NOUN" and c.lemma_.lower() in PERSON_NOUNS
        for c in token.children
    )


# words of writing software: a programming language's name in a sentence with one of them is the
# language ("I use Python for the backend", "my Java app"), not the snake or the island
CODE_WORDS = {
    "code",
    "coding",
    "program",
    "programming",
    "programmer",
    "developer",
    "software",
    "app",
    "script",
    "scripts",
    "framework",
    "library",
    "backend",
    "frontend",
    "api",
    "compiler",
    "syntax",
    "bootcamp",
    "repo",
    "github",
}


def _among_code(token: Token) -> bool:
    """A programming language's name (not a given name: "Julia", "Ruby") in a sentence about
    writing software."""
    if (
        token.lower_ not in PROGRAMMING_LANGUAGES
        or len(token.text) < 2
        or is_given_name(token.text)
    ):
        return False
    return any(t.lower_ in CODE_WORDS or t.lemma_.lower() in CODE_WORDS for t in token.sent)


def _walked_home(verb: Token) -> bool:
    """ "walked Sarah home": someone seen home, not an animal walked."""
    return any(c.lower_ in {"home", "back", "out"} for c in verb.children)


def _animal_in(doc: Doc) -> bool:
    """Whether the text speaks of an animal: a pet noun or what only an animal has."""
    return any(t.lemma_.lower() in PET_NOUNS or t.lemma_.lower() in ANIMAL_THINGS for t in doc)


def _coded_in(token: Token) -> bool:
    head = token.head
    return (
        token.dep_ == "pobj"
        and head.lower_ == "in"
        and head.head.lemma_.lower() in CODE_VERBS
        and token.text[:1].isupper()
    )


# -- naming ---------------------------------------------------------------------------------


def _name_noun(state: DocState, token: Token) -> None:
    """ "her name is Miso", "his name's Rex", "its name was Biscuit", "my cat's name is Miso"."""
    owners = [c for c in token.children if c.dep_ == "poss"]
    if not owners:
        return
    if token.dep_ == "nsubj" and token.head.lemma_ == "be":
        given = [c for c in token.head.children if c.dep_ == "attr" and c.pos_ == "PROPN"]
    elif token.dep_ == "poss" and token.head.pos_ == "PROPN":
        given = [token.head]  # "her name's Coco", parsed as a possessive
    else:
        return
    owner = owners[0]
    if not given:
        return
    if owner.lower_ in NAMED_PRONOUNS and owner.pos_ == "PRON":
        _give(state, given[0], owner)
    elif owner.pos_ == "NOUN" and _kind_type(owner, family=True) is not None:
        _bind(state, given[0], owner, family=True)  # "my cat's name is Miso"


def _naming_verb(state: DocState, verb: Token) -> None:
    """ "a bakery called X", "a cat named X" (the noun the verb describes); "we called the
    puppy X", "we named him X" (its object); "she's called X" (its passive subject)."""
    given = [c for c in verb.children if c.dep_ in {"oprd", "attr"} and _is_name(c)]
    if verb.dep_ == "acl" and verb.head.pos_ == "NOUN":
        given += [c for c in verb.children if c.dep_ == "dobj" and _is_name(c)]
        if given:
            _bind(state, given[0], verb.head)
        return
    named = [c for c in verb.children if c.dep_ in {"dobj", "nsubjpass"}]
    if given and named:
        target = named[0]
        if target.lower_ in NAMED_PRONOUNS and target.pos_ == "PRON":
            _give(state, given[0], target)
        elif target.pos_ == "NOUN":
            _bind(state, given[0], target)
        return
    # "we called the puppy Biscuit", "we named her Luna": the small model hangs the kind or the
    # pronoun on the name
    for name in (c for c in verb.children if c.dep_ == "dobj" and c.pos_ == "PROPN"):
        kinds = [k for k in name.children if k.dep_ in {"amod", "compound"} and _kind_type(k)]
        owners = [c for c in name.children if c.dep_ == "poss" and c.lower_ in NAMED_PRONOUNS]
        if kinds:
            _bind(state, name, kinds[-1])
        elif owners:
            _give(state, name, owners[0])


def _is_name(token: Token) -> bool:
    return token.pos_ == "PROPN" or (token.text[:1].isupper() and token.pos_ == "NOUN")


def _kind_type(noun: Token, family: bool = False) -> str | None:
    """The type a name given to this noun takes: a pet noun's a pet, a role noun's a person (a
    relative's only when a personal pronoun gave the name: "my daughter … her name is Emma")…"""
    lemma = noun.lemma_.lower()
    if lemma in PET_NOUNS and lemma != "pet":
        return "pet"
    if lemma in ROLES and ROLES[lemma][1] != "family":
        if ROLES[lemma][0] == "FAMILY_OF" and not family:
            return None  # "my daughter's school, it's called …": not the daughter's name
        return "person"
    if lemma in WORK_NOUNS:
        return "work"
    if lemma in ORG_KINDS:
        return "org"
    if lemma in PLACE_KINDS:
        return "place"
    return None


# what a pronoun may name: "he"/"she" a person or a pet (a family member too: "my daughter …
# her name is Emma"), "it" a pet or a thing (a shop, a place, a title), "they" nothing one name
# could name
_ANIMATE = {"person", "pet"}
_INANIMATE = {"pet", "org", "place", "work"}
PLURAL_PRONOUNS = {"they", "them", "their"}


def _give(state: DocState, name: Token, pronoun: Token) -> None:
    """A name given to what a pronoun stands for: the last noun before it, in this sentence or
    the one before, that the pronoun agrees with (a person or pet noun for "he"/"she", a pet or a
    kind of thing for "it"), with no one named in between; else (nothing here) a name for the
    resolver to bind to what the session spoke of, for "he", "she" or "it" alone."""
    if pronoun.lower_ in PLURAL_PRONOUNS:
        return
    animate = pronoun.lower_ in PRONOUN_GENDER
    fits = _ANIMATE if animate else _INANIMATE
    people = [i for i, _ in state.people]  # references too: "my cousin … his wife Ana"
    earliest = _previous_sentence_start(pronoun)
    for noun in reversed(state.doc[earliest : pronoun.i]):
        if any(noun.i < i < pronoun.i for i in people):
            break
        kind = _kind_type(noun, family=animate) if noun.pos_ in {"NOUN", "PROPN"} else None
        if kind in fits:
            _bind(state, name, noun, pronoun, family=animate)
            return
        if not animate and noun.pos_ == "NOUN":
            break  # "a company and an app. It's called Slack": "it" is the app, not the company
    if any(i < pronoun.i and not key.startswith("ref:") for i, key in state.people):
        return  # "Uncle Ray … everyone calls him Doc": a name of someone this text names
    key = state.token_key.get(name.i)
    if key is None and animate:  # "we called him Biscuit": a name the tagger did not see
        key = state.add("person", name.text, [name], tentative=True)
    if key is None or state.mentions[key].typed:
        return
    state.mark_naming(key, PRONOUN_GENDER.get(pronoun.lower_) or "thing")
    state.rekey(pronoun, key)  # "her" is the one named, not a person of the text


def _previous_sentence_start(token: Token) -> int:
    """Where the sentence before `token`'s begins (or its own, when it is the first)."""
    start = token.sent.start
    return token.doc[start - 1].sent.start if start > 0 else start


def _bind(
    state: DocState,
    name: Token,
    noun: Token,
    pronoun: Token | None = None,
    family: bool = False,
) -> None:
    """`name` names `noun`: typed by the noun's kind, standing for it from now on (its
    relations follow); the pronoun that owned the name stands for it too."""
    entity_type = _kind_type(noun, family)
    if entity_type is None:
        return
    before = state.token_key.get(noun.i)
    key = state.retype(name, entity_type, typed=True)
    if key is None or not key.startswith(f"{entity_type}:"):
        return
    if before is not None and before != key:
        state.rekey_relations(before, key)
    state.rekey(noun, key)
    if pronoun is not None:
        state.rekey(pronoun, key)
        gender = PRONOUN_GENDER.get(pronoun.lower_)
        if gender and entity_type == "person":
            state.gender.setdefault(key, gender)
