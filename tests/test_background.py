"""Background work is never dropped in silence (graph/background.py): a failed task is logged,
counted, tried again, and parked where /healthz shows it until an operator replays it."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from graph.background import Background, user_hash
from tests.conftest import Api
from tests.conversation import USER
from tests.documents import REMEMBER, context_of, metric_samples

QUICK = (0.01, 0.01, 0.01)  # the retry delays in these tests: the logic, not the patience


class Flaky:
    """A task that fails its first `failing` calls, then does the real work."""

    def __init__(self, work: Callable[..., object], failing: int) -> None:
        self.work = work
        self.failing = failing
        self.calls = 0
        self.__name__ = getattr(work, "__name__", "flaky")

    def __call__(self, *args: object) -> object:
        self.calls += 1
        if self.calls <= self.failing:
            raise RuntimeError(f"injected failure {self.calls}")
        return self.work(*args)


def test_a_failed_task_is_tried_again_and_counted() -> None:
    background = Background(QUICK)
    done: list[int] = []
    task = Flaky(done.append, failing=2)
    background.run(task, 7, user="alice")
    background.drain()  # waits for the retries too
    assert (task.calls, done) == (3, [7])
    assert background.failures == {"append": 2}
    assert background.parked() == []
    background.close()


def test_a_task_failing_every_try_is_parked_then_replayed() -> None:
    background = Background(QUICK)
    done: list[str] = []
    task = Flaky(done.append, failing=4)
    background.run(task, "x", user="alice")
    background.drain()
    [parked] = background.parked()
    assert (parked.task, parked.attempts, parked.user) == ("append", 4, user_hash("alice"))
    assert "injected failure 4" in parked.error and "alice" not in str(parked.view())
    assert done == [] and background.pending == 0
    assert background.replay() == 1  # the cause is gone: the fifth call works
    background.drain()
    assert done == ["x"] and background.parked() == []
    background.close()


def test_close_runs_waiting_retries_at_once_and_parks_what_fails_then() -> None:
    background = Background((60.0, 60.0, 60.0))  # a backoff close must not wait out
    done: list[int] = []
    background.run(Flaky(done.append, failing=1), 1)
    background.run(Flaky(done.append, failing=5), 2)
    started = threading.Event()
    background.run(started.set)
    assert started.wait(10)
    background.close()
    assert done == [1]
    assert [p.attempts for p in background.parked()] == [2]


@pytest.fixture
def quick_retries(api: Api) -> Iterator[Background]:
    background = api.runtime.service.background
    delays = background._delays  # noqa: SLF001 - the service's own thread, with short delays
    background._delays = QUICK  # noqa: SLF001
    yield background
    background._delays = delays  # noqa: SLF001


def _touching(api: Api, monkeypatch: pytest.MonkeyPatch, failing: int) -> Flaky:
    """Access statistics of a context call (written in the background) fail `failing` times."""
    store = api.runtime.store
    flaky = Flaky(store.touch, failing)
    monkeypatch.setattr(store, "touch", flaky)
    return flaky


def _metrics(api: Api) -> dict[Any, float]:
    return metric_samples(api.client.get("/metrics").text)


def test_the_service_retries_a_failed_background_write_and_counts_it(
    api: Api,
    quick_retries: Background,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    api.ok(REMEMBER, input={"userId": USER, "text": "I keep bees on the roof."})
    api.runtime.service.drain()
    before = _metrics(api).get(("recollect_background_failures_total", (("task", "touch"),)), 0)
    flaky = _touching(api, monkeypatch, failing=1)
    with caplog.at_level(logging.ERROR, logger="recollect.background"):
        assert context_of(api, "Who keeps bees?", asOf=None)["memories"]
        api.runtime.service.drain()
    assert flaky.calls == 2  # failed once, then written
    after = _metrics(api)
    assert after[("recollect_background_failures_total", (("task", "touch"),))] == before + 1
    assert after[("recollect_background_parked", ())] == 0
    failed = [r for r in caplog.records if "background task touch failed" in r.getMessage()]
    assert failed and failed[0].exc_info is not None  # an ERROR with its traceback
    assert user_hash(USER) in failed[0].getMessage() and USER not in failed[0].getMessage()


def test_parked_background_work_shows_in_healthz_until_replayed(
    api: Api, quick_retries: Background, monkeypatch: pytest.MonkeyPatch
) -> None:
    api.ok(REMEMBER, input={"userId": USER, "text": "The hives need checking in May."})
    api.runtime.service.drain()
    flaky = _touching(api, monkeypatch, failing=4)
    context_of(api, "When do the hives need checking?", asOf=None)
    api.runtime.service.drain()
    health = api.client.get("/healthz").json()
    assert health["status"] == "ok"  # the service still answers
    [parked] = health["background"]["parked"]
    assert (parked["task"], parked["attempts"], parked["user"]) == ("touch", 4, user_hash(USER))
    assert _metrics(api)[("recollect_background_parked", ())] == 1
    assert quick_retries.replay() == 1
    api.runtime.service.drain()
    assert flaky.calls == 5  # the replay wrote the statistics
    assert api.client.get("/healthz").json()["background"]["parked"] == []
