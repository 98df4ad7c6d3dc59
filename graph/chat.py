"""Words that are only chat: greetings, thanks, praise and agreement state nothing about anyone.

Pure text rules shared by the episodes (graph/recall/episodes.py), the session ends
(graph/write/sessions.py) and the knowledge index (graph/profile/coverage.py); they live below all
three so none of those rooms imports another for one word list.
"""

from __future__ import annotations

import re

from extraction.lexicon import CHAT_FORMULAS, INTERJECTIONS

# greetings, thanks, praise and agreement: they state nothing about anyone
PHATIC = frozenset(INTERJECTIONS | CHAT_FORMULAS)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*|\d+")


def words(text: str) -> list[str]:
    return _WORD.findall(text)


def normal(word: str) -> str:
    """ "Anna's" → "anna": the form the word lists hold."""
    return word.lower().removesuffix("'s").strip("'-")


def is_formula(label: str) -> bool:
    """An entity label that is only chat ("Congrats"): never listed in an episode."""
    return all(normal(w) in PHATIC for w in words(label))
