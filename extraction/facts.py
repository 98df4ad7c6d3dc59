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
could go") state no fact; a future is a plan. graph/vocabulary.py has an example sentence for every
type, and a test runs each through the real pipeline.

This module dispatches one verb to its class; the rooms around it: extraction/clause.py reads a
clause's parts, extraction/relating.py adds a relation once its object is in range,
extraction/going.py holds the classes of going, moving, working and studying, and
extraction/formulas.py the facts said in other words (encouragement, values, looking forward).
"""

from __future__ import annotations

from spacy.tokens import Span, Token

from extraction.clause import (
    changed,
    dobjs,
    gerunds_of,
    head_lemma,
    infinitive,
    is_done,
    is_future,
    is_hypothetical,
    is_negated,
    is_planned,
    is_unrealised,
    particle_of,
    pobjs,
    statement,
    used_to,
    with_conjuncts,
)
from extraction.endings import end, ending
from extraction.formulas import (
    SUPPORT_NOUNS,
    cheering,
    encouraging,
    looking_forward,
    valued,
    your_support,
)
from extraction.going import going_or_working, job
from extraction.kinds import (
    ACTIVITY,
    CLASS,
    EVENT,
    GAME,
    INSTRUMENT,
    LANGUAGE,
    SCREEN,
    SPORT,
    SUBJECT,
    WORK,
    WRITTEN,
    kind_of,
)
from extraction.lexicon import (
    ATTEND_VERBS,
    DISLIKE_VERBS,
    EXPLORE_VERBS,
    GO_VERBS,
    JOIN_VERBS,
    LIKE_VERBS,
    MADE_VERBS,
    MARRY_VERBS,
    MOVE_VERBS,
    OWN_VERBS,
    PET_NOUNS,
    PLAN_VERBS,
    PLAY_VERBS,
    PRACTICE_VERBS,
    READ_VERBS,
    STUDY_VERBS,
    SUPPORT_VERBS,
    TRAVEL_VERBS,
    VOLUNTEER_VERBS,
    WATCH_VERBS,
    WORK_NOUNS,
    WORK_VERBS,
)
from extraction.mentions import DocState
from extraction.relating import (
    events_among,
    is_occupation,
    is_place,
    object_kind,
    plan,
    relate,
    subjects_of,
)

CLASS_NOUNS = {"class", "course", "lesson", "workshop", "seminar", "program", "programme", "camp"}


SCREEN_NOUNS = {"movie", "film", "show", "series", "documentary", "episode", "musical", "play"}


GROUP_NOUNS = {"team", "club", "group", "committee", "board", "band", "choir", "crew", "squad"}


LIKE_ADJECTIVES = {"passionate", "interested", "obsessed", "crazy", "keen", "fond", "big", "nuts"}


def extract_facts(state: DocState) -> None:
    for sent in state.doc.sents:
        said = statement(sent)
        if said is None:
            continue  # a question states no fact
        cheering(state, said)
        for token in said:
            if token.i in state.quoted:
                continue  # a quoted passage: the speaker repeats it, states none of it
            if token.pos_ in {"VERB", "AUX"}:
                _verb(state, token, said)
            elif token.pos_ == "NOUN" and token.lemma_.lower() in SUPPORT_NOUNS:
                your_support(state, token)


def _verb(state: DocState, verb: Token, said: Span | None = None) -> None:
    lemma = head_lemma(verb)
    if (is_hypothetical(verb) and lemma not in LIKE_VERBS) or is_planned(verb):
        return
    if is_unrealised(verb, said) and lemma not in LIKE_VERBS | DISLIKE_VERBS:
        return  # "I hope to be a student there": the plan is the hoping verb's
    if valued(state, verb) or encouraging(state, verb):
        return
    if lemma == "be" and not is_negated(verb):
        _favorite(state, verb)  # its owner is the favourite's, whoever the subject is
    subjects = subjects_of(state, verb)
    if not subjects:
        return
    negated = is_negated(verb)
    if looking_forward(state, subjects, verb, negated):
        return
    if is_future(verb) and lemma not in LIKE_VERBS | DISLIKE_VERBS:
        if not negated and lemma in FUTURE_PLANS:
            plan(state, subjects, verb)  # "I'll visit Rome": PLANS Rome (visit)
        return
    if lemma == "be":
        if not negated:
            _copula(state, subjects, verb)
        return
    if lemma in LIKE_VERBS or lemma in DISLIKE_VERBS:
        dislike = (lemma in DISLIKE_VERBS) != negated
        if used_to(verb):  # "I used to love sushi": no longer, and not now
            _liking(state, subjects, verb, dislike, ended=True)
            return
        _liking(state, subjects, verb, dislike)
        if changed(verb):  # "I don't like sushi anymore", "I love it now": the old one ends
            _liking(state, subjects, verb, not dislike, ended=True)
        return
    if used_to(verb):
        _used_to(state, subjects, verb, lemma)
        return
    if negated:
        return
    if ending(state, subjects, verb):
        return  # "I quit the club", "we broke up": a fact stops holding
    if lemma in PLAN_VERBS and _plans(state, subjects, verb):
        return
    if job(state, subjects, verb):
        return
    if not going_or_working(state, subjects, verb, lemma):
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


def _doing_or_relating(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """Play, volunteering, support, joining, partners, reading, watching, and the verbs of
    practice, making and owning."""
    if lemma in PLAY_VERBS:
        relate(state, subjects, "PLAYS", dobjs(verb))
    elif lemma in VOLUNTEER_VERBS:
        places = pobjs(verb, {"at", "for", "with", "in"}) + dobjs(verb)
        relate(state, subjects, "VOLUNTEERS_AT", places)
    elif lemma in SUPPORT_VERBS:
        _supporting(state, subjects, verb)
    elif lemma in JOIN_VERBS:
        joined = dobjs(verb) if lemma == "join" else pobjs(verb, {"for", "in", "into"})
        relate(state, subjects, "MEMBER_OF", joined)
    elif lemma in MARRY_VERBS:
        role = "partner" if lemma == "date" else "spouse"
        if lemma != "divorce":
            objects = dobjs(verb) + pobjs(verb, {"to"})
            relate(state, subjects, "PARTNER_OF", objects, role, people=True)
    elif lemma in READ_VERBS:
        relate(state, subjects, "READ", dobjs(verb))
    elif lemma in WATCH_VERBS or lemma == "see":
        _seeing(state, subjects, verb, lemma)
    else:
        _doing(state, subjects, verb, lemma)


def _doing(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """Practices, things made and things owned: verbs that share lemmas between the classes."""
    gerunds = gerunds_of(verb)
    if lemma in PRACTICE_VERBS and gerunds:
        relate(state, subjects, "PRACTICES", gerunds)  # "I started surfing"
    elif lemma in {"practice", "practise", "do", "pick", "resume"} or (
        lemma == "try" and not infinitive(verb)
    ):
        objects = dobjs(verb) if lemma != "pick" or particle_of(verb) == "up" else []
        if lemma == "try":  # "tried yoga" is practice; "tried the wings", "tried sushi" tasting
            objects = [o for o in objects if object_kind(state, o) in PRACTISED]
        events = [o for o in objects if lemma == "do" and object_kind(state, o) == EVENT]
        relate(state, subjects, "ATTENDED", events)  # "did a charity event"
        relate(state, subjects, "PRACTICES", [o for o in objects if o not in events])
    elif lemma == "win":  # "won my first tournament": who won it took part
        relate(state, subjects, "ATTENDED", events_among(state, dobjs(verb)))
    elif lemma in RAN_EVENT_VERBS and events_among(state, dobjs(verb)) and is_done(verb):
        # "I ran a charity race", "finished my first marathon": took part in it
        relate(state, subjects, "ATTENDED", events_among(state, dobjs(verb)))
    elif lemma in {"have", "throw", "start", "begin"} and _took_part(state, subjects, verb):
        pass
    elif lemma in MADE_VERBS:
        made = [d for d in dobjs(verb) if d.tag_ != "VBG" and not _finished_title(state, lemma, d)]
        relate(state, subjects, "MADE", made)
    elif lemma in OWN_VERBS:
        _owning(state, subjects, verb, lemma)


# what trying does when it is practising: an activity, a sport, an instrument, a game, a language
# or a subject; a dish, a product or a place tried is tasted, used or visited
PRACTISED = {ACTIVITY, SPORT, INSTRUMENT, GAME, LANGUAGE, SUBJECT}


# verbs whose past with an event as object says one took part: "ran a race", "finished a
# marathon", "entered a competition"
RAN_EVENT_VERBS = {"run", "finish", "complete", "enter"}


def _took_part(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "I had a picnic with friends", "we threw a party", "I started a yoga class": an event or
    class that happened, so was attended. True when the verb's objects were such."""
    events = [d for d in dobjs(verb) if object_kind(state, d) in {EVENT, CLASS}]
    if not events or not is_done(verb):
        return False
    relate(state, subjects, "ATTENDED", events)
    return True


def _finished_title(state: DocState, lemma: str, obj: Token) -> bool:
    """ "Just finished 'A Dance with Dragons'": a title or a book, film or game one finishes is
    more often read, watched or played than made; which of them the clause does not say."""
    titled = kind_of(obj, state.key_of(obj)) in {WORK, WRITTEN, SCREEN, GAME}
    return lemma in {"finish", "complete"} and titled


def _owning(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    for obj in dobjs(verb):
        pet = head_lemma(obj) in PET_NOUNS or (state.key_of(obj) or "").startswith("pet:")
        new = any(c.lower_ == "new" for c in obj.children)
        if pet:
            relate(state, subjects, "HAS_PET", [obj], head_lemma(obj))
        elif lemma not in {"have", "get", "receive"} or new:
            relate(state, subjects, "OWNS", [obj])


def _used_to(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """ "She used to live in Seattle", "I used to work at Acme", "used to play the violin": a
    fact that held and no longer does — it ends, and is not stated as current."""
    if lemma == "live":
        end(state, subjects, "LIVES_IN", pobjs(verb, {"in", "at", "on"}))
    elif lemma in WORK_VERBS:
        end(state, subjects, "WORKS_AT", pobjs(verb, {"at", "for"}))
    elif lemma in PLAY_VERBS:
        end(state, subjects, "PLAYS", dobjs(verb))
    elif lemma in PRACTICE_VERBS or lemma in STUDY_VERBS:
        end(state, subjects, "PRACTICES", dobjs(verb) + gerunds_of(verb))


def _liking(
    state: DocState, subjects: list[str], verb: Token, dislike: bool, ended: bool = False
) -> None:
    """LIKES or DISLIKES the verb's objects ("I love to paint", "I love playing guitar": the
    guitar); with `ended`, that liking stopped holding (a change of mind)."""
    rel = "DISLIKES" if dislike else "LIKES"
    action = infinitive(verb)
    if action is not None:
        if any(c.dep_ == "aux" and c.lower_ in {"would", "'d"} for c in verb.children):
            if not ended:
                plan(state, subjects, action)  # "I'd love to visit Japan"
            return
        objects = dobjs(action) or [action]  # "I love to read novels", "I love to paint"
    elif is_hypothetical(verb):
        return
    else:
        objects = []
        for obj in dobjs(verb) + gerunds_of(verb):
            if obj.tag_ == "VBG" and dobjs(obj):
                if obj.lemma_.lower() not in TRYING:
                    objects.extend(dobjs(obj))  # "I love playing guitar" → guitar
            else:
                objects.append(obj)
    if ended:
        end(state, subjects, rel, objects)
    else:
        relate(state, subjects, rel, objects)


# verbs whose object a liking of the doing does not like: "I love trying new foods" likes the
# trying, not food; "I enjoy using my planner" the use
TRYING = {"try", "use", "get", "have", "make", "do", "find", "see", "take", "give", "keep"}


def _plans(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "planning to open a studio", "thinking of moving", "looking forward to the trip",
    "training for a marathon", "I'm going to run a race". True when the verb planned."""
    lemma = head_lemma(verb)
    action = infinitive(verb)
    if lemma == "go" and verb.tag_ == "VBG" and action is not None:
        plan(state, subjects, action)
        return True
    if lemma == "go":
        return False
    if action is not None and lemma not in {"look", "prepare", "train", "save"}:
        plan(state, subjects, action)
        return True
    if lemma in {"think", "dream"}:
        for gerund in pobjs(verb, {"of", "about"}):
            if gerund.tag_ == "VBG":  # "thinking of moving"; not "about how time flies"
                plan(state, subjects, gerund)
                return True
        return False
    if lemma == "consider":  # "considering buying a house"
        for gerund in (c for c in verb.children if c.dep_ == "xcomp" and c.tag_ == "VBG"):
            plan(state, subjects, gerund)
            return True
    if lemma == "look" and particle_of(verb) == "forward":
        relate(state, subjects, "PLANS", pobjs(verb, {"to"}), "look forward to")
        return True
    if lemma in {"prepare", "train", "save"} and pobjs(verb, {"for"}):
        relate(state, subjects, "PLANS", pobjs(verb, {"for"}), lemma)
        return True
    if lemma in {"plan", "want", "hope", "wish"} and dobjs(verb):
        relate(state, subjects, "PLANS", dobjs(verb), lemma)  # "plan a trip", "want a dog"
        return True
    return False


def _supporting(state: DocState, subjects: list[str], verb: Token) -> None:
    lemma = head_lemma(verb)
    if lemma in {"support", "champion", "sponsor"}:
        causes = dobjs(verb)
    elif lemma == "raise":
        raised = [d for d in dobjs(verb) if head_lemma(d) in {"money", "fund", "awareness"}]
        causes = pobjs(verb, {"for", "to"}) + [
            c for d in raised for c in pobjs(d, {"for", "to", "of"})
        ]
        causes = causes if raised else []
    elif lemma in {"advocate", "mentor"}:
        causes = pobjs(verb, {"for", "to"}) + dobjs(verb)
    else:  # what one fights, campaigns, donates or fundraises *for*: "fought cancer" is against
        causes = pobjs(verb, {"for", "to"})
    relate(state, subjects, "SUPPORTS", causes)


def _seeing(state: DocState, subjects: list[str], verb: Token, lemma: str) -> None:
    """ "watched Inception", "saw a movie" → WATCHED; "saw a concert" → ATTENDED."""
    for obj in dobjs(verb):
        head = head_lemma(obj)
        if lemma in WATCH_VERBS or head in SCREEN_NOUNS or obj.ent_type_ == "WORK_OF_ART":
            relate(state, subjects, "WATCHED", [obj])
        elif head in {"concert", "game", "match", "performance", "exhibition", "parade"}:
            relate(state, subjects, "ATTENDED", [obj])


def _copula(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "I'm a nurse", "I'm from Porto", "I'm into pottery", "I'm on the Orion project", "I'm
    a member of the club", "My favorite book is Dune", "I'm married to Tom"."""
    for attr in (c for c in verb.children if c.dep_ == "attr"):
        head = head_lemma(attr)
        if head in {"member", "part"}:
            relate(state, subjects, "MEMBER_OF", pobjs(attr, {"of"}))
        elif head in {"fan", "lover"}:
            relate(state, subjects, "LIKES", pobjs(attr, {"of"}))
        elif head == "volunteer":
            relate(state, subjects, "VOLUNTEERS_AT", pobjs(attr, {"at", "for", "with", "in"}))
        elif is_occupation(attr):
            relate(state, subjects, "WORKS_AS", [attr])
    if not any(c.dep_ == "acomp" for c in verb.children):
        # "I'm from Porto"; not "I'm grateful for places from Yosemite to the coast"
        relate(state, subjects, "FROM", pobjs(verb, {"from"}))
    relate(state, subjects, "LIKES", pobjs(verb, {"into"}))
    for obj in pobjs(verb, {"on", "in"}):
        head = head_lemma(obj)
        key = state.key_of(obj) or ""
        if key.startswith("project:") or head == "project":
            relate(state, subjects, "WORKS_ON", [obj])
        elif head in GROUP_NOUNS:
            relate(state, subjects, "MEMBER_OF", [obj])
    for acomp in (c for c in verb.children if c.dep_ in {"acomp", "attr"}):
        if head_lemma(acomp) in LIKE_ADJECTIVES:
            liked = pobjs(acomp, {"about", "in", "with", "on", "of"})
            if head_lemma(acomp) == "interested":
                liked = [o for o in liked if not _pointed(o)]
            relate(state, subjects, "LIKES", liked)
        elif acomp.lower_ == "married":
            relate(state, subjects, "PARTNER_OF", pobjs(acomp, {"to"}), "spouse", people=True)
    for to in pobjs(verb, {"to"}):  # "I've been to Japan"
        rel = "VISITED" if is_place(state, to) else "ATTENDED"
        relate(state, subjects, rel, [to])


def _pointed(obj: Token) -> bool:
    """ "interested in the overnight oats option", "in that recipe": a thing just offered, asked
    about; not a taste, as "interested in photography" is."""
    return obj.pos_ == "NOUN" and any(
        c.dep_ == "det" and c.lower_ in {"the", "this", "that", "these", "those"}
        for c in obj.children
    )


def _favorite(state: DocState, verb: Token) -> None:
    """ "My favorite book is Dune" / "Dune is my favorite book": the owner LIKES Dune (book)."""
    nouns = [c for c in verb.children if c.dep_ in {"nsubj", "attr", "acomp"}]
    for noun in nouns:
        if not any(c.lower_ in {"favorite", "favourite", "fave"} for c in noun.children):
            continue
        owner = next((state.key_of(c) for c in noun.children if c.dep_ == "poss"), None)
        others = with_conjuncts(n for n in nouns if n is not noun)
        if head_lemma(noun) in WORK_NOUNS:  # "my favourite book is Dune": a title
            for name in (o for o in others if o.pos_ == "PROPN"):
                state.retype(name, "work", typed=True)
        if owner:
            role = head_lemma(noun) if noun.lower_ not in {"favorite", "favourite"} else None
            relate(state, [owner], "LIKES", others, role)
