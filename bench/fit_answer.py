"""Whether the learnt ranker can say how likely its block holds an answer: an experiment toward
issue 56's "confidence is the ranker's calibrated probability".

The shipped confidence (graph/recall/confidence.py) is two logistic models over query-level
signals. This fits, on the benches' `--rankings` and `--signals` files joined question by
question, a pointwise model of "this candidate answers the question" over each of the best
`TOP` candidates by the learnt ranker's score: the candidate's ranker features
(graph/recall/features.py), the ranker's score and rank, and the query's signals. An
unanswerable question's candidates are all negatives (LoCoMo's category 5 and LongMemEval's
`_abs` hold turns about the thing asked, said by someone else or of something else). The block's
probability is the largest of its candidates', Platt-scaled on the folds.

Everything is scored out of fold, the folds grouped by user (a LoCoMo conversation, a
LongMemEval question), and the ranker's own scores are out of fold too: the shipped trees were
fitted on these dev splits, and in-sample they know the evidence. Files only scored (`--score`)
are judged by models fitted on every `--fit` file (and the shipped trees).

    python bench/fit_answer.py --fit locomo,lme-dev --score lme-val --dir DIR

where DIR holds `rk-NAME.jsonl` (`--rankings`) and `sig-NAME.jsonl` (`--signals`) of each
name, written with `--unanswerable` (and LongMemEval's dev split with its `_abs` questions).
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import lightgbm as lgb
import numpy as np
from fit_confidence import auroc, binned, bootstrap, kind, predict  # bench/, beside this file
from fit_confidence import fit as logistic_fit
from sklearn.model_selection import GroupKFold
from train_ranker import Question, boosting, fit

from graph.recall.confidence import Signals, confidence
from graph.recall.features import NAMES
from graph.recall.ranker import shipped

TOP = 10  # the candidates judged: a block shows eight to ten
FOLDS = 5
SCALE, LEAVES, ROUNDS = 5.0, 7, 100  # the shipped trees' setting (graph/recall/learnt.json)
SIGNALS = [f.name for f in fields(Signals)]
RANKED = ["ranker_score", "ranker_rank", "ranker_gap"]
INPUTS = [*NAMES, *RANKED, *(f"signal_{n}" for n in SIGNALS)]  # the ranker has a `content` too
RATES = (0.01, 0.02, 0.04)  # the answerable blocks a floor may empty
EDGES = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01)  # calibration bins


@dataclass
class Asked:
    """One question: its candidates' ranker features and labels, its signals and the shipped
    confidence."""

    dataset: int
    group: str
    kind: str  # answerable, adversarial or constructed (fit_confidence.kind)
    x: np.ndarray
    y: np.ndarray
    blend: np.ndarray
    signals: np.ndarray
    shipped: float
    evidence: int


def load(dataset: int, rankings: Path, signals: Path) -> list[Asked]:
    """The questions of one data set, joined on (user, question); a question with no
    candidates is left out (no block to judge)."""
    probes = {}
    for line in signals.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        probes[(row["user"], row["question"])] = row
    out = []
    for line in rankings.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if tuple(row["features"]) != NAMES:
            raise SystemExit(f"{rankings}: written with other features; run the bench again")
        probe = probes.get((row["user"], row["question"]))
        if probe is None or not row["candidates"]:
            continue
        if set(SIGNALS) - set(probe["signals"]):
            raise SystemExit(f"{signals}: written without some signals; run the bench again")
        evidence = set(row["evidence"]) if row["answerable"] else set()
        out.append(
            Asked(
                dataset=dataset,
                group=f"{dataset}:{row['user']}",
                kind=kind(row),
                x=np.array([c[3:] for c in row["candidates"]], dtype=float),
                y=np.array([1.0 if c[0] in evidence else 0.0 for c in row["candidates"]]),
                blend=np.array([c[1] + c[2] for c in row["candidates"]]),
                signals=np.array([float(probe["signals"].get(n, 0.0)) for n in SIGNALS]),
                shipped=confidence(Signals(**probe["signals"])),
                evidence=len(evidence),
            )
        )
    return out


def as_question(a: Asked) -> Question:
    return Question(a.dataset, a.dataset, a.group, a.kind, a.x, a.y, a.blend, a.evidence)


def ranker_scores(train: Sequence[Asked], test: Sequence[Asked]) -> list[np.ndarray]:
    """The ranker's scores of `test`'s candidates by trees fitted (in the shipped setting) on
    `train`'s answerable questions; the shipped trees when `train` is empty."""
    if not train:
        ranker = shipped("learnt")
        return [a.blend + ranker.correction(a.x) for a in test]
    answerable = [as_question(a) for a in train if a.kind == "answerable" and a.evidence]
    model = fit(answerable, SCALE, LEAVES, ROUNDS, np.ones(len(NAMES)))
    return [a.blend + np.asarray(model.predict(a.x, raw_score=True)) / SCALE for a in test]


def inputs(a: Asked, score: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The best TOP candidates by the ranker: their model inputs and labels."""
    order = np.argsort(-score, kind="stable")[:TOP]
    ranked = np.column_stack(
        [score[order], np.arange(len(order), dtype=float), score[order] - score[order[0]]]
    )
    query = np.broadcast_to(a.signals, (len(order), len(SIGNALS)))
    return np.hstack([a.x[order], ranked, query]), a.y[order]


def fit_answer(asked: Sequence[Asked], scores: Sequence[np.ndarray], rounds: int) -> lgb.Booster:
    """The pointwise model; each data set's questions weigh the same in all."""
    per_set: dict[int, int] = {}
    for a in asked:
        per_set[a.dataset] = per_set.get(a.dataset, 0) + 1
    xs, ys, ws = [], [], []
    for a, s in zip(asked, scores, strict=True):
        x, y = inputs(a, s)
        xs.append(x)
        ys.append(y)
        ws.append(np.full(len(y), 1000.0 / (per_set[a.dataset] * len(y))))
    data = lgb.Dataset(
        np.vstack(xs),
        np.concatenate(ys),
        weight=np.concatenate(ws),
        feature_name=INPUTS,
        params={"verbose": -1},
    )
    params = {"objective": "binary", **boosting(LEAVES)}
    return lgb.train(params, data, num_boost_round=rounds)


def block(model: lgb.Booster, a: Asked, score: np.ndarray) -> float:
    """The block's raw score: the largest of its candidates' log-odds."""
    x, _ = inputs(a, score)
    return float(np.max(model.predict(x, raw_score=True)))


def out_of_fold(asked: Sequence[Asked], rounds: int) -> tuple[np.ndarray, list[np.ndarray]]:
    """Each question's block score and ranker scores from folds that never saw its user."""
    groups = [a.group for a in asked]
    scores: list[np.ndarray] = [np.empty(0)] * len(asked)
    folds = list(GroupKFold(n_splits=FOLDS).split(asked, groups=groups))
    for train, test in folds:
        got = ranker_scores([asked[i] for i in train], [asked[i] for i in test])
        for i, s in zip(test, got, strict=True):
            scores[i] = s
    raw = np.zeros(len(asked))
    for train, test in folds:
        model = fit_answer([asked[i] for i in train], [scores[i] for i in train], rounds)
        for i in test:
            raw[i] = block(model, asked[i], scores[i])
    return raw, scores


def platt(raw: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """a, b of σ(a·raw + b), by Newton's method."""
    beta = logistic_fit(raw[:, None], y, np.ones(len(y)), 1e-6)
    return float(beta[1]), float(beta[0])


def summary(a: Asked, score: np.ndarray) -> list[float]:
    """What the ranker's order says of one question: its best score, how far the best stands
    above the second and the tenth, and whether the best one and the best five were said by the
    person asked about."""
    order = np.argsort(-score, kind="stable")
    top = score[order]
    said = a.x[order[:5], NAMES.index("said_by_subject")]
    return [
        top[0],
        top[0] - top[min(1, len(top) - 1)],
        top[0] - top[min(TOP - 1, len(top) - 1)],
        said[0],
        float(said.mean()),
    ]


def stacked(asked: Sequence[Asked], raw: np.ndarray, scores: Sequence[np.ndarray]) -> np.ndarray:
    """Out of fold: one logistic over the shipped confidence's log-odds, the ranker's `summary`
    and the answer model's block score (each data set weighted by the square root of its share,
    as bench/fit_confidence.py weighs them)."""
    shipped = np.array([a.shipped for a in asked]).clip(1e-6, 1 - 1e-6)
    shipped_logit = np.log(shipped / (1 - shipped))
    x = np.column_stack(
        [shipped_logit, np.array([summary(a, s) for a, s in zip(asked, scores, strict=True)]), raw]
    )
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-9)
    y = answerable(asked)
    sets = np.array([a.dataset for a in asked])
    w = np.ones(len(asked))
    for d in set(sets.tolist()):
        share = float((sets == d).mean())
        w[sets == d] = math.sqrt(share) / share
    out = np.zeros(len(asked))
    for train, test in GroupKFold(n_splits=FOLDS).split(asked, groups=[a.group for a in asked]):
        out[test] = predict(logistic_fit(x[train], y[train], w[train], 1.0), x[test])
    return out


def answerable(asked: Sequence[Asked]) -> np.ndarray:
    return np.array([1.0 if a.kind == "answerable" else 0.0 for a in asked])


def caught(score: np.ndarray, y: np.ndarray, rate: float) -> float:
    """The share of unanswerable questions below the floor that empties `rate` of the
    answerable ones: where a confidence floor works, separation at the low end matters."""
    floor = np.quantile(score[y == 1], rate)
    return float((score[y == 0] < floor).mean())


def report(name: str, asked: Sequence[Asked], models: dict[str, np.ndarray]) -> None:
    """Per kind of unanswerable question and model: the AUROC with its bootstrap interval, and
    the share caught where 1%, 2% and 4% of the answerable blocks would be emptied."""
    y = answerable(asked)
    for other in ("adversarial", "constructed"):
        keep = np.array([a.kind in ("answerable", other) for a in asked])
        if not (y[keep] == 0).any():
            continue
        for model, score in models.items():
            value, (lo, hi) = auroc(score[keep], y[keep]), bootstrap(score[keep], y[keep])
            rates = " / ".join(f"{caught(score[keep], y[keep], r):.3f}" for r in RATES)
            print(
                f"| {name} | {other} ({int((y[keep] == 0).sum())}) | {model} "
                f"| {value:.3f} [{lo:.3f}, {hi:.3f}] | {rates} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="where rk-NAME.jsonl and sig-NAME.jsonl are")
    parser.add_argument("--fit", required=True, help="comma-separated names fitted on")
    parser.add_argument("--score", default="", help="comma-separated names only scored")
    parser.add_argument("--rounds", type=int, default=100)
    args = parser.parse_args()
    where = Path(args.dir)
    names = args.fit.split(",")
    sets = [load(d, where / f"rk-{n}.jsonl", where / f"sig-{n}.jsonl") for d, n in enumerate(names)]
    asked = [a for s in sets for a in s]
    raw, scores = out_of_fold(asked, args.rounds)
    a, b = platt(raw, answerable(asked))
    prob = 1.0 / (1.0 + np.exp(-(a * raw + b)))
    models = {
        "shipped": np.array([q.shipped for q in asked]),
        "answer model": prob,
        "stacked": stacked(asked, raw, scores),
    }
    print(f"answer model: Platt on the folds a={a:.3f}, b={b:.3f}; {len(asked)} questions\n")
    rates = " / ".join(f"{r:.0%}" for r in RATES)
    print(f"| data set | against | model | AUROC [95%] | caught at {rates} answerable emptied |")
    print("|---|---|---|---|---|")
    at = 0
    for n, s in zip(names, sets, strict=True):
        report(f"{n} (out of fold)", s, {k: v[at : at + len(s)] for k, v in models.items()})
        at += len(s)
    held = [n for n in args.score.split(",") if n]
    if held:
        model = fit_answer(asked, scores, args.rounds)
        for n in held:
            test = load(len(names), where / f"rk-{n}.jsonl", where / f"sig-{n}.jsonl")
            got = ranker_scores([], test)
            r = np.array([block(model, t, s) for t, s in zip(test, got, strict=True)])
            theirs = np.array([t.shipped for t in test])
            mine = 1.0 / (1.0 + np.exp(-(a * r + b)))
            report(f"{n} (held out)", test, {"shipped": theirs, "answer model": mine})
    at = 0
    for n, s in zip(names, sets, strict=True):
        print(f"\ncalibration of the answer model on {n} (out of fold):\n")
        binned(prob[at : at + len(s)], answerable(s), EDGES, "probability")
        at += len(s)


if __name__ == "__main__":
    main()
