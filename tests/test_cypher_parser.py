"""Every .cypher file passes Neo4j's own Cypher parser (no Neo4j server can run on these machines).

The parser is the npm package @neo4j-cypher/language-support, run by tools/cypherlint/lint.mjs
(`make test` installs it with `npm ci --prefix tools/cypherlint`). Zero errors is the bar
("Parameter $x is not defined" is dropped by the script: parameters come at run time). A warning is
allowed only if it is a deprecation and the file says in a `//` comment that FalkorDB lacks (or
rejects, or does not support) the newer form.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # starts the engine, the service or Node

ROOT = Path(__file__).resolve().parents[1]
CYPHER = ROOT / "cypher"
LINTER = ROOT / "tools" / "cypherlint"
PACKAGE = "@neo4j-cypher/language-support"
INSTALL = "run `npm ci --prefix tools/cypherlint` (needs Node.js 20 or newer on PATH)"
FALKORDB_LACKS = re.compile(
    r"//.*\bFalkorDB\b.*\b(lacks|rejects|does not support|doesn't support)\b", re.IGNORECASE
)

FILES = sorted(p.relative_to(ROOT).as_posix() for p in CYPHER.rglob("*.cypher"))


@functools.cache
def _run_linter() -> dict[str, Any] | str:
    """Runs the linter once over every file: the report, or why it could not run."""
    node = shutil.which("node")
    if node is None:
        return f"node is not on PATH: install Node.js, then {INSTALL}"
    pinned = json.loads((LINTER / "package.json").read_text(encoding="utf-8"))
    wanted = pinned["dependencies"][PACKAGE]
    installed = LINTER / "node_modules" / PACKAGE / "package.json"
    if not installed.is_file():
        return f"{PACKAGE} is not installed: {INSTALL}"
    version = json.loads(installed.read_text(encoding="utf-8"))["version"]
    if version != wanted:
        return f"{PACKAGE} {version} is installed, {wanted} is pinned: {INSTALL}"
    done = subprocess.run(  # noqa: S603 - fixed script, paths from this repository
        [node, str(LINTER / "lint.mjs"), *FILES],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        return f"the Cypher linter failed ({INSTALL}):\n{done.stderr}"
    report: dict[str, Any] = json.loads(done.stdout)
    return report


def _report() -> dict[str, Any]:
    """The linter's report; fails (never skips) the calling test when the linter cannot run."""
    report = _run_linter()
    if isinstance(report, str):
        pytest.fail(report, pytrace=False)
    return report


def test_cypher_files_are_found() -> None:
    assert len(FILES) > 20
    assert any(f.startswith("cypher/schema/neo4j/") for f in FILES)
    assert any(f.startswith("cypher/schema/falkordb/") for f in FILES)
    assert any(f.startswith("cypher/analyst/") for f in FILES)


@pytest.mark.parametrize("name", FILES)
def test_neo4j_parser_accepts(name: str) -> None:
    diagnostics = _report()[name]["diagnostics"]
    text = (ROOT / name).read_text(encoding="utf-8")
    explained = FALKORDB_LACKS.search(text) is not None
    bad = [
        d
        for d in diagnostics
        if d["severity"] == "error" or not (explained and "deprecated" in d["message"].lower())
    ]
    assert bad == [], "\n".join(
        f"{name}:{d['line']}:{d['column']}: {d['severity']}: {d['message']}" for d in bad
    )


@pytest.mark.parametrize("name", FILES)
def test_one_statement_per_file(name: str) -> None:
    assert _report()[name]["statements"] == 1
