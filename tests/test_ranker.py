"""The learnt ranker's file and its trees (graph/recall/ranker.py) and the walk feature
(graph/recall/walk.py): pure logic, no service. The context calls that use the shipped model run
against the real engine in tests/test_retrieval.py."""

from __future__ import annotations

import json
from dataclasses import replace

import lightgbm as lgb
import numpy as np
import pytest

from graph.errors import ModelError
from graph.ids import MemoryId
from graph.recall.features import NAMES, Features, row
from graph.recall.ranker import FORMAT, Forest, Ranker, shipped
from graph.recall.stages import Scored
from graph.recall.walk import personalised_pagerank
from graph.records import MemoryFacts


def _booster(seed: int, leaves: int) -> tuple[lgb.Booster, np.ndarray]:
    """A lambdarank model on random features whose label follows two of them, as the trainer
    fits one (zero-heavy columns, so that LightGBM's handling of zeros is exercised)."""
    rng = np.random.default_rng(seed)
    x = rng.random((600, len(NAMES)))
    x[rng.random(x.shape) < 0.4] = 0.0
    y = ((x[:, 0] + 0.5 * x[:, 3] + 0.2 * rng.random(600)) > 0.9).astype(float)
    data = lgb.Dataset(x, y, group=[30] * 20, init_score=5.0 * x[:, 1], params={"verbose": -1})
    params = {"objective": "lambdarank", "num_leaves": leaves, "verbose": -1, "seed": seed}
    params |= {"min_data_in_leaf": 5, "deterministic": True, "num_threads": 1}
    return lgb.train(params, data, num_boost_round=30), x


@pytest.mark.parametrize(("seed", "leaves"), [(1, 3), (2, 7), (3, 15)])
def test_the_trees_score_as_lightgbm_does(seed: int, leaves: int) -> None:
    booster, x = _booster(seed, leaves)
    forest = Forest.from_dump(booster.dump_model()["tree_info"])
    np.testing.assert_allclose(forest.raw(x), booster.predict(x, raw_score=True), atol=1e-9)


def _file(booster: lgb.Booster, **changes: object) -> str:
    data: dict[str, object] = {
        "format": FORMAT,
        "features": list(NAMES),
        "scale": 10.0,
        "trees": booster.dump_model()["tree_info"],
    }
    return json.dumps(data | changes)


def test_a_ranker_adds_its_correction_to_the_blend() -> None:
    booster, x = _booster(4, 3)
    ranker = Ranker.from_json("m.json", _file(booster))
    features = replace(Features(*x[0][:-1]), demoted=0.0)
    inputs = np.array([row(features, x[0][-1])])
    scored = {"m1": Scored(_memory(1, ()), 0.5, 0.5, 0.0, 0.0, (), neighbour=x[0][-1])}
    out = ranker.rescore(scored, lambda _item: features)
    expected = 0.5 + booster.predict(inputs, raw_score=True)[0] / 10.0
    assert out["m1"].score == pytest.approx(expected)
    assert out["m1"].score != 0.5 and out["m1"].blend == 0.5  # the floor reads the blend


def test_the_trees_never_lift_a_superseded_fact_nor_the_uncorrected_tail() -> None:
    """A demoted candidate's correction is at most 0; candidates beyond the corrected head move
    by the head's lowest correction, so none overtakes a candidate it trailed."""
    booster, x = _booster(6, 3)
    ranker = Ranker.from_json("m.json", _file(booster))
    raw = booster.predict(x, raw_score=True)
    up = int(np.argmax(raw))  # the row the trees lift most
    features = [replace(Features(*v[:-1]), demoted=0.0) for v in x]
    scored = {
        f"m{n}": Scored(_memory(n, ()), 1.0 - n / 1000, 0.5, 0.0, 0.0, (), neighbour=x[n][-1])
        for n in range(len(x))
    }
    by_id = {f"m{n}": f for n, f in enumerate(features)}
    by_id[f"m{up}"] = replace(by_id[f"m{up}"], demoted=0.5)
    out = ranker.rescore(scored, lambda item: by_id[item.memory.id], best=50)
    assert raw[up] > 0 and out[f"m{up}"].score <= scored[f"m{up}"].score
    head = [f"m{n}" for n in range(50)]
    tail = [f"m{n}" for n in range(50, len(x))]
    assert max(out[i].score for i in tail) <= min(out[i].score for i in head)
    lowest = min(out[i].score - scored[i].score for i in head)
    assert all(out[i].score == pytest.approx(scored[i].score + lowest) for i in tail)


def test_the_trees_never_lift_a_memory_of_another_time_than_the_one_named() -> None:
    """When the message names a time and a candidate is of it, a candidate of another time gets
    a correction of at most 0; with none of that time, the trees correct as they learnt."""
    booster, x = _booster(6, 3)
    ranker = Ranker.from_json("m.json", _file(booster))
    scored = {
        f"m{n}": Scored(_memory(n, ()), 1.0, 0.5, 0.0, 0.0, (), neighbour=x[n][-1])
        for n in range(len(x))
    }
    plain = {f"m{n}": replace(Features(*v[:-1]), demoted=0.0, in_time=0.0) for n, v in enumerate(x)}
    free = ranker.rescore(scored, lambda item: plain[item.memory.id], best=len(x))
    up = max(free, key=lambda i: free[i].score)  # the candidate the trees lift most
    then = min(free, key=lambda i: free[i].score)  # made the one candidate of the time named
    timed = plain | {then: replace(plain[then], in_time=1.0)}
    held = ranker.rescore(scored, lambda item: timed[item.memory.id], best=len(x))
    assert free[up].score > 1.0 and held[up].score == 1.0
    own = ranker.correction(np.array([row(timed[then], x[int(then[1:])][-1])]))[0]
    assert held[then].score == pytest.approx(1.0 + own)
    others = [i for i in held if i != then]
    assert all(held[i].score == pytest.approx(min(free[i].score, 1.0)) for i in others)


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"format": "other/1"}, "not a recollect-ranker"),
        ({"features": [*NAMES[:-1], "mystery"]}, "fitted on other features"),
        ({"scale": 0}, "scale must be positive"),
        ({"trees": [{"tree_structure": {"split_feature": 0}}]}, "malformed trees"),
        (
            {
                "trees": [
                    {
                        "tree_structure": {
                            "split_feature": 99,
                            "threshold": 0.5,
                            "decision_type": "<=",
                            "default_left": True,
                            "left_child": {"leaf_value": 1.0},
                            "right_child": {"leaf_value": 0.0},
                        }
                    }
                ]
            },
            "a split on feature 99",
        ),
    ],
)
def test_a_wrong_model_file_is_refused_naming_why(changes: dict[str, object], says: str) -> None:
    booster, _ = _booster(5, 3)
    with pytest.raises(ModelError, match=says) as caught:
        Ranker.from_json("m.json", _file(booster, **changes))
    assert "m.json" in str(caught.value)


def test_a_missing_model_file_is_named() -> None:
    with pytest.raises(ModelError, match="no model file nothing-here.json"):
        shipped("nothing-here")


def _memory(n: int, keys: tuple[str, ...], session: str | None = None) -> MemoryFacts:
    return MemoryFacts(
        id=MemoryId(f"m{n}"), occurred_at=float(n), kind="turn", pinned=False, external_id=None,
        entity_keys=keys, speaker_keys=("person:ann",), session_id=session,
    )  # fmt: skip


def test_the_walk_reaches_a_second_hop_and_skips_hubs() -> None:
    facts: dict[str, MemoryFacts] = {
        m.id: m
        for m in (
            _memory(1, ("person:ann", "place:lisbon", "person:bo"), "s1"),  # names the seed
            _memory(2, ("person:ann", "person:bo", "org:acme")),  # one hop further, via bo
            _memory(3, ("person:ann", "org:zeta")),  # shares only the hub and the speaker
            _memory(4, ("person:ann", "thing:kite"), "s1"),  # same session as the seed's
        )
    }
    counts = {"person:ann": 5_000, "place:lisbon": 3, "person:bo": 4}
    walk = personalised_pagerank(facts, ["place:lisbon"], [], [], counts, hub_mentions=2_000)
    assert walk["m1"] == 1.0
    assert walk["m2"] > walk["m3"] and walk["m4"] > walk["m3"]
    assert walk["m3"] == 0.0  # linked by the hub (and by who said it) only: the walk skips both
    assert personalised_pagerank(facts, ["place:oslo"], [], [], counts, 2_000) == {}
