"""`recollect serve` as a child process, used from outside as clients use it: the crash tests
SIGKILL it (or its engine), the load and perf benches measure its latency and resident memory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from graph.engine import free_port
from graph.errors import StoreUnavailable


@contextmanager
def served(
    data_dir: Path, timeout: float = 180.0, env: dict[str, str] | None = None
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """Starts the service on `data_dir` (with `env` added to this environment), yields it and its
    base URL once /healthz answers 200, and stops it (SIGTERM, then SIGKILL after 60 s) unless
    the caller already has."""
    port = free_port()
    process = subprocess.Popen(  # noqa: S603 - this interpreter, this package
        [
            sys.executable,
            "-m",
            "api.cli",
            "serve",
            "--port",
            str(port),
            "--data-dir",
            str(data_dir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **(env or {})},
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(process, base, timeout)
        yield process, base
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_healthy(process: subprocess.Popen[bytes], base: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if process.poll() is not None:
            raise StoreUnavailable(f"the service exited at start with code {process.returncode}")
        time.sleep(0.3)
    raise StoreUnavailable(f"the service did not become healthy within {timeout:.0f} s")


def children(pid: int) -> list[int]:
    """Process ids of `pid`'s children (a served service's only child is its engine)."""
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(x) for x in out.stdout.split()]


def rss_kb(pid: int) -> int:
    """Resident memory of a process in KiB (0 once it is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def bulk_built(
    folder: Path,
    lines: Callable[[], Iterable[dict[str, Any]]],
    env: dict[str, str],
    user: str | None = None,
) -> tuple[Path, float | None]:
    """The data directory `folder/data`, built once with the bulk path (`recollect ingest`,
    batches of 256, `env` added) from `lines()` (MemoryInputs without `userId` when `user` names
    it) and kept; returns it and the bulk rate in memories/s when built now, None when it was
    there. A build cut short is started again (a marker is written last)."""
    marker = folder / "complete.json"
    if marker.exists():
        return folder / "data", None
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    path = folder / "memories.jsonl"
    with path.open("w") as out:
        count = 0
        for line in lines():
            out.write(json.dumps(line) + "\n")
            count += 1
    print(f"  building {count} memories once (bulk path) in {folder}", file=sys.stderr)
    began = time.perf_counter()
    subprocess.run(  # noqa: S603 - this interpreter, this package
        [
            *(sys.executable, "-m", "api.cli", "ingest", str(path)),
            *(("--user", user) if user else ()),
            *("--batch-size", "256", "--data-dir", str(folder / "data")),
        ],
        check=True,
        env={**os.environ, **env},
    )
    rate = count / (time.perf_counter() - began)
    path.unlink()
    marker.write_text(json.dumps({"memories": count, "bulk_rate": rate}))
    return folder / "data", rate
