"""Performance: ingest against the embedder alone, and context latency against a plain FAISS
baseline, at growing sizes of one user's memory — every ratio measured side by side in one run
(the machine is shared and noisy).

For each size (default 1,000, 10,000 and 100,000 memories of one user):
  1. embedder only, and extraction (spaCy) only, on the new texts: the two models ingest runs;
  2. the same texts through `rememberMany` of a running service (batches of 128), over HTTP —
     sizes above --api-max (10,000) are instead built once with the bulk path (`recollect
     ingest`) and cached under --cache, outside the repository;
  3. `context` through the API: one first call (it builds the per-user caches), then 100
     questions sequentially and with 8 concurrent clients, against a baseline that only embeds
     the question and searches FAISS top-8 over the same vectors in this process;
  4. resident memory of the service and of its engine.

Texts come from a template grammar (below): conversational sentences about people, places,
organisations, projects and hobbies, with dates, so that extraction finds many entities.

    python bench/perf.py [--sizes 1000,10000,100000] [--cache ~/.cache/recollect-perf]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from spawn import children, rss_kb, served

FIRST = [
    "Mary",
    "Tom",
    "Priya",
    "Jake",
    "Linda",
    "Omar",
    "Sofia",
    "Ken",
    "Aiko",
    "Lars",
    "Nadia",
    "Pedro",
    "Grace",
    "Yusuf",
    "Elena",
    "Ravi",
]
LAST = ["Smith", "Garcia", "Chen", "Okafor", "Novak", "Silva", "Kowalski", "Haddad"]
PLACES = [
    "Boston",
    "Denver",
    "Lisbon",
    "Kyoto",
    "Toronto",
    "Oslo",
    "Lima",
    "Cairo",
    "Seattle",
    "Berlin",
    "Nairobi",
    "Austin",
    "Dublin",
    "Hanoi",
]
ORGS = [
    "Acme Corp",
    "Globex",
    "Initech",
    "Umbrella Labs",
    "Hooli",
    "Stark Industries",
    "the Denver Chess Club",
    "the city library",
]
HOBBIES = [
    "pottery",
    "hiking",
    "chess",
    "baking sourdough",
    "salsa dancing",
    "birdwatching",
    "painting",
    "running marathons",
    "gardening",
    "photography",
]
ROLES = ["sister", "brother", "friend", "cousin", "neighbour", "colleague", "mother", "husband"]
TEMPLATES = [
    "My {role} {first} moved to {place} last {season}.",
    "{first} {last} works at {org} and loves {hobby}.",
    "I visited {place} with my {role} {first} in {month}.",
    "{first} is planning a trip to {place} to see friends from {org}.",
    "My {role} {first} joined {org} as an engineer on Project {project}.",
    "I've been really into {hobby} since {first} showed me how in {place}.",
    "We had dinner with {first} {last} at a small place near {place}.",
    "{first} told me that {org} is opening a new office in {place}.",
    "I'm working on Project {project} with {first} and it launches in {month}.",
    "Did you know {first} used to live in {place} before joining {org}?",
]
SEASONS = ["spring", "summer", "autumn", "winter"]
MONTHS = ["January", "March", "May", "July", "September", "November"]
PROJECTS = ["Apollo", "Zephyr", "Atlas", "Beacon", "Nimbus", "Orion"]
QUESTIONS = [
    "Where does {first} live now?",
    "Who works at {org}?",
    "What is Project {project}?",
    "When did I visit {place}?",
    "Who likes {hobby}?",
    "How is my {role} {first}?",
]


REMEMBER_MANY = "mutation($i: [MemoryInput!]!) { rememberMany(inputs: $i) { id } }"
CONTEXT = 'query($m: String!) { context(userId: "perf", message: $m) { tokens } }'
CACHE_VERSION = 1  # bump when the grammar or the stored form changes


def sentence(rng: random.Random, templates: list[str]) -> str:
    return rng.choice(templates).format(
        first=rng.choice(FIRST),
        last=rng.choice(LAST),
        place=rng.choice(PLACES),
        org=rng.choice(ORGS),
        hobby=rng.choice(HOBBIES),
        role=rng.choice(ROLES),
        season=rng.choice(SEASONS),
        month=rng.choice(MONTHS),
        project=rng.choice(PROJECTS),
    )


def texts_for(start: int, stop: int, seed: int = 7) -> list[str]:
    """Memories number `start`..`stop` - 1 of the synthetic user (the same for every run)."""
    rng = random.Random(seed)
    made = [sentence(rng, TEMPLATES) for _ in range(stop)]
    return [f"{text} (note {i})" for i, text in enumerate(made)][start:]


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def ask(client: httpx.Client, base: str, question: str) -> tuple[float, bool]:
    began = time.perf_counter()
    body = client.post(
        f"{base}/graphql", json={"query": CONTEXT, "variables": {"m": question}}
    ).json()
    return time.perf_counter() - began, not body.get("errors")


def measure_context(base: str, questions: list[str], clients: int) -> dict[str, Any]:
    """Sequential latencies, then `clients` concurrent clients over the same questions."""
    with httpx.Client(timeout=600) as http:
        began = time.perf_counter()
        _, ok = ask(http, base, "What is new?")  # the first call builds the per-user caches
        warm = time.perf_counter() - began
        runs = [ask(http, base, q) for q in questions]
    concurrent: list[tuple[float, bool]] = []
    lock = threading.Lock()

    def worker(part: list[str]) -> None:
        with httpx.Client(timeout=600) as client:
            for q in part:
                result = ask(client, base, q)
                with lock:
                    concurrent.append(result)

    threads = [
        threading.Thread(target=worker, args=(questions[i::clients],)) for i in range(clients)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return {
        "warm": warm,
        "seq": [t for t, _ in runs],
        "conc": [t for t, _ in concurrent],
        "errors": sum(1 for _, good in [*runs, *concurrent, (warm, ok)] if not good),
    }


def baseline(index: Any, embedder: Any, questions: list[str]) -> list[float]:
    """Embed the question and search FAISS top-8, in this process: the floor of a context call."""
    out = []
    for q in questions:
        began = time.perf_counter()
        index.search(embedder.embed([q]), 8)
        out.append(time.perf_counter() - began)
    return out


def cached_data(cache: Path, size: int) -> tuple[Path, float | None]:
    """A data directory holding `size` memories of the user, built once with the bulk path
    (`recollect ingest`) and kept under `cache`; returns it and the bulk rate when built now."""
    folder = cache / f"perf-{size}-v{CACHE_VERSION}"
    marker = folder / "complete.json"
    if marker.exists():
        return folder / "data", None
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    lines = folder / "memories.jsonl"
    with lines.open("w") as out:
        for text in texts_for(0, size):
            row = {"speaker": "Ann", "text": text, "occurredAt": "2026-06-01T12:00:00Z"}
            out.write(json.dumps(row) + "\n")
    print(f"  building the {size}-memory data set once (bulk path) in {folder}", file=sys.stderr)
    began = time.perf_counter()
    subprocess.run(
        [
            *(sys.executable, "-m", "api.cli", "ingest", str(lines)),
            *("--user", "perf", "--batch-size", "256", "--data-dir", str(folder / "data")),
        ],
        check=True,
        env={**os.environ, "RECOLLECT_SESSION_IDLE_MINUTES": "0"},
    )
    rate = size / (time.perf_counter() - began)
    lines.unlink()
    marker.write_text(json.dumps({"size": size, "bulk_rate": rate}))
    return folder / "data", rate


def service_index(data_dir: Path) -> Any:
    """The service's own FAISS index of the user, read from its data directory."""
    import faiss

    files = list((data_dir / "vectors").glob("*.faiss"))
    if len(files) != 1:
        sys.exit(f"expected one vector index in {data_dir}, found {len(files)}")
    return faiss.read_index(str(files[0]))


def resident(process: subprocess.Popen[bytes]) -> tuple[float, float]:
    engine = children(process.pid)
    return rss_kb(process.pid) / 1024, (rss_kb(engine[0]) / 1024 if engine else 0.0)


def main() -> None:
    import faiss

    from extraction.embedder import Embedder, embedding_text
    from extraction.extractor import Extractor

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--batch", type=int, default=128)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument(
        "--api-max",
        type=int,
        default=10_000,
        help="sizes up to this are ingested through the API in this run; larger ones come from "
        "a data set built once with the bulk path and cached under --cache",
    )
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "recollect-perf"))
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    embedder = Embedder()
    extractor = Extractor.load()
    index = faiss.IndexFlatIP(embedder.dimensions)
    rng = random.Random(11)
    rows = []
    written = 0
    with (
        tempfile.TemporaryDirectory(prefix="recollect-perf-") as tmp,
        served(Path(tmp)) as (process, base),
    ):
        http = httpx.Client(timeout=600)
        for size in [s for s in sizes if s <= args.api_max]:
            texts = texts_for(written, size)
            started = time.perf_counter()
            vectors = embedder.embed([embedding_text(t, "Ann") for t in texts])
            embed_rate = len(texts) / (time.perf_counter() - started)
            started = time.perf_counter()
            extractor.extract_many([(t, "Ann") for t in texts])
            extract_rate = len(texts) / (time.perf_counter() - started)
            index.add(vectors)
            started = time.perf_counter()
            for at in range(0, len(texts), args.batch):
                inputs = [
                    {
                        "userId": "perf",
                        "speaker": "Ann",
                        "text": t,
                        "occurredAt": "2026-06-01T12:00:00Z",
                    }
                    for t in texts[at : at + args.batch]
                ]
                body = http.post(
                    f"{base}/graphql", json={"query": REMEMBER_MANY, "variables": {"i": inputs}}
                ).json()
                if body.get("errors"):
                    sys.exit(f"rememberMany failed: {body['errors'][0]}")
            ingest_rate = len(texts) / (time.perf_counter() - started)
            written = size
            questions = [sentence(rng, QUESTIONS) for _ in range(args.questions)]
            context = measure_context(base, questions, args.clients)
            rows.append(
                {
                    "size": size,
                    "ingest": f"{ingest_rate:.1f}",
                    "embed": f"{embed_rate:.1f}",
                    "extract": f"{extract_rate:.1f}",
                    "ratio": f"{ingest_rate / embed_rate:.2f}",
                    "base": baseline(index, embedder, questions),
                    "rss": resident(process),
                    **context,
                }
            )
            print(f"  {size} memories done", file=sys.stderr)
        http.close()

    for size in [s for s in sizes if s > args.api_max]:
        data_dir, bulk_rate = cached_data(Path(args.cache), size)
        with served(data_dir) as (process, base):
            questions = [sentence(rng, QUESTIONS) for _ in range(args.questions)]
            context = measure_context(base, questions, args.clients)
            rows.append(
                {
                    "size": size,
                    "ingest": f"bulk {bulk_rate:.1f}" if bulk_rate else "cached",
                    "embed": "",
                    "extract": "",
                    "ratio": "",
                    "base": baseline(service_index(data_dir), embedder, questions),
                    "rss": resident(process),
                    **context,
                }
            )
            print(f"  {size} memories done", file=sys.stderr)

    print(
        "\n| memories | ingest /s (API) | embedder only /s | extraction only /s | ratio "
        "| first context ms | context p50/p95/p99 ms (sequential) "
        f"| {args.clients} clients p50/p95/p99 ms | baseline p50/p95/p99 ms | p95 vs baseline "
        "| errors | RSS service / engine MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        seq, conc, base_ = row["seq"], row["conc"], row["base"]
        print(
            f"| {row['size']} | {row['ingest']} | {row['embed']} | {row['extract']} | "
            f"{row['ratio']} | {row['warm'] * 1000:.0f} | "
            f"{pct(seq, 0.5):.0f} / {pct(seq, 0.95):.0f} / {pct(seq, 0.99):.0f} | "
            f"{pct(conc, 0.5):.0f} / {pct(conc, 0.95):.0f} / {pct(conc, 0.99):.0f} | "
            f"{pct(base_, 0.5):.0f} / {pct(base_, 0.95):.0f} / {pct(base_, 0.99):.0f} | "
            f"{pct(seq, 0.95) / pct(base_, 0.95):.1f}× | {row['errors']} | "
            f"{row['rss'][0]:.0f} / {row['rss'][1]:.0f} |"
        )
    p95 = {row["size"]: pct(row["seq"], 0.95) for row in rows}
    for small, large in zip(sizes, sizes[1:], strict=False):
        if small in p95 and large in p95:
            print(f"p95 at {large} / p95 at {small}: {p95[large] / p95[small]:.2f}×")


if __name__ == "__main__":
    main()
