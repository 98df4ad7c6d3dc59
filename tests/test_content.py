"""A message as its content, the names of the people it is about left out (extraction/content.py):
the pure text operation here; its end-to-end effect (a third-person question about the main
speaker finds who answered) in tests/test_asked_about.py."""

from __future__ import annotations

from extraction.content import name_words, without_names
from extraction.model import KnownEntity

SAM = KnownEntity("person:sam_rivera", "person", "Sam Rivera", aliases=("Sammy",))
JO = KnownEntity("person:jo", "person", "Jo")
HUSBAND = KnownEntity("person:mel_husband", "person", "Mel's husband", unnamed=True)
KIDS = KnownEntity("person:mel_kids", "person", "Mel's kids", plural=True)


def test_names_are_the_words_of_label_and_aliases_longest_first() -> None:
    assert name_words([SAM, JO]) == ("rivera", "sammy", "sam", "jo")


def test_a_person_known_by_role_or_a_group_has_no_name_to_take_out() -> None:
    assert name_words([HUSBAND, KIDS]) == ()


def test_a_name_and_its_possessive_come_out_and_the_spaces_close() -> None:
    words = name_words([SAM])
    assert without_names("Where does Sam live now?", words) == "Where does live now?"
    assert without_names("What did Sam's sister say?", words) == "What did sister say?"
    assert without_names("what did sam rivera’s band play", words) == "what did band play"
    assert without_names("Is Sammy, in the end, moving?", words) == "Is, in the end, moving?"


def test_only_whole_words_come_out() -> None:
    """A name is cut only as a whole word: "Jo" is not the start of "Joanna"."""
    words = name_words([SAM, JO])
    assert without_names("Did Joanna dance the samba?", words) == "Did Joanna dance the samba?"
    assert without_names("Did Jo dance the samba?", words) == "Did dance the samba?"


def test_text_naming_nobody_comes_back_as_it_was() -> None:
    text = "Where do I live now?"
    assert without_names(text, name_words([SAM])) is text
    assert without_names(text, ()) is text
