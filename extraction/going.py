"""Going, working, studying and moving: the verb classes whose facts are where a person goes or
went (VISITED, ATTENDED), lives and comes from (MOVED_TO, LIVES_IN, FROM), works (WORKS_AT,
WORKS_ON, WORKS_AS) and studies (STUDIES, or ATTENDED the school).

Called by extraction/facts.py for one verb with its subjects; adds relations through
extraction/relating.py.
"""

from __future__ import annotations

from spacy.tokens import Token

from extraction import names
from extraction.clause import (
    dobjs,
    gerunds_of,
    head_lemma,
    is_done,
    particle_of,
    pobjs,
)
from extraction.kinds import (
    ABSTRACT,
    CLASS,
    EVENT,
    LIGHT,
    ORG,
    SCHOOL,
    kind_of,
)
from extraction.lexicon import (
    ATTEND_VERBS,
    EXPLORE_VERBS,
    FROM_VERBS,
    GO_VERBS,
    JOB_NOUNS,
    JOB_VERBS,
    MOVE_VERBS,
    OCCUPATION_VERBS,
    ORGANIZE_VERBS,
    STUDY_VERBS,
    TRAVEL_VERBS,
    WORK_VERBS,
)
from extraction.mentions import DocState
from extraction.relating import (
    is_named_place,
    is_place,
    object_kind,
    relate,
)


def going_or_working(state: DocState, subjects: list[str], verb: Token, lemma: str) -> bool:
    """Travel, attendance, moves and homes, origin, work, occupation and study; True when the
    verb was one of these."""
    particle = particle_of(verb)
    if lemma in GO_VERBS or (lemma == "get" and particle == "back"):
        _going(state, subjects, verb)
    elif lemma in TRAVEL_VERBS:
        relate(state, subjects, "VISITED", pobjs(verb, {"to", "around", "through", "in"}))
    elif lemma == "visit":
        relate(state, subjects, "VISITED", dobjs(verb))
    elif lemma in EXPLORE_VERBS:
        places = [d for d in dobjs(verb) if is_place(state, d)]
        relate(state, subjects, "VISITED", places + pobjs(verb, {"in", "around", "through"}))
    elif lemma in ORGANIZE_VERBS or (lemma == "put" and particle == "together"):
        if not is_done(verb):
            relate(state, subjects, "PLANS", dobjs(verb), "organize")
        else:  # "we hosted a get-together", "organizing a camp last summer was awesome": it
            # happened, and the host was there
            hosted = [d for d in dobjs(verb) if object_kind(state, d) in {EVENT, CLASS}]
            relate(state, subjects, "ATTENDED", hosted)
    elif lemma == "look" and pobjs(verb, {"into"}):
        relate(state, subjects, "PLANS", pobjs(verb, {"into"}), "look into")
    elif lemma in ATTEND_VERBS:
        relate(state, subjects, "ATTENDED", dobjs(verb) + pobjs(verb, {"in", "at", "on"}))
    elif lemma in MOVE_VERBS:
        moved = pobjs(verb, {"to", "into"})
        relate(state, subjects, "MOVED_TO", moved)
        # who moved to a city lives there now: "Where does Priya live?" finds it
        relate(state, subjects, "LIVES_IN", [m for m in moved if is_named_place(state, m)])
    elif lemma == "live":
        relate(state, subjects, "LIVES_IN", pobjs(verb, {"in", "at", "on"}))
    elif _origin(verb, lemma, particle):
        relate(state, subjects, "FROM", pobjs(verb, {"in", "on"}))
    elif lemma in WORK_VERBS:
        _working(state, subjects, verb)
    elif lemma in OCCUPATION_VERBS:
        jobs = [c for c in verb.children if c.dep_ in {"attr", "oprd"}] + pobjs(verb, {"as", "to"})
        relate(state, subjects, "WORKS_AS", [j for j in jobs if j.pos_ == "NOUN"])
    elif lemma in STUDY_VERBS:
        _studying(state, subjects, verb)
    elif lemma == "take" and particle == "up":
        relate(state, subjects, "PRACTICES", dobjs(verb) + gerunds_of(verb))
    elif lemma in {"take", "bring"}:
        _taking(state, subjects, verb)
    else:
        return False
    return True


def _taking(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "took a pottery class", "took a road trip" → ATTENDED; "took French in high school" (a
    language taken as a course) → STUDIES; "took the kids to the museum" → the taker went there
    too (VISITED a place, else ATTENDED)."""
    taken = [d for d in dobjs(verb) if object_kind(state, d) in {CLASS, EVENT}]
    if head_lemma(verb) == "take":
        relate(state, subjects, "ATTENDED", taken)
        if not pobjs(verb, {"to"}):  # "took Julia to the zoo" carried someone somewhere
            languages = [d for d in dobjs(verb) if names.may_be_language(d)]
            relate(state, subjects, "STUDIES", languages)
    # what is taken or brought must be someone or something: "bring positive changes to the
    # neighborhood" goes nowhere
    carried = [d for d in dobjs(verb) if object_kind(state, d) not in {LIGHT, ABSTRACT}]
    for obj in pobjs(verb, {"to"}) if carried else []:
        relate(state, subjects, "VISITED" if is_place(state, obj) else "ATTENDED", [obj])


def job(state: DocState, subjects: list[str], verb: Token) -> bool:
    """ "started a new job at Acme as an engineer", "got an internship with NASA": the job's
    place is WORKS_AT, its title WORKS_AS. True when the verb's object was a job."""
    if head_lemma(verb) not in JOB_VERBS:
        return False
    jobs = [d for d in dobjs(verb) if head_lemma(d) in JOB_NOUNS]
    if not jobs:
        return False
    for job in [*jobs, verb]:
        relate(state, subjects, "WORKS_AT", pobjs(job, {"at", "with", "for", "in"}))
        titles = [t for t in pobjs(job, {"as"}) if t.pos_ == "NOUN"]
        relate(state, subjects, "WORKS_AS", titles)
    return True


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


# words that put a "going" ahead of now: "I'm going to the race next year"
AHEAD = {"next", "tomorrow", "tonight", "upcoming", "soon", "later"}


def _going(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "went to Japan" → VISITED; "went to a support group" → ATTENDED; "went hiking" →
    PRACTICES; "went on a camping trip" → ATTENDED; "I'm going to the race next year" →
    PLANS (go): a going ahead of now is a plan."""
    if verb.tag_ == "VBG" and any(t.lower_ in AHEAD for t in verb.subtree):
        relate(state, subjects, "PLANS", pobjs(verb, {"to", "on"}), "go")
        return
    for obj in pobjs(verb, {"to", "into", "from"}):
        rel = "VISITED" if is_place(state, obj) else "ATTENDED"
        relate(state, subjects, rel, [obj])
    relate(state, subjects, "ATTENDED", pobjs(verb, {"on"}))
    relate(state, subjects, "PRACTICES", gerunds_of(verb))  # "went camping" (also as an object)


def _working(state: DocState, subjects: list[str], verb: Token) -> None:
    for obj in pobjs(verb, {"at", "for"}):
        relate(state, subjects, "WORKS_AT", [obj])
    relate(state, subjects, "WORKS_ON", pobjs(verb, {"on"}))
    relate(state, subjects, "WORKS_AS", [o for o in pobjs(verb, {"as"}) if o.pos_ == "NOUN"])
    for obj in pobjs(verb, {"in"}):
        key = state.key_of(obj) or ""
        relate(state, subjects, "WORKS_AT" if key else "WORKS_AS", [obj])


def _studying(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "I study psychology" → STUDIES; "I study at Kelmore University", "studied in college"
    → ATTENDED the school (an unfamiliar name after "at" is an organisation: the verb says so)."""
    studied = dobjs(verb) + pobjs(verb, {"about"})
    for obj in pobjs(verb, {"in", "at"}):
        current = (state.key_of(obj) or "topic:").split(":", 1)[0]
        if obj.pos_ == "PROPN" and obj.head.lower_ == "at" and current in {"topic", "person"}:
            state.retype(obj, "org")
        if kind_of(obj, state.key_of(obj)) in {ORG, SCHOOL}:
            relate(state, subjects, "ATTENDED", [obj])
        else:
            studied.append(obj)
    relate(state, subjects, "STUDIES", studied)
