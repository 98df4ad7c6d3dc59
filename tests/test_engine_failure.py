"""The embedded engine dies under a running service: requests fail fast with a clear code, the
service restarts the engine, and every acknowledged memory is back."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from tests.conftest import close_api, embedded_only, open_api

pytestmark = [pytest.mark.slow, embedded_only]  # the embedded engine itself

REMEMBER = 'mutation($t: String!) { remember(input: {userId: "u", text: $t}) { id } }'
MEMORY = 'query($id: ID!) { memory(userId: "u", id: $id) { text } }'


def test_engine_killed_is_restarted_and_nothing_acknowledged_is_lost(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        engine = api.runtime.engine
        assert engine is not None and engine.pid is not None
        made = api.ok(REMEMBER, t="My sister Mary lives in Boston.")["remember"]["id"]
        old_pid = engine.pid
        os.kill(old_pid, signal.SIGKILL)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            started = time.monotonic()
            body = api.raw(MEMORY, id=made)
            assert time.monotonic() - started < 5, "a request hung while the engine was down"
            if body.get("errors"):
                assert body["errors"][0]["extensions"]["code"] == "STORE_UNAVAILABLE"
            elif body["data"]["memory"] == {"text": "My sister Mary lives in Boston."}:
                break
            time.sleep(0.1)
        else:
            raise AssertionError("the engine did not come back within 30 s")
        assert engine.pid != old_pid
        health = api.client.get("/healthz").json()
        assert health["engine"]["ok"] and health["engine"]["restarts"] == 1
        # writes work again and the index still agrees with the graph
        again = api.ok(REMEMBER, t="Mary moved to Denver.")["remember"]["id"]
        assert {made, again} <= api.runtime.vectors.ids("u")
    finally:
        close_api(api)
