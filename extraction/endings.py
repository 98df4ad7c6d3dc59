"""Changes of mind: what a text says has stopped holding.

Five groups of facts hold one value at a time and supersede by themselves (graph/vocabulary.py
SINGLE_VALUED: a new home ends the old one). People revise other facts too, and say so in
words that state no new value:

    "I quit the book club."                    MEMBER_OF book club ends
    "I left Acme in May." / "I quit my job."    WORKS_AT Acme (or every employer) ends
    "I gave up on the novel." / "… on running" PLANS novel, PRACTICES running end
    "I stopped running last year."             PRACTICES running ends
    "We broke up." / "I broke up with Sam."    PARTNER_OF (Sam, or every partner) ends
    "I moved out of my place in Boston."       LIVES_IN Boston ends (the move to a new home
                                               is a fact of its own)
    "I cancelled the trip to Rome."            PLANS trip ends

and a newer fact ends an older one it contradicts: a liking said to have changed ("I don't like
sushi anymore", "I love it now", "I used to love sushi") ends the old one (extraction/facts.py);
a plan that is done ("I finally visited Rome", "I ran the marathon") ends PLANS of the same thing
(extraction/mentions.py `relate`), when the doing is no older than the plan.

An ending is a `Relation` whose `dst` may be `ANY`: the write sets `ended_at` on the matching
relations stated before the text (cypher/write_memories.cypher), which are then history
(`valid_to`), kept with their evidence; stating the fact again after it makes it current again.
Counts that change ("two kids" → "three") are not modelled: the graph holds no counts.
"""

from __future__ import annotations

from spacy.tokens import Token

from extraction.clause import dobjs, gerunds_of, head_lemma, particle_of, pobjs
from extraction.kinds import ACTIVITY, GROUP, ORG, SPORT, kind_of
from extraction.lexicon import JOB_NOUNS
from extraction.mentions import DocState
from extraction.model import ANY

QUIT_VERBS = {"quit", "leave", "resign"}
DROP_VERBS = {"drop", "cancel", "abandon", "scrap", "ditch"}


# "I almost quit", "nearly gave up": nothing ended
_ALMOST = {"almost", "nearly", "never"}


def ending(state: DocState, subjects: list[str], verb: Token) -> bool:
    """Records what the verb says has stopped holding; True when it was such a verb and says no
    other fact ("I moved out of Boston to Denver" goes on to its move)."""
    lemma = head_lemma(verb)
    particle = particle_of(verb)
    if any(c.lower_ in _ALMOST for c in verb.children):
        return False
    if lemma == "break" and particle == "up":
        if dobjs(verb):
            return False  # "I broke up the fight", "broke up the chocolate": no partner
        partners = pobjs(verb, {"with"})
        end(state, subjects, "PARTNER_OF", partners or None)
    elif lemma == "divorce":
        end(state, subjects, "PARTNER_OF", dobjs(verb) or None)
    elif lemma == "give" and particle == "up":
        given = dobjs(verb) + pobjs(verb, {"on"}) + gerunds_of(verb)
        end(state, subjects, "PLANS", given)
        end(state, subjects, "PRACTICES", given)
    elif lemma == "stop" and gerunds_of(verb):
        end(state, subjects, "PRACTICES", gerunds_of(verb))
    elif lemma == "move" and (outs := [c for c in verb.children if c.lower_ == "out"]):
        end(state, subjects, "LIVES_IN", pobjs(verb, {"of"}) + pobjs(outs[0], {"of"}))
        return False  # "moved out of Boston to Denver": the move is a fact of its own
    elif lemma in DROP_VERBS:  # "cancelled the trip to Rome": the trip, and Rome
        dropped = dobjs(verb)
        end(state, subjects, "PLANS", dropped + [p for d in dropped for p in pobjs(d, {"to"})])
    elif lemma in QUIT_VERBS and (lemma != "leave" or _left_for_good(verb)):
        _quit(state, subjects, verb)
    else:
        return False
    return True


def _left_for_good(verb: Token) -> bool:
    """ "I left Acme", "left the band"; not "I left my keys at home", "left for Paris", "left my
    job at 5" (a time: the end of a working day)."""
    if pobjs(verb, {"for"}) or any(
        o.like_num or o.ent_type_ in {"TIME", "DATE"} for o in pobjs(verb, {"at"})
    ):
        return False
    return any(
        kind_of(o, None) in {ORG, GROUP} or o.pos_ == "PROPN" or head_lemma(o) in JOB_NOUNS
        for o in dobjs(verb)
    )


def _quit(state: DocState, subjects: list[str], verb: Token) -> None:
    """ "quit my job (at Acme)": the employer; "quit Acme", "quit the club": the employer or the
    group; "quit smoking", "quit yoga": the practice."""
    for obj in dobjs(verb) + gerunds_of(verb):
        if head_lemma(obj) in JOB_NOUNS:
            places = pobjs(obj, {"at", "with", "for"})
            end(state, subjects, "WORKS_AT", places or None)
        elif obj.tag_ == "VBG" or kind_of(obj, state.key_of(obj)) in {ACTIVITY, SPORT}:
            end(state, subjects, "PRACTICES", [obj])
        else:
            end(state, subjects, "WORKS_AT", [obj])
            end(state, subjects, "MEMBER_OF", [obj])


def end(state: DocState, subjects: list[str], rel: str, objects: list[Token] | None) -> None:
    """Ends `rel` from each subject to each object (None: to anyone)."""
    if objects is None:
        for subject in subjects:
            state.end(subject, rel, ANY)
        return
    for obj in objects:
        # a name the tagger took for a person may be the employer ("I left Acme"): the resolver
        # settles it against the catalogue
        key = state.object_key(obj, people=True)
        if key is not None:
            for subject in subjects:
                state.end(subject, rel, key)
