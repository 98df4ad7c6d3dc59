"""The confidence stage alone (graph/recall/confidence.py): conflicts from cards, the note, the
floor, the person share and the calibrated confidence; and how the block shows them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from extraction.model import KnownEntity
from graph.errors import InvalidInput
from graph.ids import MemoryId
from graph.limits import Limits
from graph.recall.block import MEMORIES_HEADER, NOTHING_RELEVANT, BlockParts, compose
from graph.recall.confidence import (
    CALIBRATION,
    MENTIONED,
    Calibration,
    Conflict,
    MatchEvidence,
    Signals,
    above_floor,
    agreement,
    assess,
    confidence,
    find_conflicts,
    flagged,
    logistic,
    part_gap,
    person_share,
    structural_match,
    thing_share,
    unresolved,
    voice_gap,
    with_notes,
)
from graph.recall.request import ContextRequest, check_request
from graph.recall.stages import Scored, Seeds
from graph.records import EntityRecord, MemoryFacts, RelationRecord

RACE = "topic:charity_race"
CAROLINE, MELANIE = "person:caroline", "person:melanie"


def _card(key: str, *relations: RelationRecord) -> EntityRecord:
    return EntityRecord(key, key.split(":")[0], key, (), 3, None, None, relations)


def _scored(i: int, score: float, speaker: str = MELANIE) -> Scored[MemoryFacts]:
    facts = MemoryFacts(
        id=MemoryId(f"{i:016x}"),
        occurred_at=1_700_000_000.0,
        kind="turn",
        pinned=False,
        external_id=None,
        entity_keys=(speaker,),
        speaker_keys=(speaker,),
    )
    return Scored(facts, score, score, 1.0, 0.0, ())


def _seeds(people: list[str]) -> Seeds:
    return Seeds([*people, RACE], frozenset(), people)


def test_a_thing_held_for_another_person_is_a_conflict() -> None:
    cards = {
        RACE: _card(
            RACE,
            RelationRecord("ATTENDED", "in", MELANIE, 2, evidence=("m1", "m2")),
            RelationRecord("RELATED_TO", "in", CAROLINE, 5),  # co-occurrence is no fact
        )
    }
    (conflict,) = find_conflicts(_seeds([CAROLINE]), cards)
    assert conflict == Conflict(
        asked=CAROLINE,
        found=MELANIE,
        relation="ATTENDED",
        target=RACE,
        evidence=("m1", "m2"),
        count=2,
    )
    # asked about the person who holds it, or about no one: no conflict
    assert find_conflicts(_seeds([MELANIE]), cards) == []
    assert find_conflicts(_seeds([]), cards) == []


def test_a_thing_held_for_both_people_is_no_conflict() -> None:
    cards = {
        RACE: _card(
            RACE,
            RelationRecord("ATTENDED", "in", MELANIE, 2),
            RelationRecord("PLANS", "in", CAROLINE, 1),
        )
    }
    assert find_conflicts(_seeds([CAROLINE]), cards) == []


def test_only_well_attested_conflicts_are_flagged() -> None:
    once = Conflict(asked=CAROLINE, found=MELANIE, relation="LIKES", target=RACE, evidence=())
    again = Conflict(
        asked=CAROLINE, found=MELANIE, relation="ATTENDED", target=RACE, evidence=(), count=1
    )
    assert flagged([once], 2) == []
    # two relations of the same person to the same thing add up
    assert flagged([once, again], 2) == [once, again]


def test_one_note_names_the_thing_both_people_and_every_relation() -> None:
    conflicts = [
        Conflict(asked=CAROLINE, found=MELANIE, relation=r, target=RACE, evidence=())
        for r in ("ATTENDED", "PLANS")
    ]
    known = {MELANIE: KnownEntity(MELANIE, "person", "Melanie")}
    notes = {c.note for c in with_notes(conflicts, known)}
    assert notes == {
        "[NOTE] the memory has the charity race as Melanie's, not caroline's (ATTENDED, PLANS)"
    }


def test_the_floor_keeps_the_order_of_what_reaches_it() -> None:
    ranked = [_scored(1, 0.9), _scored(2, 0.5), _scored(3, 0.7)]
    assert [s.score for s in above_floor(ranked, 0.6)] == [0.9, 0.7]
    assert above_floor(ranked, 0.0) == ranked
    # a memory that holds every word of the message is kept whatever its score
    assert [s.score for s in above_floor(ranked, 0.6, {ranked[1].memory.id})] == [0.9, 0.5, 0.7]


def test_a_memory_found_by_time_or_relation_is_a_structural_match() -> None:
    plain = _scored(1, 0.9)
    assert not structural_match([plain]) and not structural_match([])
    for why in ("time", "relation:ATTENDED:topic:charity_race"):
        assert structural_match([replace(plain, via=("similarity", why))])


def test_person_share_counts_the_best_five_said_by_the_named_person() -> None:
    ranked = [_scored(i, 1 - i / 10, CAROLINE if i < 2 else MELANIE) for i in range(8)]
    assert person_share(ranked, [CAROLINE], {CAROLINE, MELANIE}) == pytest.approx(0.4)
    assert person_share(ranked, [], {CAROLINE, MELANIE}) == 0.5
    # a named person who said nothing (the user's sister) is no evidence either way
    assert person_share(ranked, ["person:ana"], {CAROLINE, MELANIE}) == 0.5


def test_thing_share_is_who_talks_about_the_things_named() -> None:
    def about(i: int, speaker: str, *keys: str) -> MemoryFacts:
        facts = _scored(i, 0.5, speaker).memory
        return replace(facts, entity_keys=(speaker, *keys))

    said = [about(1, MELANIE, RACE), about(2, MELANIE, RACE), about(3, CAROLINE, RACE)]
    said.append(about(4, CAROLINE))  # says nothing of the race: not counted
    both = {CAROLINE, MELANIE}
    assert thing_share(_seeds([CAROLINE]), said, both) == pytest.approx(1 / 3)
    assert thing_share(_seeds([MELANIE]), said, both) == pytest.approx(2 / 3)
    assert thing_share(Seeds([CAROLINE], frozenset(), [CAROLINE]), said, both) == 0.5
    assert thing_share(_seeds(["person:ana"]), said, both) == 0.5


def test_confidence_is_a_product_of_two_logistics_of_the_signals() -> None:
    signals = Signals(dense=0.8, unknown=0.0, person=1.0, thing=1.0, conflict=0.0, flagged=0.0)
    flat = Calibration(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    assert confidence(signals, flat, flat) == 0.25
    assert confidence(signals, flat) == pytest.approx(0.5 * logistic(signals, MENTIONED))
    worse = Signals(dense=0.3, unknown=0.5, person=0.0, thing=0.0, conflict=1.0, flagged=1.0)
    assert 0.0 < confidence(worse) < confidence(signals) < 1.0


def test_a_named_thing_the_memory_never_mentions_lowers_the_confidence() -> None:
    """The second factor: a question whose best match is fair and whose words are mostly
    known, but which names a thing no memory holds ("what is my blood type?")."""
    asked = Signals(dense=0.5, unknown=0.3, person=1.0, thing=0.5, conflict=0.0, flagged=0.0)
    never = replace(asked, unmentioned=1.0)
    assert logistic(never, CALIBRATION) == logistic(asked, CALIBRATION)  # the first factor
    assert MENTIONED.unmentioned < 0 and confidence(never) < confidence(asked)


def test_agreement_is_the_dense_and_lexical_tops_overlap() -> None:
    cosine = {f"m{i}": 1 - i / 20 for i in range(12)}  # m0 closest
    assert agreement(cosine, [f"m{i}" for i in range(10)]) == 1.0
    # m10 and m11 are not among the ten closest; m0-m2 are
    assert agreement(cosine, ["m10", "m11", "m0", "m1", "m2"]) == pytest.approx(0.3)
    assert agreement({}, ["m0"]) == 0.0
    assert agreement(cosine, []) == 0.0


def test_unresolved_is_the_share_of_named_things_the_catalogue_lacks() -> None:
    # people are always known (the asker, the person asked about): only things count
    mentions = [(CAROLINE, False), ("place:japan", False), (RACE, True), ("ref:it", False)]
    assert unresolved(mentions) == pytest.approx(0.5)
    assert unresolved([(CAROLINE, True)]) == 0.0
    assert unresolved([]) == 0.0


def test_voice_gap_compares_the_named_persons_best_match_with_anyone_elses() -> None:
    """Melanie's own race turn matches best and Caroline's words match worse: asked of
    Caroline, the gap leans towards someone else; asked of Melanie, towards her."""
    ran, asked = _scored(1, 0.0).memory, _scored(2, 0.0, CAROLINE).memory
    silent = replace(_scored(3, 0.0).memory, speaker_keys=())  # nobody said it: counts for no one
    closeness = {ran.id: 0.8, asked.id: 0.4, silent.id: 0.95}.__getitem__
    assert voice_gap([CAROLINE], [ran, asked, silent], closeness) == pytest.approx(0.3)
    assert voice_gap([MELANIE], [ran, asked, silent], closeness) == pytest.approx(0.7)
    # the named person said no candidate: no evidence either way
    assert voice_gap(["person:ann"], [ran, asked], closeness) == 0.5
    # only the named person spoke: the gap is to nothing
    assert voice_gap([MELANIE], [ran], closeness) == pytest.approx(0.9)


def test_part_gap_is_how_far_the_worst_matched_part_falls_behind() -> None:
    # the whole message, then its parts: "Tom or Alex?" when only Alex was ever mentioned
    assert part_gap([0.6, 0.7, 0.3]) == pytest.approx(0.4)
    assert part_gap([0.6, 0.7]) == 0.0  # one part: nothing to compare
    assert part_gap([0.6]) == 0.0


def test_assess_reports_flagged_conflicts_and_a_lower_confidence() -> None:
    cards = {RACE: _card(RACE, RelationRecord("ATTENDED", "in", MELANIE, 3, evidence=("m1",)))}
    ranked = [_scored(1, 0.9)]
    match = MatchEvidence(dense=0.6, unknown=0.0, speakers=frozenset({CAROLINE, MELANIE}))
    said = [s.memory for s in ranked]
    wrong = assess(_seeds([CAROLINE]), cards, ranked, said, match, min_count=2)
    right = assess(_seeds([MELANIE]), cards, ranked, said, match, min_count=2)
    assert [c.found for c in wrong.conflicts] == [MELANIE]
    assert right.conflicts == []
    assert wrong.confidence < right.confidence


def test_the_block_says_when_nothing_relevant_was_found_and_shows_notes() -> None:
    parts = BlockParts("[NOW] x", "[USER] u", notes=["[NOTE] n"], nothing_relevant=True)
    block = compose(parts, budget=None)
    assert block.text == f"[NOW] x\n[USER] u\n[NOTE] n\n\n{MEMORIES_HEADER}\n{NOTHING_RELEVANT}"
    # over budget, the line goes before the note, and the time and user lines stay
    tight = compose(parts, budget=8)
    assert tight.pruned == ["nothing-relevant", "note"]
    assert tight.text == "[NOW] x\n[USER] u"


@pytest.mark.parametrize("value", [-0.1, 2.5, float("nan")])
def test_min_score_out_of_range_names_the_field(value: float) -> None:
    request = ContextRequest(user_id="u", message="hi", min_score=value)
    with pytest.raises(InvalidInput, match="minScore"):
        check_request(request, Limits())


def test_the_person_share_reads_the_blends_order_not_the_trees() -> None:
    """A learnt ranker reorders the candidates; the confidence was calibrated on the blend's
    order, so the share of the best five said by the person asked about is read in it."""
    asked = [_scored(i, 0.9 - i / 100, CAROLINE) for i in range(5)]
    others = [_scored(10 + i, 0.5, MELANIE) for i in range(5)]
    # the trees put Melanie's five first (their scores) while the blend had Caroline's first
    ranked = [s.rescored(2.0) for s in others] + [s.rescored(1.0) for s in asked]
    evidence = MatchEvidence(dense=0.8, unknown=0.0, speakers=frozenset({CAROLINE, MELANIE}))
    assessed = assess(_seeds([CAROLINE]), {}, ranked, [], evidence, 2)
    assert assessed.signals.person == 1.0
    assert person_share(ranked, [CAROLINE], {CAROLINE, MELANIE}) == 0.0
