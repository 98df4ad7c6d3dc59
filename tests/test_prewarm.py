"""A start loads the most recently active users' caches before they ask (graph/prewarm.py)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.ids import user_stem
from graph.prewarm import PrewarmReport, most_recent
from tests.conftest import close_api, open_api
from tests.conversation import USER, turns
from tests.documents import AS_OF, CONTEXT, REMEMBER_MANY

OTHER = "bob"


def test_most_recent_orders_by_time_and_skips_users_without_a_file() -> None:
    times = {"a": 10.0, "b": 30.0, "c": None, "d": 30.0, "e": 20.0}
    assert most_recent(times, times.get, 3) == ["b", "d", "e"]
    assert most_recent(times, times.get, 0) == []
    assert most_recent([], times.get, 5) == []


def _ids(data: dict[str, Any]) -> list[str]:
    return [m["memory"]["id"] for m in data["context"]["memories"]]


def _wait(report: PrewarmReport) -> None:
    deadline = time.monotonic() + 120
    while not report.done and time.monotonic() < deadline:
        time.sleep(0.05)
    assert report.done, "the prewarm did not finish"


def _two_users(
    data_dir: Path, extractor: Extractor, embedder: Embedder
) -> tuple[dict[str, Any], Path]:
    """Alice's conversation and six turns of another user's, then a clean stop (which writes
    their files); alice's answer to one question before the stop, and the vector directory."""
    api, _ = open_api(data_dir, extractor, embedder)
    try:
        api.ok(REMEMBER_MANY, inputs=turns())
        api.ok(REMEMBER_MANY, inputs=[{**t, "userId": OTHER} for t in turns()[:6]])
        before = api.ok(CONTEXT, user=USER, message="Where does Mary live?", asOf=AS_OF)
        return before, api.runtime.vectors.directory
    finally:
        close_api(api)


@pytest.mark.slow
def test_a_start_loads_the_last_active_user_first_and_answers_the_same(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    before, vectors = _two_users(tmp_path, extractor, embedder)
    # the other user wrote an hour before alice: alice is the more recent
    older = time.time() - 3600
    for path in vectors.glob(f"{user_stem(OTHER)}.*"):
        os.utime(path, (older, older))

    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        caches = api.runtime.service.caches
        assert not caches.holds(USER) and not caches.holds(OTHER)
        report = api.runtime.service.prewarm(1).report
        _wait(report)
        assert (report.planned, report.loaded, report.failed) == (1, 1, 0)
        assert caches.holds(USER) and not caches.holds(OTHER)
        # loaded from the files the stop wrote, not rebuilt from the graph
        assert caches.catalogs_loaded == 1
        assert caches.sizes()["lexical"] == 1
        health = api.client.get("/healthz").json()
        assert health["prewarm"]["loaded"] == 1 and health["prewarm"]["done"]
        again = api.ok(CONTEXT, user=USER, message="Where does Mary live?", asOf=AS_OF)
        assert _ids(again) == _ids(before) and again["context"]["text"] == before["context"]["text"]
    finally:
        close_api(api)

    api, _ = open_api(tmp_path, extractor, embedder)
    try:
        report = api.runtime.service.prewarm(0).report
        _wait(report)
        assert report.loaded == 0 and not api.runtime.service.caches.holds(USER)
    finally:
        close_api(api)


@pytest.mark.slow
def test_a_prewarm_stops_at_its_share_of_the_cache_budget(
    tmp_path: Path, extractor: Extractor, embedder: Embedder
) -> None:
    _two_users(tmp_path, extractor, embedder)
    # a budget so small that one user fills half of it
    api, _ = open_api(tmp_path, extractor, embedder, cache_mb=0.01)
    try:
        report = api.runtime.service.prewarm(5).report
        _wait(report)
        assert report.planned == 2 and report.loaded == 1
        assert len(api.runtime.service.caches.held()) == 1
    finally:
        close_api(api)
