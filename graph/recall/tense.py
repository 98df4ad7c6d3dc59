"""Which time a message asks about, for facts that hold one value at a time.

"Where do I live now?" wants the current home, "where did I live before Lisbon?" the older one.
Explicit markers decide first (past: "used to", "before", "previously", "first", "originally",
"former"; present: "now", "currently", "still", "latest", "these days", "anymore"), then the
tense of the question's first auxiliary ("do/does/is/are" against "did/was/were"). None when a
message says neither, and then no fact is preferred for its time.
"""

from __future__ import annotations

import re
from enum import Enum


class Focus(Enum):
    PRESENT = "present"
    PAST = "past"


_PAST_MARKERS = re.compile(
    r"\b(used to|before|previously|formerly|former|originally|at first|first|earlier|"
    r"prior|back then|in the past)\b",
    re.IGNORECASE,
)
_PRESENT_MARKERS = re.compile(
    r"\b(now|nowadays|currently|current|still|latest|these days|at the moment|"
    r"most recent|anymore)\b",
    re.IGNORECASE,
)
_PAST_AUX = re.compile(r"\b(did|was|were|had|used)\b", re.IGNORECASE)
_PRESENT_AUX = re.compile(r"\b(do|does|am|is|are|has|have)\b|'s\b|'re\b|'m\b", re.IGNORECASE)


def focus(message: str) -> Focus | None:
    """The time `message` asks about, or None."""
    past = _PAST_MARKERS.search(message)
    present = _PRESENT_MARKERS.search(message)
    if past and present:  # "still … before": the earlier word frames the question
        return Focus.PAST if past.start() < present.start() else Focus.PRESENT
    if past or present:
        return Focus.PAST if past else Focus.PRESENT
    past_aux = _PAST_AUX.search(message)
    present_aux = _PRESENT_AUX.search(message)
    if past_aux and present_aux:  # the first auxiliary is the question's own
        return Focus.PAST if past_aux.start() < present_aux.start() else Focus.PRESENT
    if past_aux or present_aux:
        return Focus.PAST if past_aux else Focus.PRESENT
    return None
