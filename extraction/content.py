"""A message as its content: the words naming the people it is about taken out.

Memories are embedded as "Speaker: text", so a message that names a person ("Where does Sam live
now?") comes closer to everything that person ever said than to the turn that answers it: on a
short test history Sam's turn about his sister's garden had cosine 0.51 to that question, Ana's
"So you live in Lisbon now?" 0.36. Who a message is about is the graph's to match (its seeds,
who said a memory); similarity should match what it asks. Taken out of LoCoMo dev's questions,
the names of the people who speak raise plain dense retrieval's R@8 from 0.477 to 0.592
(multi-hop 0.265 to 0.369); taking out every name spaCy tags as a person gave 0.560 (it misses
lower-case and sentence-start names and takes "Lebron James", whom the turns name as content).

So the names taken out are those of the people the message is about as the graph resolved them
(graph/recall/stages.py `Seeds.people`): the words of their label and aliases, with a
possessive ("Sam's family"). A person known only by role ("Melanie's husband") has no name of
its own to take out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from extraction.model import KnownEntity

# a possessive after a name goes with it ("Sam's", "Sam’s", "James'")
_POSSESSIVE = r"(?:['’]s|['’](?=\s|$))?"
_SPACES = re.compile(r"\s+")
_SPACE_BEFORE_MARK = re.compile(r"\s+([?.!,;:])")


def name_words(people: Iterable[KnownEntity]) -> tuple[str, ...]:
    """The words that name the people, longest first (so that "Jo" never cuts "Joanna"), each
    once; none of a person known only by role or of a group."""
    words = {
        word.casefold()
        for person in people
        if not (person.unnamed or person.plural)
        for name in (person.label, *person.aliases)
        for word in re.findall(r"[^\W\d_]{2,}", name)
    }
    return tuple(sorted(words, key=lambda w: (-len(w), w)))


def without_names(text: str, words: Iterable[str]) -> str:
    """`text` with every whole word of `words` (any case, with a possessive) taken out and the
    spaces closed up; `text` itself when none occurs."""
    alternatives = "|".join(re.escape(w) for w in words)
    if not alternatives:
        return text
    pattern = re.compile(rf"(?<!\w)(?:{alternatives}){_POSSESSIVE}(?!\w)", re.IGNORECASE)
    cut, count = pattern.subn("", text)
    if not count:
        return text
    return _SPACE_BEFORE_MARK.sub(r"\1", _SPACES.sub(" ", cut)).strip()
