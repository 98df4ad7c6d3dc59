"""GraphQL fuzzing with hypothesis-graphql (the generator schemathesis runs for GraphQL) against the
served schema: whatever valid (and invalid) document arrives, the service answers without a 500,
every error carries a client's code, its log holds no error of ours, and it keeps serving
normally afterwards.

Random strings rarely name anything, so most generated calls would stop at NOT_FOUND or a range
check: arguments and input fields are drawn, by name, four times in five from a fuzz dictionary of
a seeded conversation's real values (`userId` its user, `sessionId` its sessions, `keys` and
`into` its entity keys, `id` its memories, `profile` a preset…), numbers are mostly small, and
every root field is also fuzzed on its own, so `context`, `neighbourhood`, `endSession`,
`mergeEntities` and the rest reach their core with real data. The run is derandomised (the same
documents every run, up to the seeded graph's random memory ids) and bounded by its example
counts (about 40 s in `make test`; RECOLLECT_FUZZ_SCALE=10 for a deeper run by hand); a test
asserts which operations were answered with data, so a change that stops the fuzzer reaching
them fails here.
"""

from __future__ import annotations

import logging
import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from graphql import (
    DocumentNode,
    FloatValueNode,
    IntValueNode,
    ListValueNode,
    ObjectValueNode,
    StringValueNode,
    ValueNode,
    build_schema,
    parse,
    print_ast,
)
from graphql.language import FieldNode, OperationDefinitionNode
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis_graphql import Mode, from_schema, mutations, queries

from api.schema import schema
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.recall.config import PRESETS
from graph.vocabulary import RANGES
from tests.conftest import Api, close_api, open_api

CODES = {"BAD_USER_INPUT", "UNAUTHENTICATED", "FORBIDDEN", "NOT_FOUND"}
SDL = schema.as_str()
DATETIMES = st.datetimes().map(lambda d: StringValueNode(value=d.isoformat()))
SEED = [
    ("s1", "Ann", "My sister Mary lives in Boston and works at Acme Corp."),
    ("s1", "Ann", "Mary adopted a dog named Rex last spring."),
    ("s1", "assistant", "That sounds lovely! How is Rex settling in?"),
    ("s2", "Ann", "I started learning Portuguese for my trip to Lisbon in May."),
    ("s2", "Ann", "My colleague Tom recommended a language school in Porto."),
    (None, "Ann", "I prefer tea to coffee in the mornings."),
]
# the operations the dictionary must let the fuzzer reach with data (asserted at the end)
REACHED = {"context", "entity", "neighbourhood", "overview", "endSession", "mergeEntities"}
ANSWERED: Counter[str] = Counter()  # root fields answered with data, across the examples
OUTCOMES: Counter[str] = Counter()  # documents sent, and the error codes they were answered with


# arguments and input fields by name, and the part of the fuzz dictionary each is drawn from
BY_NAME = {
    "userId": "users",
    "sessionId": "sessions",
    "id": "memories",
    "key": "keys",
    "keys": "keys",
    "sources": "keys",
    "into": "keys",
    "name": "names",
    "search": "names",
    "type": "types",
    "types": "relations",
    "message": "messages",
    "query": "messages",
    "profile": "profiles",
}


def _seed(api: Api) -> dict[str, list[str]]:
    """The seeded conversation of user "f", written (again), and the fuzz dictionary of it."""
    inputs = ", ".join(
        f'{{userId: "f", text: "{text}", speaker: "{who}"'
        + (f', sessionId: "{session}"' if session else "")
        + "}"
        for session, who, text in SEED
    )
    made = api.ok(f"mutation {{ rememberMany(inputs: [{inputs}]) {{ id entities {{ key }} }} }}")
    return {
        "users": ["f"],
        "sessions": ["s1", "s2"],
        "memories": [m["id"] for m in made["rememberMany"]],
        "keys": sorted({e["key"] for m in made["rememberMany"] for e in m["entities"]}),
        "names": ["Mary", "Rex", "Boston", "Lisbon", "Acme Corp"],
        "types": ["person", "place", "org", "pet"],
        "relations": [*sorted(RANGES)[:6], "FAMILY_OF", "WORKS_AT", "HAS_PET"],
        "messages": ["Where does Mary live?", "What is Rex?", "Tell me about the trip."],
        "profiles": sorted(PRESETS),
    }


@pytest.fixture(scope="module")
def fuzzed(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[tuple[Api, dict[str, list[str]]]]:
    api, _ = open_api(tmp_path_factory.mktemp("fuzz"), extractor, embedder)
    yield api, _seed(api)
    close_api(api)


def _reseeded(api: Api, dictionary: dict[str, list[str]]) -> dict[str, list[str]]:
    """The dictionary, after writing the seed again if a fuzzed `forget`/`forgetUser` took it:
    later examples still reach the operations' core."""
    if api.runtime.store.count_memories("f") < len(SEED) - 1:
        dictionary.update(_seed(api))
    return dictionary


SCALARS = {
    "DateTime": DATETIMES,
    # small numbers most of the time: a limit of 2^31 stops a call before its core
    "Int": st.one_of(st.integers(0, 3), st.integers(0, 40), st.integers(-(2**31), 2**31 - 1)).map(
        lambda n: IntValueNode(value=str(n))
    ),
    "Float": st.one_of(st.floats(0, 1), st.floats(-1e6, 1e6)).map(
        lambda x: FloatValueNode(value=repr(x))
    ),
}


# four times in five a real value: hypothesis draws the low end of an integer range far more often
# than its share (`integers(0, 4)` gave 0, the generator's value, to a third of `userId`s), and a
# `sampled_from` leans to its first element
REAL = st.sampled_from((True, True, True, True, False))


def _real_values(document: DocumentNode, dictionary: dict[str, list[str]], data: Any) -> str:
    """The generated document with its arguments and input fields drawn from the dictionary by
    name four times in five (`userId` a real user, `keys` real entity keys, …); the rest keep
    the generator's value, which may be anything."""

    def value(name: str, node: ValueNode) -> ValueNode:
        pool = BY_NAME.get(name)
        if isinstance(node, ObjectValueNode):
            fields = tuple(replace(f, value=value(f.name.value, f.value)) for f in node.fields)
            return replace(node, fields=fields)
        if isinstance(node, ListValueNode):
            if pool and data.draw(REAL):  # the whole list real, one to three
                size = data.draw(st.integers(1, 3))
                real = data.draw(st.lists(st.sampled_from(dictionary[pool]), min_size=size))
                return replace(node, values=tuple(StringValueNode(value=v) for v in real[:3]))
            return replace(node, values=tuple(value(name, v) for v in node.values))
        if pool and isinstance(node, StringValueNode) and data.draw(REAL):
            return StringValueNode(value=data.draw(st.sampled_from(dictionary[pool])))
        return node

    def field(node: Any) -> Any:
        if not isinstance(node, FieldNode):
            return node
        arguments = tuple(replace(a, value=value(a.name.value, a.value)) for a in node.arguments)
        return replace(node, arguments=arguments)

    definitions = tuple(
        replace(d, selection_set=replace(d.selection_set, selections=tuple(
            field(f) for f in d.selection_set.selections
        )))
        if isinstance(d, OperationDefinitionNode)
        else d
        for d in document.definitions
    )  # fmt: skip
    document = replace(document, definitions=definitions)
    return print_ast(document)


def _check(api: Api, document: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.clear()
    response = api.client.post("/graphql", json={"query": document})
    assert response.status_code in (200, 400), response.text
    body = response.json()
    OUTCOMES["documents"] += 1
    for error in body.get("errors") or []:
        code = (error.get("extensions") or {}).get("code")
        OUTCOMES[f"error {code}"] += 1
        assert code in CODES, (document, error)
    ours = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not ours, (document, [r.getMessage() for r in ours])
    for name, value in (body.get("data") or {}).items():
        if value is not None:
            ANSWERED[_root_field(document, name)] += 1


def summary() -> list[str]:
    """What the fuzzer sent and how the service answered: printed at the end of the run
    (tests/conftest.py), so CI's log holds it."""
    lines = [f"documents sent: {OUTCOMES['documents']}; the errors they were answered with:"]
    lines += [f"  {name}: {n}" for name, n in sorted(OUTCOMES.items()) if name != "documents"]
    answered = ", ".join(f"{name} {n}" for name, n in sorted(ANSWERED.items()))
    lines.append(f"root fields answered with data: {answered}")
    return lines


def _root_field(document: str, answered: str) -> str:
    """The schema field behind a response key (an alias answers under its own name)."""
    for definition in parse(document).definitions:
        if isinstance(definition, OperationDefinitionNode):
            for selection in definition.selection_set.selections:
                if isinstance(selection, FieldNode):
                    key = selection.alias.value if selection.alias else selection.name.value
                    if key == answered:
                        return selection.name.value
    return answered


def _same(document: DocumentNode) -> DocumentNode:
    return document


def _send(
    fuzzed: tuple[Api, dict[str, list[str]]],
    caplog: pytest.LogCaptureFixture,
    data: Any,
    documents: st.SearchStrategy[DocumentNode],
) -> None:
    """One drawn document, its arguments from the (reseeded) dictionary, sent and checked."""
    api, dictionary = fuzzed
    document = data.draw(documents)
    _check(api, _real_values(document, _reseeded(api, dictionary), data), caplog)


# a deeper run by hand: RECOLLECT_FUZZ_SCALE=10 tries ten times as many documents
SCALE = int(os.environ.get("RECOLLECT_FUZZ_SCALE", "1"))


def _fuzz(examples: int) -> settings:
    return settings(
        max_examples=examples * SCALE,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


@_fuzz(150)
@given(data=st.data())
def test_fuzzed_valid_documents(
    fuzzed: tuple[Api, dict[str, list[str]]], caplog: pytest.LogCaptureFixture, data: Any
) -> None:
    _send(fuzzed, caplog, data, from_schema(SDL, custom_scalars=SCALARS, print_ast=_same))


PARSED = build_schema(SDL)
QUERIES = sorted(PARSED.query_type.fields) if PARSED.query_type else []
MUTATIONS = sorted(PARSED.mutation_type.fields) if PARSED.mutation_type else []


@pytest.mark.parametrize(
    "operation",
    [*(("query", q) for q in QUERIES), *(("mutation", m) for m in MUTATIONS)],
    ids=[*QUERIES, *MUTATIONS],
)
@_fuzz(40)
@given(data=st.data())
def test_each_operation_fuzzed_with_real_values(
    fuzzed: tuple[Api, dict[str, list[str]]],
    caplog: pytest.LogCaptureFixture,
    operation: tuple[str, str],
    data: Any,
) -> None:
    """Every root field on its own, forty documents each: the broad run above meets some
    operations a handful of times, and this one reaches each with the seeded graph's values."""
    kind, name = operation
    make = queries if kind == "query" else mutations
    _send(fuzzed, caplog, data, make(SDL, fields=[name], custom_scalars=SCALARS, print_ast=_same))


@_fuzz(60)
@given(data=st.data())
def test_fuzzed_invalid_documents(
    fuzzed: tuple[Api, dict[str, list[str]]], caplog: pytest.LogCaptureFixture, data: Any
) -> None:
    negative = from_schema(SDL, mode=Mode.NEGATIVE, custom_scalars=SCALARS, print_ast=_same)
    _send(fuzzed, caplog, data, negative)


def test_the_fuzzer_reached_every_operations_core(fuzzed: tuple[Api, dict[str, list[str]]]) -> None:
    """Runs after the fuzzing tests (file order): each of these answered with data at least
    once, with the seeded graph's ids and names."""
    missing = REACHED - set(ANSWERED)
    assert not missing, (missing, dict(ANSWERED))


def test_service_answers_normally_after_fuzzing(fuzzed: tuple[Api, dict[str, list[str]]]) -> None:
    api, _ = fuzzed
    assert api.client.get("/healthz").status_code == 200
    said = '{userId: "after", text: "My sister Mary lives in Boston."}'
    api.ok(f"mutation {{ remember(input: {said}) {{ id }} }}")
    block = api.ok('{ context(userId: "after", message: "Where does Mary live?") { text } }')
    assert "Mary" in block["context"]["text"]
