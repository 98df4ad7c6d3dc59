"""Attribution: who may state a fact about a person who speaks.

A typed fact about someone who speaks in the user's memories comes only from what that person
said about themselves. Another speaker's turn — an assistant's "You might enjoy pottery", a
friend's "Caroline went to the group, right?" — states nothing about them: its typed facts whose
subject is another speaker are dropped (the mentions stay, so retrieval still finds the turn). A
restatement ("You told me you moved to Lisbon") adds nothing either: the fact stands on the
person's own turn that said it, and a fact they were told and confirm ("Yes, I moved to Lisbon")
stands on the confirming turn, which the extractor reads like any other.

A fact done to a speaker who acknowledges it is theirs to state too (`Relation.attested`):
"Thanks, Nate! Your support means a lot" is Joanna's own word that Nate `SUPPORTS` her — the
strongest evidence of support there is. Dropping it (as this rule first did) took 47 LoCoMo dev
observations out of the graph's coverage, every one such a thanks (bench/graph_quality.py). Only
an acknowledgement counts (thanks for it, appreciating it, what it means to the speaker): an
assistant's "show your support for the local community" or "Rachel will appreciate your
support" names the listener's support too, but not as given to the speaker.

An agent (a speaker typed `agent`: the assistant the user talks to) is no person of the user's
graph. Its turns are suggestions, explanations, lists and stories it writes: what they say states
no typed fact of anyone ("Madison wrote a song" in a story it tells, "I recommend Lisbon"), and
no fact has the agent at either end, not even a co-mention: "Thanks for your help!" makes the
assistant nobody's supporter. Of the assistant turns' typed facts in the LongMemEval dev sample,
14 of 24 were judged wrong by hand (bench/labels/). The known entities an agent names stay
mentioned, and a new name it says is held on the memory (extraction/resolver.py), so retrieval
still finds the turn.

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

from extraction.keys import is_agent
from extraction.model import Relation

UNTYPED = "RELATED_TO"


def attributed(relation: Relation, speaker: str | None, speakers: Collection[str]) -> bool:
    """Whether `speaker` may state `relation` (keys resolved): never when an agent is at either
    end, nor a typed fact in an agent's turn; else always, unless its subject is another person
    who speaks and the relation is a typed fact — that the speaker neither did nor acknowledges
    as done to them."""
    if is_agent(relation.src) or is_agent(relation.dst):
        return False
    if speaker is None or relation.type == UNTYPED:
        return True
    if is_agent(speaker):
        return False
    if relation.attested and relation.dst == speaker:
        return True
    return relation.src == speaker or relation.src not in speakers
