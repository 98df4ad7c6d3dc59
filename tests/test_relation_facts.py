"""The service's in-process copy of relations (graph/relation_facts.py) against the graph it
copies: after writes in sessions, a one-value fact superseded (a move), a person named after
being known by role (a merge during ingest), a merge by hand, a pin and a forget (which drop the
copy: it is read again), the cards it gives equal cypher/entity_cards.cypher's for every entity,
with and without cued types. Then the pure bookkeeping of the copy on its own."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from graph.records import GraphEdge, card_order
from graph.relation_facts import Capped, UserRelations
from graph.service import MemoryService
from tests.conftest import Api, held_facts
from tests.documents import REMEMBER_MANY

USER = "relations-user"
MERGE = """mutation($user: ID!, $sources: [String!]!, $into: String!) {
  mergeEntities(userId: $user, sources: $sources, into: $into) { key } }"""
PIN = """mutation($user: ID!, $id: ID!, $p: Boolean!) {
  pin(userId: $user, id: $id, pinned: $p) { id } }"""
FORGET = "mutation($user: ID!, $id: ID!) { forget(userId: $user, id: $id) }"
CUES = ((), ("LIVES_IN", "MOVED_TO"), ("FAMILY_OF", "PLAYS", "RELATED_TO"))


def _say(api: Api, session: str, *turns: tuple[str, str]) -> list[str]:
    inputs = [
        {"userId": USER, "speaker": speaker, "text": text, "sessionId": session}
        for speaker, text in turns
    ]
    return [m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]]


def _held(service: MemoryService) -> UserRelations:
    """The copy once the service holds it (read in the background after a first use)."""
    held_facts(service, USER)
    if service.caches._held_relations(USER) is None:
        service.drain()
    held = service.caches._held_relations(USER)
    assert held is not None
    return held


def _cards_agree(service: MemoryService, limit: int = 3) -> dict[str, Any]:
    """Asserts the copy's cards equal the graph's for every entity of the user and each cue set
    (a small `limit`, so that the strongest cut and the cued additions both show); returns the
    graph's cards without cues."""
    held = _held(service)
    keys = sorted(service.caches.catalog(USER).entities)
    set_ = frozenset(keys)
    for cues in CUES:
        graph = service.store.entities(USER, keys, limit, cues, 2)
        copy = service.caches.relations(USER, keys, limit, cues, 2)
        assert copy is not None
        assert {k: copy[k] for k in graph} == {k: c.relations for k, c in graph.items()}, cues
        # a hub's card keeps the strongest `limit` and the strongest one cued: the graph's card
        # cut after limit + 1 (graph/recall/lookup.py read_cards cuts the graph's so)
        capped = service.caches.relations(USER, keys, limit, cues, 2, capped=Capped(set_, 1))
        assert capped is not None
        assert {k: capped[k] for k in graph} == {
            k: c.relations[: limit + 1] for k, c in graph.items()
        }, cues
    assert len(held) > 0
    return service.store.entities(USER, keys, limit, (), 2)


def test_the_copy_gives_the_cards_the_graph_gives_through_every_change(api: Api) -> None:
    service = api.runtime.service
    first = _say(
        api,
        "s1",
        ("Dana", "I live in Boston. My cousin Jo plays the oboe."),
        ("Sam", "Does Jo play in an orchestra?"),
        ("Dana", "Yes, Jo plays with the Lyon Philharmonic. My husband loves it."),
    )
    copy = _held(service)
    _say(
        api,
        "s2",
        ("Dana", "We moved to Denver last spring. Jo plays the oboe there too."),
        ("Dana", "My husband Tom plays chess with Jo online."),
        ("Sam", "Tom and Jo should visit Paris together."),
    )
    _cards_agree(service)
    # the move superseded the home: one value at a time, with its history
    dana = service.store.entities(USER, ["person:dana"])["person:dana"].relations
    homes = {r.target: r.valid_to for r in dana if r.type in ("LIVES_IN", "MOVED_TO")}
    assert homes["place:denver"] is None and homes["place:boston"] is not None
    assert service.caches._held_relations(USER) is copy  # patched in place so far
    api.ok(MERGE, user=USER, sources=["person:jo"], into="person:sam")
    cards = _cards_agree(service)
    assert "person:jo" not in cards
    assert service.caches._held_relations(USER) is copy
    api.ok(PIN, user=USER, id=first[2], p=True)
    cards = _cards_agree(service)  # dropped by the pin and read again
    assert any(r.strong for card in cards.values() for r in card.relations)
    api.ok(FORGET, user=USER, id=first[0])
    _cards_agree(service)
    _say(api, "s3", ("Dana", "I moved to Austin for my new job at Dell."))
    _cards_agree(service)


def _row(src: str, rel: str, dst: str, count: int, last: float, *ids: str) -> GraphEdge:
    return GraphEdge(rel, src, dst, count, first_seen=1.0, last_seen=last, evidence=ids)


def test_a_card_keeps_the_strongest_then_every_cued_one_newest_evidence_last() -> None:
    held = UserRelations.load(
        [
            _row("person:a", "LIKES", "topic:x", 3, 5.0, "m1", "m2", "m3"),
            _row("person:a", "RELATED_TO", "place:y", 3, 6.0, "m4"),
            _row("person:b", "FAMILY_OF", "person:a", 1, 2.0, "m5"),
            _row("person:a", "PLAYS", "topic:z", 1, 9.0, "m6"),
        ]
    )
    card = held.card("person:a", 2, ["FAMILY_OF"], 2)
    assert [(r.type, r.direction, r.target) for r in card] == [
        ("RELATED_TO", "out", "place:y"),  # as strong as LIKES, said later
        ("LIKES", "out", "topic:x"),
        ("FAMILY_OF", "in", "person:b"),  # cued: kept past the cut
    ]
    assert card[1].evidence == ("m2", "m3")
    assert held.card("person:none", 5, [], 5) == ()


def test_a_card_presents_encouragement_co_mentions_and_history_after_the_stated_facts() -> None:
    """The tiers of graph/records.py `card_order`, whatever the counts: an agent reads a card
    from its start; the store's strongest-first order holds within a tier."""
    held = UserRelations.load(
        [
            _row("person:a", "SUPPORTS", "person:b", 9, 9.0, "m1"),
            _row("person:a", "RELATED_TO", "place:y", 9, 9.0, "m2"),
            replace(_row("person:a", "LIVES_IN", "place:x", 9, 9.0, "m3"), valid_to=9.5),
            _row("person:a", "SUPPORTS", "topic:cause", 1, 1.0, "m4"),
            _row("person:a", "LIVES_IN", "place:z", 1, 1.0, "m5"),
        ]
    )
    card = card_order("person:a", held.card("person:a", 10, [], 1))
    assert [(r.type, r.target) for r in card] == [
        ("LIVES_IN", "place:z"),
        ("SUPPORTS", "topic:cause"),  # a cause supported is a stated fact
        ("SUPPORTS", "person:b"),  # encouragement between two people
        ("RELATED_TO", "place:y"),
        ("LIVES_IN", "place:x"),  # superseded
    ]


def test_replace_takes_exactly_what_the_read_back_covers() -> None:
    held = UserRelations.load(
        [
            _row("person:a", "LIVES_IN", "place:x", 1, 1.0, "m1"),
            _row("person:a", "LIKES", "topic:t", 1, 1.0, "m2"),
            _row("person:c", "RELATED_TO", "person:d", 1, 1.0, "m3"),
        ]
    )
    held.replace(
        [
            replace(_row("person:a", "LIVES_IN", "place:x", 1, 1.0, "m1"), valid_to=4.0),
            _row("person:a", "MOVED_TO", "place:z", 1, 4.0, "m4"),
        ],
        pairs=[("person:a", "place:z")],
        sources={"person:a": frozenset({"LIVES_IN", "MOVED_TO"})},
    )
    card = {r.target: r for r in held.card("person:a", 10, [], 5)}
    assert card["place:x"].valid_to == 4.0
    assert set(card) == {"place:x", "place:z", "topic:t"}  # LIKES was not covered: kept
    # a merge moved person:c into person:d: everything around both is read back
    held.replace([], around=["person:c", "person:d"])
    assert held.card("person:d", 10, [], 5) == ()
    assert len(held) == 3


def test_a_capped_card_keeps_the_strongest_of_its_cued_relations() -> None:
    # a hub (the user of a long history) holds thousands of one cued type: its card keeps the
    # strongest `cued_limit` of them, the same as every one of them sorted and cut
    rows = [
        _row("person:u", "LIKES", f"topic:t{i}", 1 + i % 7, float(i), f"m{i}") for i in range(60)
    ]
    rows.append(_row("person:u", "WORKS_AT", "org:acme", 50, 1.0, "w1"))
    held = UserRelations.load(rows)
    full = held.card("person:u", 2, ["LIKES"], 1)
    assert len(full) == 61
    capped = held.card("person:u", 2, ["LIKES"], 1, cued_limit=5)
    assert capped == full[:7]
    assert [r.count for r in capped[2:]] == [7, 7, 7, 7, 7]
    assert held.card("person:u", 2, ["LIKES"], 1, cued_limit=0) == full[:2]
