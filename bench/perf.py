"""Performance on real conversation text: ingest against the embedder alone, and context latency
against a plain embed + FAISS baseline, at growing sizes of one user's memory — every ratio
measured side by side in one run (the machine is shared and noisy).

Texts (`--data real`, the default) are real turns: LoCoMo dev and LongMemEval dev haystack turns
assembled into one user's chronological history by bench/realtext.py (read from ../shared/data at
run time); questions alternate between the two datasets' questions. `--data template` measures
the template sentences of bench/templates.py instead (short and regular).

For each size (default 1,000, 10,000 and 50,000 memories of one user):
  1. the embedder alone (the model's own configuration, 256 word pieces) and spaCy alone (the
     whole pipeline on whole texts) on the new texts, as `Speaker: text`;
  2. the same turns through `rememberMany` of a running service (batches of 128) over HTTP:
     the rate acknowledged, and the rate once the work they queued in the background (episodes
     of the sessions they ended) is done — sizes above --api-max (10,000) are instead built
     once with the bulk path (`recollect ingest`) and cached under --cache, outside the
     repository, keyed by the ingest code;
  3. `context` through the API: one first call (it builds the per-user caches and queues the
     read of the memory facts, graph/memory_facts.py, whose time is printed beside it), then the
     questions sequentially and with 8 concurrent clients, against a baseline that only embeds
     the question and searches FAISS top-8 over the same vectors in this process, timed just
     before each sequential call (the service idle); and the graph
     statements per context call (round trips on Bolt), from /metrics;
  4. resident memory of the service and of its engine.

    python bench/perf.py [--data real|template] [--sizes 1000,10000,50000] [--cache DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from machine import describe
from prometheus_client.parser import text_string_to_metric_families
from spawn import bulk_built, children, rss_kb, served

REMEMBER_MANY = "mutation($i: [MemoryInput!]!) { rememberMany(inputs: $i) { id } }"
CONTEXT = 'query($m: String!) { context(userId: "perf", message: $m) { tokens } }'
TEMPLATE_CACHE_VERSION = 1  # bump when the grammar or the stored form changes
USER = "perf"


@dataclass
class Corpus:
    """What one user says (`inputs(start, stop)` as MemoryInputs) and what is asked of it."""

    name: str
    inputs: Callable[[int, int], list[dict[str, str]]]
    questions: Callable[[int], list[str]]
    cache_key: str
    # the bulk build of sizes above --api-max: sessions ended by idle time or not
    bulk_env: dict[str, str]


def template_corpus() -> Corpus:
    from templates import QUESTIONS, sentence, texts_for

    def inputs(start: int, stop: int) -> list[dict[str, str]]:
        return [
            {"userId": USER, "speaker": "Ann", "text": t, "occurredAt": "2026-06-01T12:00:00Z"}
            for t in texts_for(start, stop)
        ]

    rng = random.Random(11)
    return Corpus(
        "template",
        inputs,
        lambda n: [sentence(rng, QUESTIONS) for _ in range(n)],
        f"v{TEMPLATE_CACHE_VERSION}",
        {"RECOLLECT_SESSION_IDLE_MINUTES": "0"},
    )


def real_corpus() -> Corpus:
    from longmemeval import ingest_key
    from realtext import real_questions, real_turns

    def inputs(start: int, stop: int) -> list[dict[str, str]]:
        return [t.input(USER) for t in real_turns(stop)[start:]]

    # episodes are written as for a real user in the API sizes; the bulk-built sizes skip them
    # (thousands of sessions' summaries would add an hour to a build done once)
    return Corpus(
        "real", inputs, real_questions, ingest_key(), {"RECOLLECT_SESSION_IDLE_MINUTES": "0"}
    )


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))] * 1000


def metrics(base: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(f"{base}/metrics", timeout=60).text
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


def wait_background(base: str) -> None:
    """Until the service has no background work queued (episodes of ended sessions)."""
    while metrics(base)[("recollect_background_pending", ())] > 0:
        time.sleep(0.2)


def ask(client: httpx.Client, base: str, question: str) -> tuple[float, bool]:
    began = time.perf_counter()
    body = client.post(
        f"{base}/graphql", json={"query": CONTEXT, "variables": {"m": question}}
    ).json()
    return time.perf_counter() - began, not body.get("errors")


def measure_context(
    base: str, questions: list[str], clients: int, floor: Callable[[str], float]
) -> dict[str, Any]:
    """The first call, sequential latencies (with graph statements per call), each beside the
    baseline's time for the same question just before it (`floor`: the service is idle then),
    then `clients` concurrent clients over the same questions. Side by side, the ratio holds
    when a shared machine's speed drifts during the run: a baseline timed after the calls saw
    a p95 of 46, 38, 37 and 30 ms on four runs of this machine."""
    with httpx.Client(timeout=600) as http:
        began = time.perf_counter()
        _, ok = ask(http, base, "What is new?")  # the first call builds the per-user caches
        warm = time.perf_counter() - began
        # and queues the read of the memory facts the process holds (graph/memory_facts.py): the
        # questions are asked once it is done, its time reported beside the first call
        began = time.perf_counter()
        wait_background(base)
        settle = time.perf_counter() - began
        before = metrics(base)
        floors: list[float] = []
        runs: list[tuple[float, bool]] = []
        for question in questions:
            floors.append(floor(question))
            runs.append(ask(http, base, question))
        after = metrics(base)
    key = ("recollect_graph_statements_sum", (("operation", "context"),))
    statements = (after[key] - before[key]) / len(questions)
    stages = stage_means(before, after, len(questions))
    executed = ("recollect_graphql_request_seconds_sum", (("operation", "context"),))
    stages["GraphQL execution (all of the above)"] = (after[executed] - before[executed]) / len(
        questions
    )
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
        "settle": settle,
        "seq": [t for t, _ in runs],
        "base": floors,
        "conc": [t for t, _ in concurrent],
        "statements": statements,
        "stages": stages,
        "errors": sum(1 for _, good in [*runs, *concurrent, (warm, ok)] if not good),
    }


def stage_means(
    before: dict[tuple[str, tuple[tuple[str, str], ...]], float],
    after: dict[tuple[str, tuple[tuple[str, str], ...]], float],
    calls: int,
) -> dict[str, float]:
    """Mean seconds per context call of each stage (graph/request_cost.py), from /metrics."""
    means: dict[str, float] = {}
    for (name, labels), value in after.items():
        tags = dict(labels)
        if name == "recollect_stage_seconds_sum" and tags.get("operation") == "context":
            means[tags["stage"]] = (value - before.get((name, labels), 0.0)) / calls
    return means


def in_process(data_dir: Path, questions: list[str]) -> dict[str, Any]:
    """`retrieve()` called in this process on the same data and questions (no HTTP, no
    GraphQL): one first call, then each question once, timed with its stages."""
    from api.runtime import start
    from api.settings import Settings
    from graph.recall.retrieval import ContextRequest, retrieve
    from graph.request_cost import counting

    # serving: the message is embedded by the exported model, as in the service measured beside
    runtime = start(Settings(data_dir=data_dir), serving=True)
    try:
        service = runtime.service
        retrieve(service, ContextRequest(user_id=USER, message="What is new?"))
        service.drain()  # the memory facts' read the first call queued, as measure_context waits
        times: list[float] = []
        spent: dict[str, float] = {}
        for question in questions:
            with counting() as tally:
                began = time.perf_counter()
                retrieve(service, ContextRequest(user_id=USER, message=question))
                times.append(time.perf_counter() - began)
            for stage, seconds in tally.seconds.items():
                spent[stage] = spent.get(stage, 0.0) + seconds
    finally:
        runtime.close()
    return {"times": times, "stages": {k: v / len(questions) for k, v in spent.items()}}


def baseline(index: Any, embedder: Any) -> Callable[[str], float]:
    """Embed the question and search FAISS top-8, in this process: the floor of a context call,
    timed for one question."""

    def floor(question: str) -> float:
        began = time.perf_counter()
        index.search(embedder.embed([question]), 8)
        return time.perf_counter() - began

    return floor


def cached_data(
    cache: Path, corpus: Corpus, size: int, any_build: bool = False
) -> tuple[Path, float | None]:
    """A data directory holding `size` memories of the user, built once with the bulk path
    (`recollect ingest`) and kept under `cache`; returns it and the bulk rate when built now.
    With `any_build`, a complete build by other ingest code is taken when there is none by this
    code (latency hardly depends on the extractor's version; the build's key is printed)."""
    folder = cache / f"perf-{corpus.name}-{size}-{corpus.cache_key}"
    if any_build and not (folder / "complete.json").exists():
        builds = sorted(
            cache.glob(f"perf-{corpus.name}-{size}-*/complete.json"),
            key=lambda p: p.stat().st_mtime,
        )
        if builds:
            print(f"  {size}: the build of other ingest code {builds[-1].parent}", file=sys.stderr)
            return builds[-1].parent / "data", None
    return bulk_built(
        folder,
        lambda: ({k: v for k, v in row.items() if k != "userId"} for row in corpus.inputs(0, size)),
        corpus.bulk_env,
        user=USER,
    )


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


def ingest_api(http: httpx.Client, base: str, inputs: list[dict[str, str]], batch: int) -> float:
    """Seconds until every batch is acknowledged."""
    started = time.perf_counter()
    for at in range(0, len(inputs), batch):
        body = http.post(
            f"{base}/graphql",
            json={"query": REMEMBER_MANY, "variables": {"i": inputs[at : at + batch]}},
        ).json()
        if body.get("errors"):
            sys.exit(f"rememberMany failed: {body['errors'][0]}")
    return time.perf_counter() - started


def main() -> None:

    from extraction.embedder import MODEL_TOKENS, Embedder
    from extraction.extractor import Extractor

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", choices=("real", "template"), default="real")
    parser.add_argument("--sizes", help="default 1000,10000,50000 (template: …,100000)")
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
    parser.add_argument(
        "--any-build",
        action="store_true",
        help="sizes above --api-max may come from a cached build by other ingest code",
    )
    args = parser.parse_args()
    corpus = real_corpus() if args.data == "real" else template_corpus()
    default = "1000,10000,50000" if args.data == "real" else "1000,10000,100000"
    sizes = [int(s) for s in (args.sizes or default).split(",")]
    questions = corpus.questions(args.questions)

    # the baselines: the embedder as the model is configured, and spaCy's whole pipeline
    embedder = Embedder(max_tokens=MODEL_TOKENS)
    nlp = Extractor.load().nlp
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="recollect-perf-") as tmp:
        api_rows = api_sizes(Path(tmp), corpus, sizes, questions, args, embedder, nlp)
        rows.extend(api_rows)
        if api_rows:  # the largest size ingested through the API, once the service is stopped
            api_rows[-1]["inproc"] = in_process(Path(tmp), questions)

    for size in [s for s in sizes if s > args.api_max]:
        data_dir, bulk_rate = cached_data(Path(args.cache), corpus, size, args.any_build)
        with served(data_dir) as (process, base):
            floor = baseline(service_index(data_dir), embedder)
            context = measure_context(base, questions, args.clients, floor)
            rows.append(
                {
                    "size": size,
                    "ingest": f"bulk {bulk_rate:.1f}" if bulk_rate else "cached",
                    "embed": "",
                    "spacy": "",
                    "ratio": "",
                    "rss": resident(process),
                    **context,
                }
            )
        rows[-1]["inproc"] = in_process(data_dir, questions)
        print(f"  {size} memories done", file=sys.stderr)
        progress(rows, sizes, args.clients, corpus.name)
    report(rows, sizes, args.clients, corpus.name)


def api_sizes(
    data_dir: Path,
    corpus: Corpus,
    sizes: list[int],
    questions: list[str],
    args: argparse.Namespace,
    embedder: Any,
    nlp: Any,
) -> list[dict[str, Any]]:
    """The sizes up to --api-max, ingested through `rememberMany` of one running service in
    turn, each measured once ingested."""
    import faiss

    from extraction.embedder import embedding_text

    index = faiss.IndexFlatIP(embedder.dimensions)
    rows: list[dict[str, Any]] = []
    written = 0
    with served(data_dir) as (process, base):
        http = httpx.Client(timeout=600)
        for size in [s for s in sizes if s <= args.api_max]:
            inputs = corpus.inputs(written, size)
            texts = [embedding_text(i["text"], i["speaker"]) for i in inputs]
            started = time.perf_counter()
            vectors = embedder.embed(texts)
            embed_rate = len(texts) / (time.perf_counter() - started)
            started = time.perf_counter()
            for _ in nlp.pipe(texts, batch_size=64):
                pass
            spacy_rate = len(texts) / (time.perf_counter() - started)
            index.add(vectors)
            acknowledged = ingest_api(http, base, inputs, args.batch)
            started = time.perf_counter()
            wait_background(base)
            drained = acknowledged + time.perf_counter() - started
            written = size
            context = measure_context(base, questions, args.clients, baseline(index, embedder))
            rows.append(
                {
                    "size": size,
                    "ingest": f"{len(texts) / acknowledged:.1f} / {len(texts) / drained:.1f}",
                    "embed": f"{embed_rate:.1f}",
                    "spacy": f"{spacy_rate:.1f}",
                    "ratio": f"{len(texts) / drained / embed_rate:.2f}",
                    "rss": resident(process),
                    **context,
                }
            )
            print(f"  {size} memories done", file=sys.stderr)
            progress(rows, sizes, args.clients, corpus.name)
        http.close()
    return rows


def progress(rows: list[dict[str, Any]], sizes: list[int], clients: int, data: str) -> None:
    """The tables so far, on stderr: a run stopped during a later size (a 50k bulk build can
    take an hour on a shared machine) keeps what it measured."""
    with contextlib.redirect_stdout(sys.stderr):
        report(rows, sizes, clients, data)


def report(rows: list[dict[str, Any]], sizes: list[int], clients: int, data: str) -> None:
    print(f"\nmachine: {describe()}")
    print(
        f"\n{data} text\n\n| memories | ingest /s (acknowledged / with background) "
        "| embedder only /s | spaCy only /s | ratio | first context ms (+ facts read) "
        f"| context p50/p95/p99 ms | {clients} clients p50/p95/p99 ms "
        "| retrieve() in process p50/p95 ms | baseline p50/p95/p99 ms | p95 vs baseline "
        "| in-process p95 vs baseline | statements per context | errors "
        "| RSS service / engine MiB |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for row in rows:
        seq, conc, base_ = row["seq"], row["conc"], row["base"]
        own = row.get("inproc", {}).get("times", [])
        inproc = f"{pct(own, 0.5):.0f} / {pct(own, 0.95):.0f}" if own else ""
        inproc_ratio = f"{pct(own, 0.95) / pct(base_, 0.95):.1f}×" if own else ""
        print(
            f"| {row['size']:,} | {row['ingest']} | {row['embed']} | {row['spacy']} | "
            f"{row['ratio']} | {row['warm'] * 1000:,.0f} (+{row['settle']:.1f} s) | "
            f"{pct(seq, 0.5):.0f} / {pct(seq, 0.95):.0f} / {pct(seq, 0.99):.0f} | "
            f"{pct(conc, 0.5):.0f} / {pct(conc, 0.95):.0f} / {pct(conc, 0.99):.0f} | "
            f"{inproc} | "
            f"{pct(base_, 0.5):.0f} / {pct(base_, 0.95):.0f} / {pct(base_, 0.99):.0f} | "
            f"{pct(seq, 0.95) / pct(base_, 0.95):.1f}× | {inproc_ratio} | "
            f"{row['statements']:.1f} | {row['errors']} | "
            f"{row['rss'][0]:.0f} / {row['rss'][1]:.0f} |"
        )
    p95 = {row["size"]: pct(row["seq"], 0.95) for row in rows}
    for small, large in zip(sizes, sizes[1:], strict=False):
        if small in p95 and large in p95:
            print(f"p95 at {large:,} / p95 at {small:,}: {p95[large] / p95[small]:.2f}×")
    for row in rows:
        stage_table(row)


def stage_table(row: dict[str, Any]) -> None:
    """Mean ms per stage of a context call (graph/request_cost.py), through GraphQL and in process;
    what the client waited beyond GraphQL's execution is HTTP, the event loop and the client."""
    api = dict(row["stages"])
    executed = api.pop("GraphQL execution (all of the above)", 0.0)
    own = row.get("inproc", {}).get("stages", {})
    client = sum(row["seq"]) / len(row["seq"])
    print(f"\nstages of a context call at {row['size']:,} memories, mean ms per call")
    print("\n| stage | through GraphQL | retrieve() in process |\n|---|---|---|")
    for stage in sorted(api, key=lambda s: -api[s]):
        there = f"{own[stage] * 1000:.2f}" if stage in own else ""
        print(f"| {stage} | {api[stage] * 1000:.2f} | {there} |")
    staged = sum(api.values())
    print(f"| all stages | {staged * 1000:.2f} | {sum(own.values()) * 1000:.2f} |")
    print(f"| GraphQL beyond the stages | {(executed - staged) * 1000:.2f} | |")
    print(f"| HTTP, event loop and client | {(client - executed) * 1000:.2f} | |")
    if own:
        mean = sum(row["inproc"]["times"]) / len(row["inproc"]["times"])
        print(f"| call, as timed | {client * 1000:.2f} | {mean * 1000:.2f} |")


if __name__ == "__main__":
    main()
