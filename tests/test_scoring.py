from __future__ import annotations

import math

import pytest

from graph.errors import InvalidInput
from graph.recall import scoring
from graph.recall.config import PRESETS, Weights, preset, trees_base
from graph.recall.scoring import DAY


def test_recency_halves_every_half_life() -> None:
    assert scoring.recency(0.0, 14 * DAY, 14) == pytest.approx(0.5)
    assert scoring.recency(0.0, 28 * DAY, 14) == pytest.approx(0.25)
    assert scoring.recency(10 * DAY, 10 * DAY, 14) == 1.0


def test_recency_of_a_future_memory_is_one() -> None:
    assert scoring.recency(5 * DAY, 0.0, 14) == 1.0


def test_frequency_is_normalised() -> None:
    assert scoring.frequency(0, 10) == 0.0
    assert scoring.frequency(10, 10) == pytest.approx(1.0)
    assert 0 < scoring.frequency(2, 10) < scoring.frequency(5, 10) < 1


def test_combine_uses_the_spec_weights() -> None:
    assert scoring.combine(PRESETS["spec"].weights, 1.0, 0.5, 0.0) == pytest.approx(0.4 + 0.15)


def test_combine_normalises_custom_weights() -> None:
    assert scoring.combine(Weights(2, 0, 0, 14), 0.5, 1.0, 1.0) == pytest.approx(0.5)


@pytest.mark.parametrize(
    "weights",
    [Weights(-1, 0, 0, 14), Weights(0, 0, 0, 14), Weights(math.nan, 1, 1, 14), Weights(1, 0, 0, 0)],
)
def test_invalid_weights(weights: Weights) -> None:
    with pytest.raises(InvalidInput, match="weights: (must|halfLifeDays)"):
        weights.validate()


def test_similarity_is_clipped() -> None:
    assert scoring.similarity(-0.3) == 0.0
    assert scoring.similarity(0.7) == pytest.approx(0.7)


def test_structural_match_moves_similarity_its_lift_toward_one() -> None:
    assert scoring.similarity(0.4, lift=0.5) == pytest.approx(0.7)
    assert scoring.similarity(-1.0, lift=0.5) == pytest.approx(0.5)
    assert scoring.similarity(0.4, lift=0.1) == pytest.approx(0.46)
    assert scoring.similarity(0.4, lift=3.0) == pytest.approx(1.0)  # clipped


def test_lexical_share_blends_bm25_into_similarity() -> None:
    assert scoring.similarity(0.4, lexical=1.0, lexical_share=0.5) == pytest.approx(0.7)
    assert scoring.similarity(0.4, lexical=1.0, lexical_share=0.0) == pytest.approx(0.4)


def test_fusion_ranks_instead_of_scores() -> None:
    fusion = scoring.Fusion.of([0.9, 0.5, 0.4], [1.0, 0.2, 0.0], k=10.0, lexical_share=0.5)
    assert fusion.base(0.9, 1.0) == pytest.approx(1.0)  # first of both lists
    # second by cosine, no lexical match: half of the dense list's second place
    assert fusion.base(0.5, 0.0) == pytest.approx(0.5 * 11 / 12)
    # a cosine between two candidates' ranks after the greater one only
    assert fusion.base(0.45, 0.0) == fusion.base(0.4, 0.0)
    # raw scale does not matter: the same order gives the same base
    scaled = scoring.Fusion.of([0.3, 0.2, 0.1], [9.0, 3.0, 0.0], k=10.0, lexical_share=0.5)
    assert scaled.base(0.3, 9.0) == fusion.base(0.9, 1.0)


def test_lifted_moves_toward_one_or_zero() -> None:
    assert scoring.lifted(0.5, 0.5) == pytest.approx(0.75)
    assert scoring.lifted(0.5, -0.5) == pytest.approx(0.25)


def test_the_default_trees_correct_a_blend_without_the_speaker_lift() -> None:
    """The shipped trees weigh who said a memory themselves (issue 56): their starting blend,
    which the benches write for the trainer, lifts nothing; the hand-set blend keeps its lift,
    and weights of the caller's on `default` are scored by it, the trees off."""
    base = trees_base()
    assert base.ranker is None and base.speaker_lift == 0.0 == PRESETS["default"].speaker_lift
    assert base.weights == PRESETS["default"].weights
    assert PRESETS["manual"].speaker_lift > 0
    mine = preset("default", recency=0.5)
    assert mine.ranker is None and mine.speaker_lift == PRESETS["manual"].speaker_lift
    assert mine.min_score == PRESETS["manual"].min_score
    assert mine.default_asker == PRESETS["default"].default_asker
    assert mine.weights.recency == 0.5 and preset("default") is PRESETS["default"]
