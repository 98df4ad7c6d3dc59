"""Fit and judge the block's confidence (graph/recall/confidence.py) from the signals the benches
wrote (`--signals FILE` of bench/locomo.py and bench/longmemeval.py; bench/probe.py).

The confidence is a product of two logistic models: `CALIBRATION` (what the memory holds is the
named person's and answers the message; fitted `--against adversarial`: LoCoMo's category 5 and
LongMemEval's `_abs`, over the six signals `dense,unknown,person,thing,conflict,flagged`) and
`MENTIONED` (the memory holds the things asked about at all; fitted `--against constructed`,
the questions unanswerable by construction of bench/unanswerable.py, over
`content,unknown,unmentioned`, with LoCoMo's questions said in other words among the
answerable: a `--fit` file of `bench/locomo.py --reworded reworded --signals`). A run fits one
factor and keeps the other as shipped, and every AUROC and curve it prints is of the product
(tables in docs/ from before the second factor, dd8492d's and 66ea272's, were of `CALIBRATION`
alone).

- each signal's AUROC alone (answerable against unanswerable), per file;
- a logistic regression (L2, each file weighted by the square root of its share) fitted on the
  `--fit` files and scored on every file, with a bootstrap 95% interval of the AUROC (questions
  resampled within each class): with a handful of unanswerable questions the interval is wide;
- the shipped confidence scored the same way;
- with `--against constructed`, each template's questions scored by a model fitted without it
  (a kind of question the fit never saw);
- the floors' trade curve: for each (min_score, min_confidence), answerable R@8 / R@10 and the
  share of answerable blocks emptied, and of each kind of unanswerable block left empty or
  carrying a note, from the unfloored ranking.

    python bench/fit_confidence.py --against adversarial \
        --signals dense,unknown,person,thing,conflict,flagged \
        --fit locomo.jsonl,lme-dev.jsonl --score lme-val.jsonl
    python bench/fit_confidence.py --against constructed --signals content,unknown,unmentioned \
        --fit locomo.jsonl,lme-dev.jsonl,locomo-reworded.jsonl \
        --score lme-reworded.jsonl,lme-val.jsonl --curve
"""

from __future__ import annotations

import argparse
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import numpy as np
from unanswerable import TEMPLATES  # bench/unanswerable.py, beside this file

from graph.recall.confidence import (
    CALIBRATION,
    MENTIONED,
    Calibration,
    Signals,
    confidence,
    logistic,
)

NAMES = [f.name for f in fields(Signals)]
RNG_SEED = 7  # the bootstrap's resampling only; the fit has no randomness
# the `category` of a question unanswerable by construction: bench/locomo.py's CONSTRUCTED and
# bench/longmemeval.py's
CONSTRUCTED = (6, "constructed")


def load(path: str) -> list[dict[str, Any]]:
    """A `--signals` file's rows; one written before a signal the confidence reads is refused
    (a missing signal would count as 0 and the shipped confidence collapse without a word)."""
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines()]
    missing = sorted({n for r in rows for n in NAMES if n not in r["signals"]})
    if missing:
        raise SystemExit(f"{path}: written without the signals {missing}; run the bench again")
    return rows


def matrix(rows: list[dict[str, Any]], names: list[str]) -> np.ndarray:
    return np.array([[float(r["signals"].get(n, 0.0)) for n in names] for r in rows])


def labels(rows: list[dict[str, Any]]) -> np.ndarray:
    return np.array([1.0 if r["answerable"] else 0.0 for r in rows])


def kind(row: dict[str, Any]) -> str:
    """answerable, constructed (bench/unanswerable.py) or adversarial (LoCoMo's category 5,
    LongMemEval's `_abs`)."""
    if row["answerable"]:
        return "answerable"
    return "constructed" if row.get("category") in CONSTRUCTED else "adversarial"


# each bench/unanswerable.py template's two forms as patterns, with its name
_FORMS = [
    (re.compile(re.escape(form).replace(re.escape("{name}"), ".+")), t.name)
    for t in TEMPLATES
    for form in (t.third, t.first)
]


def template(row: dict[str, Any]) -> str:
    """The bench/unanswerable.py template a constructed question was written from."""
    return next((name for form, name in _FORMS if form.fullmatch(row["question"])), "")


def against(files: dict[str, list[dict[str, Any]]], which: str) -> dict[str, list[dict[str, Any]]]:
    """The rows a factor is fitted on: the answerable and `which` unanswerable ones (all, the
    adversarial or the constructed)."""
    return {
        p: [r for r in rows if which == "all" or kind(r) in ("answerable", which)]
        for p, rows in files.items()
    }


def auroc(score: np.ndarray, label: np.ndarray) -> float:
    pos, neg = score[label == 1], score[label == 0]
    if not len(pos) or not len(neg):
        return float("nan")
    wins = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(wins / (len(pos) * len(neg)))


def bootstrap(score: np.ndarray, label: np.ndarray, rounds: int = 2000) -> tuple[float, float]:
    """A 95% percentile interval of the AUROC, resampling each class on its own."""
    rng = np.random.default_rng(RNG_SEED)
    pos, neg = np.flatnonzero(label == 1), np.flatnonzero(label == 0)
    values = []
    for _ in range(rounds):
        p = rng.choice(pos, len(pos))
        n = rng.choice(neg, len(neg))
        idx = np.concatenate([p, n])
        values.append(auroc(score[idx], label[idx]))
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def fit(x: np.ndarray, y: np.ndarray, w: np.ndarray, l2: float) -> np.ndarray:
    """Weighted logistic regression by Newton's method; the intercept is not penalised."""
    design = np.hstack([np.ones((len(x), 1)), x])
    beta = np.zeros(design.shape[1])
    penalty = np.full(design.shape[1], l2)
    penalty[0] = 0.0
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-design @ beta))
        grad = design.T @ (w * (y - p)) - penalty * beta
        hess = (design * (w * p * (1 - p))[:, None]).T @ design + np.diag(penalty)
        step = np.linalg.solve(hess, grad)
        beta += step
        if np.abs(step).max() < 1e-8:
            break
    return beta


def predict(beta: np.ndarray, x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-(beta[0] + x @ beta[1:])))


def factor(calibration: Calibration, rows: list[dict[str, Any]]) -> np.ndarray:
    """One shipped factor of the confidence, per row, as the service computes it."""
    return np.array([logistic(Signals(**r["signals"]), calibration) for r in rows])


def shipped(rows: list[dict[str, Any]]) -> np.ndarray:
    """The shipped confidence, as the service computes it."""
    return np.array([confidence(Signals(**r["signals"])) for r in rows])


def combined(which: str, rows: list[dict[str, Any]], fitted: np.ndarray) -> np.ndarray:
    """The confidence with the factor fitted `against` `which` replaced by `fitted`."""
    return fitted * factor(CALIBRATION if which == "constructed" else MENTIONED, rows)


def fit_files(
    files: dict[str, list[dict[str, Any]]], fitted: list[str], names: list[str], l2: float
) -> np.ndarray:
    """One model over the `fitted` files, each weighted by the square root of its share (so
    that LoCoMo's thousand questions do not drown a few dozen of LongMemEval's)."""
    total = sum(len(files[p]) for p in fitted)
    xs, ys, ws = [], [], []
    for path in fitted:
        rows = files[path]
        share = len(rows) / total
        xs.append(matrix(rows, names))
        ys.append(labels(rows))
        ws.append(np.full(len(rows), math.sqrt(share) / share))
    return fit(np.vstack(xs), np.concatenate(ys), np.concatenate(ws), l2)


def templates_left_out(
    files: dict[str, list[dict[str, Any]]], fitted: list[str], names: list[str], l2: float
) -> Callable[[str, list[dict[str, Any]]], np.ndarray]:
    """Scores each constructed question by a model fitted without its template's questions,
    and every other question by the model fitted on all (`--against constructed`)."""
    whole = fit_files(files, fitted, names, l2)

    def score(path: str, rows: list[dict[str, Any]]) -> np.ndarray:
        out = predict(whole, matrix(rows, names))
        for name in {template(r) for r in rows if kind(r) == "constructed"}:
            rest = {
                p: [r for r in rs if kind(r) != "constructed" or template(r) != name]
                for p, rs in files.items()
            }
            beta = fit_files(rest, fitted, names, l2)
            mine = [
                i for i, r in enumerate(rows) if kind(r) == "constructed" and template(r) == name
            ]
            out[mine] = predict(beta, matrix([rows[i] for i in mine], names))
        return out

    return score


def left_out(
    files: dict[str, list[dict[str, Any]]], fitted: list[str], names: list[str], l2: float
) -> dict[str, float]:
    """Per fitted file with several users (LoCoMo's conversations): the AUROC of predictions
    each made by a model fitted without that user's questions."""
    out = {}
    for path in fitted:
        rows = files[path]
        users = sorted({r["user"] for r in rows})
        if len(users) < 3 or len(rows) < 5 * len(users):
            continue  # one question per user (LongMemEval): leaving one out says nothing
        score = np.zeros(len(rows))
        for user in users:
            mine = [i for i, r in enumerate(rows) if r["user"] == user]
            rest = {**files, path: [r for r in rows if r["user"] != user]}
            beta = fit_files(rest, fitted, names, l2)
            score[mine] = predict(beta, matrix([rows[i] for i in mine], names))
        out[path] = auroc(score, labels(rows))
    return out


def recall(row: dict[str, Any], k: int, min_score: float, empty: bool) -> float:
    wanted = set(row["evidence"])
    if empty or not wanted:
        return 0.0
    kept = [i for i, score in row["ranked"] if score >= min_score][:k]
    return len(wanted & set(kept)) / len(wanted)


def is_empty(row: dict[str, Any], conf: float, min_score: float, min_conf: float) -> bool:
    """As retrieval.py decides: below the confidence floor unless a structural match; below the
    score floor for every memory; a memory holding every known word of the message stays, when
    no word of the message is unknown to every memory."""
    signals = row["signals"]
    if signals.get("covered", 0.0) >= 1.0 and signals.get("unknown", 0.0) == 0.0:
        return False
    if conf < min_conf and not row["structural"]:
        return True
    return not any(score >= min_score for _, score in row["ranked"])


def curve(rows: list[dict[str, Any]], conf: np.ndarray, grid: list[tuple[float, float]]) -> None:
    kinds = [kind(r) for r in rows]
    answerable = [i for i, k in enumerate(kinds) if k == "answerable"]
    print(
        "| minScore | minConfidence | R@8 | R@10 | answerable emptied "
        "| adversarial caught | constructed caught |"
    )
    print("|---|---|---|---|---|---|---|")
    for min_score, min_conf in grid:
        empty = [is_empty(r, float(conf[i]), min_score, min_conf) for i, r in enumerate(rows)]
        r8 = np.mean([recall(rows[i], 8, min_score, empty[i]) for i in answerable])
        r10 = np.mean([recall(rows[i], 10, min_score, empty[i]) for i in answerable])
        lost = np.mean([empty[i] for i in answerable])

        def caught(which: str, empty: list[bool] = empty) -> str:
            mine = [i for i, k in enumerate(kinds) if k == which]
            rate = np.mean([empty[i] or rows[i]["noted"] for i in mine]) if mine else math.nan
            return f"{rate:.3f} ({len(mine)})"

        print(
            f"| {min_score} | {min_conf} | {r8:.3f} | {r10:.3f} | {lost:.3f} "
            f"| {caught('adversarial')} | {caught('constructed')} |"
        )


def calibration_table(rows: list[dict[str, Any]], conf: np.ndarray) -> None:
    """Per confidence bin: questions, mean confidence and the share answerable."""
    binned(conf, labels(rows), (0.0, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.01), "confidence")


def binned(score: np.ndarray, y: np.ndarray, edges: Sequence[float], name: str) -> None:
    """Per bin of `score` between `edges`: questions, the mean `name` and the share answerable
    (`y`); also bench/fit_answer.py's calibration."""
    print(f"| {name} | questions | mean {name} | answerable |")
    print("|---|---|---|---|")
    for low, high in zip(edges, edges[1:], strict=False):
        mine = (score >= low) & (score < high)
        if mine.any():
            print(
                f"| {low:.1f}–{min(high, 1.0):.1f} | {int(mine.sum())} "
                f"| {score[mine].mean():.2f} | {y[mine].mean():.2f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fit", required=True, help="comma-separated signal files to fit on")
    parser.add_argument("--score", default="", help="comma-separated files only scored")
    parser.add_argument("--signals", default=",".join(NAMES), help="the signals to use")
    parser.add_argument(
        "--against",
        choices=("adversarial", "constructed", "all"),
        default="adversarial",
        help="the unanswerable questions fitted against: CALIBRATION's (adversarial), "
        "MENTIONED's (constructed), or all (for CALIBRATION's factor)",
    )
    parser.add_argument("--l2", type=float, default=1.0)
    parser.add_argument("--curve", action="store_true", help="print the floors' trade curve")
    parser.add_argument("--shipped", action="store_true", help="the curve of the shipped model")
    parser.add_argument("--min-scores", default="0,0.5,0.6")
    parser.add_argument("--min-confidences", default="0,0.3,0.4,0.5,0.6,0.7")
    args = parser.parse_args()
    names = args.signals.split(",")
    fitted = args.fit.split(",")
    files = {p: load(p) for p in fitted + [p for p in args.score.split(",") if p]}
    signal_table(files)
    score = fit_report(files, fitted, names, args.against, args.l2)
    if args.curve:
        scores = [float(v) for v in args.min_scores.split(",")]
        confs = [float(v) for v in args.min_confidences.split(",")]
        grid = [(s, c) for s in scores for c in confs]
        for path, rows in files.items():
            model = "shipped" if args.shipped else f"fitted against {args.against}"
            conf = shipped(rows) if args.shipped else score(path, rows)
            print(f"\nfloors on {Path(path).name} ({model} model):\n")
            curve(rows, conf, grid)
            print(f"\ncalibration on {Path(path).name} ({model} model):\n")
            calibration_table(rows, conf)


def signal_table(files: dict[str, list[dict[str, Any]]]) -> None:
    """Each signal's AUROC alone, answerable against every unanswerable question."""
    print("AUROC of each signal alone (answerable high):\n")
    print("| file | n | unanswerable | " + " | ".join(NAMES) + " |")
    print("|---|---|---|" + "---|" * len(NAMES))
    for path, rows in files.items():
        x, y = matrix(rows, NAMES), labels(rows)
        cells = [auroc(x[:, j], y) for j in range(len(NAMES))]
        print(
            f"| {Path(path).name} | {len(rows)} | {int((y == 0).sum())} | "
            + " | ".join(f"{c:.3f}" for c in cells)
            + " |"
        )


def fit_report(
    files: dict[str, list[dict[str, Any]]],
    fitted: list[str],
    names: list[str],
    which: str,
    l2: float,
) -> Callable[[str, list[dict[str, Any]]], np.ndarray]:
    """Fits the factor `which` names, prints its weights and the AUROC of the confidence with
    it against each kind of unanswerable question (a constructed question scored by the fit
    without its template), beside the shipped; returns that scoring."""
    chosen = against(files, which)
    beta = fit_files(chosen, fitted, names, l2)
    print(f"\nfitted against {which} on {', '.join(Path(p).name for p in fitted)} (L2 {l2}):")
    print(
        f"  intercept={beta[0]:.3f}, "
        + ", ".join(f"{n}={b:.3f}" for n, b in zip(names, beta[1:], strict=True))
    )
    if which == "constructed":
        left = templates_left_out(chosen, fitted, names, l2)

        def score(path: str, rows: list[dict[str, Any]]) -> np.ndarray:
            return combined(which, rows, left(path, rows))
    else:

        def score(path: str, rows: list[dict[str, Any]]) -> np.ndarray:
            return combined(which, rows, predict(beta, matrix(rows, names)))

    print("\n| file | against | fitted AUROC [95% bootstrap] | shipped AUROC [95% bootstrap] |")
    print("|---|---|---|---|")
    for path, rows in files.items():
        mine, theirs = score(path, rows), shipped(rows)
        for other in ("adversarial", "constructed"):
            keep = np.array([kind(r) in ("answerable", other) for r in rows])
            y = labels(rows)[keep]
            if (y == 0).sum() == 0:
                continue
            a, (lo, hi) = auroc(mine[keep], y), bootstrap(mine[keep], y)
            b, (lo2, hi2) = auroc(theirs[keep], y), bootstrap(theirs[keep], y)
            held = "" if path in fitted else " (held out)"
            print(f"| {Path(path).name}{held} | {other} | {a:.3f} [{lo:.3f}, {hi:.3f}] ", end="")
            print(f"| {b:.3f} [{lo2:.3f}, {hi2:.3f}] |")
    for path, value in left_out(chosen, fitted, names, l2).items():
        print(
            f"\n{Path(path).name}, each user's questions scored by a factor fitted without them: "
            f"AUROC {value:.3f}"
        )
    return score


if __name__ == "__main__":
    main()
