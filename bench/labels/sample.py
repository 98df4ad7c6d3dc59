"""Labelled samples of the graph for bench/graph_quality.py: typed facts and entities drawn at
random with a fixed seed, the labels a person gave them (facts.jsonl, entities.jsonl beside this
file, written by the guideline in GUIDELINE.md) and the export of the units still unlabelled.

A fact unit is one (typed relation, one of its evidence turns) pair, keyed by (conversation,
dia_id, type, subject label, object label); an entity unit is one entity label of a conversation,
the speakers excluded. Units are keyed by labels, not keys, so a later change of an entity's type
keeps its unit and its label.

The draw: every unit gets a rank, the SHA-256 of the seed and its key, and the sample is the
units of smallest rank. That is a uniform random sample of the population, and a stable one: a
unit keeps its rank when the population around it changes, so after the extraction rules change
the sample keeps every surviving unit that would still be drawn, and only units new to the
sample need labels.

Only the bench reads the dataset; the label files hold keys, labels and short reasons written by
the labeller, never the dataset's sentences. `--to-label` writes the turns a labeller reads to a
file outside the repository.
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[1]
FACT_LABELS = HERE / "facts.jsonl"
ENTITY_LABELS = HERE / "entities.jsonl"
SEED = "recollect-graph-labels-1"
FACT_SAMPLE = 300
ENTITY_SAMPLE = 150
# the second kind of conversation, user-assistant chats: the histories of LME_USERS LongMemEval
# dev questions, drawn by rank of their user id like the units, and samples of their own
LME_USERS = 5
LME_FACT_SAMPLE = 200
LME_ENTITY_SAMPLE = 100

FACT_KINDS = (
    "idiom_or_light_verb",
    "abstract_object",
    "fragment_object",
    "object_out_of_range",
    "wrong_subject",
    "wrong_type",
    "not_stated",
    "other",
)
GRAPH_TYPES = ("person", "place", "org", "project", "event", "topic", "pet", "work", "language")
MISSING_TYPES = ("skill", "not_an_entity")


@dataclass(frozen=True)
class FactUnit:
    conversation: str
    dia_id: str
    type: str
    subject: str
    object: str
    # for the labeller, not part of the key
    role: str | None = field(default=None, compare=False)
    subject_type: str = field(default="", compare=False)
    object_type: str = field(default="", compare=False)
    turn_before: str = field(default="", compare=False)
    turn: str = field(default="", compare=False)

    @property
    def key(self) -> tuple[str, ...]:
        return (self.conversation, self.dia_id, self.type, self.subject, self.object)


@dataclass(frozen=True)
class EntityUnit:
    conversation: str
    label: str
    # the type(s) the graph gives the label now, "/"-joined when two entities share it
    type_found: str = field(compare=False)
    mentions: int = field(default=0, compare=False)
    turns: tuple[str, ...] = field(default=(), compare=False)

    @property
    def key(self) -> tuple[str, ...]:
        return (self.conversation, self.label)


def rank(key: Sequence[str]) -> str:
    return hashlib.sha256("\x1f".join([SEED, *key]).encode("utf-8")).hexdigest()


Unit = TypeVar("Unit", FactUnit, EntityUnit)


def draw(population: Iterable[Unit], size: int) -> list[Unit]:
    """The `size` units of smallest rank, one per key, in the population's sorted order."""
    units = sorted({u.key: u for u in population}.values(), key=lambda u: u.key)
    chosen = {u.key for u in sorted(units, key=lambda u: rank(u.key))[:size]}
    return [u for u in units if u.key in chosen]


def drawn_users(users: Iterable[str], size: int) -> list[str]:
    """The `size` user ids of smallest rank, in rank order."""
    return sorted(users, key=lambda u: rank((u,)))[:size]


# -- label files -------------------------------------------------------------------------------


def _records(path: Path) -> Iterable[tuple[int, dict[str, Any]]]:
    if not path.exists():
        return
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            yield number, json.loads(line)


def fact_labels(path: Path = FACT_LABELS) -> dict[tuple[str, ...], dict[str, Any]]:
    labels: dict[tuple[str, ...], dict[str, Any]] = {}
    for number, record in _records(path):
        fields = ("conversation", "dia_id", "type", "subject", "object")
        key = tuple(str(record[f]) for f in fields)
        correct, kind = record.get("correct"), record.get("kind")
        if not isinstance(correct, bool):
            sys.exit(f"{path.name}:{number}: correct is {correct!r}; expected true or false")
        if (correct and kind is not None) or (not correct and kind not in FACT_KINDS):
            sys.exit(
                f"{path.name}:{number}: kind {kind!r} with correct={correct}; expected null "
                f"for a correct fact, else one of {', '.join(FACT_KINDS)}"
            )
        if key in labels:
            sys.exit(f"{path.name}:{number}: {key} is labelled twice")
        labels[key] = record
    return labels


def entity_labels(path: Path = ENTITY_LABELS) -> dict[tuple[str, ...], dict[str, Any]]:
    labels: dict[tuple[str, ...], dict[str, Any]] = {}
    allowed = GRAPH_TYPES + MISSING_TYPES
    for number, record in _records(path):
        key = (str(record["conversation"]), str(record["label"]))
        if record.get("type_right") not in allowed:
            sys.exit(
                f"{path.name}:{number}: type_right {record.get('type_right')!r}; expected one "
                f"of {', '.join(allowed)}"
            )
        if key in labels:
            sys.exit(f"{path.name}:{number}: {key} is labelled twice")
        labels[key] = record
    return labels


# -- measures ----------------------------------------------------------------------------------


@dataclass
class Share:
    """A share over labelled units, with its 95% Wilson interval."""

    hits: int
    n: int
    unlabelled: int

    @property
    def value(self) -> float | None:
        return self.hits / self.n if self.n else None

    def interval(self) -> tuple[float, float]:
        if not self.n:
            return (0.0, 1.0)
        z, p, n = 1.96, self.hits / self.n, self.n
        middle = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, middle - half), min(1.0, middle + half))

    def cell(self) -> str:
        if not self.n:
            return f"- (0 labelled, {self.unlabelled} unlabelled)"
        low, high = self.interval()
        extra = f", {self.unlabelled} unlabelled" if self.unlabelled else ""
        return f"{self.value:.3f} [{low:.2f}–{high:.2f}] (n={self.n}{extra})"


def fact_precision(sample: list[FactUnit], labels: dict[tuple[str, ...], dict[str, Any]]) -> Share:
    found = [labels[u.key] for u in sample if u.key in labels]
    return Share(sum(r["correct"] for r in found), len(found), len(sample) - len(found))


def type_accuracy(sample: list[EntityUnit], labels: dict[tuple[str, ...], dict[str, Any]]) -> Share:
    found = [(u, labels[u.key]) for u in sample if u.key in labels]
    hits = sum(u.type_found == r["type_right"] for u, r in found)
    return Share(hits, len(found), len(sample) - len(found))


# -- export for the labeller -------------------------------------------------------------------


def write_sample(
    path: Path,
    facts: list[FactUnit],
    entities: list[EntityUnit],
    fact_known: dict[tuple[str, ...], dict[str, Any]],
    entity_known: dict[tuple[str, ...], dict[str, Any]],
) -> int:
    """Writes every sampled unit with its label, if any (`labelled`: null when none), to `path`
    outside the repository: what a person reads to see where the graph goes wrong."""
    target = _outside(path, "--sample")
    lines = [{"unit": "fact", **asdict(u), "labelled": fact_known.get(u.key)} for u in facts] + [
        {"unit": "entity", **asdict(u), "labelled": entity_known.get(u.key)} for u in entities
    ]
    target.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    return len(lines)


def _outside(path: Path, option: str) -> Path:
    target = path.resolve()
    if target.is_relative_to(REPOSITORY):
        sys.exit(f"{option} {path}: inside the repository {REPOSITORY}; write it elsewhere")
    return target


def write_to_label(
    path: Path,
    facts: list[FactUnit],
    entities: list[EntityUnit],
    fact_known: dict[tuple[str, ...], dict[str, Any]],
    entity_known: dict[tuple[str, ...], dict[str, Any]],
) -> int:
    """Writes the unlabelled units, one JSON object a line, to `path` (which must lie outside
    the repository: it holds the dataset's turns); returns how many."""
    target = _outside(path, "--to-label")
    lines = [{"unit": "fact", **asdict(u)} for u in facts if u.key not in fact_known] + [
        {"unit": "entity", **asdict(u)} for u in entities if u.key not in entity_known
    ]
    target.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    return len(lines)
