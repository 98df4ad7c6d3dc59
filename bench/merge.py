"""The merge of stated facts on real facts (docs/storage.md): how many fewer memories, and does
retrieval still find the evidence?

LoCoMo dev's observations (session_N_observation: facts written by the dataset's authors about
each speaker, each citing the turns that state it) are remembered as stated facts — factType
"fact", the speaker, the session's date — one rememberMany per session, by two in-process
services in the same run: merge off (RECOLLECT_MERGE_FACTS=false) and on. For each of the
conversation's questions (categories 1–4), context with asOf the last session's date: a
question's evidence turn is found when one of the first 8 facts returned, or a fact merged into
it, cites it. R@8 is the share of a question's evidence turns found, averaged.

Target: at least 20% fewer memories with merge on, R@8 within 0.01 of merge off.

    .venv/bin/python bench/merge.py [--only 26,30] [--neighbour-max 1.0] [--neighbour-rise 1.0]
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from locomo import CATEGORIES, DEFAULT_DATA, conversation_files, load, parse_when, service
from machine import describe

REMEMBER_MANY = """mutation($inputs: [MemoryInput!]!) {
  rememberMany(inputs: $inputs) { id externalId stored }
}"""
READ = "query($u: ID!, $id: ID!) { memory(userId: $u, id: $id) { id mergedInto } }"
CONTEXT = """query($u: ID!, $m: String!, $asOf: DateTime) {
  context(userId: $u, message: $m, asOf: $asOf, maxMemories: 8) { memories { memory { id } } }
}"""


@dataclass(frozen=True)
class Observation:
    session: str
    when: str
    speaker: str
    text: str
    evidence: tuple[str, ...]


def observations(path: Path) -> list[list[Observation]]:
    """The conversation's observations, one list per session in session order."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    sessions = sorted(
        int(m.group(1)) for k in raw if (m := re.fullmatch(r"session_(\d+)_observation", k))
    )
    out: list[list[Observation]] = []
    for n in sessions:
        when = parse_when(raw[f"session_{n}_date_time"])
        facts = [
            Observation(f"session_{n}", when, speaker, text, _ids(cited))
            for speaker, items in raw[f"session_{n}_observation"].items()
            for text, cited in items
        ]
        out.append(facts)
    return out


def _ids(cited: str | list[str]) -> tuple[str, ...]:
    values = cited if isinstance(cited, list) else [cited]
    return tuple(i.strip() for v in values for i in re.split(r"[,;\s]+", v) if i.strip())


def run(files: list[Path], merge: bool) -> tuple[int, int, list[float], int, float]:
    """(facts written, memories stored, R@8 per question, merges answered, seconds ingesting)."""
    written = stored = merged = 0
    recalls: list[float] = []
    spent = 0.0
    with service(None, merge_facts=merge) as (client, _embed, runtime):
        for path in files:
            user = f"merge-{path.stem}"
            conversation = load(path)
            cites: dict[str, set[str]] = {}
            ids: list[str] = []
            for session in observations(path):
                inputs = [
                    {
                        "userId": user,
                        "text": o.text,
                        "speaker": o.speaker,
                        "occurredAt": o.when,
                        "factType": "fact",
                    }
                    for o in session
                ]
                if not inputs:
                    continue
                began = time.perf_counter()
                made = client.call(REMEMBER_MANY, inputs=inputs)["rememberMany"]
                spent += time.perf_counter() - began
                for o, m in zip(session, made, strict=True):
                    cites.setdefault(m["id"], set()).update(o.evidence)
                    ids.append(m["id"])
                    merged += m["stored"] == "MERGED"
                written += len(inputs)
            parent = {}
            for memory_id in dict.fromkeys(ids):
                into = client.call(READ, u=user, id=memory_id)["memory"]["mergedInto"]
                if into:
                    parent[memory_id] = into
            lineage: dict[str, set[str]] = defaultdict(set)
            for memory_id, own in cites.items():
                top = memory_id
                while top in parent:
                    top = parent[top]
                lineage[top] |= own
            stored += runtime.store.count_memories(user)
            for question in conversation.questions:
                if question.category not in CATEGORIES:
                    continue
                found = client.call(CONTEXT, u=user, m=question.text, asOf=conversation.as_of)
                shown = [m["memory"]["id"] for m in found["context"]["memories"]][:8]
                cited = set().union(*(lineage.get(i, set()) for i in shown)) if shown else set()
                evidence = set(question.evidence)
                recalls.append(len(evidence & cited) / len(evidence))
            print(f"  {user} ({'on' if merge else 'off'}): done", file=sys.stderr)
        merger = runtime.service._writer.merger
        if merge:
            values = sorted(
                (round(r.value, 3), round(r.value - r.before, 3))
                for r in merger.refused
                if r.gate == "neighbours"
            )
            print(
                f"  gate outcomes: {dict(merger.outcomes)}; neighbour refusals' "
                f"(crowding, rise over the sources): {values}"
            )
    return written, stored, recalls, merged, spent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--only", help="conversation stems, e.g. 26,30")
    parser.add_argument(
        "--neighbour-rise",
        type=float,
        help="the neighbour gate's allowed rise over the sources' crowding for this run "
        "(graph/write/merge_rules.py NEIGHBOUR_RISE; 1.0 turns the gate off)",
    )
    parser.add_argument(
        "--neighbour-max",
        type=float,
        help="the neighbour gate's bound for this run (write/merge_rules.py NEIGHBOUR_MAX; 1.0 "
        "turns the gate off), to see what it costs",
    )
    args = parser.parse_args()
    if args.neighbour_rise is not None:
        from graph.write import merge_rules as merge

        merge.NEIGHBOUR_RISE = args.neighbour_rise
        print(f"neighbour gate: rise over the sources' crowding <= {args.neighbour_rise}")
    if args.neighbour_max is not None:
        from graph.write import merge_rules as merge

        merge.NEIGHBOUR_MAX = args.neighbour_max
        print(f"neighbour gate: mean top-3 hybrid score <= {args.neighbour_max}")
    logging.disable(logging.INFO)
    files = conversation_files(args.data, args.only)
    print(f"machine: {describe()}")
    results = {merge: run(files, merge) for merge in (False, True)}
    print("\n| merge | facts written | memories stored | merges | R@8 | ingest s/fact |")
    print("|---|---|---|---|---|---|")
    for merge, (written, stored, recalls, merged, spent) in results.items():
        print(
            f"| {'on' if merge else 'off'} | {written} | {stored} | {merged} | "
            f"{statistics.mean(recalls):.3f} | {spent / written:.3f} |"
        )
    off, on = results[False], results[True]
    fewer = 1 - on[1] / off[1]
    delta = statistics.mean(on[2]) - statistics.mean(off[2])
    print(f"\n{len(off[2])} questions; memories {fewer:.1%} fewer (target ≥ 20%), ", end="")
    print(f"R@8 {delta:+.3f} (target within 0.01)")
    ok = fewer >= 0.20 and abs(delta) <= 0.01
    print(f"targets {'met' if ok else 'NOT met'}")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
