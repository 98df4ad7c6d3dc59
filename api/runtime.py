"""Builds and closes every resource of a running service in one place: the engine (embedded child
process or a Bolt server), the executor, the store, the vector store, the spaCy pipeline, the
embedder and the memory service. Used by the starlette lifespan and by the CLI. The runtime is the
composition root: only it (and tests inspecting the graph) hold the parts behind the service.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from api.settings import Settings
from extraction.embedder import Embedder, ModelVerificationError, model_threads, use_threads
from extraction.extractor import Extractor
from graph import assembly
from graph.assembly import EmbeddedEngine, Executor, FalkorExecutor, GraphTarget
from graph.errors import ModelError
from graph.service import MemoryService

if TYPE_CHECKING:
    from graph.assembly import Store, VectorStore

log = logging.getLogger("recollect.runtime")


@dataclass
class Runtime:
    settings: Settings
    executor: Executor
    store: Store
    vectors: VectorStore
    service: MemoryService
    engine: EmbeddedEngine | None = None
    started_at: float = field(default_factory=time.time)
    _stopping: threading.Event = field(default_factory=threading.Event)
    _watcher: threading.Thread | None = None
    # whether this runtime asked for full collections to freeze their survivors (graph/heap.py)
    freezing: bool = False

    @property
    def restarts(self) -> int:
        """How often the embedded engine was started again after it died."""
        return self.engine.restarts if self.engine else 0

    @property
    def engine_kind(self) -> str:
        if self.engine is not None:
            return "embedded-falkordb"
        return "falkordb" if isinstance(self.executor, FalkorExecutor) else "bolt"

    @property
    def reconcile(self) -> dict[str, Any]:
        """What bringing users' vector indexes up to the graph did since start (graph/follow.py):
        users reconciled whole, vectors added, removed, embedded again, deltas applied."""
        return dict(self.service.reconciled.__dict__)

    @property
    def prewarm(self) -> dict[str, Any]:
        """The start's loading of recently active users' caches (graph/prewarm.py): planned,
        loaded, failed, seconds, done."""
        prewarming = self.service.prewarming
        return dict(prewarming.report.__dict__) if prewarming is not None else {"done": True}

    def health(self) -> dict[str, Any]:
        engine_ok = self.executor.ping() and (self.engine is None or self.engine.alive())
        background = self.service.background
        return {
            "status": "ok" if engine_ok else "degraded",
            "ready": True,
            "engine": {"kind": self.engine_kind, "ok": engine_ok, "restarts": self.restarts},
            "models": {
                "embedding": self.service.models.embedder.model_id,
                "spacy": self.service.models.extractor.name,
            },
            "reconcile": self.reconcile,
            "prewarm": self.prewarm,
            "caches": self.service.caches.usage(),
            # work that failed every try: listed until replayed (SIGHUP, docs/operations.md)
            "background": {
                "pending": background.pending,
                "failures": dict(background.failures),
                "parked": [p.view() for p in background.parked()],
            },
        }

    def watch_engine(self, interval: float = 0.5) -> None:
        """Restarts the embedded engine if it dies; meanwhile requests fail fast with
        STORE_UNAVAILABLE and /healthz answers 503."""
        if self.engine is None:
            return
        engine = self.engine
        executor = self.executor

        def watch() -> None:
            while not self._stopping.wait(interval):
                try:
                    if engine.revive() and isinstance(executor, FalkorExecutor):
                        executor.reconnect("127.0.0.1", engine.port)
                        executor.apply_schema()
                        log.warning("embedded engine restarted on port %d", engine.port)
                except Exception:  # noqa: BLE001 - keep watching; health shows the state
                    log.exception("restarting the embedded engine failed")

        self._watcher = threading.Thread(target=watch, name="recollect-engine-watch", daemon=True)
        self._watcher.start()

    def stop_watching(self) -> None:
        """Stops the engine watcher (close does it; tests that stage an outage do it first)."""
        self._stopping.set()
        if self._watcher is not None:
            self._watcher.join(timeout=5)

    def close(self) -> None:
        self.stop_watching()
        try:
            self.service.close()
        finally:
            self.executor.close()
            if self.engine is not None:
                self.engine.stop()
            if self.freezing:
                self.freezing = False
                assembly.stop_freezing()


def load_models(
    extractor: Extractor | None = None, embedder: Embedder | None = None, serving: bool = False
) -> tuple[Extractor, Embedder]:
    """Loads the spaCy pipeline and the embedder (unless given); a missing package or weights
    that fail verification become ModelError, which every entry point reports by its message.
    `serving`: a long-lived service, which loads the embedder's export for messages
    (`Embedder.trace`; the first on a machine exports it, some seconds) and warms the extractor
    (`Extractor.warm`: 0.5 s a one-shot command's one message pays only in part, for what it
    uses)."""
    try:
        loaded = embedder or Embedder()
        if serving:  # a one-shot command loads what it uses when it first uses it
            loaded.load()
            loaded.trace()
        return extractor or Extractor.load(warm=serving), loaded
    except (ModelVerificationError, ImportError, OSError) as exc:
        raise ModelError(f"cannot load the models: {exc}") from exc


def _target(settings: Settings) -> GraphTarget:
    return GraphTarget(
        data_dir=settings.data_dir,
        uri=settings.graph_uri,
        user=settings.graph_user,
        password=settings.graph_password,
        name=settings.graph_name,
        namespace=settings.namespace,
        bolt_port=settings.bolt_port,
    )


def start(
    settings: Settings,
    extractor: Extractor | None = None,
    embedder: Embedder | None = None,
    serving: bool = False,
) -> Runtime:
    """Starts the engine and loads the models; the models may be passed in to share them.

    The models load on a helper thread while the engine replays its data in its own process (or
    the server is reached), so a restart takes the longer of the two, not their sum. The engine
    is spawned from this thread, whose end it is tied to (graph/engine.py)."""
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    use_threads(model_threads(settings.torch_threads))
    loader = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recollect-models")
    models = loader.submit(load_models, extractor, embedder, serving)
    loader.shutdown(wait=False)  # its one task runs on; nothing else is submitted
    executor, engine = assembly.connect(_target(settings))
    try:
        executor.apply_schema()
        extractor, embedder = models.result()
        parts = assembly.assemble(executor, settings.data_dir, embedder, settings.pii)
        service = MemoryService(
            parts.store,
            parts.vectors,
            extractor,
            embedder,
            settings.limits,
            settings.vector_flush_seconds,
            int(settings.cache_mb * 2**20),
            parts.screen,
            merge_facts=settings.merge_facts,
            files=parts.files,
        )
        # each user's index is reconciled on its first call; only files of gone users are swept
        # here, off the start-up path
        service.background.run(service.caches.sweep)
        if serving and service.screen.policy.watched:
            # Presidio loads off the start-up path (a one-shot command: at its first write)
            service.background.run(service.screen.detector)
        if settings.session_idle_minutes > 0:
            gap = settings.session_idle_minutes * 60.0

            def end_idle(user_id: str, latest: float) -> None:
                # every open session idle for longer than the gap, this batch's included
                service.end_idle_sessions(user_id, latest, gap)

            service.after_write = end_idle
    except BaseException:
        executor.close()
        if engine is not None:
            engine.stop()
        raise
    runtime = Runtime(settings, executor, parts.store, parts.vectors, service, engine)
    runtime.watch_engine()
    if serving:  # long-lived: full collections skip the start's objects and what survives
        assembly.freeze_survivors()  # them (graph/heap.py)
        assembly.freeze_started()
        runtime.freezing = True
        service.prewarm(settings.prewarm_users)  # the last active users' caches, before they ask
    return runtime
