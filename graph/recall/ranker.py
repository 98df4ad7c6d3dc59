"""The learnt ranker: gradient-boosted trees that correct the blend's score of each candidate from
its features (graph/recall/features.py), fitted by bench/train_ranker.py with LightGBM's
lambdarank on LoCoMo dev and LongMemEval dev together and shipped as a small JSON file beside
this module.

The blend (graph/recall/scoring.py, with its neighbour share) is the trees' starting score:
score = blend + trees(features) / scale. The trees learn where the hand-set blend errs, on two
kinds of conversation at once, and cross-validation grouped by conversation chose how far they
may move it (with no trees the ranking is the blend's).

The trees are evaluated here with numpy from LightGBM's own JSON dump of them, not by LightGBM:
importing it (and the scipy it pulls in) costs two seconds of every process's start, and a
context call scores one small batch. tests/test_ranker.py checks that this evaluation gives
LightGBM's own predictions on real features.

The file is data, not code: it names its features, and a file whose features are not the ones
this code computes is refused with an error that says so, never half-applied.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from graph.errors import ModelError
from graph.recall.features import NAMES, Features, row
from graph.recall.stages import Scored
from graph.records import MemoryFacts

HERE = Path(__file__).resolve().parent
FORMAT = "recollect-ranker/2"
# the candidates the trees correct, best by the blend first: a block shows at most 100 memories,
# and the shipped trees move a score by −0.10 to +0.07, far less than the blend's 100th trails
CORRECTED = 100
_MISSING = {"None": 0, "Zero": 1, "NaN": 2}

Matrix = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Forest:
    """Every tree's nodes in flat arrays; a leaf is a node whose feature is -1."""

    feature: npt.NDArray[np.int64]
    threshold: Matrix
    left: npt.NDArray[np.int64]
    right: npt.NDArray[np.int64]
    default_left: npt.NDArray[np.bool_]
    missing: npt.NDArray[np.int64]  # 0: none, 1: zero counts as missing, 2: NaN does
    value: Matrix
    roots: npt.NDArray[np.int64]
    depth: int

    def raw(self, x: Matrix) -> Matrix:
        """The sum of the trees' leaf values for each row of `x`."""
        node = np.broadcast_to(self.roots[:, None], (len(self.roots), len(x))).copy()
        rows = np.broadcast_to(np.arange(len(x))[None, :], node.shape)
        for _ in range(self.depth):
            feature = self.feature[node]
            inner = feature >= 0
            if not inner.any():
                break
            value = x[rows, np.maximum(feature, 0)]
            missing = self.missing[node]
            absent = ((missing == 1) & (value == 0)) | ((missing == 2) & np.isnan(value))
            go_left = np.where(absent, self.default_left[node], value <= self.threshold[node])
            step = np.where(go_left, self.left[node], self.right[node])
            node = np.where(inner, step, node)
        return np.asarray(self.value[node].sum(axis=0), dtype=np.float64)

    @classmethod
    def from_dump(cls, trees: list[dict[str, Any]]) -> Forest:
        """From LightGBM's `dump_model()["tree_info"]`: numerical splits only."""
        feature: list[int] = []
        threshold: list[float] = []
        left: list[int] = []
        right: list[int] = []
        default_left: list[bool] = []
        missing: list[int] = []
        value: list[float] = []
        roots: list[int] = []
        depth = 0

        def add(node: dict[str, Any], level: int) -> int:
            nonlocal depth
            depth = max(depth, level)
            at = len(feature)
            feature.append(-1)
            threshold.append(0.0)
            left.append(at)
            right.append(at)
            default_left.append(False)
            missing.append(0)
            value.append(float(node.get("leaf_value", 0.0)))
            if "split_feature" in node:
                if node.get("decision_type") != "<=":
                    raise ValueError("only numerical (<=) splits are supported")
                feature[at] = int(node["split_feature"])
                threshold[at] = float(node["threshold"])
                default_left[at] = bool(node["default_left"])
                missing[at] = _MISSING[node.get("missing_type", "None")]
                value[at] = 0.0
                left[at] = add(node["left_child"], level + 1)
                right[at] = add(node["right_child"], level + 1)
            return at

        for tree in trees:
            roots.append(add(tree["tree_structure"], 0))
        return cls(
            np.array(feature, dtype=np.int64),
            np.array(threshold),
            np.array(left, dtype=np.int64),
            np.array(right, dtype=np.int64),
            np.array(default_left, dtype=np.bool_),
            np.array(missing, dtype=np.int64),
            np.array(value),
            np.array(roots, dtype=np.int64),
            depth,
        )


@dataclass(frozen=True)
class Ranker:
    """score = blend + trees(features) / scale."""

    forest: Forest
    scale: float

    def correction(self, x: Matrix) -> Matrix:
        return self.forest.raw(x) / self.scale

    def rescore(
        self,
        scored: Mapping[str, Scored[MemoryFacts]],
        features: Callable[[Scored[MemoryFacts]], Features],
        best: int = CORRECTED,
    ) -> dict[str, Scored[MemoryFacts]]:
        """The `best` candidates by the blend's score with the trees' correction added (one
        batch), the blend's score kept beside it for the relevance floor. The rest move by the
        lowest correction when it is negative, so that none overtakes a corrected candidate it
        trailed: they are far below anything a block shows, and their features are not worth
        computing on every call."""
        order = sorted(scored, key=lambda i: scored[i].score, reverse=True)
        head = order[:best]
        out: dict[str, Scored[MemoryFacts]] = {}
        if not head:
            return out
        inputs = [features(scored[i]) for i in head]
        x = np.array([row(f, scored[i].neighbour) for f, i in zip(inputs, head, strict=True)])
        lowest = 0.0
        # the message names a time and something happened then
        timed = any(f.in_time > 0 for f in inputs)
        for memory_id, f, delta in zip(head, inputs, self.correction(x).tolist(), strict=True):
            if f.demoted > 0 or (timed and f.in_time == 0):
                # the graph says this fact was superseded at the time asked about; knowledge
                # updates are too rare in the training data for the trees to have learnt it
                # (they weigh `demoted` 0), and words shared with the question ("where do I
                # live now?" and "I live in Boston") must not lift the old value back over
                # the new. Likewise a memory of another time than the one the message names,
                # when one of that time is there: the trees weigh `in_time` 0.2% of their
                # gain, and lifted "we went to the lake for a picnic" (April) over "we went
                # camping last Saturday" (13 May) for "what did we do on May 13?"
                delta = min(delta, 0.0)
            lowest = min(lowest, delta)
            item = scored[memory_id]
            out[memory_id] = item.rescored(item.score + delta)
        for memory_id in order[best:]:
            item = scored[memory_id]
            out[memory_id] = item.rescored(item.score + lowest)
        return out

    @classmethod
    def from_json(cls, name: str, text: str) -> Ranker:
        """A model file's ranker; ModelError (a deployment's fault, not the caller's) names the
        file and what is wrong with it."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ModelError(f"ranker {name}: not JSON ({exc})") from exc
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ModelError(f"ranker {name}: not a {FORMAT} file")
        names = tuple(data.get("features", ()))
        if names != NAMES:
            missing = sorted(set(NAMES) - set(names))
            extra = sorted(set(names) - set(NAMES))
            raise ModelError(
                f"ranker {name}: fitted on other features (missing {missing}, unknown {extra}); "
                "rebuild it with bench/train_ranker.py"
            )
        try:
            forest = Forest.from_dump(data["trees"])
            scale = float(data["scale"])
            if len(forest.feature) and int(forest.feature.max()) >= len(NAMES):
                raise ValueError(f"a split on feature {int(forest.feature.max())} of {len(NAMES)}")
        except (KeyError, TypeError, ValueError) as exc:
            raise ModelError(f"ranker {name}: malformed trees ({exc!r})") from exc
        if not scale > 0:
            raise ModelError(f"ranker {name}: scale must be positive")
        return cls(forest, scale)


def rankers() -> None:
    """Reads every preset's model file once, so that a missing or mismatched one fails the
    service's start (ModelError) rather than every context call."""
    from graph.recall.config import PRESETS

    for config in PRESETS.values():
        if config.ranker:
            shipped(config.ranker)


@cache
def shipped(name: str) -> Ranker:
    """The model file `<name>.json` beside this module, read once per process."""
    path = HERE / f"{name}.json"
    if not path.is_file():
        raise ModelError(f"ranker: no model file {path.name}; build it with bench/train_ranker.py")
    return Ranker.from_json(path.name, path.read_text(encoding="utf-8"))
