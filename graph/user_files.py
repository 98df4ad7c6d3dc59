"""One file per user under a directory, named by a hash of the user id and written whole or not
at all: what the BM25 indexes (graph/lexical_files.py) and the entity catalogues
(graph/catalog_files.py) are kept in between processes."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, ClassVar

from graph.ids import user_stem


class UserFiles:
    """A directory of users' files ending in `suffix`."""

    suffix: ClassVar[str]

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def path(self, user_id: str) -> Path:
        return self.directory / f"{user_stem(user_id)}{self.suffix}"

    @contextmanager
    def replacing(self, user_id: str) -> Iterator[BinaryIO]:
        """A temporary file to write the user's in: synced to disk and renamed over the user's
        file when the block ends, so a crash leaves the older file whole (and, at worst, the
        temporary one, which `drop` removes too)."""
        path = self.path(user_id)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as out:
            yield out
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)

    def drop(self, user_id: str) -> None:
        """The user's file, and any a killed write left half done (it may hold what the user
        said)."""
        path = self.path(user_id)
        path.unlink(missing_ok=True)
        for left in self.directory.glob(f"{path.name}.*.tmp"):
            left.unlink(missing_ok=True)

    def stored_stems(self) -> set[str]:
        """Stems of the files on disk (user ids are hashed, so stems, not ids)."""
        return {p.name[: -len(self.suffix)] for p in self.directory.glob(f"*{self.suffix}")}

    def drop_stem(self, stem: str) -> None:
        for left in self.directory.glob(f"{stem}{self.suffix}*"):
            left.unlink(missing_ok=True)
