"""Many users in one service whose per-user caches are bounded well below what the users need.

2,000 users × 25 memories (default): short real turns of the LoCoMo dev conversations (read from
../shared/data at run time), user u taking 25 consecutive turns from a place of its own, built
once with the bulk path (`recollect ingest`) and cached under --cache, outside the repository,
keyed by the ingest code. Then, in one run:

  1. the engine alone is started on the data (its own replay of the graph), then the service:
     seconds from launch to a healthy /healthz, and resident memory of the service (the models,
     no user loaded) and of the engine;
  2. --calls context calls for users drawn at random (fixed seed), each followed at once by a
     second call for the same user: the first is *cold* when the user's caches are not held (never
     loaded in this process, or evicted: the service holds exactly its most recently used users,
     as many as /healthz says), the second is *warm*; p50/p95 of each;
  3. resident memory after the calls against the models alone plus the cache bound
     (RECOLLECT_CACHE_MB, --cache-mb) — and against a control run first: every question twice
     for one user, what calls cost the process without loading or evicting anyone —, the bytes
     held, evictions, and what all users would need.

    python bench/scale.py [--users 2000] [--per-user 25] [--cache-mb 32] [--calls 2000]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import OrderedDict
from datetime import timedelta
from pathlib import Path

import httpx
from locomo import DEFAULT_DATA as LOCOMO_DIR
from longmemeval import ingest_key
from perf import metrics, pct, resident
from realtext import START, _locomo_sessions, real_questions
from spawn import bulk_built, served

CONTEXT = "query($u: ID!, $m: String!) { context(userId: $u, message: $m) { tokens } }"


def user_lines(users: int, per_user: int) -> list[dict[str, str]]:
    """Each user's turns as `recollect ingest` lines: user u takes `per_user` consecutive LoCoMo
    turns starting at u × 37 (wrapping), one minute apart, in one session of its own."""
    turns = [t for session in _locomo_sessions(LOCOMO_DIR) for t in session]
    lines = []
    for u in range(users):
        for j in range(per_user):
            turn = turns[(u * 37 + j) % len(turns)]
            lines.append(
                {
                    "userId": f"scale-{u:05d}",
                    "text": turn.text,
                    "speaker": turn.speaker,
                    "sessionId": "s1",
                    "occurredAt": (START + timedelta(minutes=j)).isoformat(),
                }
            )
    return lines


def cached_data(
    cache: Path, users: int, per_user: int, key: str | None
) -> tuple[Path, float | None]:
    """The data directory, built once with the bulk path; returns it and the bulk rate when built
    now (None when it came from the cache). `key` names a set built by earlier code, for changes
    that do not alter what ingest writes (the default key changes with any ingest-side file)."""
    return bulk_built(
        cache / f"scale-{users}x{per_user}-{key or ingest_key()}",
        lambda: user_lines(users, per_user),
        {"RECOLLECT_SESSION_IDLE_MINUTES": "0"},
    )


def engine_replay(data_dir: Path) -> float:
    """Seconds the embedded engine alone takes to load the data directory's graph."""
    from graph.engine import EmbeddedEngine

    engine = EmbeddedEngine(data_dir)
    began = time.perf_counter()
    engine.start()
    took = time.perf_counter() - began
    engine.stop()
    return took


def ask(http: httpx.Client, base: str, user: str, message: str) -> float:
    began = time.perf_counter()
    body = http.post(
        f"{base}/graphql", json={"query": CONTEXT, "variables": {"u": user, "m": message}}
    ).json()
    took = time.perf_counter() - began
    if body.get("errors"):
        sys.exit(f"context failed: {body['errors'][0]}")
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--users", type=int, default=2000)
    parser.add_argument("--per-user", type=int, default=25)
    parser.add_argument("--cache-mb", type=float, default=32.0)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "recollect-scale"))
    parser.add_argument("--key", help="reuse the data set built under this ingest key")
    args = parser.parse_args()
    data, rate = cached_data(Path(args.cache), args.users, args.per_user, args.key)
    questions = real_questions(200)
    replay = engine_replay(data)
    rng = random.Random(7)
    chosen = [rng.randrange(args.users) for _ in range(args.calls)]
    cold: list[float] = []
    warm: list[float] = []
    launched = time.perf_counter()
    with served(data, timeout=900, env={"RECOLLECT_CACHE_MB": str(args.cache_mb)}) as (
        process,
        base,
    ):
        healthy = time.perf_counter() - launched
        models_rss, engine_rss = resident(process)
        http = httpx.Client(timeout=600)
        # the models' first inferences allocate for good: warm them on users outside the set
        for n in range(5):
            ask(http, base, f"warm-up-{n}", questions[n])
        warmed_rss, _ = resident(process)
        # control: every question, twice, for one user — what calls cost the process without
        # any user being loaded or evicted (allocator, parser and model state)
        for question in questions:
            ask(http, base, "scale-00000", question)
            ask(http, base, "scale-00000", question)
        control_rss, _ = resident(process)
        recent: OrderedDict[int, None] = OrderedDict()  # users by last call, oldest first
        held = 0
        for n, u in enumerate(chosen):
            if n % 50 == 0:
                held = http.get(f"{base}/healthz").json()["caches"]["users"]
            # the service holds exactly its `held` most recently used users
            is_held = u in list(recent)[-held:] if held else False
            question = questions[n % len(questions)]
            first = ask(http, base, f"scale-{u:05d}", question)
            (warm if is_held else cold).append(first)
            warm.append(ask(http, base, f"scale-{u:05d}", question))
            recent.pop(u, None)
            recent[u] = None
            if (n + 1) % 500 == 0:
                print(f"  {n + 1} calls", file=sys.stderr)
        caches = http.get(f"{base}/healthz").json()["caches"]
        after_rss, engine_after = resident(process)
        evictions = metrics(base)[("recollect_cache_evictions_total", ())]
        http.close()
    per_user = caches["bytes"] / max(caches["users"], 1)
    bound = caches["budget_bytes"] / 2**20
    print()
    print(f"{args.users} users × {args.per_user} memories; cache bound {bound:.1f} MiB")
    if rate is not None:
        print(f"built now with the bulk path at {rate:.1f} memories/s")
    print()
    print("| measure | value |")
    print("|---|---|")
    print(f"| engine alone: replay of the graph | {replay:.1f} s |")
    print(f"| service: launch to healthy (engine replay included) | {healthy:.1f} s |")
    print(
        f"| service RSS at start / after 5 warm-up calls (models) | "
        f"{models_rss:.0f} / {warmed_rss:.0f} MiB |"
    )
    print(
        f"| service RSS after {2 * len(questions)} calls of one user (control) | "
        f"{control_rss:.0f} MiB |"
    )
    print(f"| service RSS after {args.calls} × 2 calls | {after_rss:.0f} MiB |")
    print(f"| … above the control | {after_rss - control_rss:.0f} MiB (bound {bound:.1f} MiB) |")
    print(
        f"| … above the warmed models | {after_rss - warmed_rss:.0f} MiB (bound {bound:.1f} MiB) |"
    )
    print(f"| engine RSS start / after | {engine_rss:.0f} / {engine_after:.0f} MiB |")
    print(
        f"| caches held | {caches['users']} users, {caches['bytes'] / 2**20:.1f} MiB; "
        f"{evictions:.0f} evictions |"
    )
    print(f"| all {args.users} users would need | {per_user * args.users / 2**20:.0f} MiB |")
    print(
        f"| context cold (not held: {len(cold)} calls) p50 / p95 | "
        f"{pct(cold, 0.5):.0f} / {pct(cold, 0.95):.0f} ms |"
    )
    print(
        f"| context warm ({len(warm)} calls) p50 / p95 | "
        f"{pct(warm, 0.5):.0f} / {pct(warm, 0.95):.0f} ms |"
    )
    print(f"| cold p95 / warm p95 | {pct(cold, 0.95) / pct(warm, 0.95):.2f}× |")


if __name__ == "__main__":
    main()
