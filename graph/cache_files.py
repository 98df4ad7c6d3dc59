"""Where a service keeps its per-user caches between processes, beside the FAISS files: the BM25
indexes (graph/lexical_files.py) and the entity catalogues (graph/catalog_files.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graph.catalog_files import CatalogFiles
from graph.lexical_files import LexicalFiles


@dataclass(frozen=True)
class CacheFiles:
    lexical: LexicalFiles
    catalog: CatalogFiles

    @classmethod
    def under(cls, data_dir: Path) -> CacheFiles:
        """`<data>/lexical/` and `<data>/catalog/`."""
        return cls(LexicalFiles(data_dir / "lexical"), CatalogFiles(data_dir / "catalog"))
