"""Settings of the entry points, built once from the environment (`RECOLLECT_*`) and passed
explicitly. Every field has exactly one variable (`ENVIRONMENT`), README's configuration table
lists them all (a test checks both), and each default is stated once: here, or for the input limits
in graph/limits.py.

Nothing here reads the environment at import time; secrets are hidden from `repr`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from graph.assembly import CACHE_MB, PREWARM_USERS, Namespace, PiiPolicy, parse_policy
from graph.errors import InvalidInput
from graph.limits import Limits

_LIMITS = Limits()


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("recollect-data")
    host: str = "127.0.0.1"
    port: int = 8000
    graph_uri: str | None = None
    graph_user: str | None = None
    graph_password: str | None = field(default=None, repr=False)
    graph_name: str = "recollect"
    # user ids live under this prefix in the graph, so deployments (or test runs) can share one
    # database (graph/executor.py Namespace); empty: none
    namespace: str = ""
    # Embedded engine: also open the experimental Bolt port (0 = off).
    bolt_port: int = 0
    api_keys: str | None = field(default=None, repr=False)
    max_text_chars: int = _LIMITS.max_text_chars
    max_batch: int = _LIMITS.max_batch
    max_token_budget: int = _LIMITS.max_token_budget
    max_body_bytes: int = 32 * 1024 * 1024
    session_idle_minutes: int = 30
    vector_flush_seconds: float = 5.0
    # what the per-user caches (FAISS, BM25, catalogue, speakers, memory facts) may hold before
    # the least recently used users are evicted (graph/residency.py)
    cache_mb: float = CACHE_MB
    # a serving start loads the caches of this many most recently active users in the
    # background, up to half the cache budget (graph/prewarm.py); 0: none
    prewarm_users: int = PREWARM_USERS
    # the storage policy for personal data and secrets (graph/write/policy.py): changes to the
    # defaults, e.g. "EMAIL_ADDRESS=redact,secrets=refuse"; "off" keeps everything
    pii_policy: str = ""
    # merge stated facts on write (graph/write/merge_rules.py). Off by default: on LoCoMo's
    # observations its neighbour gate refused every merge while fact ingest ran 5.6x slower
    # (docs/benchmarks.md, bench/merge.py)
    merge_facts: bool = False
    # threads of the embedding model (torch's pool); 0: one fewer than the cores this process
    # may use, at least one, so that spaCy's parse of the same request or batch has a core of its
    # own beside it (extraction/embedder.py model_threads says why)
    torch_threads: int = 0

    @property
    def pii(self) -> PiiPolicy:
        return parse_policy(self.pii_policy)

    @property
    def limits(self) -> Limits:
        return Limits(self.max_text_chars, self.max_batch, self.max_token_budget)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        """The defaults, then the environment, then `overrides` (None values are ignored)."""
        env = os.environ if env is None else env
        values: dict[str, Any] = {}
        for item in fields(cls):
            name = ENVIRONMENT[item.name]
            raw = env.get(name)
            if raw is None or raw == "":
                continue
            values[item.name] = _CASTS.get(item.name, _text)(name, raw)
        values.update({k: v for k, v in overrides.items() if v is not None})
        if "data_dir" in values:
            values["data_dir"] = Path(values["data_dir"])
        return replace(cls(), **values)


# field -> environment variable; a test checks that every field has one and README lists it
ENVIRONMENT: dict[str, str] = {
    "data_dir": "RECOLLECT_DATA_DIR",
    "host": "RECOLLECT_HOST",
    "port": "RECOLLECT_PORT",
    "graph_uri": "RECOLLECT_GRAPH_URI",
    "graph_user": "RECOLLECT_GRAPH_USER",
    "graph_password": "RECOLLECT_GRAPH_PASSWORD",
    "graph_name": "RECOLLECT_GRAPH_NAME",
    "namespace": "RECOLLECT_NAMESPACE",
    "bolt_port": "RECOLLECT_BOLT_PORT",
    "api_keys": "RECOLLECT_API_KEYS",
    "max_text_chars": "RECOLLECT_MAX_TEXT_CHARS",
    "max_batch": "RECOLLECT_MAX_BATCH",
    "max_token_budget": "RECOLLECT_MAX_TOKEN_BUDGET",
    "max_body_bytes": "RECOLLECT_MAX_BODY_BYTES",
    "session_idle_minutes": "RECOLLECT_SESSION_IDLE_MINUTES",
    "vector_flush_seconds": "RECOLLECT_VECTOR_FLUSH_SECONDS",
    "cache_mb": "RECOLLECT_CACHE_MB",
    "prewarm_users": "RECOLLECT_PREWARM_USERS",
    "pii_policy": "RECOLLECT_PII_POLICY",
    "merge_facts": "RECOLLECT_MERGE_FACTS",
    "torch_threads": "RECOLLECT_TORCH_THREADS",
}


def _number(kind: type[int] | type[float]) -> Callable[[str, str], Any]:
    def cast(name: str, raw: str) -> Any:
        try:
            return kind(raw)
        except ValueError:
            what = "an integer" if kind is int else "a number"
            raise ValueError(f"{name} must be {what}, got {raw!r}") from None

    return cast


def _positive(kind: type[int] | type[float]) -> Callable[[str, str], Any]:
    number = _number(kind)

    def cast(name: str, raw: str) -> Any:
        value = number(name, raw)
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {raw!r}")
        return value

    return cast


def _namespace(name: str, raw: str) -> str:
    try:
        Namespace(raw)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    return raw


def _pii_policy(name: str, raw: str) -> str:
    try:
        parse_policy(raw, name)
    except InvalidInput as exc:
        raise ValueError(str(exc)) from None
    return raw


def _not_negative(name: str, raw: str) -> int:
    value: int = _number(int)(name, raw)
    if value < 0:
        raise ValueError(f"{name} must be 0 or more, got {raw!r}")
    return value


def _flag(name: str, raw: str) -> bool:
    value = raw.strip().lower()
    if value not in {"1", "0", "true", "false", "yes", "no", "on", "off"}:
        raise ValueError(f"{name} must be true or false, got {raw!r}")
    return value in {"1", "true", "yes", "on"}


def _text(_name: str, raw: str) -> str:
    return raw


_CASTS: dict[str, Callable[[str, str], Any]] = {
    "data_dir": lambda _name, raw: Path(raw),
    "port": _number(int),
    "bolt_port": _number(int),
    "max_text_chars": _number(int),
    "max_batch": _number(int),
    "max_token_budget": _number(int),
    "max_body_bytes": _number(int),
    "session_idle_minutes": _number(int),
    "vector_flush_seconds": _number(float),
    "cache_mb": _positive(float),
    "prewarm_users": _not_negative,
    "namespace": _namespace,
    "pii_policy": _pii_policy,
    "merge_facts": _flag,
    "torch_threads": _not_negative,
}
