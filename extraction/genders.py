"""The gender of an English given name, when the name says it: "Linda" female, "Tom" male,
"Jordan" and "Taylor" unknown. Unknown stays unknown.

The lists are the US Census Bureau's 1990 first names with the share of people of each sex who
bear them (public domain), as the `names` package ships them (dist.female.first: 4,275 names,
dist.male.first: 1,219). A name is one gender's when that gender bears it at least `RATIO` times
as often as the other; a name on neither list, or shared, is unknown. The lists are American and
thirty years old: "Priya" and "Aiden" are on neither, so a pronoun about them is matched by the
role nouns and nothing else, as before.

What it is for: a pronoun resolves only to a person whose gender agrees (extraction/mentions.py
within a text, extraction/resolver.py across turns); a name's gender never types an entity and
is never stored.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Any

# how much more often one sex must bear a name than the other for it to say a gender
RATIO = 10.0
# the share of people (percent) who bear a name under which it says nothing: a name rare in 1990
# may be common now, and for the other sex ("Riley" 0.010, "Avery" 0.011 of men then)
MIN_SHARE = 0.02


@lru_cache(maxsize=1)
def _shares() -> dict[str, tuple[float, float]]:
    """First name (lower case) -> (share of women bearing it, share of men), in percent."""
    shares: dict[str, list[float]] = {}
    for column, filename in ((0, "dist.female.first"), (1, "dist.male.first")):
        text = (resources.files("names") / filename).read_text(encoding="ascii")
        for line in text.splitlines():
            parts = line.split()
            if len(parts) >= 2:
                shares.setdefault(parts[0].lower(), [0.0, 0.0])[column] = float(parts[1])
    return {name: (f, m) for name, (f, m) in shares.items()}


def given_gender(name: str) -> str | None:
    """ "female" or "male" when the first word of `name` is a given name borne mostly by one
    sex, and is no short form of names of both ("Sam" is Samuel's and Samantha's, "Alex"
    Alexander's and Alexandra's: unknown); None otherwise."""
    words = name.split()
    if not words:
        return None
    first = words[0].lower()
    said = _gender_of(first)
    if said is None:
        return None
    forms = {_gender_of(full) for full in _full_forms(first)} - {None}
    return None if forms - {said} else said


def _gender_of(first: str) -> str | None:
    found = _shares().get(first)
    if found is None:
        return None
    female, male = found
    if female >= RATIO * male and female >= MIN_SHARE:
        return "female"
    if male >= RATIO * female and male >= MIN_SHARE:
        return "male"
    return None


@lru_cache(maxsize=4096)
def _full_forms(first: str) -> frozenset[str]:
    """The given names a short one stands for, from the `nicknames` package's English table."""
    return frozenset(n.lower() for n in _namer().canonicals_of(first))


@lru_cache(maxsize=1)
def _namer() -> Any:
    from nicknames import NickNamer

    return NickNamer()


def is_given_name(word: str) -> bool:
    """Whether a word is a first name of the lists, of either sex ("Julia", "Ruby", "Crystal")."""
    return word.lower() in _shares()
