"""A runtime that comes up beside its server: `recollect mcp` answers the host's `initialize` and
tool list, and `recollect serve` answers `/healthz` (503, `ready: false`), while the engine starts
and the models load (seconds); a call waits for them (or, over HTTP's MCP, is told to retry).

The runtime is started and closed on one thread of its own, which lives until `close`: the
embedded engine's process is tied to the thread that spawned it (PR_SET_PDEATHSIG, graph/engine.py),
so a short-lived starter thread would take the engine down with it.
"""

from __future__ import annotations

import logging
import threading
from concurrent.futures import Future
from typing import TYPE_CHECKING

from api.settings import Settings
from graph.errors import StoreUnavailable

if TYPE_CHECKING:
    from api.runtime import Runtime

log = logging.getLogger("recollect.starting")


class Starting:
    def __init__(self, settings: Settings | None) -> None:
        """Starts a runtime for `settings` on its own thread (None: `running` hands one in)."""
        self._ready: Future[Runtime] = Future()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if settings is not None:
            self._thread = threading.Thread(
                target=self._run, args=(settings,), name="recollect-start", daemon=True
            )
            self._thread.start()

    @classmethod
    def running(cls, runtime: Runtime) -> Starting:
        """One already running, which its owner closes (tests share one)."""
        started = cls(None)
        started._ready.set_result(runtime)
        return started

    def runtime(self) -> Runtime:
        """The started runtime, waiting for it; a failed start raises its error (a ModelError or
        StoreUnavailable names what is wrong) on every call."""
        return self._ready.result()

    def ready(self) -> Runtime:
        """The runtime if it is up, without waiting: a caller that must not block (an HTTP
        request on the event loop) is told the service is starting, a retryable error."""
        if not self._ready.done():
            raise StoreUnavailable(
                "the service is starting: the engine and the models are loading (GET /healthz "
                "says when it is ready)"
            )
        return self._ready.result()

    def state(self) -> dict[str, object]:
        """What /healthz says while there is no runtime yet: starting, or why the start failed."""
        if not self._ready.done():
            return {"status": "starting", "ready": False, "loading": ["engine", "models"]}
        error = self._ready.exception()
        if error is not None:
            return {"status": "failed", "ready": False, "error": str(error)}
        return {"status": "ok", "ready": True}

    def current(self) -> Runtime | None:
        """The runtime once it is up; None while starting or after a failed start."""
        if not self._ready.done() or self._ready.exception() is not None:
            return None
        return self._ready.result()

    def close(self) -> None:
        """Stops the runtime it started (after its start ends, if it is still starting)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _run(self, settings: Settings) -> None:
        from api.runtime import start

        try:
            runtime = start(settings, serving=True)
        except BaseException as exc:  # handed to every caller of `runtime`
            log.error("the service could not start: %s", exc)
            self._ready.set_exception(exc)
            return
        self._ready.set_result(runtime)
        log.info("ready: the engine is up and the models are loaded")
        self._stop.wait()
        runtime.close()
