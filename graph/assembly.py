"""How the graph side of a running service is put together from plain values: the executor on the
configured graph (a FalkorDB server, a Bolt server, or the embedded engine started here), the
store, the vectors and the storage policy's screen, the parts the service is built over.

api/runtime.py, the composition root, calls `connect` and `assemble` with its settings, builds the
service over the parts and owns them all. It, the settings and the CLI reach the executor, the
engine, the policy's parser and the export through this module (the `as` imports re-export them),
so `api/` depends on a few named doors of `graph/`, not on its rooms (tests/test_layout.py,
API_SURFACE). Cheap to import: the settings and the CLI's argument checks import it before any
model loads, so what pulls in torch, spaCy or Presidio is imported inside the function that
builds it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlparse

from graph.engine import EmbeddedEngine as EmbeddedEngine
from graph.errors import StoreUnavailable
from graph.executor import BoltExecutor as BoltExecutor
from graph.executor import Executor as Executor
from graph.executor import FalkorExecutor as FalkorExecutor
from graph.executor import Namespace as Namespace
from graph.heap import freeze_started as freeze_started
from graph.heap import freeze_survivors as freeze_survivors
from graph.heap import stop_freezing as stop_freezing
from graph.prewarm import PREWARM_USERS as PREWARM_USERS
from graph.residency import CACHE_MB as CACHE_MB
from graph.write.policy import PiiPolicy as PiiPolicy
from graph.write.policy import parse_policy as parse_policy

if TYPE_CHECKING:  # the heavy parts load when they are built, not when the CLI parses arguments
    from extraction.protocols import TextEmbedder
    from graph.cache_files import CacheFiles as CacheFiles
    from graph.export import ExportCounts as ExportCounts
    from graph.store import Store as Store
    from graph.vectors import VectorStore as VectorStore
    from graph.write.screen import Screen

BOLT_SCHEMES = frozenset({"bolt", "bolt+s", "bolt+ssc", "neo4j", "neo4j+s", "neo4j+ssc"})


@dataclass(frozen=True)
class GraphTarget:
    """Which graph: `uri` names a server (Bolt or falkordb://), or None for the embedded engine
    on `data_dir`."""

    data_dir: Path
    uri: str | None = None
    user: str | None = None
    password: str | None = None
    name: str = "recollect"
    namespace: str = ""
    bolt_port: int = 0  # the embedded engine's experimental Bolt port; 0 keeps it closed


@dataclass(frozen=True)
class Parts:
    """What the service is built over, beside the models."""

    store: Store
    vectors: VectorStore
    screen: Screen
    files: CacheFiles  # users' BM25 indexes and catalogues, saved beside the vectors


def falkordb_server(uri: str) -> tuple[str, int, str] | None:
    """falkordb://HOST:PORT[/GRAPH] → (host, port, graph); None for any other scheme (Bolt).
    A falkordb:// URI without a host or port is a ValueError naming the form expected."""
    url = urlparse(uri)
    if url.scheme != "falkordb":
        return None
    try:
        port = url.port
    except ValueError:
        port = None
    if not url.hostname or not port:
        raise ValueError(f"graph URI {uri!r}: expected falkordb://HOST:PORT[/GRAPH]")
    return url.hostname, port, url.path.strip("/") or "recollect"


def connect(target: GraphTarget) -> tuple[Executor, EmbeddedEngine | None]:
    """The executor on the target graph: a FalkorDB server, a Bolt server, or the embedded
    engine started here (it replays its data before this returns)."""
    server = falkordb_server(target.uri) if target.uri else None
    executor: Executor
    if server is not None:
        # a FalkorDB server shared by several replicas (falkordb://host:port/graph)
        executor = FalkorExecutor(*server, namespace=target.namespace)
    elif target.uri:
        executor = BoltExecutor(
            target.uri, target.user, target.password, engine="neo4j", namespace=target.namespace
        )
    else:
        engine = EmbeddedEngine(target.data_dir, bolt_port=target.bolt_port)
        engine.start()
        try:
            return FalkorExecutor(
                "127.0.0.1", engine.port, target.name, namespace=target.namespace
            ), engine
        except BaseException:
            engine.stop()  # a bad namespace must not leave the engine running
            raise
    if not executor.ping():
        executor.close()
        raise StoreUnavailable(f"cannot reach the graph server at {target.uri}")
    return executor, None


def export_target(
    uri: str, user: str | None, password: str | None, database: str | None, engine: str
) -> Executor:
    """Where `recollect export --to` copies users: bolt:// or neo4j:// through the neo4j driver,
    falkordb://host:port[/graph] through FalkorDB's native protocol."""
    server = falkordb_server(uri)
    if server is not None:
        return FalkorExecutor(*server)
    if urlparse(uri).scheme in BOLT_SCHEMES:
        return BoltExecutor(uri, user, password, database=database, engine=engine)
    raise ValueError(f"--to {uri!r}: expected a bolt://, neo4j:// or falkordb:// URI")


def assemble(executor: Executor, data_dir: Path, embedder: TextEmbedder, pii: PiiPolicy) -> Parts:
    """The store on `executor`, the vectors under `data_dir` (for `embedder`'s vectors) and the
    screen of the storage policy `pii`; the presets' learnt rankers read (ModelError if one's
    file is missing or mismatched)."""
    from graph.cache_files import CacheFiles
    from graph.recall.ranker import rankers
    from graph.store import Store
    from graph.vectors import VectorStore
    from graph.write.screen import Screen, load_detector

    rankers()  # a missing or mismatched model file fails the start, not every context call
    return Parts(
        Store(executor),
        VectorStore(data_dir / "vectors", embedder.dimensions, embedder.model_id),
        Screen(pii, load_detector),
        CacheFiles.under(data_dir),
    )


def export_graphml(source: Executor, users: Sequence[str], path: Path) -> ExportCounts:
    """The users' graphs as one GraphML file (for Gephi or yEd)."""
    from graph.export import write_graphml

    return write_graphml(source, list(users), path)


def copy_users(
    source: Executor, target: Executor, users: Sequence[str], done: Callable[[str], None]
) -> ExportCounts:
    """Copies each user to `target` (another engine); `done` is told after each user. Running
    it again creates nothing new."""
    from graph.export import ExportCounts, Exporter

    target.apply_schema()
    exporter = Exporter(source, target)
    counts = ExportCounts()
    for user_id in users:
        counts.add(exporter.copy_user(user_id))
        done(user_id)
    return counts
