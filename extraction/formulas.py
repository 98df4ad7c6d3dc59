"""Facts said in other words than a verb of the class: encouragement formulas to the listener
("Keep it up!", "I believe in you", "thanks for your support": SUPPORTS), things valued ("pottery
is a huge part of my life", "art gives me so much joy": LIKES, values) and what is looked forward
to ("can't wait to visit Paris", "excited about the trip", "getting ready for a race": PLANS).

Each function reads one clause and returns whether it was such a formula; extraction/facts.py
calls them before the verb classes.
"""

from __future__ import annotations

import re

from spacy.tokens import Span, Token

from extraction.clause import (
    EAGER,
    SUBJECT_DEPS,
    dobjs,
    head_lemma,
    infinitive,
    is_negated,
    pobjs,
    says,
    subject_tokens,
)
from extraction.kinds import (
    CLASS,
    EVENT,
    SCHOOL,
)
from extraction.lexicon import (
    ENCOURAGEMENTS,
    FIRST_PERSON,
    ROLE_NOUNS,
    VALUE_ADJECTIVES,
)
from extraction.mentions import DocState
from extraction.relating import (
    object_kind,
    plan,
    relate,
)

FIRST_PERSON_SUBJECTS = {"i", "we"}


YOU = {"you", "ya", "u"}  # the person spoken to, as an object ("I believe in you")


SUPPORT_NOUNS = {
    "support",
    "encouragement",
    "kindness",
    "help",
    "backing",
    "assistance",
    "offer",  # "appreciate your offer" (to help)
    "faith",  # "your faith in me"
    "belief",
}
# support only when placed in the speaker: "your faith in me", not "your beliefs"
IN_ME_NOUNS = {"faith", "belief"}


_ENCOURAGING = re.compile(
    r"\b(?:" + "|".join(re.escape(e) for e in ENCOURAGEMENTS) + r")\b", re.IGNORECASE
)


# what before "keep going" makes it an infinitive or a future, no imperative
_NOT_IMPERATIVE = {"to", "na", "ta", "gonna", "wanna", "will", "'ll", "ll", "must", "should"}


def cheering(state: DocState, sent: Span) -> None:
    """ "Keep it up!", "Don't give up, buddy!": the speaker SUPPORTS the person spoken to. A
    formula that is no imperative ("I'll keep going") is about the speaker: none."""
    found = _ENCOURAGING.search(sent.text.replace("’", "'"))
    if found is None:
        return
    start = sent.start_char + found.start()
    span = sent.doc.char_span(start, sent.start_char + found.end(), alignment_mode="expand")
    first = span[0] if span is not None else sent[0]
    verb = first if first.pos_ == "VERB" else first.head
    before = sent.doc[first.i - 1].lower_ if first.i > 0 else ""
    own = any(c.dep_ in SUBJECT_DEPS for c in verb.children)
    inherited = verb.dep_ in {"xcomp", "conj"} and bool(subject_tokens(verb))
    if first.lower_ != "you" and (own or inherited or before in _NOT_IMPERATIVE):
        return  # "I'll keep going", "the strength to keep going", "gonna keep pushing"
    state.relate(state.speaker_key, "SUPPORTS", state.addressee(), "encourages")


_OCCASIONS = {EVENT, CLASS, SCHOOL}


def looking_forward(state: DocState, subjects: list[str], verb: Token, negated: bool) -> bool:
    """ "I can't wait to visit Paris", "I'm so excited to start the class" → PLANS the action's
    object; "I'm getting ready for a race" → PLANS race (prepare). True when the clause was
    one of these."""
    lemma = head_lemma(verb)
    waited = infinitive(verb)
    if lemma == "wait" and negated and waited is not None:
        plan(state, subjects, waited)
        return True
    if lemma not in {"be", "get", "feel"} or negated or verb.tag_ == "VBD":
        return False  # "I was so excited to go": whether it happened, the past does not say
    for acomp in (c for c in verb.children if c.dep_ == "acomp"):
        action = next((c for c in acomp.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
        if acomp.lower_ in EAGER and action is not None:
            plan(state, subjects, action)
            return True
        # "excited about the trip": an occasion ahead ("excited about painting" may be a taste)
        ahead = [o for o in pobjs(acomp, {"about", "for"}) if object_kind(state, o) in _OCCASIONS]
        if acomp.lower_ in EAGER and ahead:
            relate(state, subjects, "PLANS", ahead, "look forward to")
            return True
        ready = [o for o in pobjs(acomp, {"for"}) if object_kind(state, o) in _OCCASIONS]
        if acomp.lower_ == "ready" and ready:
            relate(state, subjects, "PLANS", ready, "prepare")
            return True
    return False


def valued(state: DocState, verb: Token) -> bool:
    """ "Family time matters to me", "It means a lot to me", "Art is so special to me",
    "Painting helps me relax": the speaker LIKES the subject (role "values" or "helps").
    True when the clause was one of these."""
    lemma = head_lemma(verb)
    if state.speaker_key is None or is_negated(verb):
        return False
    things = [
        c
        for c in verb.children
        if c.dep_ in {"nsubj", "csubj"} and c.pos_ != "PRON" and head_lemma(c) not in ROLE_NOUNS
    ]
    if not things:
        return False
    to_me = says(pobjs(verb, {"to", "for"}), FIRST_PERSON)
    dear = [a for a in verb.children if a.dep_ == "acomp" and head_lemma(a) in VALUE_ADJECTIVES]
    matters = lemma in {"matter", "mean", "count"} and to_me  # "matters to me"
    # "is so special to me"
    is_dear = lemma == "be" and any(
        to_me or says(pobjs(a, {"to", "for"}), FIRST_PERSON) for a in dear
    )
    if matters or is_dear or _part_of_life(verb) or _brings_joy(verb):
        role = "values"
    elif lemma == "help" and says(
        [*dobjs(verb), *(s for x in verb.children for s in subject_tokens(x))], FIRST_PERSON
    ):
        role = "helps"
    else:
        return False
    relate(state, [state.speaker_key], "LIKES", things, role)
    return True


# what a thing gives the speaker when they value it: "painting brings me so much joy"
JOYS = {"joy", "happiness", "peace", "comfort", "fulfillment", "fulfilment", "purpose"}


def _part_of_life(verb: Token) -> bool:
    """ "Pottery is a huge part of my life"."""
    parts = [a for a in verb.children if a.dep_ == "attr" and head_lemma(a) == "part"]
    lives = [o for a in parts for o in pobjs(a, {"of"}) if head_lemma(o) == "life"]
    owners = [c for life in lives for c in life.children if c.dep_ == "poss"]
    return head_lemma(verb) == "be" and says(owners, FIRST_PERSON)


def _brings_joy(verb: Token) -> bool:
    """ "Painting brings me so much joy", "gardening gives me peace"."""
    if head_lemma(verb) not in {"bring", "give"}:
        return False
    me = [c for c in verb.children if c.dep_ in {"dative", "dobj"} and c.lower_ in FIRST_PERSON]
    joy = [d for d in dobjs(verb) if head_lemma(d) in JOYS]
    return bool(me and joy)


def encouraging(state: DocState, verb: Token) -> bool:
    """ "I believe in you", "I'm so proud of you", "I'm here for you", "I support you", "rooting
    for you": the speaker SUPPORTS the person spoken to. True when the clause was one of these."""
    lemma = head_lemma(verb)
    if is_negated(verb) or not says(verb.children, FIRST_PERSON_SUBJECTS):
        return False
    if lemma in {"believe", "root", "cheer", "pray"}:
        found = says(pobjs(verb, {"in", "for", "on"}), YOU)
    elif lemma in {"support", "encourage", "back"}:
        found = says(dobjs(verb), YOU)
    elif lemma == "be":
        proud = [a for a in verb.children if a.dep_ == "acomp" and head_lemma(a) == "proud"]
        found = any(says(pobjs(a, {"of"}), YOU) for a in proud) or (
            says(verb.children, {"here"}) and says(pobjs(verb, {"for"}), YOU)
        )
    else:
        return False
    if not found:
        return False
    state.relate(state.speaker_key, "SUPPORTS", state.addressee(), "encourages")
    return True


def your_support(state: DocState, noun: Token) -> None:
    """ "Thanks for your support", "your encouragement means a lot", "your kind words and
    encouragement" (the owner of the first conjunct owns the rest): the person spoken to
    SUPPORTS the speaker."""
    owners = [noun, *(noun.head for _ in (0,) if noun.dep_ == "conj")]
    if not any(c.dep_ == "poss" and c.lower_ == "your" for o in owners for c in o.children):
        return
    # "your faith in me" is support; "your beliefs" are the listener's own convictions
    if noun.lemma_.lower() in IN_ME_NOUNS and not says(pobjs(noun, {"in"}), FIRST_PERSON):
        return
    state.relate(state.addressee(), "SUPPORTS", state.speaker_key, "encourages", acknowledged(noun))


# "thanks for", "thank you for", "grateful for" your help: the speaker acknowledges it
THANKING = {"thank", "thanks", "grateful", "thankful", "appreciative"}


def acknowledged(noun: Token) -> bool:
    """Whether the speaker acknowledges the support as given to them: thanks for it ("thanks
    for your help", "I'm grateful for your kindness"), appreciates it ("I really appreciate your
    support", "your support is appreciated") or says what it means ("your support means a lot").
    Not "show your support for the community" nor "Rachel will appreciate your support": the
    listener's support, given to someone else."""
    while noun.dep_ == "conj":  # "your kind words and encouragement": the first conjunct's place
        noun = noun.head
    head = noun.head
    verb = head.lemma_.lower()
    if noun.dep_ == "pobj" and head.lower_ == "for":
        return head.head.lemma_.lower() in THANKING or head.head.lower_ in THANKING
    if verb == "appreciate" and noun.dep_ == "nsubjpass":
        return True
    if verb == "appreciate" and noun.dep_ == "dobj":
        subjects = [c for c in head.children if c.dep_ == "nsubj"]
        return all(c.lower_ in FIRST_PERSON for c in subjects)
    return verb == "mean" and noun.dep_ == "nsubj"
