"""Loads every Cypher statement from the `cypher` package once, by name.

A name resolves to `cypher/<engine>/<name>.cypher` when that override exists, else to the shared
`cypher/<name>.cypher`. A missing name fails at start-up, not at the first request.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

ENGINES = ("falkordb", "neo4j")


def _root() -> Traversable:
    return resources.files("cypher")


def _read_dir(folder: Traversable) -> dict[str, str]:
    out: dict[str, str] = {}
    if not folder.is_dir():
        return out
    for item in folder.iterdir():
        if item.is_file() and item.name.endswith(".cypher"):
            out[item.name.removesuffix(".cypher")] = item.read_text(encoding="utf-8")
    return out


class Queries:
    """Statement texts for one engine, by name."""

    def __init__(self, engine: str) -> None:
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; expected one of {ENGINES}")
        self.engine = engine
        root = _root()
        self._texts = _read_dir(root)
        self._texts.update(_read_dir(root / engine))
        self.schema = [text for _, text in sorted(_read_dir(root / "schema" / engine).items())]

    def __getitem__(self, name: str) -> str:
        try:
            return self._texts[name]
        except KeyError:
            raise KeyError(f"no Cypher statement named {name!r} in cypher/") from None

    def names(self) -> set[str]:
        return set(self._texts)

    def require(self, names: set[str]) -> None:
        missing = sorted(names - self.names())
        if missing:
            raise KeyError(f"missing Cypher statements in cypher/: {', '.join(missing)}")
