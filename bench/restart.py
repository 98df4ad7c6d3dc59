"""A big user's first context call after a restart, beside a warm call of the same process.

The user is bench/perf.py's real-text history (LoCoMo and LongMemEval dev turns, read from
../shared/data), built once with the bulk path and cached under --cache (`--any-build` takes a
build by other ingest code). `recollect serve` is started on it three times, each call timed from
outside through GraphQL:

  1. *rebuilt*: the user's BM25 and catalogue files deleted first, so the first call builds the
     BM25 index and reads the catalogue from the graph (how every restart went before the
     files); a clean stop (SIGTERM) then writes both;
  2. *loaded*: the first call loads them (BM25 with the changes since its mark), made as soon
     as /healthz answers, the start loading no user before (RECOLLECT_PREWARM_USERS=0);
  2b. *loaded, after the prewarm*: the start loads the most recently active users' caches
     (graph/prewarm.py); the first call is made once /healthz says that is done;
  3. *torn*: both cut to half their bytes first: refused, read from the graph again.

Each start's first call is followed by --warm calls of other questions and by the first question
again; the first call's answer (memory ids, in order) must equal that warm one's, and the first
start's. The start's
seconds to a healthy /healthz are printed beside.

    python bench/restart.py [--size 50000] [--warm 10] [--cache DIR] [--any-build]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from machine import describe
from perf import USER, cached_data, real_corpus
from spawn import served

from graph.ids import user_stem

CONTEXT = """query($m: String!) { context(userId: "perf", message: $m) {
  memories { memory { id } } } }"""


def call(client: httpx.Client, base: str, question: str) -> tuple[float, list[str]]:
    began = time.perf_counter()
    body = client.post(
        f"{base}/graphql", json={"query": CONTEXT, "variables": {"m": question}}, timeout=600
    ).json()
    seconds = time.perf_counter() - began
    if body.get("errors"):
        sys.exit(f"context failed: {body['errors'][0]}")
    return seconds, [m["memory"]["id"] for m in body["data"]["context"]["memories"]]


def prewarmed(client: httpx.Client, base: str, timeout: float = 600) -> None:
    """Waits until /healthz says the start's prewarm (graph/prewarm.py) is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if client.get(f"{base}/healthz", timeout=10).json().get("prewarm", {}).get("done"):
            return
        time.sleep(0.05)
    sys.exit("the prewarm did not finish")


def one_start(data_dir: Path, questions: list[str], prewarm: bool = False) -> dict[str, Any]:
    """Start, first call, warm calls, the first question again; a clean stop. Without
    `prewarm` the start loads no user before they ask (RECOLLECT_PREWARM_USERS=0); with it the
    first call waits until the start's prewarm is done."""
    began = time.perf_counter()
    env = {} if prewarm else {"RECOLLECT_PREWARM_USERS": "0"}
    with served(data_dir, timeout=600, env=env) as (_, base), httpx.Client() as client:
        healthy = time.perf_counter() - began
        if prewarm:
            prewarmed(client, base)
        ready = time.perf_counter() - began
        first, answer = call(client, base, questions[0])
        warm = [call(client, base, q)[0] for q in questions[1:]]
        _, again = call(client, base, questions[0])
    return {
        "healthy": healthy,
        "ready": ready,
        "first": first,
        "warm": statistics.median(warm),
        "same": answer == again,
        "answer": answer,
    }


def main() -> None:
    from realtext import real_questions

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=50_000)
    parser.add_argument("--warm", type=int, default=10)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "recollect-perf"))
    parser.add_argument("--any-build", action="store_true")
    args = parser.parse_args()

    data_dir, _ = cached_data(Path(args.cache), real_corpus(), args.size, args.any_build)
    questions = real_questions(args.warm + 1)
    paths = [
        data_dir / "lexical" / f"{user_stem(USER)}.bm25",
        data_dir / "catalog" / f"{user_stem(USER)}.json",
    ]
    rows: list[tuple[str, dict[str, Any]]] = []

    for path in paths:
        path.unlink(missing_ok=True)
    rows.append(("rebuilt (no files)", one_start(data_dir, questions)))
    for path in paths:
        if not path.exists():
            sys.exit(f"the clean stop wrote no file at {path}")
    sizes = ", ".join(f"{p.parent.name} {p.stat().st_size / 2**20:.1f} MB" for p in paths)
    rows.append(("loaded (files)", one_start(data_dir, questions)))
    rows.append(("loaded (files), after the prewarm", one_start(data_dir, questions, True)))
    for path in paths:
        whole = path.read_bytes()
        path.write_bytes(whole[: len(whole) // 2])
    rows.append(("torn files", one_start(data_dir, questions)))

    print(f"\n{args.size} memories of one user; {describe()}; files: {sizes}\n")
    print(
        "| start | /healthz after | first call made after | first call | warm call (median) "
        "| first = warm answer | = the rebuilt start's |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, row in rows:
        print(
            f"| {name} | {row['healthy']:.1f} s | {row['ready']:.1f} s | {row['first']:.2f} s "
            f"| {row['warm'] * 1000:.0f} ms | {'yes' if row['same'] else 'NO'} "
            f"| {'yes' if row['answer'] == rows[0][1]['answer'] else 'NO'} |"
        )


if __name__ == "__main__":
    main()
