from __future__ import annotations

import pytest

from extraction.keys import clean_label, make_key, split_key


@pytest.mark.parametrize(
    ("entity_type", "text", "key"),
    [
        ("person", "John Doe", "person:john_doe"),
        ("person", "  John   Doe ", "person:john_doe"),
        ("person", "Mary's", "person:mary"),
        ("org", "the Acme Corp.", "org:acme_corp"),
        ("place", "New York", "place:new_york"),
        ("topic", "my pottery class", "topic:pottery_class"),
        ("person", "Zoë Ångström", "person:zoe_angstrom"),
        ("org", "AT&T", "org:at_t"),
    ],
)
def test_make_key(entity_type: str, text: str, key: str) -> None:
    assert make_key(entity_type, text) == key


def test_make_key_of_punctuation_only_is_none() -> None:
    assert make_key("person", "!!!") is None


def test_make_key_rejects_unknown_type() -> None:
    with pytest.raises(ValueError, match="unknown entity type 'planet'"):
        make_key("planet", "Mars")


def test_clean_label_keeps_case() -> None:
    assert clean_label("the  Boston Chess Club's") == "Boston Chess Club"


def test_split_key() -> None:
    assert split_key("person:john_doe") == ("person", "john_doe")


def test_trailing_dashes_and_marks_never_fuse_into_a_label() -> None:
    """ "a week in Lisbon- it was great": the label is Lisbon; a hyphen inside a name stays."""
    assert clean_label("Lisbon-") == "Lisbon"
    assert clean_label("— Porto *") == "Porto"
    assert clean_label("Jay-Z") == "Jay-Z"
