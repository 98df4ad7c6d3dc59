"""The merge decision for stated facts (write/merge_rules.py): the rule of the middle zone, the
merged text, and each gate — a test per gate that fails without it. Vectors are hand-made where a
test is about the logic; the last test runs the real MiniLM."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from extraction.embedder import Embedder
from graph.write import merge_rules as merge
from graph.write.merge_rules import Fact, Probe, Vector, compatible, merged_text, plan, should_merge

SISTER = ("person:user", "FAMILY_OF", "person:mary")
LIVES = ("person:mary", "LIVES_IN", "place:boston")


def _unit(*values: float) -> Vector:
    v = np.array(values, dtype=np.float32)
    return v / np.linalg.norm(v)


def _fact(fid: str, text: str, vector: Vector, *relations: tuple[str, str, str]) -> Fact:
    entities = frozenset(k for r in relations for k in (r[0], r[2]))
    return Fact(fid, text, "User", vector, entities, frozenset(relations))


def _probe(
    stored: Sequence[Fact], embedded: dict[str, Vector], neighbours: Sequence[float] = ()
) -> Probe:
    def nearest(v: Vector, speaker: str | None, aside: frozenset[str]) -> list[tuple[Fact, float]]:
        hits = [(f, float(v @ f.vector)) for f in stored if f.id not in aside]
        return sorted(hits, key=lambda h: -h[1])

    return Probe(nearest, lambda text: embedded[text], lambda _t, _v, _a: list(neighbours))


OLD = _fact("m1", "User's sister is Mary.", _unit(1, 0.5, 0), SISTER)
NEW = _fact("m2", "User's sister Mary lives in Boston.", _unit(1, 0.6, 0.2), SISTER, LIVES)
NURSE = _fact("m8", "User's sister Mary is a nurse.", OLD.vector, SISTER)
JAZZ = _fact("m6", "User's sister Mary plays jazz.", _unit(1, 0.55, 0.1), SISTER)
BOTH = f"{NURSE.text} {JAZZ.text}"


def test_the_richer_text_is_kept_or_both_sentences() -> None:
    assert merged_text(OLD, NEW) == NEW.text
    other = _fact("m3", "User likes jazz.", _unit(0, 1, 0))
    assert merged_text(OLD, other) == "User's sister is Mary. User likes jazz."


def test_the_middle_zone_merges_a_shared_fact_and_never_a_conflicting_one_value_fact() -> None:
    assert compatible(NEW, OLD)
    assert should_merge(NEW, OLD, 0.6)
    lisbon = _fact(
        "m4", "Mary lives in Lisbon.", NEW.vector, ("person:mary", "LIVES_IN", "place:x")
    )
    assert not should_merge(lisbon, NEW, 0.95)  # another home supersedes, never merges
    assert not should_merge(NEW, OLD, 0.1)  # below NEVER_BELOW
    stranger = Fact("m5", OLD.text, "Bob", OLD.vector, OLD.entities, OLD.relations)
    assert not should_merge(stranger, OLD, 0.99)  # another speaker


def test_a_merge_that_passes_both_gates_folds_the_old_fact_into_the_new() -> None:
    kept, merges, refusals = plan(NEW, _probe([OLD], {}, neighbours=[0.3, 0.2, 0.1]))
    assert [(m.kept, m.absorbed) for m in merges] == [("m2", "m1")]
    assert kept.text == NEW.text and kept.lineage == ("m1",) and not refusals


def test_faithfulness_gate_refuses_a_merged_text_far_from_a_source(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    both = merged_text(NURSE, JAZZ)
    assert both == BOTH  # neither holds the other: both sentences
    probe = _probe([NURSE], {both: _unit(0, 0, 1)}, neighbours=[0.1])
    _, merges, refusals = plan(JAZZ, probe)
    assert not merges and [(r.gate, r.absorbed) for r in refusals] == [("faithfulness", "m8")]
    monkeypatch.setattr(merge, "FAITHFUL", -1.0)  # without the gate the merge would stand
    assert plan(JAZZ, probe)[1]


def _crowded(scores: dict[str, list[float]]) -> Probe:
    """NURSE stored, JAZZ new; each text's neighbour scores as given."""
    probe = _probe([NURSE], {BOTH: _unit(1, 0.52, 0.05)})
    return Probe(probe.nearest, probe.embed, lambda text, _v, _a: scores[text])


def test_neighbour_gate_refuses_a_merge_closer_to_everything_than_its_sources(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    probe = _crowded(
        {BOTH: [0.9, 0.8, 0.7, 0.1], NURSE.text: [0.7, 0.6, 0.5], JAZZ.text: [0.6, 0.6, 0.6]}
    )
    _, merges, refusals = plan(JAZZ, probe)
    assert not merges and refusals[0].gate == "neighbours"
    assert (refusals[0].value, refusals[0].before) == pytest.approx((0.8, 0.6))
    monkeypatch.setattr(merge, "NEIGHBOUR_RISE", 1.0)  # without the gate the merge would stand
    assert plan(JAZZ, probe)[1]


def test_neighbour_gate_lets_a_merge_as_crowded_as_its_sources_stand() -> None:
    """Over the bound but no closer to everything than a source already was: what the merge
    changed is measured, not how crowded the user's memories of a topic are."""
    probe = _crowded({BOTH: [0.8, 0.8, 0.8], NURSE.text: [0.78] * 3, JAZZ.text: [0.5] * 3})
    _, merges, refusals = plan(JAZZ, probe)
    assert merges and not refusals
    below = _crowded({BOTH: [0.5] * 3, NURSE.text: [0.1] * 3, JAZZ.text: [0.1] * 3})
    assert plan(JAZZ, below)[1]  # under the bound a merge stands whatever its rise


def test_the_loop_reaches_a_fixed_point_over_several_facts() -> None:
    boston = _fact("m7", "Mary lives in Boston.", _unit(1, 0.62, 0.25), LIVES)
    kept, merges, _ = plan(NEW, _probe([OLD, boston], {}, neighbours=[0.2]))
    assert {m.absorbed for m in merges} == {"m1", "m7"}
    assert set(kept.lineage) == {"m1", "m7"}


@pytest.mark.slow
def test_real_vectors_pass_faithfulness_for_a_restated_fact(embedder: Embedder) -> None:
    texts = [OLD.text, NEW.text]
    old_v, new_v = embedder.embed(texts)
    old = Fact(OLD.id, OLD.text, "User", old_v, OLD.entities, OLD.relations)
    new = Fact(NEW.id, NEW.text, "User", new_v, NEW.entities, NEW.relations)
    others = embedder.embed(["I fixed the bike chain today.", "We watched a film about whales."])

    def neighbours(_t: str, v: Vector, _aside: frozenset[str]) -> list[float]:
        return [max(0.0, float(v @ o)) for o in others]

    probe = Probe(
        lambda v, s, aside: [(old, float(v @ old.vector))] if old.id not in aside else [],
        lambda text: embedder.embed([text])[0],
        neighbours,
    )
    kept, merges, refusals = plan(new, probe)
    assert merges and not refusals, refusals
    assert float(kept.vector @ old.vector) >= merge.FAITHFUL


# -- on the write path, end to end ---------------------------------------------------------------

FACT = """
mutation($input: MemoryInput!) {
  remember(input: $input) { id text stored earlierId mergedInto }
}"""
READ = "query($u: ID!, $id: ID!) { memory(userId: $u, id: $id) { id text mergedInto } }"
UNMERGE = "mutation($u: ID!, $id: ID!) { unmerge(userId: $u, id: $id) { id text mergedInto } }"
ASK = """
query($u: ID!, $m: String!) { context(userId: $u, message: $m) { memories { memory { id } } } }"""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, extractor: object, embedder: Embedder) -> Any:
    from tests.conftest import close_api, open_api

    client_api, _ = open_api(
        tmp_path_factory.mktemp("merge"),
        extractor,  # type: ignore[arg-type]
        embedder,
        merge_facts=True,
    )
    yield client_api
    close_api(client_api)


def _stated(text: str) -> dict[str, str]:
    return {"userId": "merger", "text": text, "speaker": "Alice", "factType": "fact"}


def test_a_restated_fact_merges_on_write_and_unmerge_restores_it(api: Any) -> None:
    api.ok(FACT, input={"userId": "merger", "text": "I fixed the bike chain on Sunday."})
    first = api.ok(FACT, input=_stated("My sister is Mary."))["remember"]
    assert first["stored"] == "NEW"
    second = api.ok(FACT, input=_stated("My sister Mary lives in Boston."))["remember"]
    assert (second["stored"], second["earlierId"]) == ("MERGED", first["id"])
    assert second["text"] == "My sister Mary lives in Boston."
    absorbed = api.ok(READ, u="merger", id=first["id"])["memory"]
    assert absorbed["mergedInto"] == second["id"]  # inactive, readable by id
    found = api.ok(ASK, u="merger", m="Who is my sister?")["context"]["memories"]
    assert first["id"] not in {m["memory"]["id"] for m in found}
    assert api.runtime.store.count_memories("merger") == 2

    restored = api.ok(UNMERGE, u="merger", id=second["id"])["unmerge"]
    assert (restored["id"], restored["mergedInto"]) == (first["id"], None)
    assert api.runtime.store.count_memories("merger") == 3
    found = api.ok(ASK, u="merger", m="Who is my sister?")["context"]["memories"]
    assert first["id"] in {m["memory"]["id"] for m in found}
    body = api.raw(UNMERGE, u="merger", id=second["id"])
    assert body["errors"][0]["extensions"]["code"] == "NOT_FOUND"


def test_turns_are_never_merged(api: Any) -> None:
    turn = {"userId": "merger", "text": "My brother Tom lives in Leeds.", "speaker": "Alice"}
    api.ok(FACT, input=turn)
    again = api.ok(FACT, input={**turn, "text": "My brother Tom lives in Leeds now."})["remember"]
    assert again["stored"] != "MERGED"


MANY = """
mutation($inputs: [MemoryInput!]!) {
  rememberMany(inputs: $inputs) { id text stored earlierId mergedInto }
}"""


def test_two_facts_of_one_batch_merge(api: Any) -> None:
    inputs = [
        {**_stated(text), "userId": "merger-batch"}
        for text in ("My sister is Mary.", "My sister Mary lives in Boston.")
    ]
    first, second = api.ok(MANY, inputs=inputs)["rememberMany"]
    assert (second["stored"], second["earlierId"]) == ("MERGED", first["id"])
    assert first["mergedInto"] == second["id"]  # written by the batch, absorbed after it
    assert api.runtime.store.count_memories("merger-batch") == 1
    restored = api.ok(UNMERGE, u="merger-batch", id=first["id"])["unmerge"]
    assert restored["id"] == first["id"]
    assert api.runtime.store.count_memories("merger-batch") == 2


def test_the_neighbour_gate_scores_the_real_index_and_refuses_a_crowded_merge(
    api: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the write path the gate reads the user's FAISS and BM25 indexes: two facts that each
    touch the crowd a little merge into both sentences, which sit among its memories far closer
    than either did: refused (both stay active); without the gate it stands."""
    crowd = [
        "My sister is a nurse in Boston.",
        "My sister works as a nurse at a Boston hospital.",
        "Mary is a nurse and she lives in Boston.",
        "My sister the nurse moved to Boston.",
    ]
    for user in ("merger-crowd", "merger-crowd-ungated"):
        turns = [{"userId": user, "text": t, "speaker": "Alice"} for t in crowd]
        api.ok(MANY, inputs=turns)
        first = api.ok(FACT, input={**_stated("My sister Mary is a nurse."), "userId": user})
        if user == "merger-crowd-ungated":
            monkeypatch.setattr(merge, "NEIGHBOUR_RISE", 1.0)
        fact = {**_stated("My sister Mary lives in Boston."), "userId": user}
        second = api.ok(FACT, input=fact)["remember"]
        first_id = first["remember"]["id"]
        if user == "merger-crowd":
            refused = api.runtime.service._writer.merger.refused[-1]
            assert second["stored"] == "NEW", refused
            assert (refused.kept, refused.absorbed, refused.gate) == (
                second["id"],
                first_id,
                "neighbours",
            )
            assert refused.value > merge.NEIGHBOUR_MAX
            assert refused.value - refused.before > merge.NEIGHBOUR_RISE
            assert api.runtime.store.count_memories(user) == 6
        else:
            assert (second["stored"], second["earlierId"]) == ("MERGED", first_id)
