"""Attribution: who may state a fact about a person who speaks.

A typed fact about someone who speaks in the user's memories comes only from what that person
said about themselves. Another speaker's turn — an assistant's "You might enjoy pottery", a
friend's "Caroline went to the group, right?" — states nothing about them: its typed facts whose
subject is another speaker are dropped (the mentions stay, so retrieval still finds the turn). A
restatement ("You told me you moved to Lisbon") adds nothing either: the fact stands on the
person's own turn that said it, and a fact they were told and confirm ("Yes, I moved to Lisbon")
stands on the confirming turn, which the extractor reads like any other.

Not covered, on purpose:
- people who never speak (a sister, a colleague): everything known of them is what speakers
  said, so facts about them come from any speaker;
- co-occurrence (`RELATED_TO`): it states no fact, it links names said together;
- a text without a speaker (a note the client writes) and a stated fact (a memory with a
  `factType`): the client asserts them, they are not someone's turn.

Pure: the resolver (extraction/resolver.py) applies it with the keys it settled.
"""

from __future__ import annotations

from collections.abc import Collection

from extraction.model import Relation

UNTYPED = "RELATED_TO"


def attributed(relation: Relation, speaker: str | None, speakers: Collection[str]) -> bool:
    """Whether `speaker` may state `relation` (keys resolved): always, unless its subject is
    another person who speaks and the relation is a typed fact."""
    if speaker is None or relation.type == UNTYPED:
        return True
    return relation.src == speaker or relation.src not in speakers
