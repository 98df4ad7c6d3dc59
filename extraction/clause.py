"""The parts of a clause, read off spaCy's parse: its subject tokens, objects and complements,
and whether it states anything at all (a question, a negation, a modal, a condition, a wish or a
future states no done fact).

Pure functions of tokens: they know no entity and no relation; extraction/facts.py and
extraction/formulas.py ask them what a clause says. Imports only extraction/lexicon.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from spacy.tokens import Span, Token

from extraction.lexicon import (
    FIRST_PERSON,
    LIKE_VERBS,
    PLAN_VERBS,
)

HYPOTHETICAL = {"would", "could", "might", "may", "should", "'d"}


# a future ("I'll visit Rome", "we will move in May") is a plan, not a thing done
FUTURE = {"will", "'ll", "ll", "shall"}


# "(I) wish I had a trip planned": what is wished for did not happen
WISHES = {"wish"}


SUBJECT_DEPS = {"nsubj", "nsubjpass"}


# a verb whose subject is its head's: "I started surfing", "I went and saw", "spent the day
# volunteering"
INHERITS = {"xcomp", "conj", "advcl", "pcomp", "acl", "ccomp"}


# "excited to visit", "can't wait to start": the action is looked forward to, a plan
EAGER = {"excited", "eager", "stoked", "thrilled", "psyched", "pumped", "keen"}


def statement(sent: Span) -> Span | None:
    """The part of a sentence that states: all of it, none of a question, or what comes before
    a question the parser ran on after a dash ("I finished a pottery project - want to see?")."""
    if not sent.text.rstrip().endswith("?"):
        return sent
    marks = [
        t.i for t in sent if t.text in {"-", "–", "—", ";"} and t.whitespace_ and t.i > sent.start
    ]
    return sent.doc[sent.start : marks[-1]] if marks else None


def is_negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def is_hypothetical(verb: Token) -> bool:
    """A modal ("could", "should"), a condition ("if I go") or a wish ("wish I had") on the verb
    or its chain, or a future on the verb's chain ("I'll think about it and maybe get a cat"; a
    future on the verb itself is a plan, see `is_future`)."""
    head = verb
    if any(
        c.dep_ == "advcl"
        and any(m.dep_ == "mark" and m.lower_ in {"if", "unless"} for m in c.children)
        for c in verb.children
    ):
        return True  # "if they say no, I'll ask the store": a fallback, no plan or fact
    for _ in range(4):
        for child in head.children:
            if child.dep_ == "aux" and child.lower_ in HYPOTHETICAL:
                return True
            if child.dep_ == "aux" and head is not verb and child.lower_ in FUTURE:
                return not is_future(verb)  # "I'll have to look into it": the action's plan
            if child.dep_ == "mark" and child.lower_ in {"if", "unless", "whether"}:
                return True
        if head.dep_ == "ccomp" and head.head.lower_ in WISHES:
            return True
        if head.dep_ not in INHERITS or head.head is head:
            break
        if any(c.dep_ in SUBJECT_DEPS for c in head.children):
            break  # "I made a cake, maybe you would like it": a clause of its own
        head = head.head
    return False


# "I'll have to look into it", "we'll need to move": the future is the action's
_OBLIGED = {"have", "need", "get"}


def is_future(verb: Token) -> bool:
    """ "I'll visit Rome", "we will move in May", "I'll have to look into shelters": the verb
    itself in the future, or the action of a future obligation."""
    if any(c.dep_ == "aux" and c.lower_ in FUTURE for c in verb.children):
        return True
    head = verb.head
    return verb.dep_ == "xcomp" and head.lemma_.lower() in _OBLIGED and is_future(head)


def is_done(verb: Token) -> bool:
    """ "hosted", "have organized", "was organizing": a verb in the past, the perfect or the
    past progressive; or a gerund standing as a noun ("hosting parties inspired me"), a habit
    or an event spoken of, never a plan."""
    if verb.tag_ == "VBD":
        return True
    auxiliaries = [c for c in verb.children if c.dep_ in {"aux", "auxpass"}]
    if verb.tag_ == "VBN":
        return any(c.lemma_ == "have" for c in auxiliaries)
    if verb.tag_ == "VBG":
        if any(c.lower_ in {"was", "were"} for c in auxiliaries):
            return True
        if verb.dep_ in {"csubj", "nsubj"} and _a_goal(verb.head):
            return False  # "running a marathon is my biggest dream": a goal, not an event
        return verb.dep_ in {"csubj", "nsubj", "attr", "pobj", "dobj"} and not auxiliaries
    return False


# what a gerund subject may be that is no habit or event: "running a marathon is my dream"
GOALS = {"dream", "goal", "wish", "plan", "aim", "ambition", "hope", "list", "resolution"}


def _a_goal(verb: Token) -> bool:
    """ "… is my biggest dream", "… is on my bucket list", "… is a goal of mine"."""
    said = [c for c in verb.children if c.dep_ in {"attr", "acomp"}]
    said += [o for p in verb.children if p.dep_ == "prep" for o in p.children if o.dep_ == "pobj"]
    return any(t.lemma_.lower() in GOALS for t in said)


def is_planned(verb: Token) -> bool:
    """The action of a plan ("planning to visit Paris", "excited to visit Paris", "can't wait
    to visit Paris"): the plan states it as PLANS, so it is no VISITED fact of its own."""
    head = verb.head
    if verb.dep_ != "xcomp" or head is verb:
        return False
    lemma = head.lemma_.lower()
    return (
        lemma in PLAN_VERBS
        or (lemma == "go" and head.tag_ == "VBG")
        or head.lower_ in EAGER
        or (lemma == "wait" and is_negated(head))
    )


# verbs whose complement is not done: what is hoped, wanted, needed, considered or tried for
# ("I hope I get to go when I'm a student there", "I'm trying to create a budget", "considering
# buying land to build a cottage"); "think" hedges ("I think I went") and is not one
UNREALISED = {
    "hope",
    "wish",
    "want",
    "wanna",
    "plan",
    "intend",
    "aim",
    "consider",
    "dream",
    "need",
    "expect",
    "imagine",
    "wonder",
    "decide",
    "try",
    "attempt",
    "look",  # "looking to buy a house"
    "aspire",  # "aspiring to become an engineer": no engineer yet
    "strive",
    "yearn",
}
# of these, only the infinitive is unrealised: "trying to fix it", "looking to buy a house"; not
# "it looks amazing", "I tried it and loved it"
XCOMP_ONLY = {"try", "attempt", "look"}
# the links from a clause up to the verb it completes or modifies; a relative clause describes a
# noun in its own time ("the bag I took to the gym last week") and is none
_COMPLEMENTS = {"xcomp", "ccomp", "advcl", "conj", "pcomp", "prep", "pobj"}


def is_unrealised(verb: Token, within: Span | None = None) -> bool:
    """The verb stands in what someone hopes, wants, needs, considers or tries for, in a going-to
    future, or in a purpose ("buying land to build a cottage"), at any depth: it states nothing
    done. The plan itself is the governing verb's to state (PLANS, see extraction/facts.py).
    A coordinated clause with a subject of its own ("I hope so, and I loved it") is its own, and
    so is a clause another verb reports ("I wanted to tell you I joined a group": the joining is
    told); the climb stays `within` the statement (not into "want to see a pic?" after a dash)."""
    token = verb
    for _ in range(8):
        if token.dep_ == "advcl" and any(c.tag_ == "TO" for c in token.children):
            return True  # a purpose: "to build a cottage"
        if token.dep_ not in _COMPLEMENTS or token.head is token:
            return False
        if token.dep_ == "conj" and any(c.dep_ in SUBJECT_DEPS for c in token.children):
            return False
        head = token.head
        if within is not None and not within.start <= head.i < within.end:
            return False
        lemma = head.lemma_.lower()
        complement = token.dep_ in {"xcomp", "ccomp", "pcomp", "prep", "pobj"}
        if head.pos_ in {"VERB", "AUX"} and complement:
            if lemma in UNREALISED and (lemma not in XCOMP_ONLY or token.dep_ == "xcomp"):
                return True
            if lemma == "go" and head.tag_ == "VBG" and token.dep_ == "xcomp":
                return True  # "I'm going to start working on it"
        if token.dep_ == "ccomp":
            return False  # a clause reported, known or told: stated in its own right
        token = head
    return False


# words that say a taste or a habit changed: "I don't like it anymore", "I love it now"
CHANGE_MARKERS = {"anymore", "now", "nowadays", "lately"}


def changed(verb: Token) -> bool:
    """The clause says its state is new: "anymore", "any more", "no longer", "now", "these
    days" ("I don't like sushi anymore", "I love hiking now")."""
    words = [t.lower_ for t in verb.subtree if t.sent == verb.sent]
    pairs = set(zip(words, words[1:], strict=False))
    return bool(CHANGE_MARKERS & set(words)) or bool(
        {("any", "more"), ("no", "longer"), ("these", "days")} & pairs
    )


def used_to(verb: Token) -> bool:
    """ "I used to love sushi", "she used to live in Seattle": a past habit or state, over."""
    head = verb.head
    return (
        verb.dep_ == "xcomp"
        and head.lemma_.lower() == "use"
        and head.tag_ == "VBD"
        and any(c.tag_ == "TO" for c in verb.children)
    )


def subject_tokens(verb: Token) -> list[Token]:
    head = verb
    for _ in range(6):
        found = [c for c in head.children if c.dep_ in SUBJECT_DEPS]
        if found:
            return [t for s in found for t in (s, *s.conjuncts)]
        if head.dep_ not in INHERITS or head.head is head:
            return []
        head = head.head
    return []


def elided_subject(verb: Token) -> bool:
    """ "Just finished the book!", "Went hiking.", "Love it!": a sentence that opens with a
    past-tense or liking verb and has no subject is the speaker's."""
    if verb.dep_ != "ROOT" or any(c.dep_ in {"expl", "nsubj"} for c in verb.children):
        return False
    words = [t for t in verb.sent if not (t.is_punct or t.pos_ in {"ADV", "INTJ", "CCONJ"})]
    if not words or words[0].i != verb.i:
        return False
    return verb.tag_ in {"VBD", "VBN"} or (verb.lemma_.lower() in LIKE_VERBS and verb.tag_ == "VBP")


def gerund_subject(verb: Token) -> bool:
    """ "Volunteering at the shelter made me feel great": a gerund standing as the subject, in a
    sentence where the speaker speaks of themselves, is something the speaker does."""
    if verb.tag_ != "VBG" or verb.dep_ not in {"csubj", "nsubj"}:
        return False
    return says(verb.sent, FIRST_PERSON)


def says(tokens: Iterable[Token], words: set[str]) -> bool:
    """Whether any of `tokens` is one of `words` (lower-case)."""
    return any(t.lower_ in words for t in tokens)


def with_conjuncts(tokens: Iterable[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        out.append(token)
        # a language's name is an adjective to the parser ("Spanish and Italian")
        out.extend(
            c
            for c in token.conjuncts
            if c.pos_ in {"NOUN", "PROPN", "VERB"} or c.ent_type_ in {"LANGUAGE", "NORP"}
        )
    return out


def dobjs(verb: Token) -> list[Token]:
    """The verb's objects; of a relative clause with a subject and no object of its own, the
    noun it describes ("the figurines I bought", "the cake we baked")."""
    found = [_named_object(c) for c in verb.children if c.dep_ in {"dobj", "obj"}]
    children = {c.dep_ for c in verb.children}
    # "the reasons I love traveling": the clause has its own complement, the noun is no object
    bare = "nsubj" in children and not children & {"xcomp", "ccomp", "dative", "attr"}
    if not found and verb.dep_ == "relcl" and bare:
        found = [verb.head] if verb.head.pos_ == "NOUN" else []
    return with_conjuncts(found)


def _named_object(obj: Token) -> Token:
    """ "playing Elden Ring nonstop": the small model makes the adverb the object and the name
    its compound; an adjective or adverb heading a proper noun's compound is no object, the
    name is."""
    if obj.pos_ not in {"ADJ", "ADV"}:
        return obj
    names = [c for c in obj.lefts if c.dep_ == "compound" and c.pos_ == "PROPN"]
    return names[-1] if names else obj


def pobjs(verb: Token, preps: set[str]) -> list[Token]:
    found: list[Token] = []
    for prep in (c for c in verb.children if c.dep_ in {"prep", "dative"} and c.lower_ in preps):
        found.extend(c for c in prep.children if c.dep_ in {"pobj", "pcomp"})
    return with_conjuncts(found)


def particle_of(verb: Token) -> str | None:
    return next((c.lower_ for c in verb.children if c.dep_ == "prt"), None)


def gerunds_of(verb: Token) -> list[Token]:
    return [c for c in verb.children if c.dep_ in {"xcomp", "advcl", "dobj"} and c.tag_ == "VBG"]


def infinitive(verb: Token) -> Token | None:
    """The bare verb a verb governs ("want to open"; after "wanna" the small model tags it as
    a present, VBP)."""
    return next((c for c in verb.children if c.dep_ == "xcomp" and c.tag_ in {"VB", "VBP"}), None)


def head_lemma(token: Token) -> str:
    return token.lemma_.lower()
