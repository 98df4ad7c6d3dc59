"""Settings, built once from the environment (`RECOLLECT_*`) and passed explicitly.

Nothing here reads the environment at import time; secrets are hidden from `repr`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any


def _int(env: Mapping[str, str], name: str, default: int) -> int:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        return int(raw)
    except ValueError:
        raise ValueError(f"{name} must be an integer, got {raw!r}") from None


@dataclass(frozen=True)
class Settings:
    data_dir: Path = Path("recollect-data")
    host: str = "127.0.0.1"
    port: int = 8000
    graph_uri: str | None = None
    graph_user: str | None = None
    graph_password: str | None = field(default=None, repr=False)
    graph_name: str = "recollect"
    # Embedded engine: also open the experimental Bolt port (0 = off).
    bolt_port: int = 0
    api_keys: str | None = field(default=None, repr=False)
    max_text_chars: int = 20_000
    max_batch: int = 1_000
    max_token_budget: int = 32_000
    max_body_bytes: int = 32 * 1024 * 1024
    session_idle_minutes: int = 30
    vector_flush_seconds: float = 5.0

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, **overrides: Any) -> Settings:
        env = os.environ if env is None else env
        base = cls(
            data_dir=Path(env.get("RECOLLECT_DATA_DIR", "recollect-data")),
            host=env.get("RECOLLECT_HOST", "127.0.0.1"),
            port=_int(env, "RECOLLECT_PORT", 8000),
            graph_uri=env.get("RECOLLECT_GRAPH_URI") or None,
            graph_user=env.get("RECOLLECT_GRAPH_USER") or None,
            graph_password=env.get("RECOLLECT_GRAPH_PASSWORD") or None,
            graph_name=env.get("RECOLLECT_GRAPH_NAME", "recollect"),
            bolt_port=_int(env, "RECOLLECT_BOLT_PORT", 0),
            api_keys=env.get("RECOLLECT_API_KEYS") or None,
            max_text_chars=_int(env, "RECOLLECT_MAX_TEXT_CHARS", 20_000),
            max_batch=_int(env, "RECOLLECT_MAX_BATCH", 1_000),
            max_body_bytes=_int(env, "RECOLLECT_MAX_BODY_BYTES", 32 * 1024 * 1024),
            session_idle_minutes=_int(env, "RECOLLECT_SESSION_IDLE_MINUTES", 30),
        )
        clean = {k: v for k, v in overrides.items() if v is not None}
        if "data_dir" in clean:
            clean["data_dir"] = Path(clean["data_dir"])
        return replace(base, **clean)
