"""How long a fresh process of the `recollect` command takes to answer (issue 57): an argument
error, `context` end to end on a 60-turn user of real text, `recollect mcp` from its start to
the tool list, and `recollect serve` from its start to /healthz's first answer and to ready, then
where `context`'s seconds go (the longest imports, and cProfile's longest calls of ours);
beside them, in the same run, the baselines: a bare Python start and the models alone
(importing and loading spaCy's pipeline and the embedder, nothing of ours).

Every command runs as a new process on a warm disk (a cold run means a fresh process here), the
median and range of `--runs` runs. `--repo` runs another checkout's command (an earlier commit
in a worktree) with this interpreter, for a before/after table in one run:

    python bench/startup.py --repo /tmp/before --repo .
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx  # noqa: E402
from machine import describe  # noqa: E402
from realtext import real_turns  # noqa: E402

from graph.engine import free_port  # noqa: E402

MODELS_ALONE = (
    "from extraction.embedder import Embedder; from extraction.extractor import Extractor; "
    "Embedder().embed(['hi']); Extractor.load()"
)
TOOLS_LIST = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _env(repo: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(repo)}


def timed(command: list[str], repo: Path, fails: bool = False) -> float:
    """Wall time of `command`; it must succeed, or with `fails` exit non-zero (an earlier
    checkout's exit code for a bad argument may differ)."""
    started = time.perf_counter()
    done = subprocess.run(command, cwd=repo, env=_env(repo), capture_output=True, text=True)
    took = time.perf_counter() - started
    if (done.returncode != 0) != fails:
        raise SystemExit(f"{command} exited {done.returncode}: {done.stderr[-2000:]}")
    return took


def tools_listed(repo: Path, data: Path) -> float:
    """From the spawn of `recollect mcp` to the tool list's answer on its stdout."""
    command = [sys.executable, "-m", "api.cli", "mcp", "--user", "bench", "--data-dir", str(data)]
    started = time.perf_counter()
    server = subprocess.Popen(
        command,
        cwd=repo,
        env=_env(repo),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        for message in TOOLS_LIST:
            server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()
        for line in server.stdout:
            if json.loads(line).get("id") == 2:
                return time.perf_counter() - started
        raise SystemExit("recollect mcp ended without answering tools/list")
    finally:
        server.stdin.close()
        server.wait(timeout=120)


def served(repo: Path, data: Path, ready: bool) -> float:
    """From the spawn of `recollect serve` to /healthz's first answer (any status), or with
    `ready` to its answer that the service is ready."""
    port = free_port()
    command = [
        sys.executable,
        "-m",
        "api.cli",
        "serve",
        "--port",
        str(port),
        "--data-dir",
        str(data),
    ]
    started = time.perf_counter()
    server = subprocess.Popen(
        command, cwd=repo, env=_env(repo), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        while server.poll() is None:
            try:  # any status counts as an answer: 503 while starting
                answer = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5)
            except httpx.TransportError:  # not listening yet
                time.sleep(0.05)
                continue
            if not ready or answer.status_code == 200:
                return time.perf_counter() - started
            time.sleep(0.05)
        raise SystemExit(f"recollect serve exited {server.returncode}")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=120)


def _row(name: str, times: list[float]) -> str:
    return f"| {name} | {statistics.median(times):.2f} | {min(times):.2f} | {max(times):.2f} |"


def _commands(repo: Path, data: Path, question: str, turns: int) -> dict[str, Callable[[], float]]:
    cli = [sys.executable, "-m", "api.cli"]
    ask = [*cli, "context", "--user", "bench", question, "--data-dir", str(data)]
    return {
        "context: an argument error": lambda: timed(
            [*ask, "--max-memories", "100000"], repo, fails=True
        ),
        f"context end to end ({turns} turns)": lambda: timed(ask, repo),
        "mcp: start to tools/list": lambda: tools_listed(repo, data),
        "serve: start to /healthz answered": lambda: served(repo, data, ready=False),
        "serve: start to /healthz ready": lambda: served(repo, data, ready=True),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", action="append", type=Path, help="checkouts to time (.)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--turns", type=int, default=60)
    args = parser.parse_args()
    repos = [r.resolve() for r in args.repo or [Path(".")]]
    print(f"machine: {describe()}; {args.runs} runs each; seconds (median, min, max)")
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        lines = Path(tmp) / "turns.jsonl"
        turns = real_turns(args.turns)
        lines.write_text("\n".join(json.dumps(t.input("bench")) for t in turns) + "\n")
        here = repos[-1]
        timed(
            [sys.executable, "-m", "api.cli", "ingest", str(lines), "--data-dir", str(data)], here
        )
        question = "What did they say about the weekend?"
        baselines = {
            "python -c pass": lambda: timed([sys.executable, "-c", "pass"], here),
            "the models alone (import + load)": lambda: timed(
                [sys.executable, "-c", MODELS_ALONE], here
            ),
        }
        print("\n| baseline | median | min | max |\n|---|---|---|---|")
        for name, run in baselines.items():
            print(_row(name, [run() for _ in range(args.runs)]), flush=True)
        for repo in repos:
            print(f"\n{repo}\n\n| command | median | min | max |\n|---|---|---|---|")
            for name, run in _commands(repo, data, question, args.turns).items():
                print(_row(name, [run() for _ in range(args.runs)]), flush=True)
        where_context_goes(here, data, question, Path(tmp))


def where_context_goes(repo: Path, data: Path, question: str, tmp: Path) -> None:
    """Where `context`'s seconds go in the last checkout: one run under `-X importtime` (the
    imports that take longest, with what they import) and one under cProfile (the calls of ours
    and the waits that take longest, cumulative)."""
    ask = ["-m", "api.cli", "context", "--user", "bench", question, "--data-dir", str(data)]
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *ask],
        cwd=repo,
        env=_env(repo),
        capture_output=True,
        text=True,
        check=True,
    )
    imports: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            _, cumulative, raw = line.split("|")
            depth = (len(raw) - len(raw.lstrip()) - 1) // 2  # two spaces a level
            if cumulative.strip().isdigit() and depth <= 1:  # top level and the next
                imports.append((int(cumulative), raw.strip()))
    print("\nwhere `context` goes: the longest imports (cumulative)\n\n| import | s |\n|---|---|")
    for micros, name in sorted(imports, reverse=True)[:8]:
        print(f"| `{name}` | {micros / 1e6:.2f} |")
    stats = tmp / "context.prof"
    subprocess.run(
        [sys.executable, "-m", "cProfile", "-o", str(stats), *ask],
        cwd=repo,
        env=_env(repo),
        capture_output=True,
        check=True,
    )
    import pstats

    table = pstats.Stats(str(stats)).stats  # type: ignore[attr-defined]
    rows = [
        (cumulative, f"{Path(file).name}:{line} {function}")
        for (file, line, function), (_, _, _, cumulative, _) in table.items()
        if str(repo) in file or function in {"<method 'acquire' of '_thread.lock' objects>"}
    ]
    print("\nand the longest calls of ours (cProfile, cumulative)\n\n| call | s |\n|---|---|")
    for seconds, name in sorted(rows, reverse=True)[:12]:
        print(f"| `{name}` | {seconds:.2f} |")


if __name__ == "__main__":
    main()
