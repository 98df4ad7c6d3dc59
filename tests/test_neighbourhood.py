"""GraphQL `neighbourhood` and `overview` (graph/neighbourhood.py) on the real embedded engine:
what a view holds, its filters, its bounds and their errors, the evidence of its relations, and
that Neo4j Browser's query of the same view (cypher/analyst/explorer_view.cypher) draws the same
thing. The walk's statement budget is checked with a recording stand-in for the store."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from graph.assembly import falkordb_server
from graph.errors import InvalidInput
from graph.neighbourhood import NeighbourhoodRequest, read_neighbourhood
from graph.records import GraphEdge, GraphNode, ViewFilter
from tests.conftest import TEST_GRAPH_URI, Api
from tests.documents import REMEMBER_MANY

VIEW = """query($u: ID!, $k: [String!]!, $d: Int, $l: Int, $t: [String!], $c: Boolean,
  $et: [String!], $s: DateTime, $un: DateTime) {
  neighbourhood(userId: $u, keys: $k, depth: $d, limit: $l, types: $t, current: $c,
    entityTypes: $et, since: $s, until: $un) {
    nodes { key label type mentionCount depth }
    edges { type source target role count current validFrom validTo
      evidence(first: 10) { id text speaker } }
    truncated edgesTruncated missing } }"""
OVERVIEW = """query($u: ID!, $l: Int, $et: [String!]) {
  overview(userId: $u, limit: $l, entityTypes: $et) {
    nodes { key type mentionCount } edges { type source target } truncated } }"""
CARD = """query($u: ID!, $k: String!) { entity(userId: $u, key: $k) {
  relations { type direction target { key } } } }"""
ALICE = "person:alice_smith"
ANALYST = Path(__file__).resolve().parents[1] / "cypher" / "analyst"


def _view(api: Api, user: str, keys: list[str], **args: Any) -> dict[str, Any]:
    variables = {"u": user, "k": keys, **args}
    return dict(api.ok(VIEW, **variables)["neighbourhood"])


def _keys(view: dict[str, Any]) -> set[str]:
    return {n["key"] for n in view["nodes"]}


def _triples(view: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(e["type"], e["source"], e["target"]) for e in view["edges"]}


@pytest.fixture(scope="module")
def moved(api: Api) -> dict[str, str]:
    """A user who lived in Boston and moved to Lisbon: one superseded fact, one current."""
    turns = [
        ("2023-01-10T09:00:00Z", "I live in Boston with my two cats."),
        ("2023-06-01T09:00:00Z", "I moved to Lisbon last month for a new job."),
    ]
    inputs = [
        {"userId": "nb-move", "speaker": "Alice", "text": t, "occurredAt": w} for w, t in turns
    ]
    boston, lisbon = (m["id"] for m in api.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"])
    return {"boston": boston, "lisbon": lisbon}


def test_depth_one_is_the_entity_and_every_relation_of_its_card(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    view = _view(api, "alice", [ALICE])
    card = api.ok(CARD, u="alice", k=ALICE)["entity"]
    related = {r["target"]["key"] for r in card["relations"]}
    assert _keys(view) == related | {ALICE}
    own = {
        (e["type"], e["target"] if e["source"] == ALICE else e["source"])
        for e in view["edges"]
        if ALICE in (e["source"], e["target"])
    }
    assert own == {(r["type"], r["target"]["key"]) for r in card["relations"]}
    depths = {n["key"]: n["depth"] for n in view["nodes"]}
    assert depths.pop(ALICE) == 0 and set(depths.values()) == {1}
    assert not view["truncated"] and view["missing"] == []
    # relations among the neighbours are drawn too (Mary and Seattle, both next to Alice)
    assert ("RELATED_TO", "person:mary", "place:seattle") in _triples(view)


def test_each_hop_reaches_one_further(api: Api, remembered: list[dict[str, Any]]) -> None:
    one, two = (_view(api, "alice", ["person:mary"], d=d) for d in (1, 2))
    assert _keys(one) < _keys(two)
    nodes = {n["key"]: n["depth"] for n in two["nodes"]}
    for key, depth in nodes.items():
        if depth == 0:
            continue
        nearer = {
            e["source"] if e["target"] == key else e["target"]
            for e in two["edges"]
            if key in (e["source"], e["target"])
        }
        assert any(nodes.get(k) == depth - 1 for k in nearer), f"{key} at depth {depth}"
    assert _keys(_view(api, "alice", ["person:mary"], d=0)) == {"person:mary"}


def test_a_limit_keeps_the_strongest_and_says_it_cut(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    whole = _view(api, "alice", [ALICE], d=2)
    cut = _view(api, "alice", [ALICE], d=2, l=4)
    assert len(cut["nodes"]) == 4 and cut["truncated"] and not whole["truncated"]
    assert ALICE in _keys(cut) and _keys(cut) < _keys(whole)
    assert all(e["source"] in _keys(cut) and e["target"] in _keys(cut) for e in cut["edges"])


def test_filters_keep_types_current_facts_and_a_time_range(
    api: Api, remembered: list[dict[str, Any]], moved: dict[str, str]
) -> None:
    family = _view(api, "alice", [ALICE], t=["FAMILY_OF"])
    assert {e["type"] for e in family["edges"]} == {"FAMILY_OF"}
    assert {"person:mary", "person:linda", "person:emma"} <= _keys(family)
    places = _view(api, "alice", [ALICE], et=["place"])
    assert {n["type"] for n in places["nodes"] if n["key"] != ALICE} == {"place"}

    me = "person:alice"
    history = _view(api, "nb-move", [me], t=["LIVES_IN"])
    assert {(e["target"], e["current"]) for e in history["edges"]} == {
        ("place:boston", False),
        ("place:lisbon", True),
    }
    now = _view(api, "nb-move", [me], t=["LIVES_IN"], c=True)
    assert _keys(now) == {me, "place:lisbon"}
    # Boston held from January to June 2023; Lisbon holds from June on
    spring = _view(
        api, "nb-move", [me], t=["LIVES_IN"], s="2023-02-01T00:00:00Z", un="2023-03-01T00:00:00Z"
    )
    assert _keys(spring) == {me, "place:boston"}
    later = _view(api, "nb-move", [me], t=["LIVES_IN"], s="2024-01-01T00:00:00Z")
    assert _keys(later) == {me, "place:lisbon"}


def test_edges_carry_the_text_of_their_evidence(api: Api, moved: dict[str, str]) -> None:
    view = _view(api, "nb-move", ["person:alice"], t=["LIVES_IN"])
    boston = next(e for e in view["edges"] if e["target"] == "place:boston")
    assert [(m["id"], m["text"], m["speaker"]) for m in boston["evidence"]] == [
        (moved["boston"], "I live in Boston with my two cats.", "Alice")
    ]
    assert boston["validTo"].startswith("2023-06-01") and boston["count"] == 1


def test_unknown_keys_are_listed_not_drawn(api: Api, remembered: list[dict[str, Any]]) -> None:
    view = _view(api, "alice", ["person:nobody", "person:mary"], d=0)
    assert _keys(view) == {"person:mary"} and view["missing"] == ["person:nobody"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"d": 4}, "depth: is 4; allowed 0 to 3"),
        ({"d": -1}, "depth: is -1; allowed 0 to 3"),
        ({"l": 0}, "limit: is 0; allowed 1 to 2000"),
        ({"l": 2001}, "limit: is 2001; allowed 1 to 2000"),
        ({"k": []}, "keys: is empty"),
        ({"k": ["mary"]}, "keys[0]: is 'mary'; an entity key looks like 'person:mary'"),
        ({"k": [f"person:p{i}" for i in range(51)]}, "keys: holds 51 keys; at most 50 allowed"),
        ({"k": ["person:a", "person:b"], "l": 1}, "limit: is 1; the view starts with 2 keys"),
        ({"t": ["LIVES_IN", "HATES"]}, "types[1]: is 'HATES'; allowed WORKS_AT"),
        ({"et": ["robot"]}, "entityTypes[0]: is 'robot'; allowed person, place"),
        ({"s": "2024-01-01T00:00:00Z", "un": "2023-01-01T00:00:00Z"}, "since: is after until"),
    ],
)
def test_bad_arguments_are_named(api: Api, args: dict[str, Any], message: str) -> None:
    body = api.raw(VIEW, **{"u": "alice", "k": [ALICE], **args})
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert message in body["errors"][0]["message"]


def test_overview_is_the_most_mentioned_and_the_relations_among_them(
    api: Api, remembered: list[dict[str, Any]]
) -> None:
    view = api.ok(OVERVIEW, u="alice", l=5)["overview"]
    counts = [n["mentionCount"] for n in view["nodes"]]
    assert len(counts) == 5 and counts == sorted(counts, reverse=True) and view["truncated"]
    assert ALICE in {n["key"] for n in view["nodes"]}
    drawn = {n["key"] for n in view["nodes"]}
    assert view["edges"] and all({e["source"], e["target"]} <= drawn for e in view["edges"])
    people = api.ok(OVERVIEW, u="alice", l=100, et=["person"])["overview"]
    assert {n["type"] for n in people["nodes"]} == {"person"} and not people["truncated"]
    body = api.raw(OVERVIEW, u="alice", l=0)
    assert "limit: is 0; allowed 1 to 2000" in body["errors"][0]["message"]


def _run_analyst(api: Api, name: str, params: dict[str, Any]) -> list[tuple[Any, Any]]:
    """An analyst query as Neo4j Browser runs it — straight on the engine, no service statement:
    with the neo4j driver on a Bolt server, else with FalkorDB's client. `userId` gains the
    test's namespace, as the service's own statements do."""
    text = (ANALYST / f"{name}.cypher").read_text(encoding="utf-8")
    namespace = api.runtime.settings.namespace
    params = {
        **params,
        "userId": f"{namespace}/{params['userId']}" if namespace else params["userId"],
    }
    if TEST_GRAPH_URI and TEST_GRAPH_URI.startswith("bolt"):
        from neo4j import GraphDatabase

        auth = (
            os.environ["RECOLLECT_TEST_GRAPH_USER"],
            os.environ["RECOLLECT_TEST_GRAPH_PASSWORD"],
        )
        with GraphDatabase.driver(TEST_GRAPH_URI, auth=auth) as driver:
            records, _, _ = driver.execute_query(text, params)
        return [
            (
                r["e"]["key"],
                None
                if r["p"] is None
                else (
                    r["p"].relationships[0].type,
                    r["p"].start_node["key"],
                    r["p"].end_node["key"],
                ),
            )
            for r in records
        ]
    from falkordb import FalkorDB

    if TEST_GRAPH_URI:
        host, port, graph_name = falkordb_server(TEST_GRAPH_URI)
    else:
        engine = api.runtime.engine
        assert engine is not None
        host, port, graph_name = "127.0.0.1", engine.port, api.runtime.settings.graph_name
    graph = FalkorDB(host=host, port=port).select_graph(graph_name)
    return [
        (
            e.properties["key"],
            None
            if p is None
            else (
                p.edges()[0].relation,
                p.first_node().properties["key"],
                p.last_node().properties["key"],
            ),
        )
        for e, p in graph.query(text, params).result_set
    ]


@pytest.mark.parametrize("args", [{}, {"t": ["FAMILY_OF", "LIVES_IN"]}, {"c": True, "d": 2}])
def test_the_browser_query_draws_the_same_view(
    api: Api, remembered: list[dict[str, Any]], args: dict[str, Any]
) -> None:
    """What the explorer's "Cypher for Browser" button gives (cypher/analyst/explorer_view), run
    on the engine as Browser would: the same entities and the same relations as the view."""
    view = _view(api, "alice", [ALICE], **args)
    params = {
        "userId": "alice",
        "keys": sorted(_keys(view)),
        "types": args.get("t"),
        "current": bool(args.get("c")),
        "since": None,
        "until": None,
    }
    rows = _run_analyst(api, "explorer_view", params)
    assert {key for key, _ in rows} == _keys(view)
    assert {path for _, path in rows if path is not None} == _triples(view)


# -- the walk, against a recording stand-in for the store ---------------------------------------


class Recorder:
    """A star graph: `hub` related to `spokes` entities, each spoke to one leaf of its own."""

    def __init__(self, spokes: int) -> None:
        self.calls: list[str] = []
        self.spokes = [f"topic:s{i}" for i in range(spokes)]

    def _node(self, key: str, depth: int = 0) -> GraphNode:
        return GraphNode(key, key, key.partition(":")[0], (), 1, None, None, depth)

    def graph_nodes(self, user_id: str, keys: Sequence[str]) -> list[GraphNode]:
        self.calls.append("nodes")
        return [self._node(k) for k in keys if k == "person:hub"]

    def graph_top(self, user_id: str, view: ViewFilter, limit: int) -> list[GraphNode]:
        self.calls.append("top")
        return [self._node(k) for k in ["person:hub", *self.spokes][:limit]]

    def graph_step(
        self, user_id: str, frontier: Sequence[str], view: ViewFilter, limit: int, depth: int
    ) -> list[GraphNode]:
        self.calls.append("step")
        found: list[str] = []
        for key in frontier:
            if key == "person:hub":
                found += self.spokes
            elif key in self.spokes:
                found += ["person:hub", key.replace("topic:s", "topic:leaf")]
        return [self._node(k, depth) for k in dict.fromkeys(found)][:limit]

    def graph_edges(
        self, user_id: str, keys: Sequence[str], view: ViewFilter, limit: int
    ) -> list[GraphEdge]:
        self.calls.append("edges")
        return [GraphEdge("LIKES", "person:hub", k, 1) for k in keys if k in self.spokes][:limit]


def test_a_walk_runs_at_most_depth_plus_two_statements() -> None:
    store = Recorder(spokes=5)
    view = read_neighbourhood(store, NeighbourhoodRequest.checked("u", ["person:hub"], depth=3))
    assert store.calls == ["nodes", "step", "step", "step", "edges"]  # the third finds no one
    assert len(view.nodes) == 11 and not view.truncated
    assert {n.depth for n in view.nodes if n.key.startswith("topic:leaf")} == {2}


def test_a_walk_stops_at_the_limit_and_says_so() -> None:
    store = Recorder(spokes=300)
    view = read_neighbourhood(store, NeighbourhoodRequest.checked("u", ["person:hub"], limit=200))
    assert len(view.nodes) == 200 and view.truncated
    assert store.calls == ["nodes", "step", "edges"]
    exact = read_neighbourhood(
        Recorder(spokes=199), NeighbourhoodRequest.checked("u", ["person:hub"])
    )
    assert len(exact.nodes) == 200 and not exact.truncated


def test_an_overview_walks_nowhere() -> None:
    store = Recorder(spokes=10)
    view = read_neighbourhood(store, NeighbourhoodRequest.overview("u", limit=5))
    assert store.calls == ["top", "edges"] and len(view.nodes) == 5 and view.truncated


def test_requests_check_before_any_statement() -> None:
    with pytest.raises(InvalidInput, match=r"depth: is 9; allowed 0 to 3"):
        NeighbourhoodRequest.checked("u", ["person:a"], depth=9)
    with pytest.raises(InvalidInput, match=r"userId: must not be empty"):
        NeighbourhoodRequest.overview(" ")
    with pytest.raises(InvalidInput, match=r"keys\[0\]: contains a NUL character"):
        NeighbourhoodRequest.checked("u", ["person:a\x00"])
