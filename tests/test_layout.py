"""The house stays readable: no function over 60 lines in the service's packages (bench entry
points are scripts and exempt), and graph/service.py stays a thin facade of at most 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("graph", "extraction", "api")
MAX_FUNCTION_LINES = 60
MAX_SERVICE_LINES = 300


def test_no_function_is_longer_than_sixty_lines() -> None:
    long: list[str] = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > MAX_FUNCTION_LINES:
                        long.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {lines}")
    assert not long, long


def test_the_service_is_a_thin_facade() -> None:
    lines = (ROOT / "graph" / "service.py").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_SERVICE_LINES, lines


def test_no_bench_script_shadows_the_standard_library() -> None:
    """A bench script runs with bench/ first on sys.path: a `bench/profile.py` made spaCy's
    `import cProfile` load it instead of the standard `profile`, and every bench failed."""
    import sys

    shadowing = sorted(
        p.name for p in (ROOT / "bench").glob("*.py") if p.stem in sys.stdlib_module_names
    )
    assert not shadowing, f"rename {shadowing}: they shadow standard modules"
