"""Load: 16 concurrent clients against one service, 80% `context` / 20% `remember`, for 60 s.

Starts `recollect serve` on a temporary data directory (or targets --url), seeds each client's
user with a few dozen memories, then runs the mix and prints: requests, errors, p50/p95/p99 per
operation, and the resident memory of the service and of its engine sampled every second, with the
slope of a least-squares line over the second half of the run (a leak shows as a steady positive
slope). Loopback only; bounded in time; stops by itself.

    python bench/load.py [--clients 16] [--seconds 60] [--url http://127.0.0.1:8000]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import ExitStack
from pathlib import Path

import httpx
from spawn import children, rss_kb, served

REMEMBER = "mutation($i: MemoryInput!) { remember(input: $i) { id } }"
CONTEXT = "query($u: ID!, $m: String!) { context(userId: $u, message: $m) { tokens } }"
NAMES = ["Mary", "Tom", "Priya", "Jake", "Linda", "Omar", "Sofia", "Ken"]
PLACES = ["Boston", "Denver", "Lisbon", "Kyoto", "Toronto", "Oslo", "Lima", "Cairo"]
ORGS = ["Acme Corp", "Globex", "Initech", "Umbrella", "Hooli"]
TEMPLATES = [
    "My friend {n} moved to {p} last spring.",
    "{n} works at {o} and loves hiking near {p}.",
    "I visited {p} with my sister {n}.",
    "{n} is planning a trip to {p} in the autumn.",
    "My brother {n} joined {o} as an engineer.",
]
QUESTIONS = [
    "Where does {n} live?",
    "Who works at {o}?",
    "What did I do in {p}?",
    "How is {n} doing?",
]


def sentence(rng: random.Random, templates: list[str]) -> str:
    return rng.choice(templates).format(
        n=rng.choice(NAMES), p=rng.choice(PLACES), o=rng.choice(ORGS)
    )


def slope(values: list[float]) -> float:
    """Least-squares slope per sample."""
    n = len(values)
    if n < 2:
        return 0.0
    xs = range(n)
    mx, my = (n - 1) / 2, statistics.fmean(values)
    num = sum((x - mx) * (y - my) for x, y in zip(xs, values, strict=True))
    den = sum((x - mx) ** 2 for x in xs)
    return num / den


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed-memories", type=int, default=40)
    parser.add_argument(
        "--remember-share",
        type=float,
        default=0.2,
        help="share of requests that remember (default 0.2)",
    )
    parser.add_argument("--url", help="base URL of a running service (default: start one)")
    args = parser.parse_args()

    process = None
    cleanup = ExitStack()
    if args.url:
        base = args.url.rstrip("/")
    else:
        tmp = cleanup.enter_context(tempfile.TemporaryDirectory(prefix="recollect-load-"))
        process, base = cleanup.enter_context(served(Path(tmp)))
    latencies: dict[str, list[float]] = defaultdict(list)
    errors: list[str] = []
    lock = threading.Lock()
    with cleanup:
        with httpx.Client(timeout=60) as client:
            for c in range(args.clients):
                rng = random.Random(c)
                for _ in range(0, args.seed_memories, 20):
                    inputs = [
                        {"userId": f"load-{c}", "speaker": "Ann", "text": sentence(rng, TEMPLATES)}
                        for _ in range(20)
                    ]
                    client.post(
                        f"{base}/graphql",
                        json={
                            "query": "mutation($i: [MemoryInput!]!) { rememberMany(inputs: $i) "
                            "{ id } }",
                            "variables": {"i": inputs},
                        },
                    ).raise_for_status()

        stop_at = time.monotonic() + args.seconds

        def worker(c: int) -> None:
            rng = random.Random(1000 + c)
            with httpx.Client(timeout=60) as client:
                while time.monotonic() < stop_at:
                    if rng.random() >= args.remember_share:
                        op, query = "context", CONTEXT
                        variables = {"u": f"load-{c}", "m": sentence(rng, QUESTIONS)}
                    else:
                        op, query = "remember", REMEMBER
                        variables = {
                            "i": {
                                "userId": f"load-{c}",
                                "speaker": "Ann",
                                "text": sentence(rng, TEMPLATES),
                            }
                        }
                    began = time.perf_counter()
                    try:
                        response = client.post(
                            f"{base}/graphql", json={"query": query, "variables": variables}
                        )
                        body = response.json()
                        failed = response.status_code != 200 or bool(body.get("errors"))
                        reason = str(body.get("errors"))[:200] if failed else ""
                    except (httpx.HTTPError, ValueError) as exc:
                        failed, reason = True, repr(exc)[:200]
                    elapsed = time.perf_counter() - began
                    with lock:
                        latencies[op].append(elapsed)
                        if failed:
                            errors.append(f"{op}: {reason}")

        samples: list[tuple[int, int]] = []
        threads = [threading.Thread(target=worker, args=(c,)) for c in range(args.clients)]
        for thread in threads:
            thread.start()
        while any(t.is_alive() for t in threads):
            if process is not None:
                engine = children(process.pid)
                samples.append((rss_kb(process.pid), rss_kb(engine[0]) if engine else 0))
            time.sleep(1.0)
        for thread in threads:
            thread.join()

    total = sum(len(v) for v in latencies.values())
    print(
        f"\n{args.clients} clients, {args.seconds:.0f} s, "
        f"{100 - round(args.remember_share * 100)}% context / "
        f"{round(args.remember_share * 100)}% remember: "
        f"{total} requests ({total / args.seconds:.1f}/s), {len(errors)} errors\n"
    )
    print("| operation | requests | p50 ms | p95 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for op, values in sorted(latencies.items()):
        ordered = sorted(values)

        def pct(q: float, ordered: list[float] = ordered) -> float:
            return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000

        print(f"| {op} | {len(values)} | {pct(0.5):.0f} | {pct(0.95):.0f} | {pct(0.99):.0f} |")
    if samples:
        half = samples[len(samples) // 2 :]
        service = [s / 1024 for s, _ in half]
        engine = [e / 1024 for _, e in half]
        print(
            f"\nRSS service {samples[0][0] / 1024:.0f} → {samples[-1][0] / 1024:.0f} MiB "
            f"(slope over the second half {slope(service):+.2f} MiB/s); engine "
            f"{samples[0][1] / 1024:.0f} → {samples[-1][1] / 1024:.0f} MiB "
            f"(slope {slope(engine):+.2f} MiB/s)"
        )
    for reason in errors[:10]:
        print("  error:", reason)
    if errors:
        sys.exit(1)


if __name__ == "__main__":
    main()
