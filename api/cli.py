"""The `recollect` command: serve, ingest a JSONL file, ask for context.

`ingest` and `context` run the service in-process on the data directory (the engine lock makes
them fail clearly while a server holds the same directory).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import logging
import signal
import sys
import threading
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from api.settings import Settings
from graph.assembly import Executor
from graph.errors import InvalidInput, RecollectError
from graph.limits import DEFAULT_MAX_MEMORIES
from graph.recall.config import DEFAULT_PROFILE, PRESETS, preset
from graph.validation import NewMemory, check_user_id, validate

if TYPE_CHECKING:  # the service loads when a command needs it, not to parse arguments
    import uvicorn

    from api.starting import Starting
    from graph.service import ContextResult

log = logging.getLogger("recollect.cli")

FIELDS = {
    "userId": "user_id",
    "text": "text",
    "speaker": "speaker",
    "sessionId": "session_id",
    "occurredAt": "occurred_at",
    "externalId": "external_id",
    "importance": "importance",
    "pinned": "pinned",
    "category": "category",
    "factType": "fact_type",
    "piiPolicy": "pii_policy",
    "domain": "domain",
}


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _settings(args: argparse.Namespace) -> Settings:
    return Settings.from_env(
        data_dir=getattr(args, "data_dir", None),
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
    )


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from api.app import create_app
    from api.auth import KeyRing

    settings = _settings(args)
    if not KeyRing(settings.api_keys).enabled:
        if not _is_loopback(settings.host):
            print(
                f"refusing to listen on {settings.host}: no API keys are configured "
                "(set RECOLLECT_API_KEYS, or listen on 127.0.0.1)",
                file=sys.stderr,
            )
            return 2
        log.warning("no API keys configured: listening on loopback only, every user open")
    from api.starting import Starting

    # the server answers /healthz (503, ready: false) while the engine starts and the models
    # load beside it; a start that fails (an unreachable graph, a busy data directory) stops the
    # server and ends the command with its message and a non-zero exit (main prints it)
    starting = Starting(settings)
    server = uvicorn.Server(
        uvicorn.Config(
            create_app(settings, starting=starting),
            host=settings.host,
            port=settings.port,
            log_level="info",
        )
    )
    threading.Thread(target=_stop_if_failed, args=(starting, server), daemon=True).start()
    # an operator who fixed what parked background work failed on replays it (docs/operations.md)
    signal.signal(signal.SIGHUP, lambda _signum, _frame: _replay(starting))
    # uvicorn stops on SIGTERM and then raises the signal again with the handler it found: the
    # default one ended the process before the runtime closed (no FAISS or BM25 file saved, the
    # background work cut short); this one ends it through `finally`
    previous = signal.signal(signal.SIGTERM, _terminated)
    try:
        server.run()
    except SystemExit:  # SIGTERM: the server has stopped; close below
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second one must not cut the saves
        try:
            starting.close()
        finally:
            # the caller's own again (a process running `serve` in-process keeps its handler,
            # and its children do not inherit an ignored SIGTERM)
            signal.signal(signal.SIGTERM, previous)
    starting.runtime()  # a failed start raises its error here
    return 0


def _terminated(_signum: int, _frame: object) -> None:
    raise SystemExit(0)


def _stop_if_failed(starting: Starting, server: uvicorn.Server) -> None:
    try:
        starting.runtime()
    except BaseException:  # noqa: BLE001 - raised again where `serve` ends
        server.should_exit = True


def _replay(starting: Starting) -> None:
    runtime = starting.current()
    if runtime is not None:
        runtime.service.background.replay()


def mcp(args: argparse.Namespace) -> int:
    """MCP over stdin/stdout for one user: what an agent host starts as a command. Logs go to
    stderr; stdout carries only the protocol."""
    from api.mcp_server import build_server, stdio_caller
    from api.starting import Starting

    caller = stdio_caller(args.user)  # a bad --user fails before the models load
    # the host gets `initialize` and the tool list at once; the engine and the models come up
    # beside them, and the first tool call waits for them
    starting = Starting(_settings(args))
    try:
        build_server(lambda: starting.runtime().service, lambda ctx: caller).run("stdio")
    finally:
        starting.close()
    return 0


def _timestamp(value: str, field: str) -> float:
    """ISO 8601 (UTC when no offset is given) as epoch seconds; InvalidInput naming `field`."""
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        raise InvalidInput(field, f"{value!r} is not ISO 8601") from None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return stamp.timestamp()


def parse_line(line: str, user: str | None, number: int) -> NewMemory:
    try:
        raw = json.loads(line)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"line {number}", f"is not JSON ({exc.msg})") from None
    if not isinstance(raw, dict):
        raise InvalidInput(f"line {number}", "must be a JSON object (one MemoryInput)")
    unknown = sorted(set(raw) - set(FIELDS))
    if unknown:
        raise InvalidInput(f"line {number}", f"unknown fields {unknown}; allowed {sorted(FIELDS)}")
    values: dict[str, Any] = {FIELDS[k]: v for k, v in raw.items()}
    if user is not None:
        values["user_id"] = user
    if "user_id" not in values:
        raise InvalidInput(f"line {number}.userId", "is missing (or pass --user)")
    occurred = values.get("occurred_at")
    if occurred is not None:
        values["occurred_at"] = _timestamp(str(occurred), f"line {number}.occurredAt")
    for name, kind in (("text", str), ("importance", int), ("pinned", bool)):
        if name in values and values[name] is not None and not isinstance(values[name], kind):
            raise InvalidInput(f"line {number}.{name}", f"must be a {kind.__name__}")
    return NewMemory(**values)


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line


def ingest(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise ValueError(f"{path}: no such file")  # a bad argument, before any model loads
    if args.user is not None:
        try:
            check_user_id(args.user)
        except InvalidInput as exc:
            raise _bad_argument(exc) from None
    from rich.progress import Progress

    from api.runtime import start

    settings = _settings(args)
    total = sum(1 for _ in _lines(path))
    summary: Counter[str] = Counter()
    reasons: list[str] = []
    runtime = start(settings)
    try:
        service = runtime.service
        batch: list[tuple[int, NewMemory]] = []

        def flush() -> None:
            if not batch:
                return
            result = service.remember_many([m for _, m in batch])
            for created in result.created:
                summary["accepted" if created else "duplicate"] += 1
            batch.clear()

        with Progress(transient=False) as progress:
            task = progress.add_task(f"ingesting {path.name}", total=total)
            for number, line in _lines(path):
                try:
                    memory = validate(
                        parse_line(line, args.user, number),
                        settings.max_text_chars,
                        prefix=f"line {number}.",
                    )
                    # a line the storage policy refuses is rejected alone, not its whole batch
                    batch.append((number, service.screen.one(memory, prefix=f"line {number}.")))
                except InvalidInput as exc:
                    summary["rejected"] += 1
                    reasons.append(str(exc))
                if len(batch) >= args.batch_size:
                    flush()
                progress.advance(task)
            flush()
    finally:
        runtime.close()
    print(
        f"accepted {summary['accepted']}, duplicate {summary['duplicate']}, "
        f"rejected {summary['rejected']}"
    )
    for reason in reasons:
        print(f"  rejected: {reason}")
    return 1 if summary["rejected"] else 0


def _existing(settings: Settings) -> Settings:
    """A command that reads (context, export) needs a data directory that exists: a mistyped
    --data-dir would otherwise start an empty store and answer from nothing."""
    if settings.graph_uri is None and not settings.data_dir.is_dir():
        raise InvalidInput(
            "--data-dir",
            f"no data directory at {settings.data_dir} (ingest or serve first, or pass the one "
            "that holds the graph)",
        )
    return settings


# the API's names of the commands' fields, as the commands' options
OPTIONS = {
    "userId": "--user",
    "maxMemories": "--max-memories",
    "tokenBudget": "--token-budget",
    "minScore": "--min-score",
    "minConfidence": "--min-confidence",
    "sessionId": "--session",
    "speaker": "--speaker",
    "profile": "--profile",
}


def _bad_argument(exc: InvalidInput) -> ValueError:
    """A check of the command's own arguments failed: exit 2, the option named as typed."""
    return ValueError(f"{OPTIONS.get(exc.field, exc.field)}: {exc.reason}")


def context(args: argparse.Namespace) -> int:
    from graph.service import ContextRequest, check_request

    # every argument is checked before a model loads: a mistake answers at once
    settings = _settings(args)
    try:
        # the same defaults as the API's context query: the `default` preset unless --profile
        request = ContextRequest(
            user_id=args.user,
            message=args.message,
            as_of=_timestamp(args.as_of, "--as-of") if args.as_of else None,
            max_memories=args.max_memories,
            token_budget=args.token_budget,
            speaker=args.speaker,
            session_id=args.session,
            config=preset(args.profile),
            min_score=args.min_score,
            min_confidence=args.min_confidence,
        )
        check_request(request, settings.limits)
        _existing(settings)
    except InvalidInput as exc:
        raise _bad_argument(exc) from None
    from api.runtime import start

    runtime = start(settings)
    try:
        result = runtime.service.context(request)
    finally:
        runtime.close()
    print(_as_json(result) if args.json else result.text)
    return 0


def _as_json(result: ContextResult) -> str:
    """`context --json`: the block with its scored memories and their parts."""
    return json.dumps(
        {
            "text": result.text,
            "tokens": result.tokens,
            "seeds": result.seeds,
            "expanded": result.expanded,
            "confidence": round(result.confidence, 4),
            "conflicts": [c.note for c in result.conflicts],
            "memories": [
                {
                    "id": s.memory.id,
                    "externalId": s.memory.external_id,
                    "text": s.memory.text,
                    "score": round(s.score, 4),
                    "floorScore": round(s.floor_score, 4),
                    "similarity": round(s.similarity, 4),
                    "recency": round(s.recency, 4),
                    "frequency": round(s.frequency, 4),
                    "neighbour": round(s.neighbour, 4),
                    "via": list(s.via),
                }
                for s in result.memories
            ],
        },
        indent=2,
    )


def _target_executor(args: argparse.Namespace) -> Executor:
    """bolt:// or neo4j:// → the neo4j driver; falkordb://host:port[/graph] → FalkorDB's native
    protocol (another Recollect data directory's engine, for instance)."""
    from graph.assembly import export_target

    return export_target(
        args.to, args.target_user, args.target_password, args.target_database, args.target_engine
    )


def export(args: argparse.Namespace) -> int:
    from rich.progress import Progress

    from api.runtime import start
    from graph.assembly import copy_users, export_graphml

    if bool(args.to) == bool(args.graphml):
        print("choose exactly one of --to bolt://HOST:PORT and --graphml FILE", file=sys.stderr)
        return 2
    runtime = start(_existing(_settings(args)))
    try:
        source = runtime.executor
        users = [args.user] if args.user else runtime.service.store.users()
        if args.graphml:
            counts = export_graphml(source, users, Path(args.graphml))
        else:
            target = _target_executor(args)
            try:
                with Progress() as progress:
                    task = progress.add_task(f"exporting to {args.to}", total=len(users))
                    counts = copy_users(source, target, users, lambda _: progress.advance(task))
            finally:
                target.close()
    finally:
        runtime.close()
    print(f"exported {counts.summary()}")
    return 0


def export_schema(args: argparse.Namespace) -> int:
    from api.schema import schema

    text = schema.as_str() + "\n"
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    else:
        print(text, end="")
    return 0


def _context_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("message")
    p.add_argument("--user", required=True)
    p.add_argument("--max-memories", type=int, default=DEFAULT_MAX_MEMORIES)
    p.add_argument("--token-budget", type=int)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"preset: {', '.join(PRESETS)}")
    p.add_argument("--as-of", help="answer as of this ISO 8601 time (default now)")
    p.add_argument("--speaker", help="who is asking (default: the user's main speaker)")
    p.add_argument("--session", help="the current session id (adds its turn window)")
    p.add_argument("--min-score", type=float, help="relevance floor (default: the preset's)")
    p.add_argument("--min-confidence", type=float, help="confidence floor (default: the preset's)")
    p.add_argument("--json", action="store_true", help="print JSON instead of the text block")
    p.set_defaults(func=context)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="recollect", description=__doc__)
    parser.add_argument(
        "--verbose", action="store_true", help="library logs and model loading progress too"
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def data_dir(p: argparse.ArgumentParser) -> None:
        p.add_argument("--data-dir", help="data directory (default ./recollect-data)")

    p = sub.add_parser("serve", help="start the GraphQL service")
    p.add_argument("--host", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, help="port (default 8000)")
    data_dir(p)
    p.set_defaults(func=serve)

    p = sub.add_parser("mcp", help="serve MCP over stdio for one user (for agent hosts)")
    p.add_argument("--user", required=True, help="the only user this connection reads and writes")
    data_dir(p)
    p.set_defaults(func=mcp)

    p = sub.add_parser("ingest", help="remember every MemoryInput of a JSONL file")
    p.add_argument("file")
    p.add_argument("--user", help="user id for every line (overrides userId)")
    p.add_argument("--batch-size", type=int, default=128)
    data_dir(p)
    p.set_defaults(func=ingest)

    _context_parser(sub.add_parser("context", help="print the context block for a message"))
    data_dir(sub.choices["context"])

    p = sub.add_parser("export", help="copy users to another engine, or write GraphML")
    p.add_argument("--to", help="target: bolt://HOST:7687 (Neo4j) or falkordb://HOST:PORT[/GRAPH]")
    p.add_argument("--graphml", help="write a GraphML file (for Gephi or yEd) instead")
    p.add_argument("--user", help="only this user (default: all users)")
    p.add_argument("--target-user", help="user name on the target")
    p.add_argument("--target-password", help="password on the target")
    p.add_argument("--target-database", help="database on the target (Neo4j)")
    p.add_argument(
        "--target-engine",
        choices=("neo4j", "falkordb"),
        default="neo4j",
        help="statement dialect of the target (default neo4j)",
    )
    data_dir(p)
    p.set_defaults(func=export)

    p = sub.add_parser("schema", help="print the GraphQL SDL (or write it with --output)")
    p.add_argument("--output", help="file to write, e.g. api/schema.graphql")
    p.set_defaults(func=export_schema)
    return parser


# libraries whose INFO and DEBUG lines are not the user's business: faiss reports each SIMD build
# it tries as a ModuleNotFoundError (they read as errors and are not), bm25s logs at DEBUG,
# sentence-transformers names the weights it loads
QUIET_LIBRARIES = ("faiss", "bm25s", "sentence_transformers", "transformers", "httpx", "mcp")
# commands that run a server: an operator reads their start-up lines
SERVERS = {"serve", "mcp"}


def configure_logging(command: str, verbose: bool) -> None:
    """The CLI shows what was asked for: library logs at WARNING and no progress bars for loading
    models unless `--verbose`; the service's own INFO lines only for the servers."""
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    ours = logging.INFO if verbose or command in SERVERS else logging.WARNING
    logging.getLogger("recollect").setLevel(ours)
    if verbose:
        return
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)
    from huggingface_hub.utils.tqdm import disable_progress_bars

    disable_progress_bars()  # before transformers is imported: it reads the flag then


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    configure_logging(args.command, args.verbose)
    try:
        return int(args.func(args))
    except RecollectError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
