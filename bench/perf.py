"""Performance: ingest against the embedder alone, and context latency against a plain FAISS
baseline, at growing sizes of one user's memory — every ratio measured side by side in one run
(the machine is shared and noisy).

For each size (default 1,000 and 10,000 memories of one user):
  1. embedder only: the new texts embedded in batches of 128 (the physical bound of ingest);
  2. the same texts through `rememberMany` of a running service (batches of 128), over HTTP;
  3. `context` through the API, 100 questions sequentially and with 8 concurrent clients, against
     a baseline that only embeds the question and searches FAISS top-8 over the same vectors in
     this process;
  4. resident memory of the service and of its engine.

Texts come from a template grammar (below): conversational sentences about people, places,
organisations, projects and hobbies, with dates, so that extraction finds many entities.

    python bench/perf.py [--sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from load import children, rss_kb, start_service  # noqa: E402

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


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def main() -> None:
    import faiss

    from extraction.embedder import Embedder, embedding_text

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--batch", type=int, default=128)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    rng = random.Random(7)
    embedder = Embedder()
    index = faiss.IndexFlatIP(embedder.dimensions)
    tmp = tempfile.TemporaryDirectory(prefix="recollect-perf-")
    process, base = start_service(Path(tmp.name))
    rows = []
    written = 0
    try:
        http = httpx.Client(timeout=600)
        for size in sizes:
            texts = [
                sentence(rng, TEMPLATES) + f" (note {written + i})" for i in range(size - written)
            ]
            started = time.perf_counter()
            vectors = embedder.embed([embedding_text(t, "Ann") for t in texts])
            embed_rate = len(texts) / (time.perf_counter() - started)
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
                    f"{base}/graphql",
                    json={
                        "query": REMEMBER_MANY,
                        "variables": {"i": inputs},
                    },
                ).json()
                if body.get("errors"):
                    sys.exit(f"rememberMany failed: {body['errors'][0]}")
            ingest_rate = len(texts) / (time.perf_counter() - started)
            written = size

            questions = [sentence(rng, QUESTIONS) for _ in range(args.questions)]
            errors = 0

            def ask(question: str, client: httpx.Client) -> float:
                nonlocal errors
                began = time.perf_counter()
                body = client.post(
                    f"{base}/graphql",
                    json={
                        "query": 'query($m: String!) { context(userId: "perf", message: $m) '
                        "{ tokens } }",
                        "variables": {"m": question},
                    },
                ).json()
                if body.get("errors"):
                    errors += 1
                return time.perf_counter() - began

            sequential = [ask(q, http) for q in questions]
            concurrent: list[float] = []
            lock = threading.Lock()

            def worker(
                part: list[str], out: list[float] = concurrent, guard: threading.Lock = lock
            ) -> None:
                with httpx.Client(timeout=600) as client:
                    for q in part:
                        elapsed = ask(q, client)
                        with guard:
                            out.append(elapsed)

            threads = [threading.Thread(target=worker, args=(questions[i::8],)) for i in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            baseline = []
            for q in questions:
                began = time.perf_counter()
                index.search(embedder.embed([q]), 8)
                baseline.append(time.perf_counter() - began)
            engine = children(process.pid)
            rows.append(
                {
                    "size": size,
                    "embed": embed_rate,
                    "ingest": ingest_rate,
                    "seq": sequential,
                    "conc": concurrent,
                    "base": baseline,
                    "errors": errors,
                    "rss": rss_kb(process.pid) / 1024,
                    "engine": rss_kb(engine[0]) / 1024 if engine else 0.0,
                }
            )
            print(f"  {size} memories done", file=sys.stderr)
        http.close()
    finally:
        process.terminate()
        process.wait(60)
        tmp.cleanup()

    print(
        "\n| memories | ingest /s (API) | embedder only /s | ratio | context p50/p95/p99 ms "
        "(sequential) | 8 clients p50/p95/p99 ms | baseline p50/p95/p99 ms | p95 vs baseline "
        "| errors | RSS service / engine MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        seq, conc, base_ = row["seq"], row["conc"], row["base"]
        print(
            f"| {row['size']} | {row['ingest']:.1f} | {row['embed']:.1f} | "
            f"{row['ingest'] / row['embed']:.2f} | "
            f"{pct(seq, 0.5):.0f} / {pct(seq, 0.95):.0f} / {pct(seq, 0.99):.0f} | "
            f"{pct(conc, 0.5):.0f} / {pct(conc, 0.95):.0f} / {pct(conc, 0.99):.0f} | "
            f"{pct(base_, 0.5):.0f} / {pct(base_, 0.95):.0f} / {pct(base_, 0.99):.0f} | "
            f"{pct(seq, 0.95) / pct(base_, 0.95):.1f}× | {row['errors']} | "
            f"{row['rss']:.0f} / {row['engine']:.0f} |"
        )


if __name__ == "__main__":
    main()
