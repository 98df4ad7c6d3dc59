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

# how much more often one sex must bear a name than the other for it to say a gender
RATIO = 10.0


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
    sex; None otherwise."""
    words = name.split()
    if not words:
        return None
    found = _shares().get(words[0].lower())
    if found is None:
        return None
    female, male = found
    if female >= RATIO * male:
        return "female"
    if male >= RATIO * female:
        return "male"
    return None


def is_given_name(word: str) -> bool:
    """Whether a word is a first name of the lists, of either sex ("Julia", "Ruby", "Crystal")."""
    return word.lower() in _shares()
