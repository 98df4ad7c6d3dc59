"""A bare "Yes" to a yes/no question about the one answering (extraction/confirm.py): the pure
rule that turns the pair into the declarative it affirms, and what it refuses to read."""

from __future__ import annotations

import pytest

from extraction.confirm import bare_yes, confirmed


@pytest.mark.parametrize(
    ("question", "reply", "said"),
    [
        ("Did you move to Lisbon?", "Yes!", "I did move to Lisbon."),
        ("Oh nice. Have you ever been to Paris?", "Yeah, I have.", "I have been to Paris."),
        ("Are you going to the pottery class?", "Yep 😊", "I am going to the pottery class."),
        ("Did you adopt your dog last year?", "Yes, I did!", "I did adopt my dog last year."),
        ("Were you a teacher?", "That's right.", "I was a teacher."),
    ],
)
def test_a_bare_yes_affirms_the_question_in_the_answerers_voice(
    question: str, reply: str, said: str
) -> None:
    assert confirmed(question, reply) == said


@pytest.mark.parametrize(
    ("question", "reply"),
    [
        ("Did you move to Lisbon?", "No, not yet."),  # a no
        ("Did you move to Lisbon?", "Maybe!"),  # a hedge
        ("Did you move to Lisbon?", "Yes, but it was Porto."),  # a clause of its own
        ("You moved to Lisbon.", "Yes"),  # no question
        ("Did you move to Lisbon? Tell me everything.", "Yes"),  # the question is not last
        ("Did you move to Lisbon or Porto?", "Yes"),  # an alternative
        ("Did you meet my sister?", "Yes"),  # another voice
        ("Did Mary move to Lisbon?", "Yes"),  # not about the one answering
        ("How did you get to Lisbon?", "Yes"),  # not a yes/no question
    ],
)
def test_what_is_not_a_bare_confirmation_affirms_nothing(question: str, reply: str) -> None:
    assert confirmed(question, reply) is None


def test_bare_yes_reads_only_an_affirmation_and_its_echo() -> None:
    assert bare_yes("Yep") and bare_yes("Yes, I did.") and bare_yes("Of course, yes!")
    assert not bare_yes("I did not") and not bare_yes("Yes, I moved there") and not bare_yes("")
