"""Knowledge-graph quality on LoCoMo, against the dataset's human annotations.

Every conversation is ingested through the public GraphQL API exactly as bench/locomo.py does
(one memory per turn, externalId = dia_id); the graph is then read back through the executor with
the export statements of cypher/. The annotations — each session's *observations* (facts about a
speaker, with the dia_ids of the turns that state them) and *summary* — are read by this bench
only, to score the graph; the product never sees them.

Measures, per conversation and overall:

- fact coverage: share of observations whose evidence turns back at least one typed fact (a
  relation outside RELATED_TO whose evidence holds one of those turns);
- fact support: share of typed relations whose target's label occurs in an observation that
  shares an evidence turn with the relation;
- named-entity precision: share of person / org / place / event / project entities whose label
  occurs in the conversation's observations or summaries;
- typed relations and topic entities per 100 turns.

"Occurs" compares Snowball stems of the words, in order ("painted" meets "paintings" no, "paint"
yes: the label's stems must appear as a contiguous run in the text's stems).

    python bench/graph_quality.py [--data ../shared/data/locomo-dev] [--only 26,30]
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from locomo import DEFAULT_DATA, Conversation, conversation_files, ingest, load, service

NAMED = {"person", "org", "place", "event", "project"}
UNTYPED = {"RELATED_TO"}
_WORD = re.compile(r"[a-z0-9]+")
_DIA = re.compile(r"D\d+:\d+")
_STEMMER: Any = None


def stems(text: str) -> list[str]:
    global _STEMMER
    if _STEMMER is None:
        import Stemmer

        _STEMMER = Stemmer.Stemmer("english")
    return list(_STEMMER.stemWords(_WORD.findall(text.lower())))


def occurs(label: str, text_stems: list[str]) -> bool:
    """The label's stems as a contiguous run of the text's stems."""
    needle = stems(label)
    if not needle:
        return False
    n = len(needle)
    return any(text_stems[i : i + n] == needle for i in range(len(text_stems) - n + 1))


@dataclass
class Observation:
    speaker: str
    text: str
    evidence: set[str]


@dataclass
class Annotations:
    observations: list[Observation]
    summaries: list[str]


def annotations(path: Path) -> Annotations:
    raw = json.loads(path.read_text(encoding="utf-8"))
    observations: list[Observation] = []
    summaries: list[str] = []
    for key, value in raw.items():
        if re.fullmatch(r"session_\d+_observation", key):
            for speaker, facts in value.items():
                for text, evidence in facts:
                    found = set(_DIA.findall(json.dumps(evidence)))
                    observations.append(Observation(speaker, text, found))
        elif re.fullmatch(r"session_\d+_summary", key):
            summaries.append(value)
    return Annotations(observations, summaries)


@dataclass
class Graph:
    """One user's graph as read back: entities, typed relations, memory id → dia_id."""

    entities: dict[str, dict[str, Any]]
    relations: list[dict[str, Any]]
    dia: dict[str, str]
    texts: dict[str, str] = field(default_factory=dict)


def read_graph(executor: Any, user: str) -> Graph:
    params = {"user_id": user}
    rows = executor.run("export_entities", params)
    entities = {r["props"]["key"]: dict(r["props"]) for r in rows}
    relations = [dict(r) for r in executor.run("export_relations", params)]
    dia: dict[str, str] = {}
    texts: dict[str, str] = {}
    after = None
    while True:
        rows = executor.run("export_memories", {"user_id": user, "after": after, "limit": 500})
        if not rows:
            break
        for row in rows:
            props = row["props"]
            if props.get("external_id"):
                dia[props["id"]] = props["external_id"]
                texts[props["external_id"]] = f"{props.get('speaker')}: {props['text']}"
        after = rows[-1]["props"]["id"]
    return Graph(entities, relations, dia, texts)


@dataclass
class Quality:
    observations: int = 0
    covered: int = 0
    typed: int = 0
    supported: int = 0
    named: int = 0
    named_ok: int = 0
    topics: int = 0
    unnamed: int = 0
    turns: int = 0
    misses: list[str] = field(default_factory=list)  # named entities the annotations lack

    def add(self, other: Quality) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def row(self) -> list[str]:
        def share(a: int, b: int) -> str:
            return f"{a / b:.3f}" if b else "-"

        per100 = 100 / self.turns if self.turns else 0.0
        return [
            share(self.covered, self.observations),
            share(self.supported, self.typed),
            share(self.named_ok, self.named),
            f"{self.typed * per100:.1f}",
            f"{self.topics * per100:.1f}",
            str(self.observations),
            str(self.typed),
            str(self.named),
            str(self.unnamed),
        ]


def score(conversation: Conversation, notes: Annotations, graph: Graph) -> Quality:
    quality = Quality(turns=len(conversation.turns))
    typed = [r for r in graph.relations if r["type"] not in UNTYPED]
    quality.typed = len(typed)
    backed: set[str] = set()  # dia_ids that are evidence of a typed fact
    for rel in typed:
        backed |= {graph.dia[m] for m in rel["props"].get("evidence") or () if m in graph.dia}
    quality.observations = len(notes.observations)
    quality.covered = sum(1 for o in notes.observations if o.evidence & backed)
    by_turn: dict[str, list[list[str]]] = defaultdict(list)
    for o in notes.observations:
        for dia_id in o.evidence:
            by_turn[dia_id].append(stems(o.text))
    for rel in typed:
        label = graph.entities.get(rel["dst"], {}).get("label", rel["dst"])
        turns = {graph.dia[m] for m in rel["props"].get("evidence") or () if m in graph.dia}
        if any(occurs(label, text) for t in turns for text in by_turn.get(t, ())):
            quality.supported += 1
    reference = stems(" ".join([o.text for o in notes.observations] + notes.summaries))
    for entity in graph.entities.values():
        if entity.get("unnamed"):
            quality.unnamed += 1  # "Melanie's husband": a person by role, not a name
        elif entity.get("type") in NAMED:
            quality.named += 1
            if occurs(entity.get("label", ""), reference):
                quality.named_ok += 1
            else:
                quality.misses.append(f"{entity.get('label')} ({entity.get('type')})")
        elif entity.get("type") == "topic":
            quality.topics += 1
    return quality


def eyeball(graph: Graph, rng: random.Random) -> tuple[list[str], list[str]]:
    """The 15 most-mentioned entities and 15 sample typed facts with the turn behind each."""
    top = sorted(graph.entities.values(), key=lambda e: -(e.get("mention_count") or 0))[:15]
    entities = [f"{e.get('label')} ({e.get('type')}, {e.get('mention_count')})" for e in top]
    typed = [r for r in graph.relations if r["type"] not in UNTYPED]
    facts = []
    for rel in sorted(rng.sample(typed, min(15, len(typed))), key=lambda r: r["type"]):
        src = graph.entities.get(rel["src"], {}).get("label", rel["src"])
        dst = graph.entities.get(rel["dst"], {}).get("label", rel["dst"])
        role = f" ({rel['props'].get('role')})" if rel["props"].get("role") else ""
        evidence = [graph.dia[m] for m in rel["props"].get("evidence") or () if m in graph.dia]
        said = graph.texts.get(evidence[0], "") if evidence else ""
        facts.append(f"{src} {rel['type']} {dst}{role}  ← {said[:110]}")
    return entities, facts


HEADER = (
    "| conversation | fact coverage | fact support | NE precision | typed rel./100 turns "
    "| topics/100 turns | observations | typed relations | named entities | people by role |"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo folder (*.json)")
    parser.add_argument("--only", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument("--batch", type=int, default=128, help="rememberMany batch size")
    parser.add_argument("--quiet", action="store_true", help="tables only, no samples")
    args = parser.parse_args()
    files = conversation_files(args.data, args.only)
    rng = random.Random(0)
    rows: list[tuple[str, Quality]] = []
    total = Quality()
    samples: list[tuple[str, list[str], list[str], list[str]]] = []
    relation_types: Counter[str] = Counter()
    with service(None) as (client, _embed, runtime):
        for path in files:
            conversation = load(path)
            ingest(client, conversation, args.batch)
            runtime.service.drain()
            graph = read_graph(runtime.executor, conversation.user)
            quality = score(conversation, annotations(path), graph)
            relation_types.update(r["type"] for r in graph.relations)
            rows.append((conversation.user, quality))
            total.add(quality)
            samples.append((conversation.user, *eyeball(graph, rng), quality.misses))
            print(f"  {conversation.user}: {len(conversation.turns)} turns", file=sys.stderr)
    print(f"\nLoCoMo graph quality: {len(files)} conversations, {total.turns} turns\n")
    print(HEADER)
    print("|---" * 10 + "|")
    for user, quality in rows:
        print(f"| {user} | " + " | ".join(quality.row()) + " |")
    print("| **overall** | " + " | ".join(f"**{c}**" for c in total.row()) + " |")
    print("\nrelation types: " + ", ".join(f"{t} {n}" for t, n in relation_types.most_common()))
    if args.quiet:
        return
    for user, entities, facts, misses in samples:
        print(f"\n## {user}\nmost mentioned: " + "; ".join(entities))
        print("named entities absent from the annotations: " + "; ".join(misses[:25]))
        print("sample typed facts:")
        for fact in facts:
            print(f"  - {fact}")
    shares = [q.covered / q.observations for _, q in rows if q.observations]
    low, middle = min(shares), statistics.median(shares)
    print(f"\ncoverage per conversation: min {low:.3f}, median {middle:.3f}")


if __name__ == "__main__":
    main()
