"""Turn-level evidence recall on LongMemEval_S dev through the GraphQL API, beside BM25, dense and
RRF baselines on the same turns, per question type.

Protocol (../shared/data/longmemeval-dev/README.md): one user per question; every haystack turn is
one memory (text cut at 20,000 characters, speaker User/Assistant, sessionId = the haystack
session, occurredAt = the session's date plus j seconds for the j-th turn, externalId =
"<session>:<turn>"), ingested through rememberMany; one `context` per question (message = the
question, speaker = "User": the user asks it, as an agent passes who is talking; asOf =
question_date, maxMemories = 10). The same question asked without a speaker is scored too, as
"recollect, no speaker", to show what knowing the asker adds in the same run. `_abs` questions
and questions without an evidence turn are skipped. The `answer`, `has_answer` and
`answer_session_ids` fields are read by this bench only, to score.

Ingest is the slow part (long assistant replies: one to two minutes per question here), so the
service's data directory is kept outside the repository, keyed by a hash of the ingest code
(extraction/, cypher/, graph/ without the retrieval modules) and the models: a rerun with the same
ingest code only asks the questions; changing the ingest code starts a new cache. The baselines'
vectors are cached by embedding model. `--fresh` ignores both caches.

Questions are taken in a fixed order that interleaves the types (each type by question id), so
`--n 50` is the same 50 questions every time and covers every type.

    python bench/longmemeval.py [--n 50] [--types temporal-reasoning,knowledge-update]
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import zip_longest
from pathlib import Path
from typing import Any

import numpy as np
from locomo import (
    Baselines,
    Client,
    Conversation,
    Judged,
    Turn,
    baseline_embed,
    ingest,
    judgement,
    report_judged,
)
from machine import describe
from probe import Probes, add_probe_arguments
from unanswerable import first_person

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "longmemeval-dev" / "longmemeval_s_dev.json.gz"
DEFAULT_CACHE = Path(
    os.environ.get("RECOLLECT_BENCH_CACHE", Path.home() / ".cache" / "recollect-bench")
)
# modules of graph/ that do not change what ingest writes (retrieval, export)
RETRIEVAL_ONLY = {
    "block.py",
    "retrieval.py",
    "scoring.py",
    "stages.py",
    "tense.py",
    "export.py",
    "lookup.py",
    "candidates.py",
    "request.py",
    "window.py",
    "memory_facts.py",  # the in-process copy of what was written: never changes what is stored
    "features.py",
    "ranker.py",
    "walk.py",
}
MAX_CHARS = 20_000
DEPTH = 10
KS = (5, 10)

ASKER = "User"
MODES = ("as the user", "as written")
# the service's calls per question: the asker named, not named, and named without the relevance
# floor (minScore 0: the ranking as it was before the floor)
CALLS: tuple[tuple[str, str | None, float | None], ...] = (
    ("recollect", ASKER, None),
    ("recollect, no speaker", None, None),
    ("recollect, no floor", ASKER, 0.0),
)
CONTEXT = """query($user: ID!, $message: String!, $speaker: String, $asOf: DateTime, $max: Int,
      $minScore: Float, $minConfidence: Float, $profile: String! = "default") {
  context(userId: $user, message: $message, speaker: $speaker, asOf: $asOf, maxMemories: $max,
          minScore: $minScore, minConfidence: $minConfidence, profile: $profile) {
    confidence conflicts { asked }
    memories { memory { externalId } }
  }
}"""


@dataclass
class Question:
    qid: str
    kind: str
    text: str
    as_of: str
    turns: list[Turn]
    evidence: set[str]
    sessions: set[str]

    @property
    def unanswerable(self) -> bool:
        """An abstention question: about something the history never says."""
        return self.qid.endswith("_abs")

    @property
    def user(self) -> str:
        return f"lme-{self.qid}"

    @property
    def key(self) -> str:
        """How bench/reworded.py names the question."""
        return self.qid

    @property
    def answered_later(self) -> bool:
        """Some evidence turn was said after the question's time (the same day, later hour):
        context shows it only within its clock skew (RetrievalConfig.clock_skew_hours); the
        baselines ignore time."""
        asked = datetime.fromisoformat(self.as_of)
        return any(
            datetime.fromisoformat(t.occurred_at) > asked
            for t in self.turns
            if t.dia_id in self.evidence
        )


def parse_date(value: str) -> datetime:
    """'2023/05/20 (Sat) 02:21' -> an aware datetime (UTC)."""
    day, _, clock = value.split(" ")
    return datetime.strptime(f"{day} {clock}", "%Y/%m/%d %H:%M").replace(tzinfo=UTC)


def load(path: Path, abstention: bool = False) -> list[Question]:
    """Every scorable question (not `_abs`, with at least one evidence turn); with `abstention`,
    the `_abs` questions too (they have no evidence turn)."""
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        raw = json.load(handle)
    questions: list[Question] = []
    for item in raw:
        unanswerable = item["question_id"].endswith("_abs")
        if unanswerable and not abstention:
            continue
        turns: list[Turn] = []
        evidence: set[str] = set()
        for session, date, messages in zip(
            item["haystack_session_ids"],
            item["haystack_dates"],
            item["haystack_sessions"],
            strict=True,
        ):
            start = parse_date(date)
            for j, message in enumerate(messages):
                turn_id = f"{session}:{j}"
                when = (start + timedelta(seconds=j)).isoformat()
                speaker = "User" if message["role"] == "user" else "Assistant"
                text = message["content"][:MAX_CHARS]
                if text.strip():  # an empty turn is no memory (the API refuses it)
                    turns.append(Turn(turn_id, speaker, text, session, when))
                if message.get("has_answer"):
                    evidence.add(turn_id)
        if not evidence and not unanswerable:
            continue
        questions.append(
            Question(
                item["question_id"],
                item["question_type"],
                item["question"],
                parse_date(item["question_date"]).isoformat(),
                turns,
                evidence,
                set(item["answer_session_ids"]),
            )
        )
    return questions


def ordered(questions: list[Question]) -> list[Question]:
    """Types interleaved, each by question id: any prefix covers the types evenly."""
    by_kind: dict[str, list[Question]] = defaultdict(list)
    for question in sorted(questions, key=lambda q: q.qid):
        by_kind[question.kind].append(question)
    rounds = zip_longest(*(by_kind[k] for k in sorted(by_kind)))
    return [q for row in rounds for q in row if q is not None]


def ingest_key() -> str:
    """A hash of the code that decides what ingest writes, of the pinned models, and of the
    installed spaCy and torch: spaCy's release alone moved 14 in 2,000 extractions (its
    lemmatizer changed in 3.8.9; docs/performance.md "The parse's own speed")."""
    from importlib.metadata import version

    digest = hashlib.sha256()
    for package in ("spacy", "thinc", "torch", "sentence-transformers"):
        digest.update(f"{package}=={version(package)}".encode())
    files = [*ROOT.glob("extraction/**/*.py"), *ROOT.glob("cypher/*.cypher")]
    files += [p for p in ROOT.glob("graph/**/*.py") if p.name not in RETRIEVAL_ONLY]
    files.append(ROOT / "requirements" / "models.txt")
    for path in sorted(files):
        digest.update(str(path.relative_to(ROOT)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# -- metrics -------------------------------------------------------------------------------------


@dataclass
class Scores:
    recall: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    all10: list[float] = field(default_factory=list)
    session_hit: list[float] = field(default_factory=list)

    def add(self, ranked: list[str], question: Question) -> None:
        for k in KS:
            found = question.evidence & set(ranked[:k])
            self.recall[k].append(len(found) / len(question.evidence))
        self.all10.append(1.0 if question.evidence <= set(ranked[:DEPTH]) else 0.0)
        sessions = {r.rsplit(":", 1)[0] for r in ranked[:DEPTH]}
        self.session_hit.append(len(question.sessions & sessions) / len(question.sessions))

    def row(self) -> list[float]:
        columns = [self.recall[k] for k in KS] + [self.all10, self.session_hit]
        return [statistics.fmean(c) for c in columns]


@dataclass
class Method:
    name: str
    overall: Scores = field(default_factory=Scores)
    by_kind: dict[str, Scores] = field(default_factory=lambda: defaultdict(Scores))

    def add(self, question: Question, ranked: list[str]) -> None:
        self.overall.add(ranked, question)
        self.by_kind[question.kind].add(ranked, question)


# -- caches --------------------------------------------------------------------------------------


class Manifest:
    """The users whose ingest completed in this cache directory (written after each user)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.users: dict[str, dict[str, float]] = (
            json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
        )

    def done(self, user: str, turns: int, seconds: float) -> None:
        self.users[user] = {"turns": turns, "seconds": seconds}
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps(self.users, indent=1), encoding="utf-8")
        tmp.replace(self.path)


def vector_path(cache: Path, question: Question, model: str) -> Path:
    slug = hashlib.sha256(model.encode()).hexdigest()[:12]
    return cache / "baseline-vectors" / slug / f"{question.qid}.npy"


def baseline_vectors(path: Path, question: Question, embed: Any) -> np.ndarray:
    """The dense baseline's corpus vectors: cached, or embedded here."""
    if not path.exists():
        vectors = embed([f"{t.speaker}: {t.text}" for t in question.turns])
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, vectors)
    return np.asarray(np.load(path))


# -- the run -------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        default=str(DEFAULT_DATA),
        help="longmemeval_s_dev.json.gz, or the validation split longmemeval_s_val.json.gz",
    )
    parser.add_argument("--n", type=int, default=50, help="questions, in the fixed order")
    parser.add_argument("--types", help="comma-separated question types")
    parser.add_argument("--batch", type=int, default=128, help="rememberMany batch size")
    parser.add_argument("--cache", default=str(DEFAULT_CACHE), help="cache directory")
    parser.add_argument("--fresh", action="store_true", help="ingest again, embed again")
    parser.add_argument(
        "--dump", help="write each question's ranked ids per method and its evidence to this JSON"
    )
    parser.add_argument(
        "--data-dir",
        help="use this ingest cache instead of the current code's (one made by a version whose "
        "ingest differs only in ways you can vouch for); missing users are ingested into it",
    )
    parser.add_argument(
        "--no-abstention", action="store_true", help="skip the _abs questions (confidence only)"
    )
    parser.add_argument(
        "--profiles",
        default="",
        help="comma-separated presets run besides `default`, as the user and as written",
    )
    parser.add_argument(
        "--ablate",
        nargs="?",
        const="all",
        help="also run `default` without each lever of bench/ablations.py (or the comma-separated "
        "levers named): the ablation table",
    )
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated question ids left out (printed): one whose ingest fails",
    )
    parser.add_argument(
        "--reworded",
        choices=("as-written", "reworded"),
        help="ask only the questions of bench/reworded.py's set (instead of --n and the _abs "
        "ones), as written or in other words",
    )
    add_probe_arguments(parser)
    args = parser.parse_args()
    variants = [p for p in args.profiles.split(",") if p]
    if args.ablate:
        from ablations import register

        variants += register(None if args.ablate == "all" else args.ablate.split(","))

    everything = load(Path(args.data), abstention=True)
    questions = ordered([q for q in everything if not q.unanswerable])
    if args.types:
        wanted = set(args.types.split(","))
        questions = [q for q in questions if q.kind in wanted]
    # the same prefix of answerable questions as before abstention questions were asked, then
    # every abstention question of the file (a handful): they measure the confidence and floor
    questions = questions[: args.n]
    if args.reworded:
        from reworded import reworded_questions

        questions = reworded_questions(ordered(everything), args.reworded, "longmemeval")
    elif not args.no_abstention:
        questions += sorted((q for q in everything if q.unanswerable), key=lambda q: q.qid)
    skipped = set(args.skip.split(",")) - {""}
    if skipped:
        questions = [q for q in questions if q.qid not in skipped]
        print(f"left out: {', '.join(sorted(skipped))}")
    if not questions:
        sys.exit("no questions selected")
    cache = Path(args.cache) / "longmemeval"
    data_dir = Path(args.data_dir) if args.data_dir else cache / f"ingest-{ingest_key()}"
    if args.fresh and data_dir.exists():
        import shutil

        shutil.rmtree(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    manifest = Manifest(data_dir / "users.json")
    print(f"cache: {data_dir}", file=sys.stderr)

    from starlette.testclient import TestClient

    from api.app import create_app
    from api.settings import Settings
    from extraction.embedder import MODEL_TOKENS

    names = (*(c[0] for c in CALLS), "BM25", "dense MiniLM", "hybrid RRF")
    methods = {n: Method(n) for n in names}
    judged: dict[str, list[Judged]] = {c[0]: [] for c in CALLS}
    constructed: dict[str, list[Judged]] = {c[0]: [] for c in CALLS}
    # each variant preset, as the user and as written
    ablated = {(v, mode): Method(f"{v}, {mode}") for v in variants for mode in MODES}
    latencies: list[float] = []
    dumped: list[dict[str, Any]] = []
    fresh_turns, fresh_seconds = 0, 0.0
    probes = Probes(args.signals, args.rankings)
    settings = Settings(data_dir=data_dir, max_batch=1_000)
    with TestClient(create_app(settings)) as http:
        runtime = http.app.state.starting.runtime()  # type: ignore[attr-defined]
        # the baseline's corpus vectors: the model as configured, cached per model and length
        model = f"{runtime.service.models.embedder.model_id}@{MODEL_TOKENS}"
        same = runtime.service.models.embedder.max_tokens == MODEL_TOKENS
        embed_baseline = baseline_embed(runtime.service.models.embedder)
        client = Client(
            lambda q, v: dict(http.post("/graphql", json={"query": q, "variables": v}).json())
        )
        for n, question in enumerate(questions, 1):
            conversation = Conversation(question.user, question.turns, [], question.as_of)
            if question.user not in manifest.users:
                client.call("mutation($u: ID!) { forgetUser(userId: $u) }", u=question.user)
                started = time.perf_counter()
                ids = ingest(client, conversation, args.batch)
                # sessions left idle are ended (episodes written) off the request path: that work
                # is part of ingest, so it is waited for and timed too
                runtime.service.drain()
                seconds = time.perf_counter() - started
                # the service embedded exactly the baseline's "Speaker: text" with the same
                # model: its stored vectors are the dense baseline's corpus, not embedded twice
                stored = runtime.vectors.vectors(question.user, ids) if same else {}
                if len(stored) == len(ids):
                    path = vector_path(Path(args.cache), question, model)
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.save(path, np.stack([stored[i] for i in ids]))
                manifest.done(question.user, len(question.turns), seconds)
                fresh_turns += len(question.turns)
                fresh_seconds += seconds
            row = {
                "user": question.user,
                "question": question.text,
                "as_of": question.as_of,
                "category": question.kind,
                "answerable": not question.unanswerable,
                "evidence": sorted(question.evidence),
            }
            probes.add(runtime, row, ASKER, DEPTH)
            if args.unanswerable:
                for asked in first_person(t.text for t in question.turns):
                    never = replace(question, text=asked, evidence=set())
                    probes.add(runtime, row | {"question": asked, "answerable": False,
                                               "category": "constructed", "evidence": []}, ASKER,
                               DEPTH)  # fmt: skip
                    for name, speaker, floor in CALLS:
                        data = ask(client, never, speaker, minScore=floor, minConfidence=floor)
                        constructed[name].append(judgement(False, data["context"]))
            ranks: dict[str, list[str]] = {}
            for name, speaker, floor in CALLS:
                began = time.perf_counter()
                data = ask(client, question, speaker, minScore=floor, minConfidence=floor)
                judged[name].append(judgement(not question.unanswerable, data["context"]))
                if question.unanswerable:
                    continue
                if name == "recollect":
                    latencies.append(time.perf_counter() - began)
                ranks[name] = [m["memory"]["externalId"] for m in data["context"]["memories"]]
                methods[name].add(question, ranks[name])
            if question.unanswerable:
                print(f"  {n}/{len(questions)} {question.qid} (abstention)", file=sys.stderr)
                continue
            for variant in variants:
                for mode, speaker in zip(MODES, (ASKER, None), strict=True):
                    data = ask(client, question, speaker, profile=variant)
                    got = [m["memory"]["externalId"] for m in data["context"]["memories"]]
                    ablated[(variant, mode)].add(question, got)
            vectors = baseline_vectors(
                vector_path(Path(args.cache), question, model), question, embed_baseline
            )
            # the corpus vectors come from the cache; questions are embedded as they come
            base = Baselines(conversation, lambda _texts, v=vectors: v)
            base.embed = embed_baseline
            lexical = base.lexical(question.text, 100)
            dense = base.dense(question.text, 100)
            methods["BM25"].add(question, lexical)
            methods["dense MiniLM"].add(question, dense)
            fused = Baselines.rrf(lexical, dense)
            methods["hybrid RRF"].add(question, fused)
            ranks |= {"BM25": lexical[:DEPTH], "dense MiniLM": dense[:DEPTH]}
            ranks["hybrid RRF"] = fused[:DEPTH]
            dumped.append(
                {
                    "qid": question.qid,
                    "kind": question.kind,
                    "question": question.text,
                    "as_of": question.as_of,
                    "evidence": sorted(question.evidence),
                    "sessions": sorted(question.sessions),
                    "answered_later": question.answered_later,
                    "ranked": ranks,
                }
            )
            print(f"  {n}/{len(questions)} {question.qid} ({question.kind})", file=sys.stderr)
        if args.dump:
            Path(args.dump).write_text(json.dumps(dumped, indent=1), encoding="utf-8")
        # printed before the service closes: closing flushes every user's index
        split = Path(args.data).name.removesuffix(".json.gz")
        answerable = [q for q in questions if not q.unanswerable]
        report(split, methods, answerable, latencies, fresh_turns, fresh_seconds)
        abstaining = len(questions) - len(answerable)
        report_judged(judged, f"{abstaining} _abs questions")
        if args.unanswerable:
            both = {n: [j for j in judged[n] if j[0]] + constructed[n] for n in judged}
            report_judged(both, "unanswerable by construction (bench/unanswerable.py)")
        if variants:
            report_variants(methods, ablated, variants)
        sys.stdout.flush()


def report(
    split: str,
    methods: dict[str, Method],
    questions: list[Question],
    latencies: list[float],
    fresh_turns: int,
    fresh_seconds: float,
) -> None:
    turns = sum(len(q.turns) for q in questions)
    kinds = sorted({q.kind for q in questions})
    print(
        f"\n{split}: {len(questions)} questions, {turns} turns "
        f"({', '.join(f'{k} {sum(q.kind == k for q in questions)}' for k in kinds)})\n"
    )
    print(f"machine: {describe()}\n")
    print("| method | R@5 | R@10 | all@10 | session hit@10 |")
    print("|---|---|---|---|---|")
    for method in methods.values():
        print(f"| {method.name} | " + " | ".join(f"{v:.3f}" for v in method.overall.row()) + " |")
    print("\nturn R@10 per question type:\n")
    print("| type | n | " + " | ".join(methods) + " |")
    print("|---|---|" + "---|" * len(methods))
    for kind in kinds:
        cells = [statistics.fmean(m.by_kind[kind].recall[10]) for m in methods.values()]
        count = sum(q.kind == kind for q in questions)
        print(f"| {kind} | {count} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    later = [q.answered_later for q in questions]
    if any(later):
        kept = len(later) - sum(later)
        print(
            f"\n{sum(later)} questions have an evidence turn said after the question's time "
            f"(asOf), which context returns only within its clock skew; turn R@10 on the other "
            f"{kept}:"
        )
        for method in methods.values():
            pairs = zip(method.overall.recall[10], later, strict=True)
            values = [v for v, late in pairs if not late]
            print(f"  {method.name}: {statistics.fmean(values):.3f}")
    ordered_ms = sorted(1000 * s for s in latencies)
    p95 = ordered_ms[min(len(ordered_ms) - 1, int(0.95 * len(ordered_ms)))]
    print(f"\ncontext p50/p95: {statistics.median(ordered_ms):.0f} / {p95:.0f} ms")
    if fresh_turns:
        print(
            f"ingest: {fresh_turns} turns in {fresh_seconds:.0f} s = "
            f"{fresh_turns / fresh_seconds:.1f} turns/s"
        )
    ours = methods["recollect"].overall.row()
    rrf = methods["hybrid RRF"].overall.row()
    print("\ntargets:")
    print(
        f"  turn R@10 {ours[1]:.3f} >= RRF + 0.08 = {rrf[1] + 0.08:.3f}: "
        f"{'met' if ours[1] >= rrf[1] + 0.08 else 'NOT met'}"
    )
    print(
        f"  session hit@10 {ours[3]:.3f} >= RRF {rrf[3]:.3f}: "
        f"{'met' if ours[3] >= rrf[3] else 'NOT met'}"
    )
    for kind in kinds:
        mine = statistics.fmean(methods["recollect"].by_kind[kind].recall[10])
        theirs = statistics.fmean(methods["hybrid RRF"].by_kind[kind].recall[10])
        bar = theirs + 0.05 if kind in {"temporal-reasoning", "knowledge-update"} else theirs - 0.02
        print(f"  {kind}: {mine:.3f} >= {bar:.3f}: {'met' if mine >= bar else 'NOT met'}")


def ask(client: Client, question: Question, speaker: str | None, **options: Any) -> dict[str, Any]:
    """One context call for `question`, as of its date, asked by `speaker` (None: as written),
    with the preset and floors of `options`."""
    return client.call(
        CONTEXT,
        user=question.user,
        message=question.text,
        speaker=speaker,
        asOf=question.as_of,
        max=DEPTH,
        **options,
    )


def report_variants(
    methods: dict[str, Method], ablated: dict[tuple[str, str], Method], variants: list[str]
) -> None:
    """Each variant beside `default` on the same questions: R@5 / R@10 as the user and as written,
    and multi-session R@10 as written (the type whose evidence spans sessions)."""
    rows = {
        "default": (methods["recollect"], methods["recollect, no speaker"]),
        **{v: (ablated[(v, MODES[0])], ablated[(v, MODES[1])]) for v in variants},
    }
    print("\n| preset | user R@5 | user R@10 | written R@5 | written R@10 | multi-session R@10 |")
    print("|---|---|---|---|---|---|")
    for name, (user, written) in rows.items():
        multi = written.by_kind.get("multi-session")
        cells = [*user.overall.row()[:2], *written.overall.row()[:2]]
        cells.append(statistics.fmean(multi.recall[10]) if multi else float("nan"))
        print(f"| {name} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")


if __name__ == "__main__":
    main()
