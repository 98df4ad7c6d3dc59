"""A runtime that comes up beside its server: `recollect mcp` answers the host's `initialize` and
tool list while the engine starts and the models load (seconds), and a tool call waits for them.

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

if TYPE_CHECKING:
    from api.runtime import Runtime

log = logging.getLogger("recollect.starting")


class Starting:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._ready: Future[Runtime] = Future()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="recollect-start", daemon=True)
        self._thread.start()

    def runtime(self) -> Runtime:
        """The started runtime, waiting for it; a failed start raises its error (a ModelError or
        StoreUnavailable names what is wrong) on every call."""
        return self._ready.result()

    def close(self) -> None:
        """Stops the runtime (after its start ends, if it is still starting)."""
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        from api.runtime import start

        try:
            runtime = start(self._settings, serving=True)
        except BaseException as exc:  # handed to every caller of `runtime`
            log.error("the service could not start: %s", exc)
            self._ready.set_exception(exc)
            return
        self._ready.set_result(runtime)
        log.info("ready: the engine is up and the models are loaded")
        self._stop.wait()
        runtime.close()
