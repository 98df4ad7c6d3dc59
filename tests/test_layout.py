"""The house stays readable: no function over 60 lines in the service's packages (bench entry
points are scripts and exempt), and graph/service.py stays a thin facade of at most 300 lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("graph", "extraction", "api")
MAX_FUNCTION_LINES = 60
MAX_SERVICE_LINES = 300
MAX_README_LINES = 450


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


def test_the_readme_stays_a_manual() -> None:
    """Long explanations go to docs/; the README is what a newcomer reads top to bottom."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move detail to docs/"


def test_no_bench_script_shadows_the_standard_library() -> None:
    """A bench script runs with bench/ first on sys.path: a `bench/profile.py` made spaCy's
    `import cProfile` load it instead of the standard `profile`, and every bench failed."""
    import sys

    shadowing = sorted(
        p.name for p in (ROOT / "bench").glob("*.py") if p.stem in sys.stdlib_module_names
    )
    assert not shadowing, f"rename {shadowing}: they shadow standard modules"


# -- the direction of imports inside graph/ (docs/layers.md) ------------------------------------
# Bottom to top. A module imports only modules of its own layer or below; a room's module imports
# no other room's (shared pure code lives in the stages, below every room). Every module of graph/
# must be placed here: a new one fails this test until someone decides where it belongs.
LAYERS: tuple[tuple[str, frozenset[str]], ...] = (
    (
        "values",  # value types, records and checks: no I/O
        frozenset(
            {
                "graph",
                "graph.ids",
                "graph.errors",
                "graph.limits",
                "graph.records",
                "graph.batch",
                "graph.vocabulary",
                "graph.validation",
                "graph.repeats",
                "graph.request_cost",
                "graph.heap",
                "graph.queries",
                "graph.chat",
            }
        ),
    ),
    (
        "store",  # the one seam to the database, the engines, the vectors, the model threads
        frozenset(
            {
                "graph.engine",
                "graph.executor",
                "graph.store",
                "graph.profile_store",
                "graph.vectors",
                "graph.lexical",
                "graph.user_files",
                "graph.lexical_files",
                "graph.catalog_files",
                "graph.cache_files",
                "graph.model_threads",
                "graph.background",
                "graph.residency",
            }
        ),
    ),
    (
        "caches",  # per-user copies that follow the graph's change sequence
        frozenset(
            {
                "graph.caches",
                "graph.prewarm",
                "graph.follow",
                "graph.reconcile",
                "graph.memory_facts",
                "graph.relation_facts",
            }
        ),
    ),
    (
        "stages",  # pure rules: ranking, the block, episodes' text, profile rules, the explorer
        frozenset(
            {
                "graph.neighbourhood",
                "graph.recall.config",
                "graph.recall.scoring",
                "graph.recall.confidence",
                "graph.recall.episodes",
                "graph.recall.textrank",
                "graph.recall.tense",
                "graph.recall.stages",
                "graph.recall.block",
                "graph.recall.request",
                "graph.recall.features",
                "graph.recall.content",
                "graph.recall.ranker",
                "graph.recall.walk",
                "graph.profile",
                "graph.profile.rules",
                "graph.profile.tally",
                "graph.profile.signals",
                "graph.profile.coverage",
                "graph.profile.coverage_tally",
            }
        ),
    ),
    (
        "rooms",  # the read (recall), write and profile rooms, each through a narrow protocol
        frozenset(
            {
                "graph.recall",
                "graph.recall.reads",
                "graph.recall.retrieval",
                "graph.recall.lookup",
                "graph.recall.candidates",
                "graph.recall.window",
                "graph.recall.header",
                "graph.profile.view",
            }
            | {f"graph.write.{p.stem}" for p in (ROOT / "graph" / "write").glob("*.py")}
            | {"graph.write"}
        ),
    ),
    ("top", frozenset({"graph.service", "graph.export", "graph.assembly"})),  # what api/ calls
)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The graph modules a file imports; `from graph.x import y` counts y when y is a module."""
    placed = {m for _, ms in LAYERS for m in ms}
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            modules = {f"{node.module}.{a.name}" for a in node.names} & placed
            found |= modules or {node.module}  # `from graph.recall import episodes`: the module
    return found & placed


def _layer(module: str) -> int:
    for i, (_, modules) in enumerate(LAYERS):
        if module in modules:
            return i
    raise AssertionError(f"{module} is in no layer of tests/test_layout.py LAYERS: place it")


def _room(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else module


def _graph_modules() -> dict[str, set[str]]:
    return {_module(p): _imports(p) - {_module(p)} for p in sorted((ROOT / "graph").rglob("*.py"))}


def test_graph_imports_run_down_the_layers_and_never_across_rooms() -> None:
    rooms = _layer("graph.recall.retrieval")
    wrong: list[str] = []
    for module, imported in _graph_modules().items():
        for other in sorted(imported):
            if _layer(other) > _layer(module):
                wrong.append(f"{module} imports {other}, a higher layer")
            elif _layer(other) == _layer(module) == rooms and _room(other) != _room(module):
                wrong.append(f"{module} imports {other}, another room")
    assert not wrong, wrong


def test_the_folders_of_graph_form_no_cycle() -> None:
    """Each subfolder of graph/ and each top-level module is one node; an import is an edge."""
    from graphlib import CycleError, TopologicalSorter

    folder = {m: ".".join(m.split(".")[:2]) for m in _graph_modules()}
    edges: dict[str, set[str]] = {}
    for module, imported in _graph_modules().items():
        edges.setdefault(folder[module], set()).update(
            folder[o] for o in imported if folder[o] != folder[module] and folder[o] != "graph"
        )
    try:
        tuple(TopologicalSorter(edges).static_order())
    except CycleError as cycle:
        raise AssertionError(f"graph/ folders import in a cycle: {cycle.args[1]}") from None


def test_the_service_is_imported_by_nothing_in_graph_and_the_packages_keep_apart() -> None:
    top = _layer("graph.service")  # the assembly builds the service: the same, top layer
    wrong = [
        m
        for m, imported in _graph_modules().items()
        if "graph.service" in imported and _layer(m) < top
    ]
    assert not wrong, wrong
    for package, banned in (("extraction", ("graph", "api")), ("graph", ("api",))):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom | ast.Import):
                    names = [node.module or ""] if isinstance(node, ast.ImportFrom) else []
                    names += [a.name for a in node.names] if isinstance(node, ast.Import) else []
                    hit = [n for n in names if n.split(".")[0] in banned]
                    assert not hit, f"{path.relative_to(ROOT)} imports {hit}"


# the doors of graph/ that api/ may use: the service (its calls and their requests and answers),
# the assembly (the composition root's parts), the records and errors, the input checks and
# limits, the presets, the explorer's view and vocabulary, and the request cost /metrics reads
API_SURFACE = frozenset(
    {
        "graph.service",
        "graph.assembly",
        "graph.records",
        "graph.errors",
        "graph.limits",
        "graph.validation",
        "graph.recall.config",
        "graph.neighbourhood",
        "graph.vocabulary",
        "graph.request_cost",
    }
)


def test_api_reaches_graph_through_its_named_doors_only() -> None:
    wrong = {
        f"{path.relative_to(ROOT)} imports {module}"
        for path in sorted((ROOT / "api").rglob("*.py"))
        for module in _imports(path) - API_SURFACE
    }
    assert not wrong, sorted(wrong)
    assert len(API_SURFACE) <= 10


def test_the_command_line_parses_its_arguments_before_any_model_is_imported() -> None:
    """`recollect` reads its arguments and settings before torch, spaCy or Presidio are imported:
    importing them first costs seconds, and the model-loading bars would print before the CLI
    turned them off (tests/test_logs.py). graph/assembly.py keeps its heavy parts inside its
    functions for this."""
    import subprocess
    import sys

    heavy = ("torch", "spacy", "transformers", "presidio_analyzer", "faiss")
    probe = f"import sys, api.cli; print([m for m in {heavy!r} if m in sys.modules])"
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip() == "[]", loaded.stdout


def test_loading_the_pipeline_imports_neither_presidio_nor_transformers() -> None:
    """spaCy imports every `spacy_factories` entry point when it makes a pipeline, and Presidio
    declares one: loading ours imported Presidio and transformers' pipelines (2.8 s of every
    one-shot command) until extraction/pipeline.py left it out."""
    import subprocess
    import sys

    probe = (
        "import sys; from extraction.pipeline import load_pipeline; load_pipeline(); "
        "print([m for m in ('presidio_analyzer', 'transformers', 'torch') if m in sys.modules])"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip().splitlines()[-1] == "[]", loaded.stdout


def test_spacy_is_loaded_without_torch_and_torch_imports_after_it() -> None:
    """thinc imports torch on its own import (1.1 s of every command) for wrappers our pipeline
    never uses; extraction/__init__.py hides torch from it. The pipeline parses without torch,
    and torch still imports afterwards, as the eager embedder needs it."""
    import subprocess
    import sys

    probe = (
        "import sys; from extraction.extractor import Extractor; "
        "x = Extractor.load(warm=False); "
        "facts = x.extract('My sister Ana moved to Porto.', 'Kim').relations; "
        "before = 'torch' in sys.modules; import torch, thinc.compat; "
        "print(before, thinc.compat.has_torch, torch.ones(2).sum().item(), len(facts) > 0)"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert loaded.stdout.strip().splitlines()[-1] == "False False 2.0 True", loaded.stdout
