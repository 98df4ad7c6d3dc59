"""Typed facts from clauses: subject, verb, object → a relation of the closed vocabulary.

Every verb of a statement is read with its subject — a name, first person (the speaker), a
resolved pronoun or role, inherited along conj/xcomp/advcl chains, or, for a sentence that starts
with a past-tense verb ("Just finished the book"), the speaker — and mapped by its lemma and
its complements to a relation type (extraction/lexicon.py holds the verb classes):

    "I went to a support group"      ATTENDED    "We visited Japan"            VISITED
    "I started surfing"              PRACTICES   "I painted a sunrise"         MADE
    "I'm planning to open a studio"  PLANS       "I'm a nurse"                 WORKS_AS
    "My favorite book is Dune"       LIKES       "I volunteer at a shelter"    VOLUNTEERS_AT

Questions, negations (but "don't like" → DISLIKES), conditionals and modal hypotheticals ("I
could go") state no fact. graph/vocabulary.py has an example sentence for every type, and a test
runs each through the real pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from spacy.tokens import Span, Token

from extraction.kinds import (
    ABSTRACT,
    CLASS,
    EVENT,
    GAME,
    LIGHT,
    ORG,
    SCHOOL,
    SCREEN,
    WORK,
    WRITTEN,
    idiom,
    in_range,
    kind_of,
    thanks,
)
from extraction.lexicon import (
    ATTEND_VERBS,
    DISLIKE_VERBS,
    ENCOURAGEMENTS,
    EXPLORE_VERBS,
    FIRST_PERSON,
    FROM_VERBS,
    GO_VERBS,
    JOB_NOUNS,
    JOB_VERBS,
    JOIN_VERBS,
    LIKE_VERBS,
    MADE_VERBS,
    MARRY_VERBS,
    MOVE_VERBS,
    NOT_OCCUPATIONS,
    OCCUPATION_VERBS,
    OCCUPATIONS,
    ORGANIZE_VERBS,
    OWN_VERBS,
    PET_NOUNS,
    PLACE_NOUNS,
    PLAN_VERBS,
    PLAY_VERBS,
    PRACTICE_VERBS,
    READ_VERBS,
    ROLE_NOUNS,
    STUDY_VERBS,
    SUPPORT_VERBS,
    TRAVEL_VERBS,
    VALUE_ADJECTIVES,
    VOLUNTEER_VERBS,
    WATCH_VERBS,
    WORK_NOUNS,
    WORK_VERBS,
)
from extraction.mentions import DocState

CLASS_NOUNS = {"class", "course", "lesson", "workshop", "seminar", "program", "programme", "camp"}
SCREEN_NOUNS = {"movie", "film", "show", "series", "documentary", "episode", "musical", "play"}
GROUP_NOUNS = {"team", "club", "group", "committee", "board", "band", "choir", "crew", "squad"}
LIKE_ADJECTIVES = {"passionate", "interested", "obsessed", "crazy", "keen", "fond", "big", "nuts"}
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
# "excited to visit", "can't wait to start": the action is looked forward to, a plan
EAGER = {"excited", "eager", "stoked", "thrilled", "psyched", "pumped", "keen"}
HYPOTHETICAL = {"would", "could", "might", "may", "should", "'d"}
# a future ("I'll visit Rome", "we will move in May") is a plan, not a thing done
FUTURE = {"will", "'ll", "ll", "shall"}
# "(I) wish I had a trip planned": what is wished for did not happen
WISHES = {"wish"}
SUBJECT_DEPS = {"nsubj", "nsubjpass"}
# a verb whose subject is its head's: "I started surfing", "I went and saw", "spent the day
# volunteering"
INHERITS = {"xcomp", "conj", "advcl", "pcomp", "acl", "ccomp"}


def extract_facts(state: DocState) -> None:
    for sent in state.doc.sents:
        said = _statement(sent)
        if said is None:
            continue  # a question states no fact
        _cheering(state, said)
        for token in said:
            if token.pos_ in {"VERB", "AUX"}:
                _verb(state, token)
            elif token.pos_ == "NOUN" and token.lemma_.lower() in SUPPORT_NOUNS:
                _your_support(state, token)


def _statement(sent: Span) -> Span | None:
    """The part of a sentence that states: all of it, none of a question, or what comes before
    a question the parser ran on after a dash ("I finished a pottery project - want to see?")."""
    if not sent.text.rstrip().endswith("?"):
        return sent
    marks = [
        t.i for t in sent if t.text in {"-", "–", "—", ";"} and t.whitespace_ and t.i > sent.start
    ]
    return sent.doc[sent.start : marks[-1]] if marks else None


_ENCOURAGING = re.compile(
    r"\b(?:" + "|".join(re.escape(e) for e in ENCOURAGEMENTS) + r")\b", re.IGNORECASE
)


# what before "keep going" makes it an infinitive or a future, no imperative
_NOT_IMPERATIVE = {"to", "na", "ta", "gonna", "wanna", "will", "'ll", "ll", "must", "should"}


def _cheering(state: DocState, sent: Span) -> None:
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
    inherited = verb.dep_ in {"xcomp", "conj"} and bool(_subject_tokens(verb))
    if first.lower_ != "you" and (own or inherited or before in _NOT_IMPERATIVE):
        return  # "I'll keep going", "the strength to keep going", "gonna keep pushing"
    state.relate(state.speaker_key, "SUPPORTS", state.addressee(), "encourages")


# -- the parts of a clause ---------------------------------------------------------------------


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _hypothetical(verb: Token) -> bool:
    """A modal ("could", "should"), a condition ("if I go") or a wish ("wish I had") on the verb
    or its chain, or a future on the verb's chain ("I'll think about it and maybe get a cat"; a
    future on the verb itself is a plan, see `_future`)."""
    head = verb
    for _ in range(4):
        for child in head.children:
            if child.dep_ == "aux" and child.lower_ in HYPOTHETICAL:
                return True
            if child.dep_ == "aux" and head is not verb and child.lower_ in FUTURE:
                return not _future(verb)  # "I'll have to look into it": the action's plan
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


def _future(verb: Token) -> bool:
    """ "I'll visit Rome", "we will move in May", "I'll have to look into shelters": the verb
    itself in the future, or the action of a future obligation."""
    if any(c.dep_ == "aux" and c.lower_ in FUTURE for c in verb.children):
        return True
    head = verb.head
    return verb.dep_ == "xcomp" and head.lemma_.lower() in _OBLIGED and _future(head)


def _done(verb: Token) -> bool:
    """ "hosted", "have organized": a verb in the past or the perfect."""
    return verb.tag_ == "VBD" or (
        verb.tag_ == "VBN" and any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children)
    )


def _planned(verb: Token) -> bool:
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
        or (lemma == "wait" and _negated(head))
    )


_OCCASIONS = {EVENT, CLASS, SCHOOL}


def _looking_forward(state: DocState, subjects: list[str], verb: Token, negated: bool) -> bool:
    """ "I can't wait to visit Paris", "I'm so excited to start the class" → PLANS the action's
    object; "I'm getting ready for a race" → PLANS race (prepare). True when the clause was
    one of these."""
    lemma = _head_lemma(verb)
    waited = _infinitive(verb)
    if lemma == "wait" and negated and waited is not None:
        _plan(state, subjects, waited)
        return True
    if lemma not in {"be", "get", "feel"} or negated or verb.tag_ == "VBD":
        return False  # "I was so excited to go": whether it happened, the past does not say
    for acomp in (c for c in verb.children if c.dep_ == "acomp"):
        action = next((c for c in acomp.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
        if acomp.lower_ in EAGER and action is not None:
            _plan(state, subjects, action)
            return True
        # "excited about the trip": an occasion ahead ("excited about painting" may be a taste)
        ahead = [o for o in _pobjs(acomp, {"about", "for"}) if _kind(state, o) in _OCCASIONS]
        if acomp.lower_ in EAGER and ahead:
            _relate(state, subjects, "PLANS", ahead, "look forward to")
            return True
        ready = [o for o in _pobjs(acomp, {"for"}) if _kind(state, o) in _OCCASIONS]
        if acomp.lower_ == "ready" and ready:
            _relate(state, subjects, "PLANS", ready, "prepare")
            return True
    return False


def _subject_tokens(verb: Token) -> list[Token]:
    head = verb
    for _ in range(6):
        found = [c for c in head.children if c.dep_ in SUBJECT_DEPS]
        if found:
            return [t for s in found for t in (s, *s.conjuncts)]
        if head.dep_ not in INHERITS or head.head is head:
            return []
        head = head.head
    return []


def _subjects(state: DocState, verb: Token) -> list[str]:
    tokens = _subject_tokens(verb)
    if not tokens and state.speaker_key and (_elided_subject(verb) or _gerund_subject(verb)):
        return [state.speaker_key]
    keys = [state.key_of(t) for t in tokens]
    return [k for k in dict.fromkeys(keys) if k and not k.startswith("topic:")]


def _elided_subject(verb: Token) -> bool:
    """ "Just finished the book!", "Went hiking.", "Love it!": a sentence that opens with a
    past-tense or liking verb and has no subject is the speaker's."""
    if verb.dep_ != "ROOT" or any(c.dep_ in {"expl", "nsubj"} for c in verb.children):
        return False
    words = [t for t in verb.sent if not (t.is_punct or t.pos_ in {"ADV", "INTJ", "CCONJ"})]
    if not words or words[0].i != verb.i:
        return False
    return verb.tag_ in {"VBD", "VBN"} or (verb.lemma_.lower() in LIKE_VERBS and verb.tag_ == "VBP")


def _gerund_subject(verb: Token) -> bool:
    """ "Volunteering at the shelter made me feel great": a gerund standing as the subject, in a
    sentence where the speaker speaks of themselves, is something the speaker does."""
    if verb.tag_ != "VBG" or verb.dep_ not in {"csubj", "nsubj"}:
        return False
    return _says(verb.sent, FIRST_PERSON)


def _says(tokens: Iterable[Token], words: set[str]) -> bool:
    """Whether any of `tokens` is one of `words` (lower-case)."""
    return any(t.lower_ in words for t in tokens)


def _with_conjuncts(tokens: Iterable[Token]) -> list[Token]:
    out: list[Token] = []
    for token in tokens:
        out.append(token)
        out.extend(c for c in token.conjuncts if c.pos_ in {"NOUN", "PROPN", "VERB"})
    return out


def _dobjs(verb: Token) -> list[Token]:
    """The verb's objects; of a relative clause with a subject and no object of its own, the
    noun it describes ("the figurines I bought", "the cake we baked")."""
    found = [c for c in verb.children if c.dep_ in {"dobj", "obj"}]
    children = {c.dep_ for c in verb.children}
    # "the reasons I love traveling": the clause has its own complement, the noun is no object
    bare = "nsubj" in children and not children & {"xcomp", "ccomp", "dative", "attr"}
    if not found and verb.dep_ == "relcl" and bare:
        found = [verb.head] if verb.head.pos_ == "NOUN" else []
    return _with_conjuncts(found)


def _pobjs(verb: Token, preps: set[str]) -> list[Token]:
    found: list[Token] = []
    for prep in (c for c in verb.children if c.dep_ in {"prep", "dative"} and c.lower_ in preps):
        found.extend(c for c in prep.children if c.dep_ in {"pobj", "pcomp"})
    return _with_conjuncts(found)


def _particle(verb: Token) -> str | None:
    return next((c.lower_ for c in verb.children if c.dep_ == "prt"), None)


def _gerunds(verb: Token) -> list[Token]:
    return [c for c in verb.children if c.dep_ in {"xcomp", "advcl", "dobj"} and c.tag_ == "VBG"]


def _infinitive(verb: Token) -> Token | None:
    """The bare verb a verb governs ("want to open"; after "wanna" the small model tags it as
    a present, VBP)."""
    return next((c for c in verb.children if c.dep_ == "xcomp" and c.tag_ in {"VB", "VBP"}), None)


def _head_lemma(token: Token) -> str:
    return token.lemma_.lower()


def _is_place(state: DocState, token: Token) -> bool:
    key = state.key_of(token) or ""
    return key.startswith("place:") or _head_lemma(token) in PLACE_NOUNS


def _is_named_place(state: DocState, token: Token) -> bool:
    return (state.key_of(token) or "").startswith("place:")


def _is_occupation(token: Token) -> bool:
    lemma = _head_lemma(token)
    if token.pos_ != "NOUN" or lemma in NOT_OCCUPATIONS:
        return False
    return lemma in OCCUPATIONS or lemma.endswith(("ist", "ian", "tender", "smith", "keeper"))


# -- relations ---------------------------------------------------------------------------------


def _relate(
    state: DocState,
    subjects: list[str],
    rel: str,
    objects: Iterable[Token],
    role: str | None = None,
    people: bool = False,
) -> None:
    for obj in objects:
        _implied_type(state, rel, obj)
        # judged before the object becomes a topic: a light noun ("a ton", "the top") that states
        # no fact is no topic either
        if not _stated(rel, obj, state.key_of(obj)):
            continue
        key = state.object_key(obj, people=people)
        if key is None:
            continue
        if rel == "HAS_PET" and not (key.startswith("pet:") or _head_lemma(obj) in PET_NOUNS):
            continue
        for subject in subjects:
            state.relate(subject, rel, key, role)


# what the verb's range says an unfamiliar name is: "I work at Zentrix Labs" (the small model: a
# person, or nothing) is an organisation, "we moved to Kelmoor" a place, "I'm reading Dune" (a
# person, says the tagger) and "we played Overwatch" (an org) titles
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
}
# a name the tagger took for a person is retyped only after these prepositions: "works for Sam"
# and "visited Sam" may well be about a person
_PLACE_PREPOSITIONS = {"at", "in", "to", "from", "into"}
# nobody reads or plays a person; one may watch one ("watched Sam"), so a person stays there
_TITLE_OF_PERSON = {"READ", "PLAYS"}


def _implied_type(state: DocState, rel: str, obj: Token) -> None:
    """Retypes an unfamiliar proper name by the verb's range (see IMPLIED_TYPES)."""
    implied = IMPLIED_TYPES.get(rel)
    if implied is None or obj.pos_ != "PROPN":
        return
    key = state.key_of(obj)
    current = (key or "topic:").split(":", 1)[0]
    if implied == "work":  # the tagger types titles as anything: a title's verb says more
        if current in {"topic", "org", "place"} or (
            current == "person" and rel in _TITLE_OF_PERSON
        ):
            state.retype(obj, implied, typed=True)
        return
    if current == implied or current not in {"topic", "person"}:  # the tagger's org or place stays
        return
    if current == "person":
        preposition = obj.head.lower_ if obj.head.dep_ == "prep" else ""
        if preposition not in _PLACE_PREPOSITIONS or rel in {"VISITED", "MEMBER_OF"}:
            return
    state.retype(obj, implied)


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


def _plan(state: DocState, subjects: list[str], action: Token, role: str | None = None) -> None:
    """PLANS: the object of the planned action, else the action itself ("want to travel")."""
    objects = _dobjs(action) or _pobjs(action, {"to", "in", "at", "on", "for", "into", "with"})
    if objects:
        _relate(state, subjects, "PLANS", objects, role or _head_lemma(action))
    else:
        _relate(state, subjects, "PLANS", [action], role)


def _verb(state: DocState, verb: Token) -> None:
    lemma = _head_lemma(verb)
    if (_hypothetical(verb) and lemma not in LIKE_VERBS) or _planned(verb):
        return
    if _valued(state, verb) or _encouraging(state, verb):
        return
    if lemma == "be" and not _negated(verb):
        _favorite(state, verb)  # its owner is the favourite's, whoever the subject is
    subjects = _subjects(state, verb)
    if not subjects:
        return
    negated = _negated(verb)
    if _looking_forward(state, subjects, verb, negated):
        return
    if _future(verb) and lemma not in LIKE_VERBS | DISLIKE_VERBS:
        if not negated and lemma in FUTURE_PLANS:
            _plan(state, subjects, verb)  # "I'll visit Rome": PLANS Rome (visit)
        return
    if lemma == "be":
        if not negated:
            _copula(state, subjects, verb)
        return
    if lemma in LIKE_VERBS or lemma in DISLIKE_VERBS:
        _liking(state, subjects, verb, dislike=(lemma in DISLIKE_VERBS) != negated)
        return
    if negated:
        return
    if lemma in PLAN_VERBS and _plans(state, subjects, verb):
        return
    if _job(state, subjects, verb):
        return
    if not _going_or_working(state, subjects, verb, lemma):
        _doing_or_relating(state, subjects, verb, lemma)


# verbs whose future is a plan worth a fact ("I'll visit Rome", "we'll join the club"); the future
# of any other verb ("I'll let you know", "I'll send you pics") states nothing
FUTURE_PLANS = (
    GO_VERBS
    | TRAVEL_VERBS
    | EXPLORE_VERBS
    | ATTEND_VERBS
    | MOVE_VERBS
    | JOIN_VERBS
    | STUDY_VERBS
    | VOLUNTEER_VERBS
    | {"visit", "adopt", "buy", "start", "open", "launch", "run", "learn", "try", "look"}
)


def _going_or_working(state: DocState, subjects: list[str], verb: Token, lemma: str) -> bool:
    """Travel, attendance, moves and homes, origin, work, occupation and study; True when the
    verb was one of these."""
    particle = _particle(verb)
    if lemma in GO_VERBS or (lemma == "get" and particle == "back"):
        _going(state, subjects, verb)
    elif lemma in TRAVEL_VERBS:
        _relate(state, subjects, "VISITED", _pobjs(verb, {"to", "around", "through", "in"}))
    elif lemma == "visit":
        _relate(state, subjects, "VISITED", _dobjs(verb))
    elif lemma in EXPLORE_VERBS:
        places = [d for d in _dobjs(verb) if _is_place(state, d)]
        _relate(state, subjects, "VISITED", places + _pobjs(verb, {"in", "around", "through"}))
    elif lemma in ORGANIZE_VERBS or (lemma == "put" and particle == "together"):
        if not _done(verb):
            _relate(state, subjects, "PLANS", _dobjs(verb), "organize")
        else:  # "we hosted a get-together": it happened, and the host was there
            _relate(state, subjects, "ATTENDED", _events(state, _dobjs(verb)))
    elif lemma == "look" and _pobjs(verb, {"into"}):
        _relate(state, subjects, "PLANS", _pobjs(verb, {"into"}), "look into")
    elif lemma in ATTEND_VERBS:
        _relate(state, subjects, "ATTENDED", _dobjs(verb) + _pobjs(verb, {"in", "at", "on"}))
    elif lemma in MOVE_VERBS:
        moved = _pobjs(verb, {"to", "into"})
        _relate(state, subjects, "MOVED_TO", moved)
        # who moved to a city lives there now: "Where does Priya live?" finds it
        _relate(state, subjects, "LIVES_IN", [m for m in moved if _is_named_place(state, m)])
    elif lemma == "live":
        _relate(state, subjects, "LIVES_IN", _pobjs(verb, {"in", "at", "on"}))
    elif _origin(verb, lemma, particle):
        _relate(state, subjects, "FROM", _pobjs(verb, {"in", "on"}))
    elif lemma in WORK_VERBS:
        _working(state, subjects, verb)
    elif lemma in OCCUPATION_VERBS:
        jobs = [c for c in verb.children if c.dep_ in {"attr", "oprd"}] + _pobjs(verb, {"as", "to"})
        _relate(state, subjects, "WORKS_AS", [j for j in jobs if j.pos_ == "NOUN"])
    elif lemma in STUDY_VERBS:
        _studying(state, subjects, verb)
    elif lemma == "take" and particle == "up":
        _relate(state, subjects, "PRACTICES", _dobjs(verb) + _gerunds(verb))
    elif lemma in {"take", "bring"}:
        _taking(state, subjects, verb)
    else:
        return False
    return True


def _taking(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "took a pottery class", "took a road trip" → ATTENDED; "took the kids to the museum" →
    the taker went there too (VISITED a place, else ATTENDED)."""
    taken = [d for d in _dobjs(verb) if _kind(state, d) in {CLASS, EVENT}]
    if _head_lemma(verb) == "take":
        _relate(state, subjects, "ATTENDED", taken)
    # what is taken or brought must be someone or something: "bring positive changes to the
    # neighborhood" goes nowhere
    carried = [d for d in _dobjs(verb) if _kind(state, d) not in {LIGHT, ABSTRACT}]
    for obj in _pobjs(verb, {"to"}) if carried else []:
        _relate(state, subjects, "VISITED" if _is_place(state, obj) else "ATTENDED", [obj])


def _kind(state: DocState, token: Token) -> str:
    return kind_of(token, state.key_of(token))


def _doing_or_relating(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """Play, volunteering, support, joining, partners, reading, watching, and the verbs of
    practice, making and owning."""
    if lemma in PLAY_VERBS:
        _relate(state, subjects, "PLAYS", _dobjs(verb))
    elif lemma in VOLUNTEER_VERBS:
        places = _pobjs(verb, {"at", "for", "with", "in"}) + _dobjs(verb)
        _relate(state, subjects, "VOLUNTEERS_AT", places)
    elif lemma in SUPPORT_VERBS:
        _supporting(state, subjects, verb)
    elif lemma in JOIN_VERBS:
        joined = _dobjs(verb) if lemma == "join" else _pobjs(verb, {"for", "in", "into"})
        _relate(state, subjects, "MEMBER_OF", joined)
    elif lemma in MARRY_VERBS:
        role = "partner" if lemma == "date" else "spouse"
        if lemma != "divorce":
            objects = _dobjs(verb) + _pobjs(verb, {"to"})
            _relate(state, subjects, "PARTNER_OF", objects, role, people=True)
    elif lemma in READ_VERBS:
        _relate(state, subjects, "READ", _dobjs(verb))
    elif lemma in WATCH_VERBS or lemma == "see":
        _seeing(state, subjects, verb, lemma)
    else:
        _doing(state, subjects, verb, lemma)


def _job(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "started a new job at Acme as an engineer", "got an internship with NASA": the job's
    place is WORKS_AT, its title WORKS_AS. True when the verb's object was a job."""
    if _head_lemma(verb) not in JOB_VERBS:
        return False
    jobs = [d for d in _dobjs(verb) if _head_lemma(d) in JOB_NOUNS]
    if not jobs:
        return False
    for job in [*jobs, verb]:
        _relate(state, subjects, "WORKS_AT", _pobjs(job, {"at", "with", "for", "in"}))
        titles = [t for t in _pobjs(job, {"as"}) if t.pos_ == "NOUN"]
        _relate(state, subjects, "WORKS_AS", titles)
    return True


def _valued(state: DocState, verb: Token) -> bool:
    """ "Family time matters to me", "It means a lot to me", "Art is so special to me",
    "Painting helps me relax": the speaker LIKES the subject (role "values" or "helps").
    True when the clause was one of these."""
    lemma = _head_lemma(verb)
    if state.speaker_key is None or _negated(verb):
        return False
    things = [
        c
        for c in verb.children
        if c.dep_ in {"nsubj", "csubj"} and c.pos_ != "PRON" and _head_lemma(c) not in ROLE_NOUNS
    ]
    if not things:
        return False
    to_me = _says(_pobjs(verb, {"to", "for"}), FIRST_PERSON)
    dear = [a for a in verb.children if a.dep_ == "acomp" and _head_lemma(a) in VALUE_ADJECTIVES]
    matters = lemma in {"matter", "mean", "count"} and to_me  # "matters to me"
    # "is so special to me"
    is_dear = lemma == "be" and any(
        to_me or _says(_pobjs(a, {"to", "for"}), FIRST_PERSON) for a in dear
    )
    if matters or is_dear or _part_of_life(verb) or _brings_joy(verb):
        role = "values"
    elif lemma == "help" and _says(
        [*_dobjs(verb), *(s for x in verb.children for s in _subject_tokens(x))], FIRST_PERSON
    ):
        role = "helps"
    else:
        return False
    _relate(state, [state.speaker_key], "LIKES", things, role)
    return True


# what a thing gives the speaker when they value it: "painting brings me so much joy"
JOYS = {"joy", "happiness", "peace", "comfort", "fulfillment", "fulfilment", "purpose"}


def _part_of_life(verb: Token) -> bool:
    """ "Pottery is a huge part of my life"."""
    parts = [a for a in verb.children if a.dep_ == "attr" and _head_lemma(a) == "part"]
    lives = [o for a in parts for o in _pobjs(a, {"of"}) if _head_lemma(o) == "life"]
    owners = [c for life in lives for c in life.children if c.dep_ == "poss"]
    return _head_lemma(verb) == "be" and _says(owners, FIRST_PERSON)


def _brings_joy(verb: Token) -> bool:
    """ "Painting brings me so much joy", "gardening gives me peace"."""
    if _head_lemma(verb) not in {"bring", "give"}:
        return False
    me = [c for c in verb.children if c.dep_ in {"dative", "dobj"} and c.lower_ in FIRST_PERSON]
    joy = [d for d in _dobjs(verb) if _head_lemma(d) in JOYS]
    return bool(me and joy)


def _encouraging(state: DocState, verb: Token) -> bool:
    """ "I believe in you", "I'm so proud of you", "I'm here for you", "I support you", "rooting
    for you": the speaker SUPPORTS the person spoken to. True when the clause was one of these."""
    lemma = _head_lemma(verb)
    if _negated(verb) or not _says(verb.children, FIRST_PERSON_SUBJECTS):
        return False
    if lemma in {"believe", "root", "cheer", "pray"}:
        found = _says(_pobjs(verb, {"in", "for", "on"}), YOU)
    elif lemma in {"support", "encourage", "back"}:
        found = _says(_dobjs(verb), YOU)
    elif lemma == "be":
        proud = [a for a in verb.children if a.dep_ == "acomp" and _head_lemma(a) == "proud"]
        found = any(_says(_pobjs(a, {"of"}), YOU) for a in proud) or (
            _says(verb.children, {"here"}) and _says(_pobjs(verb, {"for"}), YOU)
        )
    else:
        return False
    if not found:
        return False
    state.relate(state.speaker_key, "SUPPORTS", state.addressee(), "encourages")
    return True


def _your_support(state: DocState, noun: Token) -> None:
    """ "Thanks for your support", "your encouragement means a lot", "your kind words and
    encouragement" (the owner of the first conjunct owns the rest): the person spoken to
    SUPPORTS the speaker."""
    owners = [noun, *(noun.head for _ in (0,) if noun.dep_ == "conj")]
    if any(c.dep_ == "poss" and c.lower_ == "your" for o in owners for c in o.children):
        state.relate(state.addressee(), "SUPPORTS", state.speaker_key, "encourages")


def _origin(verb: Token, lemma: str, particle: str | None) -> bool:
    """ "I was born in Lima", "grew up in Ohio", "was raised in Oslo"."""
    passive = any(c.dep_ == "nsubjpass" for c in verb.children)
    if lemma not in FROM_VERBS:
        return False
    return (
        (lemma == "bear" and passive)
        or (lemma == "grow" and particle == "up")
        or (lemma == "raise" and passive)
    )


def _doing(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """Practices, things made and things owned: verbs that share lemmas between the classes."""
    gerunds = _gerunds(verb)
    if lemma in PRACTICE_VERBS and gerunds:
        _relate(state, subjects, "PRACTICES", gerunds)  # "I started surfing"
    elif lemma in {"practice", "practise", "do", "pick", "resume"} or (
        lemma == "try" and not _infinitive(verb)
    ):
        objects = _dobjs(verb) if lemma != "pick" or _particle(verb) == "up" else []
        events = [o for o in objects if lemma == "do" and _kind(state, o) == EVENT]
        _relate(state, subjects, "ATTENDED", events)  # "did a charity event"
        _relate(state, subjects, "PRACTICES", [o for o in objects if o not in events])
    elif lemma == "win":  # "won my first tournament": who won it took part
        _relate(state, subjects, "ATTENDED", _events(state, _dobjs(verb)))
    elif lemma in RAN_EVENT_VERBS and _events(state, _dobjs(verb)) and _done(verb):
        # "I ran a charity race", "finished my first marathon": took part in it
        _relate(state, subjects, "ATTENDED", _events(state, _dobjs(verb)))
    elif lemma in {"have", "throw", "start", "begin"} and _took_part(state, subjects, verb):
        pass
    elif lemma in MADE_VERBS:
        made = [d for d in _dobjs(verb) if d.tag_ != "VBG" and not _finished_title(state, lemma, d)]
        _relate(state, subjects, "MADE", made)
    elif lemma in OWN_VERBS:
        _owning(state, subjects, verb, lemma)


# verbs whose past with an event as object says one took part: "ran a race", "finished a
# marathon", "entered a competition"
RAN_EVENT_VERBS = {"run", "finish", "complete", "enter"}


def _events(state: DocState, objects: list[Token]) -> list[Token]:
    return [o for o in objects if _kind(state, o) == EVENT]


def _took_part(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "I had a picnic with friends", "we threw a party", "I started a yoga class": an event or
    class that happened, so was attended. True when the verb's objects were such."""
    events = [d for d in _dobjs(verb) if _kind(state, d) in {EVENT, CLASS}]
    if not events or not _done(verb):
        return False
    _relate(state, subjects, "ATTENDED", events)
    return True


def _finished_title(state: DocState, lemma: str, obj: Token) -> bool:
    """ "Just finished 'A Dance with Dragons'": a title or a book, film or game one finishes is
    more often read, watched or played than made; which of them the clause does not say."""
    titled = kind_of(obj, state.key_of(obj)) in {WORK, WRITTEN, SCREEN, GAME}
    return lemma in {"finish", "complete"} and titled


def _owning(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    for obj in _dobjs(verb):
        pet = _head_lemma(obj) in PET_NOUNS or (state.key_of(obj) or "").startswith("pet:")
        new = any(c.lower_ == "new" for c in obj.children)
        if pet:
            _relate(state, subjects, "HAS_PET", [obj], _head_lemma(obj))
        elif lemma not in {"have", "get", "receive"} or new:
            _relate(state, subjects, "OWNS", [obj])


def _liking(state: DocState, subjects: list[str], verb: Token, dislike: bool) -> None:
    rel = "DISLIKES" if dislike else "LIKES"
    action = _infinitive(verb)
    if action is not None:
        if any(c.dep_ == "aux" and c.lower_ in {"would", "'d"} for c in verb.children):
            _plan(state, subjects, action)  # "I'd love to visit Japan"
        elif _dobjs(action):
            _relate(state, subjects, rel, _dobjs(action))  # "I love to read novels"
        else:
            _relate(state, subjects, rel, [action])  # "I love to paint"
        return
    if _hypothetical(verb):
        return
    objects: list[Token] = []
    for obj in _dobjs(verb) + _gerunds(verb):
        if obj.tag_ == "VBG" and _dobjs(obj):
            objects.extend(_dobjs(obj))  # "I love playing guitar" → guitar
        else:
            objects.append(obj)
    _relate(state, subjects, rel, objects)


def _plans(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "planning to open a studio", "thinking of moving", "looking forward to the trip",
    "training for a marathon", "I'm going to run a race". True when the verb planned."""
    lemma = _head_lemma(verb)
    action = _infinitive(verb)
    if lemma == "go" and verb.tag_ == "VBG" and action is not None:
        _plan(state, subjects, action)
        return True
    if lemma == "go":
        return False
    if action is not None and lemma not in {"look", "prepare", "train", "save"}:
        _plan(state, subjects, action)
        return True
    if lemma in {"think", "dream"}:
        for gerund in _pobjs(verb, {"of", "about"}):
            if gerund.pos_ == "VERB":
                _plan(state, subjects, gerund)
                return True
        return False
    if lemma == "look" and _particle(verb) == "forward":
        _relate(state, subjects, "PLANS", _pobjs(verb, {"to"}), "look forward to")
        return True
    if lemma in {"prepare", "train", "save"} and _pobjs(verb, {"for"}):
        _relate(state, subjects, "PLANS", _pobjs(verb, {"for"}), lemma)
        return True
    if lemma in {"plan", "want", "hope", "wish"} and _dobjs(verb):
        _relate(state, subjects, "PLANS", _dobjs(verb), lemma)  # "plan a trip", "want a dog"
        return True
    return False


def _going(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "went to Japan" → VISITED; "went to a support group" → ATTENDED; "went hiking" →
    PRACTICES; "went on a camping trip" → ATTENDED."""
    for obj in _pobjs(verb, {"to", "into", "from"}):
        rel = "VISITED" if _is_place(state, obj) else "ATTENDED"
        _relate(state, subjects, rel, [obj])
    _relate(state, subjects, "ATTENDED", _pobjs(verb, {"on"}))
    _relate(state, subjects, "PRACTICES", _gerunds(verb))  # "went camping" (also as an object)


def _working(state: DocState, subjects: list[str], verb: Token) -> None:
    for obj in _pobjs(verb, {"at", "for"}):
        _relate(state, subjects, "WORKS_AT", [obj])
    _relate(state, subjects, "WORKS_ON", _pobjs(verb, {"on"}))
    _relate(state, subjects, "WORKS_AS", [o for o in _pobjs(verb, {"as"}) if o.pos_ == "NOUN"])
    for obj in _pobjs(verb, {"in"}):
        key = state.key_of(obj) or ""
        _relate(state, subjects, "WORKS_AT" if key else "WORKS_AS", [obj])


def _studying(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "I study psychology" → STUDIES; "I study at Kelmore University", "studied in college"
    → ATTENDED the school (an unfamiliar name after "at" is an organisation: the verb says so)."""
    studied = _dobjs(verb) + _pobjs(verb, {"about"})
    for obj in _pobjs(verb, {"in", "at"}):
        current = (state.key_of(obj) or "topic:").split(":", 1)[0]
        if obj.pos_ == "PROPN" and obj.head.lower_ == "at" and current in {"topic", "person"}:
            state.retype(obj, "org")
        if kind_of(obj, state.key_of(obj)) in {ORG, SCHOOL}:
            _relate(state, subjects, "ATTENDED", [obj])
        else:
            studied.append(obj)
    _relate(state, subjects, "STUDIES", studied)


def _supporting(state: DocState, subjects: list[str], verb: Token) -> None:
    lemma = _head_lemma(verb)
    if lemma in {"support", "champion", "sponsor"}:
        causes = _dobjs(verb)
    elif lemma == "raise":
        raised = [d for d in _dobjs(verb) if _head_lemma(d) in {"money", "fund", "awareness"}]
        causes = _pobjs(verb, {"for", "to"}) + [
            c for d in raised for c in _pobjs(d, {"for", "to", "of"})
        ]
        causes = causes if raised else []
    else:
        causes = _pobjs(verb, {"for", "to"}) + _dobjs(verb)
    _relate(state, subjects, "SUPPORTS", causes)


def _seeing(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """ "watched Inception", "saw a movie" → WATCHED; "saw a concert" → ATTENDED."""
    for obj in _dobjs(verb):
        head = _head_lemma(obj)
        if lemma in WATCH_VERBS or head in SCREEN_NOUNS or obj.ent_type_ == "WORK_OF_ART":
            _relate(state, subjects, "WATCHED", [obj])
        elif head in {"concert", "game", "match", "performance", "exhibition", "parade"}:
            _relate(state, subjects, "ATTENDED", [obj])


def _copula(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "I'm a nurse", "I'm from Porto", "I'm into pottery", "I'm on the Orion project", "I'm
    a member of the club", "My favorite book is Dune", "I'm married to Tom"."""
    for attr in (c for c in verb.children if c.dep_ == "attr"):
        head = _head_lemma(attr)
        if head in {"member", "part"}:
            _relate(state, subjects, "MEMBER_OF", _pobjs(attr, {"of"}))
        elif head in {"fan", "lover"}:
            _relate(state, subjects, "LIKES", _pobjs(attr, {"of"}))
        elif head == "volunteer":
            _relate(state, subjects, "VOLUNTEERS_AT", _pobjs(attr, {"at", "for", "with", "in"}))
        elif _is_occupation(attr):
            _relate(state, subjects, "WORKS_AS", [attr])
    _relate(state, subjects, "FROM", _pobjs(verb, {"from"}))
    _relate(state, subjects, "LIKES", _pobjs(verb, {"into"}))
    for obj in _pobjs(verb, {"on", "in"}):
        head = _head_lemma(obj)
        key = state.key_of(obj) or ""
        if key.startswith("project:") or head == "project":
            _relate(state, subjects, "WORKS_ON", [obj])
        elif head in GROUP_NOUNS:
            _relate(state, subjects, "MEMBER_OF", [obj])
    for acomp in (c for c in verb.children if c.dep_ in {"acomp", "attr"}):
        if _head_lemma(acomp) in LIKE_ADJECTIVES:
            _relate(state, subjects, "LIKES", _pobjs(acomp, {"about", "in", "with", "on", "of"}))
        elif acomp.lower_ == "married":
            _relate(state, subjects, "PARTNER_OF", _pobjs(acomp, {"to"}), "spouse", people=True)
    for to in _pobjs(verb, {"to"}):  # "I've been to Japan"
        rel = "VISITED" if _is_place(state, to) else "ATTENDED"
        _relate(state, subjects, rel, [to])


def _favorite(state: DocState, verb: Token) -> None:
    """ "My favorite book is Dune" / "Dune is my favorite book": the owner LIKES Dune (book)."""
    nouns = [c for c in verb.children if c.dep_ in {"nsubj", "attr", "acomp"}]
    for noun in nouns:
        if not any(c.lower_ in {"favorite", "favourite", "fave"} for c in noun.children):
            continue
        owner = next((state.key_of(c) for c in noun.children if c.dep_ == "poss"), None)
        others = _with_conjuncts(n for n in nouns if n is not noun)
        if _head_lemma(noun) in WORK_NOUNS:  # "my favourite book is Dune": a title
            for name in (o for o in others if o.pos_ == "PROPN"):
                state.retype(name, "work", typed=True)
        if owner:
            role = _head_lemma(noun) if noun.lower_ not in {"favorite", "favourite"} else None
            _relate(state, [owner], "LIKES", others, role)
