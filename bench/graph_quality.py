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
- strict support: the same with whole words, case-insensitive and unstemmed, and for a person
  known only by role ("Melanie's husband") the role word instead of the label;
- named-entity precision: share of person / org / place / event / project entities whose label
  occurs in the conversation's observations or summaries (and again with titles, `work`
  entities, counted too: they were persons, orgs or places before that type existed);
- typed relations and topic entities per 100 turns;
- over all conversations, from the labelled samples of bench/labels/ (see bench/labels/sample.py
  and GUIDELINE.md): labelled fact precision, the share of 300 sampled (typed relation, evidence
  turn) units a person judged stated by that turn, and entity-type accuracy, the share of 150
  sampled entities whose type is the one a person judged right;
- the same two on a second kind of conversation, user-assistant chats: the histories of five
  LongMemEval dev questions (drawn by the labels' seed, ingested as bench/longmemeval.py does),
  200 fact units and 100 entities of their own; LongMemEval has no annotations of facts, so
  coverage and support are LoCoMo's only;
- on both, the typed facts whose subject is outside their relation's domain
  (graph/vocabulary.py DOMAINS): a place that works somewhere, a thing that plans.

"Occurs" compares Snowball stems of the words, in order ("painted" meets "paintings" no, "paint"
yes: the label's stems must appear as a contiguous run in the text's stems).

The samples are drawn from the conversations run: the labelled ones come from the whole dev
split, so run without --only for the labelled measures. `--to-label FILE` writes the sampled
units that have no label yet, with the turns a labeller reads, to FILE outside the repository.

    python bench/graph_quality.py [--data ../shared/data/locomo-dev] [--only 26,30]
        [--lme-users 5] [--to-label /tmp/to-label.jsonl]
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

from labels.sample import (
    ENTITY_SAMPLE,
    FACT_SAMPLE,
    LME_ENTITY_SAMPLE,
    LME_FACT_SAMPLE,
    LME_USERS,
    EntityUnit,
    FactUnit,
    Share,
    draw,
    drawn_users,
    entity_labels,
    fact_labels,
    fact_precision,
    type_accuracy,
    write_sample,
    write_to_label,
)
from locomo import DEFAULT_DATA, Conversation, conversation_files, ingest, load, service
from longmemeval import DEFAULT_DATA as LME_DATA
from longmemeval import load as load_lme
from machine import describe

from extraction.keys import speaker_key
from graph.vocabulary import outside_domain

NAMED = {"person", "org", "place", "event", "project"}
UNTYPED = {"RELATED_TO"}
_WORD = re.compile(r"[a-z0-9]+")
_DIA = re.compile(r"D\d+:\d+")
# relation types whose role is the relation's own noun (sister, friend): the role word of an
# unnamed object; elsewhere the role is a verb or a kind ("visit", "spouse") and the label's last
# word is the role the person was named by
ROLE_TYPES = {"FAMILY_OF", "FRIEND_OF"}
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


def words(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def says(needle: list[str], text_words: list[str]) -> bool:
    """The words of `needle` as a contiguous run of whole words of the text."""
    n = len(needle)
    return n > 0 and any(text_words[i : i + n] == needle for i in range(len(text_words) - n + 1))


def strict_object(rel: dict[str, Any], entity: dict[str, Any]) -> list[str]:
    """The words the strict proxy looks for: the object's label, or for a person known only
    by role the role word."""
    label = str(entity.get("label", rel["dst"]))
    if not entity.get("unnamed"):
        return words(label)
    role = rel["props"].get("role")
    if rel["type"] in ROLE_TYPES and role:
        return words(str(role))
    return words(label)[-1:]


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
    mentions: dict[str, list[str]] = field(default_factory=dict)  # entity key -> memory ids


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
    mentions: dict[str, list[str]] = defaultdict(list)
    for row in executor.run("export_mentions", params):
        mentions[row["key"]].append(row["memory_id"])
    return Graph(entities, relations, dia, texts, dict(mentions))


@dataclass
class Quality:
    observations: int = 0
    covered: int = 0
    typed: int = 0
    supported: int = 0
    strict: int = 0
    named: int = 0
    named_ok: int = 0
    titles: int = 0  # work entities (titles): named too, counted apart to compare with before
    titles_ok: int = 0
    topics: int = 0
    unnamed: int = 0
    turns: int = 0
    misses: list[str] = field(default_factory=list)  # named entities the annotations lack
    # typed facts the strict proxy does not support, for --unsupported (one JSON object each)
    unsupported: list[dict[str, Any]] = field(default_factory=list)

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
            share(self.strict, self.typed),
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
    words_by_turn: dict[str, list[list[str]]] = defaultdict(list)
    for o in notes.observations:
        for dia_id in o.evidence:
            by_turn[dia_id].append(stems(o.text))
            words_by_turn[dia_id].append(words(o.text))
    for rel in typed:
        entity = graph.entities.get(rel["dst"], {})
        label = entity.get("label", rel["dst"])
        turns = {graph.dia[m] for m in rel["props"].get("evidence") or () if m in graph.dia}
        if any(occurs(label, text) for t in turns for text in by_turn.get(t, ())):
            quality.supported += 1
        needle = strict_object(rel, entity)
        if any(says(needle, text) for t in turns for text in words_by_turn.get(t, ())):
            quality.strict += 1
        else:
            quality.unsupported.append(unsupported_record(rel, graph, notes, turns))
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
        elif entity.get("type") == "work":
            quality.titles += 1
            quality.titles_ok += occurs(entity.get("label", ""), reference)
        elif entity.get("type") == "topic":
            quality.topics += 1
    return quality


def unsupported_record(
    rel: dict[str, Any], graph: Graph, notes: Annotations, turns: set[str]
) -> dict[str, Any]:
    """One typed fact the strict proxy does not support, with its turns and the observations
    sharing them, for reading the misses by kind (--unsupported)."""
    src = graph.entities.get(rel["src"], {})
    dst = graph.entities.get(rel["dst"], {})
    return {
        "type": rel["type"],
        "subject": src.get("label", rel["src"]),
        "object": dst.get("label", rel["dst"]),
        "object_key": rel["dst"],
        "role": rel["props"].get("role"),
        "turns": [f"{t} {graph.texts.get(t, '')}" for t in sorted(turns)],
        "observations": [o.text for o in notes.observations if o.evidence & turns],
    }


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


def fact_units(conversation: Conversation, graph: Graph) -> list[FactUnit]:
    """Every (typed relation, one of its evidence turns) pair, with what a labeller reads."""
    turns = {t.dia_id: t for t in conversation.turns}
    before = {
        b.dia_id: f"{a.speaker}: {a.text}"
        for a, b in zip(conversation.turns, conversation.turns[1:], strict=False)
        if a.session == b.session
    }
    units: list[FactUnit] = []
    for rel in graph.relations:
        if rel["type"] in UNTYPED:
            continue
        src = graph.entities.get(rel["src"], {})
        dst = graph.entities.get(rel["dst"], {})
        for dia_id in sorted(
            {graph.dia[m] for m in rel["props"].get("evidence") or () if graph.dia.get(m) in turns}
        ):
            turn = turns[dia_id]
            units.append(
                FactUnit(
                    conversation=conversation.user,
                    dia_id=dia_id,
                    type=rel["type"],
                    subject=str(src.get("label", rel["src"])),
                    object=str(dst.get("label", rel["dst"])),
                    role=rel["props"].get("role"),
                    subject_type=str(src.get("type", "")),
                    object_type=str(dst.get("type", ""))
                    + (" (by role)" if dst.get("unnamed") else ""),
                    turn_before=before.get(dia_id, ""),
                    turn=f"{turn.speaker}: {turn.text}",
                )
            )
    return units


def entity_units(conversation: Conversation, graph: Graph) -> list[EntityUnit]:
    """One unit per entity label, the speakers excluded, with its first three mentions."""
    speakers = {speaker_key(t.speaker) for t in conversation.turns}
    order = {t.dia_id: i for i, t in enumerate(conversation.turns)}
    by_label: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for key, entity in graph.entities.items():
        if key not in speakers:
            by_label[str(entity.get("label", key))].append(entity)
    units = []
    for label, found in by_label.items():
        seen = sorted(
            {
                graph.dia[m]
                for e in found
                for m in graph.mentions.get(e["key"], ())
                if graph.dia.get(m) in order  # turns, not episodes
            },
            key=order.__getitem__,
        )
        units.append(
            EntityUnit(
                conversation=conversation.user,
                label=label,
                type_found="/".join(sorted({str(e.get("type")) for e in found})),
                mentions=sum(int(e.get("mention_count") or 0) for e in found),
                turns=tuple(f"{d} {graph.texts[d]}" for d in seen[:3]),
            )
        )
    return units


HEADER = (
    "| conversation | fact coverage | fact support | strict support | NE precision "
    "| typed rel./100 turns | topics/100 turns | observations | typed relations "
    "| named entities | people by role |"
)


def summary(
    total: Quality,
    precision: Share,
    accuracy: Share,
    others: list[tuple[str, Share, Share]],
    violations: int,
) -> None:
    def share(a: int, b: int) -> str:
        return f"{a / b:.3f} (of {b})" if b else "-"

    print("\n| measure | LoCoMo dev |" + "".join(f" {name} |" for name, _, _ in others))
    print("|---|---|" + "---|" * len(others))
    blank = " - |" * len(others)
    print(f"| fact coverage | {share(total.covered, total.observations)} |{blank}")
    print(f"| fact support (stems) | {share(total.supported, total.typed)} |{blank}")
    print(f"| strict support (whole words) | {share(total.strict, total.typed)} |{blank}")
    print(
        f"| labelled fact precision [95% CI] | {precision.cell()} |"
        + "".join(f" {p.cell()} |" for _, p, _ in others)
    )
    print(
        f"| entity-type accuracy [95% CI] | {accuracy.cell()} |"
        + "".join(f" {a.cell()} |" for _, _, a in others)
    )
    print(f"| named-entity precision | {share(total.named_ok, total.named)} |{blank}")
    with_titles = share(total.named_ok + total.titles_ok, total.named + total.titles)
    print(f"| named-entity precision, titles (work) too | {with_titles} |{blank}")
    print(f"\ntyped facts outside their relation's domain, both splits: {violations}")


def breakdown(
    facts: list[FactUnit],
    fact_known: dict[tuple[str, ...], dict[str, Any]],
    entities: list[EntityUnit],
    entity_known: dict[tuple[str, ...], dict[str, Any]],
) -> None:
    """Where the labelled samples go wrong: error kinds, precision per relation type, and the
    entity types confused (found → right)."""
    labelled = [(u, fact_known[u.key]) for u in facts if u.key in fact_known]
    kinds = Counter(r["kind"] for _, r in labelled if not r["correct"])
    if kinds:
        print("\nincorrect facts by kind: " + ", ".join(f"{k} {n}" for k, n in kinds.most_common()))
    per_type: dict[str, list[bool]] = defaultdict(list)
    for unit, record in labelled:
        per_type[unit.type].append(record["correct"])
    if per_type:
        ordered = sorted(per_type.items(), key=lambda kv: (sum(kv[1]) / len(kv[1]), -len(kv[1])))
        print(
            "labelled precision by relation type (correct/labelled): "
            + ", ".join(f"{t} {sum(v)}/{len(v)}" for t, v in ordered)
        )
    per_found: dict[str, list[bool]] = defaultdict(list)
    for unit in (u for u in entities if u.key in entity_known):
        per_found[unit.type_found].append(unit.type_found == entity_known[unit.key]["type_right"])
    if per_found:
        print(
            "entity-type accuracy by type found (right/labelled): "
            + ", ".join(f"{t} {sum(v)}/{len(v)}" for t, v in sorted(per_found.items()))
        )
    confusions = Counter(
        f"{u.type_found}→{entity_known[u.key]['type_right']}"
        for u in entities
        if u.key in entity_known and u.type_found != entity_known[u.key]["type_right"]
    )
    if confusions:
        print(
            "entity-type errors (found→right): "
            + ", ".join(f"{c} {n}" for c, n in confusions.most_common())
        )


@dataclass
class Split:
    """What one dataset's graphs gave: the (typed relation, evidence turn) units and entity
    units the labelled samples are drawn from, and the typed facts whose subject is outside
    their relation's domain (graph/vocabulary.py DOMAINS)."""

    name: str
    facts: list[FactUnit] = field(default_factory=list)
    entities: list[EntityUnit] = field(default_factory=list)
    typed: int = 0
    violations: list[str] = field(default_factory=list)

    def add(self, conversation: Conversation, graph: Graph) -> None:
        self.facts += fact_units(conversation, graph)
        self.entities += entity_units(conversation, graph)
        for rel in graph.relations:
            if rel["type"] in UNTYPED:
                continue
            self.typed += 1
            if outside_domain(rel["type"], rel["src"]):
                self.violations.append(
                    f"{conversation.user}: {rel['src']} {rel['type']} {rel['dst']}"
                )


def lme_conversations(path: Path, users: int) -> list[Conversation]:
    """The histories of `users` LongMemEval questions drawn by the labels' seed (abstention
    questions included: their histories are as real), one user each, as bench/longmemeval.py
    ingests them."""
    questions = {q.user: q for q in load_lme(path, abstention=True)}
    return [
        Conversation(user, questions[user].turns, [], questions[user].as_of)
        for user in drawn_users(questions, users)
    ]


Drawn = list[tuple[list[FactUnit], list[EntityUnit]]]


def measured(
    split: Split, fact_size: int, entity_size: int, to_label: Drawn
) -> tuple[Share, Share]:
    """The split's labelled precision and type accuracy, with where they go wrong."""
    fact_sample = draw(split.facts, fact_size)
    entity_sample = draw(split.entities, entity_size)
    fact_known, entity_known = fact_labels(), entity_labels()
    print(
        f"\n### {split.name}\nlabelled samples: {len(fact_sample)} of {len(split.facts)} (typed "
        f"relation, evidence turn) units, {len(entity_sample)} of {len(split.entities)} entities "
        "(speakers excluded)"
    )
    precision = fact_precision(fact_sample, fact_known)
    accuracy = type_accuracy(entity_sample, entity_known)
    print(f"labelled fact precision [95% CI]: {precision.cell()}")
    print(f"entity-type accuracy [95% CI]: {accuracy.cell()}")
    print(f"typed facts outside their relation's domain: {len(split.violations)} of {split.typed}")
    for violation in split.violations[:10]:
        print(f"  - {violation}")
    breakdown(fact_sample, fact_known, entity_sample, entity_known)
    to_label.append((fact_sample, entity_sample))
    return precision, accuracy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo folder (*.json)")
    parser.add_argument("--only", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument("--lme-data", type=Path, default=LME_DATA, help="LongMemEval dev file")
    parser.add_argument(
        "--lme-users", type=int, default=LME_USERS, help="LongMemEval histories (0: none)"
    )
    parser.add_argument("--batch", type=int, default=128, help="rememberMany batch size")
    parser.add_argument("--quiet", action="store_true", help="tables only, no samples")
    parser.add_argument(
        "--to-label", type=Path, help="write the sampled units still unlabelled here (JSONL)"
    )
    parser.add_argument(
        "--sample", type=Path, help="write every sampled unit with its label here (JSONL)"
    )
    parser.add_argument(
        "--unsupported", type=Path, help="write the typed facts the strict proxy misses (JSONL)"
    )
    args = parser.parse_args()
    files = conversation_files(args.data, args.only)
    rng = random.Random(0)
    rows: list[tuple[str, Quality]] = []
    total = Quality()
    samples: list[tuple[str, list[str], list[str], list[str]]] = []
    relation_types: Counter[str] = Counter()
    locomo, lme = Split("LoCoMo dev"), Split("LongMemEval dev")
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
            locomo.add(conversation, graph)
            print(f"  {conversation.user}: {len(conversation.turns)} turns", file=sys.stderr)
        for conversation in lme_conversations(args.lme_data, args.lme_users):
            ingest(client, conversation, args.batch)
            runtime.service.drain()
            lme.add(conversation, read_graph(runtime.executor, conversation.user))
            print(f"  {conversation.user}: {len(conversation.turns)} turns", file=sys.stderr)
    print(f"\nLoCoMo graph quality: {len(files)} conversations, {total.turns} turns")
    print(f"machine: {describe()}\n")
    print(HEADER)
    print("|---" * 11 + "|")
    for user, quality in rows:
        print(f"| {user} | " + " | ".join(quality.row()) + " |")
    print("| **overall** | " + " | ".join(f"**{c}**" for c in total.row()) + " |")
    print("\nrelation types: " + ", ".join(f"{t} {n}" for t, n in relation_types.most_common()))
    to_label: Drawn = []
    precision, accuracy = measured(locomo, FACT_SAMPLE, ENTITY_SAMPLE, to_label)
    shares = [("LongMemEval dev", *measured(lme, LME_FACT_SAMPLE, LME_ENTITY_SAMPLE, to_label))]
    summary(total, precision, accuracy, shares, len(locomo.violations) + len(lme.violations))
    if args.to_label:
        written = write_to_label(
            args.to_label,
            [u for facts, _ in to_label for u in facts],
            [u for _, entities in to_label for u in entities],
            fact_labels(),
            entity_labels(),
        )
        print(f"\n{written} unlabelled units written to {args.to_label}")
    if args.sample:
        written = write_sample(
            args.sample,
            [u for facts, _ in to_label for u in facts],
            [u for _, entities in to_label for u in entities],
            fact_labels(),
            entity_labels(),
        )
        print(f"\n{written} sampled units written to {args.sample}")
    if args.unsupported:
        with args.unsupported.open("w", encoding="utf-8") as out:
            for user, quality in rows:
                for record in quality.unsupported:
                    out.write(json.dumps({"conversation": user, **record}) + "\n")
        print(f"\n{total.typed - total.strict} unsupported facts written to {args.unsupported}")
    if args.quiet:
        return
    for user, entities, facts, misses in samples:
        print(f"\n## {user}\nmost mentioned: " + "; ".join(entities))
        print("named entities absent from the annotations: " + "; ".join(misses[:25]))
        print("sample typed facts:")
        for fact in facts:
            print(f"  - {fact}")
    shares_of = [q.covered / q.observations for _, q in rows if q.observations]
    low, middle = min(shares_of), statistics.median(shares_of)
    print(f"\ncoverage per conversation: min {low:.3f}, median {middle:.3f}")


if __name__ == "__main__":
    main()
