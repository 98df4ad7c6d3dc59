"""Logs an operator can read, and a command line that shows what was asked for.

Through the ASGI app on the real engine: a client's mistakes (bad input, an unknown id, a
malformed document, a bad variable) are each one INFO line with the code and the field or path,
never a traceback and never what the client sent; a failure of ours is ERROR with its traceback.
Then `recollect ingest` and `recollect context` as a user runs them: the answer, and no library
chatter around it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Api, graph_settings
from tests.documents import REMEMBER_MANY

SECRET = "zebra-secret-4417"  # a value the client sent, which must not reach the log
USER = "logs-user"
FORGET = "mutation($user: ID!, $id: ID!) { forget(userId: $user, id: $id) }"
MEMORY = "query($user: ID!, $id: ID!) { memory(userId: $user, id: $id) { text } }"
CONTEXT = """query($user: ID!, $m: String!, $asOf: DateTime) {
  context(userId: $user, message: $m, asOf: $asOf) { text } }"""


def _records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    """What the request path logged (the API's errors, strawberry's own), not background work
    another test module left running."""
    return [r for r in caplog.records if r.name in {"recollect.api", "strawberry.execution"}]


def test_client_errors_are_one_info_line_without_what_was_sent(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    # the service's own logger too: a CLI run earlier in the process (tests/test_cli.py) set it
    # to WARNING, and caplog's level alone sets only the root's
    caplog.set_level(logging.INFO, logger="recollect")
    bad_input = [{"userId": USER, "text": SECRET, "importance": 99}]
    assert api.error_code(REMEMBER_MANY, inputs=bad_input) == "BAD_USER_INPUT"
    assert api.error_code(FORGET, user=USER, id="0123456789abcdef") == "NOT_FOUND"
    assert api.error_code(CONTEXT, user=USER, m="hi", asOf=SECRET) == "BAD_USER_INPUT"
    body = api.raw('{ context(userId: "u", message: "' + SECRET + '") { nope } }')
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    records = _records(caplog)
    assert not [r for r in records if r.levelno >= logging.WARNING], [
        r.getMessage() for r in records
    ]
    lines = [r.getMessage() for r in records if r.getMessage().startswith("client error")]
    assert len(lines) == 4, lines
    assert "client error BAD_USER_INPUT at rememberMany (field importance)" in lines
    assert "client error NOT_FOUND at forget" in lines
    assert all(SECRET not in r.getMessage() for r in caplog.records)
    assert all(r.exc_info is None for r in records)


def test_a_failure_of_ours_is_an_error_with_its_traceback(
    api: Api, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise RuntimeError("the store broke")

    monkeypatch.setattr(api.runtime.service.store, "memories", broken)
    caplog.set_level(logging.INFO)
    assert api.error_code(MEMORY, user=USER, id="0123456789abcdef") == "INTERNAL_SERVER_ERROR"
    errors = [r for r in _records(caplog) if r.levelno == logging.ERROR]
    assert len(errors) == 1 and errors[0].exc_info is not None
    assert "INTERNAL_SERVER_ERROR at memory" in errors[0].getMessage()


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(  # noqa: S603 - this interpreter, this package
        [sys.executable, "-m", "api.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_the_command_line_shows_the_answer_and_nothing_else(tmp_path: Path) -> None:
    data = tmp_path / "data"
    env = {**os.environ}
    for name, value in graph_settings(data).items():
        env[f"RECOLLECT_{name.upper()}"] = str(value)
    lines = tmp_path / "m.jsonl"
    lines.write_text('{"text": "My sister Mary lives in Boston.", "speaker": "Alice"}\n')
    ingested = _run("ingest", str(lines), "--user", "alice", "--data-dir", str(data), env=env)
    assert ingested.returncode == 0, ingested.stderr
    assert "accepted 1" in ingested.stdout
    where = ("--user", "alice", "--data-dir", str(data))
    asked = _run("context", "Where does Mary live?", *where, env=env)
    assert asked.returncode == 0, asked.stderr
    assert asked.stdout.startswith("[NOW] ") and "Boston" in asked.stdout
    assert asked.stderr == "", asked.stderr  # no library logs, no progress bars
    verbose = _run("--verbose", "context", "Mary", *where, env=env)
    assert "faiss" in verbose.stderr or "sentence_transformers" in verbose.stderr
    if not env.get("RECOLLECT_GRAPH_URI"):  # a graph server needs no data directory
        nowhere = ("--user", "alice", "--data-dir", str(tmp_path / "nope"))
        missing = _run("context", "Mary", *nowhere, env=env)
        assert missing.returncode == 2  # a bad argument (README)
        assert missing.stderr.strip().startswith("error: --data-dir: no data directory at")
        assert len(missing.stderr.strip().splitlines()) == 1
