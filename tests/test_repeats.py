"""Near-duplicates: a turn its speaker says again is linked to the first saying and counted, and a
context block shows a group of near-identical memories once — the gate in pure unit tests, the
whole path on the embedded engine with the real models."""

from __future__ import annotations

import numpy as np

from graph.recall.config import Weights
from graph.recall.stages import Scored, collapse
from graph.records import MemoryFacts
from graph.repeats import Said, closest_repeat, is_repeat, said_whole
from tests.conftest import Api
from tests.documents import REMEMBER_MANY


def _said(i: str, speaker: str = "Alice", keys: tuple[str, ...] = ("person:alice",)) -> Said:
    return Said(i, speaker, "turn", frozenset(keys))


def test_the_gate_wants_the_same_speaker_and_the_same_entities() -> None:
    new = _said("n", keys=("person:alice", "topic:pottery"))
    assert is_repeat(new, _said("o", keys=("person:alice", "topic:pottery")))
    assert not is_repeat(new, _said("o", speaker="Bob", keys=("person:alice", "topic:pottery")))
    assert not is_repeat(new, _said("o", keys=("person:alice", "topic:painting")))
    assert not is_repeat(new, Said("o", "Alice", "episode", new.entity_keys))
    same = _said("o1", keys=tuple(new.entity_keys))
    close = _said("o2", keys=tuple(new.entity_keys))
    assert closest_repeat(new, [(same, 0.96), (close, 0.99)], 0.95) == "o2"
    assert closest_repeat(new, [(same, 0.90)], 0.95) is None


def test_long_texts_are_never_judged_by_their_heads() -> None:
    opening = "Here are some tips for planning a trip to Japan in spring: "
    assert said_whole(opening * 5) and not said_whole(opening * 20)
    new = Said("n", "Assistant", "turn", frozenset(), whole=False)
    assert not is_repeat(new, Said("o", "Assistant", "turn", frozenset()))
    assert not is_repeat(Said("n", "Assistant", "turn", frozenset()), new)


def _scored(
    i: str, score: float, occurred: float, speaker: str = "person:alice"
) -> Scored[MemoryFacts]:
    facts = MemoryFacts(i, occurred, "turn", False, None, (speaker,), speaker_keys=(speaker,))  # type: ignore[arg-type]
    return Scored(facts, score, score, 0.5, 0.2, ("similarity",))


def test_collapse_shows_the_newest_once_and_counts_the_repeats() -> None:
    a, b, c = np.array([1.0, 0.0]), np.array([0.999, 0.0447]), np.array([0.0, 1.0])
    vectors = {"old": a, "new": b, "other": c}
    ordered = [_scored("old", 0.9, 1.0), _scored("other", 0.8, 2.0), _scored("new", 0.7, 3.0)]
    weights = Weights(similarity=0.8, recency=0.1, frequency=0.1, half_life_days=30)
    out = collapse(ordered, vectors, 0.95, weights)
    assert [s.memory.id for s in out] == ["new", "other"]
    assert out[0].via[-1] == "repeats:1" and out[0].frequency > 0.2 and out[0].score > 0.9
    # the same words said by someone else (an assistant echoing the user) are no repeat
    echoed = [_scored("old", 0.9, 1.0), _scored("new", 0.7, 3.0, speaker="person:assistant")]
    assert [s.memory.id for s in collapse(echoed, vectors, 0.95, weights)] == ["old", "new"]


RECENT = """query($user: ID!, $id: ID!) { memory(userId: $user, id: $id) { repeatOf repeats } }"""
ASK = """query($user: ID!) {
  context(userId: $user, message: "Does Alice like pottery?", maxMemories: 5) {
    memories { via memory { id text } } } }"""


def test_a_repeated_turn_is_linked_counted_and_shown_once(api: Api) -> None:
    user = "rp-pottery"
    turns = [
        ("2023-01-10T09:00:00Z", "Alice", "I really love pottery, it calms me down."),
        ("2023-02-10T09:00:00Z", "Alice", "I read a book about gardening."),
        ("2023-03-10T09:00:00Z", "Alice", "I really love pottery, it calms me down!"),
        ("2023-03-11T09:00:00Z", "Bob", "I really love pottery, it calms me down."),
        ("2023-04-10T09:00:00Z", "Alice", "I really love pottery in Lisbon, it calms me down."),
    ]
    inputs = [
        {"userId": user, "speaker": who, "text": text, "occurredAt": when}
        for when, who, text in turns
    ]
    first, _, again, bob, lisbon = (
        m["id"]
        for m in api.ok(REMEMBER_MANY, inputs=inputs[:2])["rememberMany"]
        + api.ok(REMEMBER_MANY, inputs=inputs[2:])["rememberMany"]
    )
    assert api.ok(RECENT, user=user, id=again)["memory"] == {"repeatOf": first, "repeats": 0}
    assert api.ok(RECENT, user=user, id=first)["memory"] == {"repeatOf": None, "repeats": 1}
    # another speaker, or another entity (Lisbon), is no repeat
    assert api.ok(RECENT, user=user, id=bob)["memory"]["repeatOf"] is None
    assert api.ok(RECENT, user=user, id=lisbon)["memory"]["repeatOf"] is None
    shown = api.ok(ASK, user=user)["context"]["memories"]
    ids = [m["memory"]["id"] for m in shown]
    assert again in ids and first not in ids, "the newest of the two is shown, once"
    assert any(v.startswith("repeats:") for v in shown[ids.index(again)]["via"])
