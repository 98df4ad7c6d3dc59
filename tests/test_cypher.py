"""Cypher lives only in cypher/, every file is used, and the graph vocabulary is closed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graph.export import EXPORT_STATEMENTS
from graph.queries import Queries
from graph.store import STATEMENTS
from graph.vocabulary import (
    EDGE_TYPES,
    ENTITY_LABELS,
    NODE_LABELS,
    RELATION_TYPES,
    check_identifier,
)

ROOT = Path(__file__).resolve().parents[1]
CYPHER = ROOT / "cypher"
CYPHER_IN_PYTHON = re.compile(r"\b(MATCH|MERGE|DETACH\s+DELETE|UNWIND)\b\s*[\(\$a-z]")


def _cypher_files() -> list[Path]:
    return sorted(p for p in CYPHER.rglob("*.cypher") if "analyst" not in p.parts)


def test_no_python_file_holds_cypher() -> None:
    offenders = []
    for folder in ("graph", "extraction", "api"):
        for path in (ROOT / folder).rglob("*.py"):
            if CYPHER_IN_PYTHON.search(path.read_text(encoding="utf-8")):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_every_statement_exists_and_every_file_is_used() -> None:
    for engine in ("falkordb", "neo4j"):
        queries = Queries(engine)
        queries.require(STATEMENTS | EXPORT_STATEMENTS)
        assert queries.names() == STATEMENTS | EXPORT_STATEMENTS
        assert queries.schema, f"no schema statements for {engine}"


def test_missing_statement_fails_fast() -> None:
    with pytest.raises(KeyError, match="missing Cypher statements in cypher/: no_such_thing"):
        Queries("falkordb").require({"no_such_thing"})


def test_labels_and_types_in_cypher_come_from_the_vocabulary() -> None:
    labels: set[str] = set()
    types: set[str] = set()
    for path in _cypher_files():
        text = re.sub(r"//.*", "", path.read_text(encoding="utf-8"))
        labels |= set(re.findall(r"\(\s*\w*\s*:\s*([A-Za-z_]+)", text))
        labels |= set(re.findall(r"SET\s+\w+\s*:\s*([A-Za-z_]+)", text))
        types |= set(re.findall(r"\[\s*\w*\s*:\s*([A-Za-z_]+)", text))
    assert labels <= set(NODE_LABELS)
    assert types <= set(EDGE_TYPES)


@pytest.mark.parametrize("name", ["write_memories", "import_entities"])
def test_entity_labels_are_spelled_out_from_the_vocabulary(name: str) -> None:
    text = (CYPHER / f"{name}.cypher").read_text(encoding="utf-8")
    pairs = set(
        re.findall(r"\.type = '([a-z]+)' THEN \[1\] ELSE \[\] END \| SET e:([A-Za-z]+)\)", text)
    )
    assert pairs == set(ENTITY_LABELS.items())


@pytest.mark.parametrize("name", ["write_memories", "import_relations"])
def test_relationship_types_are_spelled_out_from_the_vocabulary(name: str) -> None:
    text = (CYPHER / f"{name}.cypher").read_text(encoding="utf-8")
    pairs = set(
        re.findall(r"= '([A-Z_]+)' THEN \[1\] ELSE \[\] END \|\s+MERGE \(a\)-\[x:([A-Z_]+)\]", text)
    )
    assert pairs == {(rel, rel) for rel in RELATION_TYPES}


@pytest.mark.parametrize("name", ["Person", "WORKS_AT", "MENTIONS"])
def test_identifier_check_accepts_vocabulary(name: str) -> None:
    assert check_identifier(name) == name


@pytest.mark.parametrize(
    "name", ["Person) DETACH DELETE (n", "works_at", "Hacker", "`Person`", "Person:Admin", ""]
)
def test_identifier_check_rejects_everything_else(name: str) -> None:
    with pytest.raises(ValueError, match="not in the graph vocabulary"):
        check_identifier(name)
