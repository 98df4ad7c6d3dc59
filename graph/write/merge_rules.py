"""The merge decision for stated facts (memories with a `factType`), by rule and without an LLM:
which earlier fact a new one folds into, what the merged text is, and the two gates every merge
passes before it stands. Pure: vectors and scores come in through the callables of `Probe`; it
writes nothing (graph/write/merge_stage.py runs it on the write path).

The fixed-point loop (`plan`): find the most similar active fact of the same speaker; above
`MERGE_ABOVE` cosine merge, below `NEVER_BELOW` never, in between decide by rule — the same subject
entity, the same relation type and a compatible object merge; conflicting objects of a one-value
fact (graph/vocabulary.py SINGLE_VALUED) never merge (they supersede, as facts do). The merged
text is the richer one (whose content words and entities contain the other's), or both sentences
when neither does. Then the gates:

- faithfulness: the merged text's cosine to each source is at least `FAITHFUL`;
- neighbours: with the sources set aside, the mean of the merged text's top-3 hybrid scores
  against the user's memories, normalised to [0, 1] (its *crowding*), is at most `NEIGHBOUR_MAX`,
  or else no more than `NEIGHBOUR_RISE` above the higher crowding of its two sources, scored the
  same way — a merge that makes a generic blob closer to everything than its sources were is
  refused. The bound alone refused nearly every merge of real facts: one person's facts of a
  session share a topic and a name, so each source is already crowded before any merge
  (docs/storage.md); the rise measures what the merge changed.

A merge that passes makes the merged fact the new one and the loop looks again, until nothing
merges. Conversation turns are never merged: they are evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from graph.vocabulary import SINGLE_VALUED

MERGE_ABOVE = 0.9
NEVER_BELOW = 0.2
FAITHFUL = 0.7
NEIGHBOUR_MAX = 0.6
NEIGHBOUR_RISE = 0.05  # how much closer to everything a merge may bring its text
MAX_ROUNDS = 8  # a fixed point is reached long before; a bound all the same

Vector = npt.NDArray[np.float32]
_WORD = re.compile(r"[a-z0-9']+")
# function words carry no content (a short closed list: the rule compares content, not style)
_FUNCTION_WORDS = (
    "a an the and or but of to in on at for with from by as is are was were be been being "
    "has have had do does did it its this that these those he she they them his her their "
    "user user's i me my we our you your"
)
_FUNCTION = frozenset(_FUNCTION_WORDS.split())


@dataclass(frozen=True)
class Fact:
    """What the rule reads of a stated fact."""

    id: str
    text: str
    speaker: str | None
    vector: Vector
    entities: frozenset[str] = frozenset()
    # (subject key, relation type, object key) stated by the text
    relations: frozenset[tuple[str, str, str]] = frozenset()
    lineage: tuple[str, ...] = field(default=())  # ids merged into it, oldest first


@dataclass(frozen=True)
class Merge:
    """One merge that passed both gates: `absorbed` folds into `kept`, whose text becomes `text`."""

    kept: str
    absorbed: str
    text: str
    cosine: float


@dataclass(frozen=True)
class Refusal:
    """A merge that a gate refused (the absorbed memory stays as it was)."""

    kept: str
    absorbed: str
    gate: str  # "faithfulness" or "neighbours"
    value: float  # the worst cosine to a source, or the merged text's crowding
    before: float = 0.0  # neighbours: the higher crowding of the two sources


@dataclass(frozen=True)
class Probe:
    """What the loop needs of the world: the nearest active facts of a speaker to a vector, as
    (fact, cosine) best first, leaving out some ids; a text's vector; and a text's top hybrid
    scores against the user's memories, leaving out some ids, normalised to [0, 1]."""

    nearest: Callable[[Vector, str | None, frozenset[str]], Sequence[tuple[Fact, float]]]
    embed: Callable[[str], Vector]
    neighbour_scores: Callable[[str, Vector, frozenset[str]], Sequence[float]]


def content_words(text: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(text.lower()) if w not in _FUNCTION)


def merged_text(a: Fact, b: Fact) -> str:
    """The richer text: the one whose content words and entities hold the other's; else both
    sentences, the older first."""
    words_a, words_b = content_words(a.text), content_words(b.text)
    named_a, named_b = _named(a.entities), _named(b.entities)
    if words_b <= words_a and named_b <= named_a:
        return a.text
    if words_a <= words_b and named_a <= named_b:
        return b.text
    first, second = (a.text.strip(), b.text.strip())
    joiner = " " if first.endswith((".", "!", "?")) else ". "
    return first + joiner + second


def _named(keys: frozenset[str]) -> frozenset[str]:
    """Entity keys without unresolved references ("my sister" before it is known as Mary)."""
    return frozenset(k for k in keys if not k.startswith("ref:"))


def _group(relation_type: str) -> tuple[str, ...] | None:
    return next((g for g in SINGLE_VALUED if relation_type in g), None)


def _same_object(a: str, b: str) -> bool:
    """The same object, or an unresolved reference ("my sister", `ref:…`) on either side, which
    names no other value. (A topic whose words hold the other's — "video game tournament" and
    "regional video game tournament" — was tried: on LoCoMo dev it added 5 merges to 100, and
    among them two different wins of two tournaments; it is not the same object.)"""
    return a == b or a.startswith("ref:") or b.startswith("ref:")


def compatible(a: Fact, b: Fact) -> bool:
    """The middle zone's rule: a shared (subject, relation type) with a compatible object; a
    one-value fact with another object conflicts and never merges."""
    if _conflicts(a, b):
        return False
    return any(
        subject == subject_b and rel == rel_b and _same_object(obj, obj_b)
        for subject, rel, obj in a.relations
        for subject_b, rel_b, obj_b in b.relations
        if rel != "RELATED_TO"  # co-occurrence is no stated relation
    )


def should_merge(new: Fact, old: Fact, cosine: float) -> bool:
    """Above MERGE_ABOVE merge, below NEVER_BELOW never, in between by `compatible`; never
    across speakers nor over another value of a one-value fact."""
    if new.speaker != old.speaker or cosine < NEVER_BELOW or _conflicts(new, old):
        return False
    return cosine >= MERGE_ABOVE or compatible(new, old)


def _conflicts(a: Fact, b: Fact) -> bool:
    """Another value of a one-value fact of the same subject (graph/vocabulary.py)."""
    for subject, rel, obj in a.relations:
        group = _group(rel)
        if group is None:
            continue
        for s, r, o in b.relations:
            if s == subject and r in group and not _same_object(o, obj):
                return True
    return False


def gates(
    merged: str, vector: Vector, sources: Sequence[Fact], absorbed: str, probe: Probe
) -> tuple[str, float, float] | None:
    """The first gate the merged text fails, with its value (and, for the neighbour gate, the
    sources' crowding); None when both pass."""
    worst = min(float(vector @ s.vector) for s in sources)
    if worst < FAITHFUL:
        return "faithfulness", worst, 0.0
    aside = frozenset({absorbed, *(s.id for s in sources)})
    crowding = _crowding(probe, merged, vector, aside)
    if crowding <= NEIGHBOUR_MAX:
        return None
    before = max(_crowding(probe, s.text, s.vector, aside) for s in sources)
    if crowding - before > NEIGHBOUR_RISE:
        return "neighbours", crowding, before
    return None


def _crowding(probe: Probe, text: str, vector: Vector, aside: frozenset[str]) -> float:
    """The mean of a text's top-3 hybrid scores against the user's memories, `aside` set aside."""
    top = sorted(probe.neighbour_scores(text, vector, aside), reverse=True)[:3]
    return float(np.mean(top)) if top else 0.0


def plan(new: Fact, probe: Probe) -> tuple[Fact, list[Merge], list[Refusal]]:
    """The fixed-point loop for one new fact: the fact as it stands after every merge that
    passed (its text, vector and lineage), the merges, and the refusals."""
    merges: list[Merge] = []
    refusals: list[Refusal] = []
    tried: set[str] = {new.id}
    current = new
    for _ in range(MAX_ROUNDS):
        found = probe.nearest(current.vector, current.speaker, frozenset(tried))
        if not found:
            break
        old, cosine = found[0]
        tried.add(old.id)
        if not should_merge(current, old, cosine):
            break
        text = merged_text(old, current)
        vector = current.vector if text == current.text else probe.embed(text)
        failed = gates(text, vector, (old, current), old.id, probe)
        if failed is not None:
            refusals.append(Refusal(current.id, old.id, *failed))
            continue
        merges.append(Merge(current.id, old.id, text, cosine))
        current = Fact(
            current.id,
            text,
            current.speaker,
            vector,
            current.entities | old.entities,
            current.relations | old.relations,
            (*current.lineage, *old.lineage, old.id),
        )
    return current, merges, refusals
