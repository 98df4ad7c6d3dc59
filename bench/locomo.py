"""Retrieval quality on LoCoMo through the public GraphQL API, beside BM25, dense and RRF baselines.

Protocol (../shared/data/locomo-dev/README.md): every turn of a conversation is one memory of one
user (speaker, occurredAt = its session's date, sessionId, externalId = dia_id, text with
" [shares <caption>]" when an image was shared); one `context` per question of categories 1-4 with
asOf = the last session's date; the externalIds of the returned memories in rank order are scored
against the question's evidence. The dataset's events / observation / summary annotations are never
read. Nothing of the dataset is written anywhere.

    python bench/locomo.py [--data ../shared/data/locomo-dev] [--url http://127.0.0.1:8000/graphql]
    python bench/locomo.py --graph-uri bolt://127.0.0.1:7687 --graph-user neo4j --graph-password …

Without --url a service is started in-process on a temporary data directory: on the embedded
engine, or with --graph-uri (or RECOLLECT_GRAPH_URI, _USER, _PASSWORD) on that graph server, in a
namespace of its own for the run (a server keeps what earlier runs wrote, and a turn it already
holds would be answered as a repeat, not ingested), whose users are forgotten at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "locomo-dev"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
# adversarial questions: about what was never said, or what another person did; asked too, to
# measure the block's confidence, its relevance floor and its wrong-person notes (issue 40), and
# never scored for recall
ADVERSARIAL = 5
# questions unanswerable by construction (bench/unanswerable.py), with `--unanswerable`: judged
# like category 5, reported apart
CONSTRUCTED = 6
KS = (5, 8, 10)
DEPTH = 10

FORGET_USER = "mutation($u: ID!) { forgetUser(userId: $u) }"
REMEMBER_MANY = """mutation($inputs: [MemoryInput!]!) { rememberMany(inputs: $inputs) { id } }"""
CONTEXT = """query($user: ID!, $message: String!, $asOf: DateTime, $max: Int, $profile: String!,
      $minScore: Float, $minConfidence: Float) {
  context(userId: $user, message: $message, asOf: $asOf, maxMemories: $max, profile: $profile,
          minScore: $minScore, minConfidence: $minConfidence) {
    confidence conflicts { asked }
    memories { via memory { externalId } }
  }
}"""


@dataclass
class Turn:
    dia_id: str
    speaker: str
    text: str
    session: str
    occurred_at: str


@dataclass
class Question:
    text: str
    evidence: list[str]
    category: int
    key: str = ""  # "<file stem>:<position in its qa list>" (bench/reworded.py)


@dataclass
class Conversation:
    user: str
    turns: list[Turn]
    questions: list[Question]
    as_of: str


def parse_when(value: str) -> str:
    """'1:56 pm on 8 May, 2023' -> ISO 8601 (UTC)."""
    stamp = datetime.strptime(value.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
    return stamp.isoformat()


def load(path: Path, adversarial: bool = False) -> Conversation:
    """The conversation and its questions of categories 1-4, and of category 5 with
    `adversarial`."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    sessions = sorted(
        (int(m.group(1)) for k in raw if (m := re.fullmatch(r"session_(\d+)", k))),
    )
    turns: list[Turn] = []
    last = ""
    for n in sessions:
        when = parse_when(raw[f"session_{n}_date_time"])
        last = max(last, when)
        for turn in raw[f"session_{n}"]:
            text = turn["text"]
            if turn.get("blip_caption"):
                text += f" [shares {turn['blip_caption']}]"
            turns.append(Turn(turn["dia_id"], turn["speaker"], text, f"session_{n}", when))
    questions = [
        Question(q["question"], list(q["evidence"]), int(q["category"]), f"{path.stem}:{n}")
        for n, q in enumerate(raw["qa"])
        if (int(q["category"]) in CATEGORIES or (adversarial and int(q["category"]) == ADVERSARIAL))
        and q.get("evidence")
    ]
    return Conversation(f"locomo-{path.stem}", turns, questions, last)


Judged = tuple[bool, float, bool, bool]  # answerable?, confidence, no memory, a [NOTE]


def judgement(answerable: bool, block: dict[str, Any]) -> Judged:
    return (answerable, block["confidence"], not block["memories"], bool(block["conflicts"]))


# -- metrics -------------------------------------------------------------------------------------


@dataclass
class Scores:
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    all8: list[float] = field(default_factory=list)

    def add(self, ranked: list[str], evidence: list[str]) -> None:
        wanted = set(evidence)
        for k in KS:
            self.recall[k].append(len(wanted & set(ranked[:k])) / len(wanted))
        self.all8.append(1.0 if wanted <= set(ranked[:8]) else 0.0)

    def row(self) -> list[float]:
        return [statistics.fmean(self.recall[k]) for k in KS] + [statistics.fmean(self.all8)]


@dataclass
class Method:
    name: str
    overall: Scores = field(default_factory=Scores)
    by_category: dict[int, Scores] = field(default_factory=lambda: defaultdict(Scores))
    # per conversation: a lever that helps only the conversations it was written on shows here
    by_conversation: dict[str, Scores] = field(default_factory=lambda: defaultdict(Scores))

    # evidence hits in the top 8, and those found only through the graph (a seed's or expanded
    # entity's memories, a cued relation's evidence) — not by similarity, BM25 or adjacency
    hits: int = 0
    graph_only: int = 0

    # per question asked: answerable?, the block's confidence, no memory in it, a [NOTE] in it
    judged: list[Judged] = field(default_factory=list)
    # ... and of the questions unanswerable by construction
    constructed: list[Judged] = field(default_factory=list)

    def add(
        self, category: int, ranked: list[str], evidence: list[str], conversation: str = ""
    ) -> None:
        self.overall.add(ranked, evidence)
        self.by_category[category].add(ranked, evidence)
        self.by_conversation[conversation].add(ranked, evidence)

    def judge(self, answerable: bool, block: dict[str, Any]) -> None:
        self.judged.append(judgement(answerable, block))

    def count_graph_only(self, top: list[dict[str, Any]], evidence: list[str]) -> None:
        for found in top:
            if found["memory"]["externalId"] not in evidence:
                continue
            self.hits += 1
            via = found["via"]
            graph = any(v.startswith(("entity:", "expanded:", "relation:")) for v in via)
            other = any(v in {"similarity", "lexical"} or v.startswith("neighbour") for v in via)
            self.graph_only += graph and not other


def auroc(positive: list[float], negative: list[float]) -> float:
    """The chance that a random positive scores above a random negative (ties count half): how
    well a confidence separates answerable from unanswerable questions."""
    if not positive or not negative:
        return float("nan")
    wins = 0.0
    for p in positive:
        for n in negative:
            wins += 1.0 if p > n else 0.5 if p == n else 0.0
    return wins / (len(positive) * len(negative))


def report_judged(judged: dict[str, list[Judged]], unanswerable: str) -> None:
    """Confidence AUROC, and what the blocks of answerable and unanswerable questions held."""
    print(f"\nconfidence, relevance floor and notes (answerable vs {unanswerable}):\n")
    print("| method | AUROC | unanswerable: empty / noted / either | answerable: empty / noted |")
    print("|---|---|---|---|")
    for name, rows in judged.items():
        if not rows:
            continue
        yes = [j for j in rows if j[0]]
        no = [j for j in rows if not j[0]]
        score = auroc([j[1] for j in yes], [j[1] for j in no])

        def share(part: list[Judged], test: Callable[[Judged], bool]) -> str:
            return f"{sum(1 for r in part if test(r)) / len(part):.3f}" if part else "-"

        print(
            f"| {name} | {score:.3f} | "
            f"{share(no, lambda r: r[2])} / {share(no, lambda r: r[3])} / "
            f"{share(no, lambda r: r[2] or r[3])} | "
            f"{share(yes, lambda r: r[2])} / {share(yes, lambda r: r[3])} |"
        )


# -- baselines -----------------------------------------------------------------------------------


def baseline_text(turn: Turn) -> str:
    return f"{turn.speaker}: {turn.text}"


class Baselines:
    """BM25 (bm25s, English stopwords), dense MiniLM (FAISS flat IP) and their RRF (k = 60)."""

    def __init__(self, conversation: Conversation, embed: Callable[[list[str]], np.ndarray]):
        import bm25s
        import faiss

        self.ids = [t.dia_id for t in conversation.turns]
        corpus = [baseline_text(t) for t in conversation.turns]
        self.bm25 = bm25s.BM25()
        self.bm25.index(
            bm25s.tokenize(corpus, stopwords="en", show_progress=False), show_progress=False
        )
        vectors = embed(corpus)
        self.index = faiss.IndexFlatIP(vectors.shape[1])
        self.index.add(vectors)
        self.embed = embed

    def lexical(self, question: str, k: int) -> list[str]:
        import bm25s

        tokens = bm25s.tokenize([question], stopwords="en", show_progress=False)
        k = min(k, len(self.ids))
        docs, _ = self.bm25.retrieve(tokens, k=k, show_progress=False)
        return [self.ids[int(i)] for i in docs[0]]

    def dense(self, question: str, k: int) -> list[str]:
        _, found = self.index.search(self.embed([question]), k)
        return [self.ids[int(i)] for i in found[0] if i >= 0]

    @staticmethod
    def rrf(*rankings: list[str], k: int = 60) -> list[str]:
        scores: dict[str, float] = defaultdict(float)
        for ranking in rankings:
            for rank, item in enumerate(ranking):
                scores[item] += 1.0 / (k + rank + 1)
        return sorted(scores, key=lambda i: -scores[i])


# -- the service ---------------------------------------------------------------------------------


class Client:
    def __init__(
        self,
        post: Callable[[str, dict[str, Any]], dict[str, Any]],
        metrics: Callable[[], str] | None = None,
    ) -> None:
        self.post = post
        self.metrics = metrics  # the /metrics text of an in-process service

    def call(self, query: str, **variables: Any) -> dict[str, Any]:
        body = self.post(query, variables)
        if body.get("errors"):
            raise RuntimeError(f"GraphQL error: {body['errors'][0]}")
        return dict(body["data"])


def ingest(client: Client, conversation: Conversation, batch: int) -> list[str]:
    """Every turn as one memory through rememberMany, in batches, as the README's protocol says;
    the memory ids in turn order."""
    ids: list[str] = []
    inputs = [
        {
            "userId": conversation.user,
            "text": t.text,
            "speaker": t.speaker,
            "occurredAt": t.occurred_at,
            "sessionId": t.session,
            "externalId": t.dia_id,
        }
        for t in conversation.turns
    ]
    for start in range(0, len(inputs), batch):
        made = client.call(REMEMBER_MANY, inputs=inputs[start : start + batch])
        ids += [m["id"] for m in made["rememberMany"]]
    return ids


def conversation_files(data: str, only: str | None = None) -> list[Path]:
    """The LoCoMo files in `data`, or those whose stems `only` lists (e.g. "26,30"); exits with a
    message when there are none."""
    files = sorted(Path(data).glob("*.json"))
    if only:
        files = [f for f in files if f.stem in set(only.split(","))]
    if not files:
        sys.exit(f"no conversations in {data}")
    return files


@contextmanager
def service(
    url: str | None, **settings: Any
) -> Iterator[tuple[Client, Callable[[list[str]], np.ndarray], Any]]:
    """A client of the service at `url`, or of one started in-process on a temporary data
    directory with `settings` (then its runtime comes along, for benches that read the graph);
    and an embedder."""
    from extraction.embedder import MODEL_TOKENS, Embedder

    if url:
        import httpx

        http = httpx.Client(timeout=300)
        embedder = Embedder(max_tokens=MODEL_TOKENS)
        try:
            yield (
                Client(lambda q, v: http.post(url, json={"query": q, "variables": v}).json()),
                (embedder.embed),
                None,
            )
        finally:
            http.close()
        return
    from starlette.testclient import TestClient

    from api.app import create_app
    from api.settings import Settings

    with tempfile.TemporaryDirectory(prefix="recollect-locomo-") as tmp:
        config = Settings(data_dir=Path(tmp), max_batch=1_000, **settings)
        with TestClient(create_app(config)) as client:
            runtime = client.app.state.starting.runtime()  # type: ignore[attr-defined]

            def post(query: str, variables: dict[str, Any]) -> dict[str, Any]:
                return dict(
                    client.post("/graphql", json={"query": query, "variables": variables}).json()
                )

            def metrics() -> str:
                return client.get("/metrics").text

            yield Client(post, metrics), baseline_embed(runtime.service.models.embedder), runtime


def baseline_embed(service_embedder: Any) -> Callable[[list[str]], np.ndarray]:
    """The dense baseline's embedder: the model as it is configured (MODEL_TOKENS word pieces),
    the service's own when it embeds the same way, else a second copy — so that a change to how
    the service embeds long texts never moves the baseline."""
    from extraction.embedder import MODEL_TOKENS, Embedder

    if service_embedder.max_tokens == MODEL_TOKENS:
        return service_embedder.embed  # type: ignore[no-any-return]
    return Embedder(max_tokens=MODEL_TOKENS).embed


# -- the run -------------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> None:
    files = conversation_files(args.data, args.only)
    conversations = [load(p, adversarial=True) for p in files]
    if args.reworded:
        from reworded import reworded_questions

        for conversation in conversations:
            conversation.questions = reworded_questions(conversation.questions, args.reworded)
    profiles = args.profiles.split(",")
    names = [f"recollect ({p})" for p in profiles] + [f"recollect ({profiles[0]}, no floor)"]
    methods = {name: Method(name) for name in names + ["BM25", "dense MiniLM", "hybrid RRF"]}
    ingest_seconds = 0.0
    latencies: list[float] = []
    turns_total = sum(len(c.turns) for c in conversations)
    from probe import Probes, settled  # bench/ is on the path when run; tests import it bare

    probes = Probes(args.signals, args.rankings)
    if (args.signals or args.rankings) and args.url:
        sys.exit("--signals needs the in-process service (no --url)")
    with service(args.url, **graph_settings(args)) as (client, embed, runtime):
        for conversation in conversations:
            started = time.perf_counter()
            ingest(client, conversation, args.batch)
            ingest_seconds += time.perf_counter() - started
            if probes.wanted and runtime is not None:
                settled(runtime, conversation.user)
            base = Baselines(conversation, embed)
            for question in conversation.questions + constructed(conversation, args.unanswerable):
                ask(client, conversation, question, profiles, methods, latencies)
                row = {
                    "user": conversation.user,
                    "question": question.text,
                    "as_of": conversation.as_of,
                    "category": question.category,
                    "answerable": question.category not in (ADVERSARIAL, CONSTRUCTED),
                    "evidence": question.evidence,
                }
                probes.add(runtime, row, None, DEPTH)
                if question.category in (ADVERSARIAL, CONSTRUCTED):
                    continue
                lexical = base.lexical(question.text, 100)
                dense = base.dense(question.text, 100)
                user = conversation.user
                methods["BM25"].add(question.category, lexical, question.evidence, user)
                methods["dense MiniLM"].add(question.category, dense, question.evidence, user)
                fused = Baselines.rrf(lexical, dense)
                methods["hybrid RRF"].add(question.category, fused, question.evidence, user)
            print(
                f"  {conversation.user}: {len(conversation.turns)} turns, "
                f"{len(conversation.questions)} questions",
                file=sys.stderr,
            )
            if args.clean:
                client.call(FORGET_USER, u=conversation.user)
        statements = statements_per_call(client)
        if args.graph_uri:  # the run's namespace on a server that outlives it
            for conversation in conversations:
                client.call(FORGET_USER, u=conversation.user)
    print(f"\nengine: {engine_name(args, runtime)}")
    report(methods, turns_total, ingest_seconds, latencies, len(conversations))
    report_judged({m.name: m.judged for m in methods.values()}, "category 5")
    if args.unanswerable:
        answerable = {
            m.name: [j for j in m.judged if j[0]] + m.constructed for m in methods.values()
        }
        report_judged(answerable, "unanswerable by construction (bench/unanswerable.py)")
    if statements is not None:
        print(f"graph statements per context call: {statements:.2f} (mean)")


def constructed(conversation: Conversation, wanted: bool) -> list[Question]:
    """The questions about the conversation's people it never answers (bench/unanswerable.py)."""
    if not wanted:
        return []
    from unanswerable import third_person

    people = sorted({t.speaker for t in conversation.turns})
    asked = third_person((t.text for t in conversation.turns), people)
    return [Question(text, [], CONSTRUCTED) for text in asked]


def ask(
    client: Client,
    conversation: Conversation,
    question: Question,
    profiles: list[str],
    methods: dict[str, Method],
    latencies: list[float],
) -> None:
    """One context call per profile (and the first profile's again without its relevance floor):
    recall of categories 1-4, and every question's confidence, emptiness and notes."""
    calls: list[tuple[str, float | None, str]] = [(p, None, f"recollect ({p})") for p in profiles]
    calls.append((profiles[0], 0.0, f"recollect ({profiles[0]}, no floor)"))
    for profile, floor, name in calls:
        began = time.perf_counter()
        data = client.call(
            CONTEXT,
            user=conversation.user,
            message=question.text,
            asOf=conversation.as_of,
            max=DEPTH,
            profile=profile,
            minScore=floor,
            minConfidence=floor,
        )
        block = data["context"]
        method = methods[name]
        if question.category == CONSTRUCTED:
            method.constructed.append(judgement(False, block))
            continue
        answerable = question.category != ADVERSARIAL
        method.judge(answerable, block)
        if not answerable:
            continue
        if floor is None:
            latencies.append(time.perf_counter() - began)
        found = block["memories"]
        ranked = [m["memory"]["externalId"] for m in found]
        method.add(question.category, ranked, question.evidence, conversation.user)
        method.count_graph_only(found[:8], question.evidence)


def graph_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The in-process service's graph: the embedded engine, or the server of --graph-uri in a
    namespace of this run's own."""
    if not args.graph_uri:
        return {}
    return {
        "graph_uri": args.graph_uri,
        "graph_user": args.graph_user,
        "graph_password": args.graph_password,
        "namespace": f"locomo-{secrets.token_hex(4)}",
    }


def engine_name(args: argparse.Namespace, runtime: Any) -> str:
    if runtime is None:
        return f"the service at {args.url}"
    where = f" at {args.graph_uri}" if args.graph_uri else ""
    return f"{runtime.engine_kind}{where}"


def statements_per_call(client: Client) -> float | None:
    """Mean graph statements (round trips on Bolt) per `context` request, from the in-process
    service's metrics (`recollect_graph_statements`); None for a service elsewhere."""
    if client.metrics is None:
        return None
    from prometheus_client.parser import text_string_to_metric_families

    totals: dict[str, float] = {}
    for family in text_string_to_metric_families(client.metrics()):
        for sample in family.samples:
            if sample.name.startswith("recollect_graph_statements_") and (
                sample.labels.get("operation") == "context"
            ):
                totals[sample.name.rsplit("_", 1)[1]] = sample.value
    count = totals.get("count", 0.0)
    return totals.get("sum", 0.0) / count if count else None


def report(
    methods: dict[str, Method],
    turns: int,
    ingest: float,
    latencies: list[float],
    conversations: int,
) -> None:
    questions = len(next(iter(methods.values())).overall.all8)
    print(
        f"\nLoCoMo dev split: {conversations} conversations, {turns} turns, "
        f"{questions} questions (categories 1-4)\n"
    )
    print("| method | R@5 | R@8 | R@10 | all@8 |")
    print("|---|---|---|---|---|")
    for method in methods.values():
        print(f"| {method.name} | " + " | ".join(f"{v:.3f}" for v in method.overall.row()) + " |")
    print("\nR@8 per category (" + " / ".join(CATEGORIES.values()) + "):\n")
    print("| method | " + " | ".join(CATEGORIES.values()) + " |")
    print("|---|" + "---|" * len(CATEGORIES))
    for method in methods.values():
        cells = []
        for category in CATEGORIES:
            scores = method.by_category.get(category)
            cells.append(f"{statistics.fmean(scores.recall[8]):.3f}" if scores else "-")
        print(f"| {method.name} | " + " | ".join(cells) + " |")
    users = sorted({u for m in methods.values() for u in m.by_conversation})
    print("\nR@8 per conversation:\n")
    print("| method | " + " | ".join(users) + " |")
    print("|---|" + "---|" * len(users))
    for method in methods.values():
        cells = [f"{statistics.fmean(method.by_conversation[u].recall[8]):.3f}" for u in users]
        print(f"| {method.name} | " + " | ".join(cells) + " |")
    print("\ngraph-only evidence hits in the top 8 (found by no similarity, BM25 or adjacency):")
    for method in methods.values():
        if method.hits:
            share = method.graph_only / method.hits
            print(f"  {method.name}: {method.graph_only} of {method.hits} hits ({share:.3f})")
    ordered = sorted(latencies)
    p50 = ordered[len(ordered) // 2] * 1000
    p95 = ordered[int(len(ordered) * 0.95)] * 1000
    print(
        f"\ningest: {turns / ingest:.1f} turns/s ({ingest:.1f} s through rememberMany); "
        f"context latency p50 {p50:.0f} ms, p95 {p95:.0f} ms over {len(latencies)} calls"
    )


def main() -> None:
    from probe import add_probe_arguments  # bench/ is on the path when run

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="LoCoMo folder (*.json)")
    parser.add_argument("--url", help="GraphQL endpoint of a running service")
    parser.add_argument("--only", help="comma-separated file stems, e.g. 26,30")
    parser.add_argument(
        "--profiles", default="default,nograph,spec", help="comma-separated presets"
    )
    parser.add_argument("--batch", type=int, default=128, help="rememberMany batch size")
    parser.add_argument("--clean", action="store_true", help="forgetUser after each conversation")
    parser.add_argument(
        "--graph-uri",
        default=os.environ.get("RECOLLECT_GRAPH_URI") or None,
        help="graph server of the in-process service: bolt://HOST:7687 (Neo4j) or "
        "falkordb://HOST:PORT/GRAPH (default RECOLLECT_GRAPH_URI; none: the embedded engine)",
    )
    parser.add_argument(
        "--graph-user",
        default=os.environ.get("RECOLLECT_GRAPH_USER") or None,
        help="default RECOLLECT_GRAPH_USER",
    )
    parser.add_argument(
        "--graph-password",
        default=os.environ.get("RECOLLECT_GRAPH_PASSWORD") or None,
        help="default RECOLLECT_GRAPH_PASSWORD",
    )
    parser.add_argument(
        "--ablate",
        nargs="?",
        const="all",
        help="also run `default` without each lever of bench/ablations.py (or the comma-separated "
        "levers named), in-process service only",
    )
    parser.add_argument(
        "--reworded",
        choices=("as-written", "reworded"),
        help="ask only the questions of bench/reworded.py's set, as written or in other words",
    )
    add_probe_arguments(parser)
    args = parser.parse_args()
    if args.url and args.graph_uri:
        parser.error("--graph-uri configures the in-process service; --url names another one")
    if args.ablate:
        from ablations import register

        levers = None if args.ablate == "all" else args.ablate.split(",")
        args.profiles += "," + ",".join(register(levers))
    run(args)


if __name__ == "__main__":
    main()
