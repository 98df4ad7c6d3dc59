"""Cypher lives only in cypher/, every file is used, and the graph vocabulary is closed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

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
        queries.require(STATEMENTS)
        assert queries.names() == STATEMENTS
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


def test_write_statement_spells_out_the_whole_vocabulary() -> None:
    text = (CYPHER / "write_memories.cypher").read_text(encoding="utf-8")
    set_labels = set(re.findall(r"SET e:([A-Za-z]+)\)", text))
    assert set_labels == set(ENTITY_LABELS.values())
    for entity_type, label in ENTITY_LABELS.items():
        assert f"x.type = '{entity_type}' THEN [1] ELSE [] END | SET e:{label})" in text
    merged = set(re.findall(r"MERGE \(a\)-\[x:([A-Z_]+)\]->\(b\)", text))
    assert merged == set(RELATION_TYPES)
    for rel in RELATION_TYPES:
        assert f"t = '{rel}' THEN [1]" in text


@pytest.mark.parametrize("name", ["Person", "WORKS_AT", "MENTIONS"])
def test_identifier_check_accepts_vocabulary(name: str) -> None:
    assert check_identifier(name) == name


@pytest.mark.parametrize(
    "name", ["Person) DETACH DELETE (n", "works_at", "Hacker", "`Person`", "Person:Admin", ""]
)
def test_identifier_check_rejects_everything_else(name: str) -> None:
    with pytest.raises(ValueError, match="not in the graph vocabulary"):
        check_identifier(name)
