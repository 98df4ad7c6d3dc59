"""Confirmation: a bare "Yes" to another speaker's yes/no question about the one answering.

Attribution (extraction/attribution.py) lets a fact about a person who speaks come only from
what that person said, or what they were told about themselves and confirmed. "Did you move to
Lisbon?" — "Yes!" is the second case: the answer states the question's content in the answerer's
own voice, so the confirming turn is evidence that they moved to Lisbon. The extractor reads
neither turn as stating it (a question asserts nothing; "Yes" has no clause), so this module
rewrites the pair into the declarative the answer affirms — "I did move to Lisbon." — which the
extractor then reads as the answerer's own sentence, and its facts stand on the answering turn.

Only what the pair says unambiguously, by rule over the words:
- the answer is bare: every word an affirmation or its echo ("Yes", "Yeah, I did!", "Yep, I
  have", "That's right") — a negation, a hedge ("maybe", "kind of") or a clause of its own
  ("Yes, but it was Porto") is not a bare yes, and an answer with its own clause is read by the
  extractor as it is;
- the question is the last sentence of the other speaker's turn, ends with "?", opens with an
  auxiliary ("did", "have", "are", …) whose subject is "you", and names no one else in the first
  person ("Did you meet my sister?" mixes two voices: skipped) and offers no alternative ("or");
- the declarative moves the auxiliary after "I" ("are" → "am", "were" → "was"), drops "ever",
  and turns "your/yours/yourself" into "my/mine/myself".
"""

from __future__ import annotations

import re

_AFFIRM_WORDS = (
    "yes yeah yep yup yea ya yess yesss sure definitely absolutely indeed correct right exactly "
    "totally certainly"
)
_AFFIRM = frozenset(_AFFIRM_WORDS.split())
# words that may echo the affirmation ("Yes, I did!", "That's right", "Sure did", "Of course")
_ECHO_WORDS = "i did do have am was is it that that's thats of course oh so haha lol"
_ECHO = frozenset(_ECHO_WORDS.split())
_OPENERS = _AFFIRM | {"i", "that's", "thats", "of", "oh"}
_WORD = re.compile(r"[a-z']+")
_QUESTION = re.compile(
    r"^(did|do|have|had|will|would|could|can|are|were)\s+you\s+(.+?)\s*\?+$", re.IGNORECASE
)
_AUX = {"are": "am", "were": "was"}
_OWNED = {"your": "my", "yours": "mine", "yourself": "myself"}
_OWNED_WORD = re.compile(r"\b(your|yours|yourself)\b", re.IGNORECASE)
_EVER = re.compile(r"^ever\s+", re.IGNORECASE)
# another voice ("Did you meet my sister?"), another "you", or an alternative ("Lisbon or Porto?")
_UNCLEAR_WORDS = "i me my mine myself we us our ours you or"
_UNCLEAR = frozenset(_UNCLEAR_WORDS.split())
_SENTENCE = re.compile(r"[^.!?]*\?+")


def bare_yes(reply: str) -> bool:
    """Whether `reply` is only an affirmation and its echo: "Yes!", "Yeah, I did.", "Yep 😊"."""
    words = _WORD.findall(reply.lower().replace("’", "'"))
    if not words or words[0] not in _OPENERS:
        return False
    if not all(w in _AFFIRM or w in _ECHO for w in words):
        return False
    return any(w in _AFFIRM or w in {"did", "have", "am", "do"} for w in words)


def last_question(turn: str) -> str | None:
    """The turn's last sentence when it is a question, else None (a question followed by a
    statement is not what a bare yes answers)."""
    text = turn.strip()
    if not text.endswith("?"):
        return None
    found = _SENTENCE.findall(text)
    return found[-1].strip() if found else None


def confirmed(question_turn: str, reply: str) -> str | None:
    """The declarative that a bare yes to `question_turn` affirms, in the answerer's voice, or
    None when the pair is not such a confirmation."""
    if not bare_yes(reply):
        return None
    question = last_question(question_turn)
    match = _QUESTION.match(question.replace("’", "'")) if question else None
    if match is None:
        return None
    aux, rest = match.group(1).lower(), _EVER.sub("", match.group(2))
    if set(_WORD.findall(rest.lower())) & _UNCLEAR:
        return None
    rest = _OWNED_WORD.sub(lambda m: _OWNED[m.group(1).lower()], rest)
    return f"I {_AUX.get(aux, aux)} {rest}."
