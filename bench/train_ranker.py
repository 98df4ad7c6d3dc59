"""Fit the learnt ranker (graph/recall/ranker.py) on the candidates the benches wrote with
`--rankings FILE`, judge it by cross-validation grouped by conversation, and write the model file.

    python bench/locomo.py --profiles manual --rankings locomo.jsonl
    python bench/longmemeval.py --n 110 --no-abstention --profiles manual --rankings lme-dev.jsonl
    python bench/train_ranker.py --data locomo.jsonl,lme-dev.jsonl --out graph/recall/learnt.json

(docs/retrieval.md has the shipped file's whole command, with the questions said in other
words.)

Each file is one data set. A candidate's label is whether it is an evidence turn of its question.
The model is LightGBM's lambdarank (gradient-boosted trees that learn the order within each
question) started from the blend's own score (`init_score` = scale × the blend with its neighbour
share): the trees learn corrections to the blend the benches wrote (config.trees_base: the
default preset without its trees, whatever `--profiles` says), and with no trees the ranking is
the blend's. Both data sets weigh the same in all, so LoCoMo's many questions do not decide alone
(`weights` says how a question's candidates are weighted).
Deterministic: one thread, LightGBM's deterministic mode and fixed seeds.

Reported, per data set, from folds that never see the conversation they score (GroupKFold over
the users: a LoCoMo conversation, a LongMemEval question): R@8 and R@10 of the blend as the
benches ranked, and of each setting of the grid (scale, leaves, rounds); the chosen setting is the
one with the best mean gain over the blend among those that lose nothing on either data set.
Then what each feature adds (the chosen setting refitted without it, `--ablation`) and its share
of the trees' gain in the final fit. The file holds the trees as LightGBM dumps them (rounded),
the inputs' hashes and the command; the same inputs give the same bytes.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lightgbm as lgb
import numpy as np
from sklearn.model_selection import GroupKFold

from graph.recall.features import NAMES
from graph.recall.ranker import FORMAT

KS = (8, 10)
FOLDS = 5
DIGITS = 8
SEED = 7
# (scale, leaves, rounds): how far the trees may move the blend, and how much they can say
GRID = tuple(
    (scale, leaves, rounds)
    for scale in (5.0, 10.0, 20.0)
    for leaves in (3, 7)
    for rounds in (25, 50, 100)
)


@dataclass
class Question:
    """One answerable question's candidates: features, labels and the blend's scores."""

    dataset: int
    part: int  # the file it came from (several files may make one data set)
    group: str
    category: str
    x: np.ndarray
    y: np.ndarray
    blend: np.ndarray  # the blend's score with its neighbour share, as the bench ranked
    evidence: int  # evidence turns in all (some may not be candidates)


def files_of(sets: Sequence[Sequence[str]]) -> list[str]:
    """The files of every data set, in the order given: the order of `Question.part`."""
    return [path for files in sets for path in files]


def load(sets: Sequence[Sequence[str]]) -> list[Question]:
    """The questions of every file; the files of one entry of `sets` are one data set (the same
    conversations asked in other words are the same data set, in the same folds)."""
    questions = []
    parts = [(dataset, path) for dataset, files in enumerate(sets) for path in files]
    for part, (dataset, path) in enumerate(parts):
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if not row["answerable"] or not row["evidence"] or not row["candidates"]:
                continue
            if tuple(row["features"]) != NAMES:
                raise SystemExit(f"{path}: written with other features; run the bench again")
            ids = [c[0] for c in row["candidates"]]
            evidence = set(row["evidence"])
            questions.append(
                Question(
                    dataset=dataset,
                    part=part,
                    group=f"{dataset}:{row['user']}",
                    category=f"{Path(path).stem} {row['category']}",
                    x=np.array([c[3:] for c in row["candidates"]], dtype=float),
                    y=np.array([1.0 if i in evidence else 0.0 for i in ids]),
                    blend=np.array([c[1] + c[2] for c in row["candidates"]]),
                    evidence=len(evidence),
                )
            )
    return questions


def weights(questions: Sequence[Question]) -> np.ndarray:
    """Per candidate: 1 / (its question's candidates × its data set's questions), scaled to a
    mean of one question's worth. lambdarank scales each row's gradient by its own weight, so a
    question's rows weigh less the more candidates it has (LongMemEval's long haystacks less
    than LoCoMo's), and each data set's questions together weigh the same. The shipped file was
    fitted so; a constant weight per row within a data set is the lever to try next."""
    per_set: dict[int, int] = {}
    for q in questions:
        per_set[q.dataset] = per_set.get(q.dataset, 0) + 1
    mean = len(questions) / len(per_set)
    return np.concatenate(
        [np.full(len(q.y), mean / (len(q.y) * per_set[q.dataset])) for q in questions]
    )


def recall(q: Question, scores: np.ndarray, k: int) -> float:
    order = np.argsort(-scores, kind="stable")[:k]
    return float(q.y[order].sum() / q.evidence)


def table(questions: Sequence[Question], scores: Sequence[np.ndarray]) -> list[float]:
    """Per file (in the order given), R@8 and R@10."""
    row = []
    for d in sorted({q.part for q in questions}):
        mine = [(q, s) for q, s in zip(questions, scores, strict=True) if q.part == d]
        row += [float(np.mean([recall(q, s, k) for q, s in mine])) for k in KS]
    return row


def params(leaves: int) -> dict[str, Any]:
    return {
        "objective": "lambdarank",
        "label_gain": [0, 1],
        "lambdarank_truncation_level": 20,
        **boosting(leaves),
    }


def boosting(leaves: int) -> dict[str, Any]:
    """The trees' shape and LightGBM's deterministic mode (bench/fit_answer.py's model too)."""
    return {
        "num_leaves": leaves,
        "learning_rate": 0.05,
        "min_data_in_leaf": 50,
        "feature_fraction": 0.8,
        "bagging_fraction": 0.8,
        "bagging_freq": 1,
        "deterministic": True,
        "force_row_wise": True,
        "num_threads": 1,
        "seed": SEED,
        "verbose": -1,
    }


def fit(
    questions: Sequence[Question], scale: float, leaves: int, rounds: int, keep: np.ndarray
) -> lgb.Booster:
    x = np.vstack([q.x for q in questions]) * keep  # a dropped feature is a constant 0
    data = lgb.Dataset(
        x,
        np.concatenate([q.y for q in questions]),
        group=[len(q.y) for q in questions],
        weight=weights(questions),
        init_score=np.concatenate([scale * q.blend for q in questions]),
        feature_name=list(NAMES),
        params={"verbose": -1},
    )
    return lgb.train(params(leaves), data, num_boost_round=rounds)


def cross_validated(
    questions: Sequence[Question], scale: float, leaves: int, rounds: int, keep: np.ndarray
) -> list[np.ndarray]:
    """Each question's corrected scores from the fold that did not see its conversation."""
    groups = [q.group for q in questions]
    out: list[np.ndarray] = [np.empty(0)] * len(questions)
    folds = GroupKFold(n_splits=min(FOLDS, len(set(groups))))
    for train, test in folds.split(questions, groups=groups):
        model = fit([questions[i] for i in train], scale, leaves, rounds, keep)
        for i in test:
            q = questions[i]
            out[i] = q.blend + np.asarray(model.predict(q.x * keep, raw_score=True)) / scale
    return out


def cells(values: Sequence[float], base: Sequence[float] | None = None) -> str:
    if base is None:
        return " | ".join(f"{v:.3f}" for v in values)
    return " | ".join(f"{v - b:+.3f}" for v, b in zip(values, base, strict=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data",
        required=True,
        help="comma-separated data sets, each a --rankings file or several joined by +",
    )
    parser.add_argument("--out", help="the model file to write (none: report only)")
    parser.add_argument("--ablation", action="store_true", help="refit without each feature")
    parser.add_argument(
        "--drop", default="", help="comma-separated features held at 0 throughout (an ablation)"
    )
    args = parser.parse_args()
    sets = [entry.split("+") for entry in args.data.split(",")]
    paths = files_of(sets)
    questions = load(sets)
    names = [Path(p).stem for p in paths]
    counts = [f"{n} {sum(q.part == d for q in questions)}" for d, n in enumerate(names)]
    print(f"questions: {', '.join(counts)}; grouped {FOLDS}-fold cross-validation")
    header = " | ".join(f"{n} R@{k}" for n in names for k in KS)
    rule = "---|" * len(names) * len(KS)
    print(f"\n| ranking | {header} |\n|---|{rule}")
    blend = table(questions, [q.blend for q in questions])
    print(f"| blend (as the benches ranked) | {cells(blend)} |")
    everything = np.ones(len(NAMES))
    dropped = [n for n in args.drop.split(",") if n]
    unknown = sorted(set(dropped) - set(NAMES))
    if unknown:
        parser.error(f"--drop: unknown features {unknown}; known: {', '.join(NAMES)}")
    for name in dropped:
        everything[NAMES.index(name)] = 0.0
    if dropped and args.out:
        parser.error("--drop is an ablation: it writes no model file")
    best: tuple[float, tuple[float, int, int]] | None = None
    for scale, leaves, rounds in GRID:
        row = table(questions, cross_validated(questions, scale, leaves, rounds, everything))
        print(f"| trees: scale {scale:g}, {leaves} leaves, {rounds} rounds | {cells(row)} |")
        gains = [v - b for v, b in zip(row, blend, strict=True)]
        if min(gains) >= 0 and (best is None or float(np.mean(gains)) > best[0] + 1e-9):
            best = (float(np.mean(gains)), (scale, leaves, rounds))
    if best is None:
        print("\nno setting gains on every data set: no model file")
        return
    scale, leaves, rounds = best[1]
    print(f"\nchosen: scale {scale:g}, {leaves} leaves, {rounds} rounds (mean gain {best[0]:+.3f})")
    chosen_scores = cross_validated(questions, scale, leaves, rounds, everything)
    chosen = table(questions, chosen_scores)
    print("\n| category | questions | blend R@8 | trees R@8 | blend R@10 | trees R@10 |")
    print("|---|---|---|---|---|---|")
    for category in sorted({q.category for q in questions}):
        mine = [n for n, q in enumerate(questions) if q.category == category]
        cols = [
            float(np.mean([recall(questions[n], s[n], k) for n in mine]))
            for k in KS
            for s in ([q.blend for q in questions], chosen_scores)
        ]
        print(f"| {category} | {len(mine)} | {cells(cols)} |")
    if args.ablation:
        print(f"\n| without | {header} |\n|---|{rule}")
        for n, name in enumerate(NAMES):
            keep = everything.copy()
            keep[n] = 0.0
            row = table(questions, cross_validated(questions, scale, leaves, rounds, keep))
            print(f"| {name} | {cells(row, chosen)} |")
    final = fit(questions, scale, leaves, rounds, everything)
    gain = final.feature_importance(importance_type="gain")
    print("\n| feature | share of the trees' gain |\n|---|---|")
    for name, g in sorted(zip(NAMES, gain, strict=True), key=lambda p: -p[1]):
        print(f"| {name} | {g / gain.sum():.3f} |")
    if args.out:
        write(Path(args.out), final, scale, (leaves, rounds), sets, questions)
        print(f"\nwrote {args.out}")


def rounded(node: Any) -> Any:
    """LightGBM's tree dump with its floats rounded (the same bytes on every run)."""
    if isinstance(node, dict):
        return {k: rounded(v) for k, v in node.items()}
    if isinstance(node, list):
        return [rounded(v) for v in node]
    if isinstance(node, float):
        return round(node, DIGITS)
    return node


def write(
    path: Path,
    final: lgb.Booster,
    scale: float,
    shape: tuple[int, int],
    sets: Sequence[Sequence[str]],
    questions: Sequence[Question],
) -> None:
    paths = files_of(sets)
    given = ",".join("+".join(Path(p).name for p in files) for files in sets)
    trees = [
        {"tree_structure": rounded(t["tree_structure"])} for t in final.dump_model()["tree_info"]
    ]
    data = {
        "format": FORMAT,
        "features": list(NAMES),
        "scale": scale,
        "leaves": shape[0],
        "rounds": shape[1],
        "trees": trees,
        "trained_on": [
            {
                "file": Path(p).name,
                "sha256": hashlib.sha256(Path(p).read_bytes()).hexdigest(),
                "questions": sum(q.part == d for q in questions),
            }
            for d, p in enumerate(paths)
        ],
        "command": f"python bench/train_ranker.py --data {given}",
        "lightgbm": lgb.__version__,
    }
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
