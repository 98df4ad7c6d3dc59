"""Users' entity catalogues on disk: `<data>/catalog/<sha256(user)>.json`, one file per user.

A user's first call after a restart read the catalogue from the graph — the entities, role
links and held candidate names a message is resolved against (extraction/resolver.py): on a
50,000-memory user, 3.4 s of reads (graph/caches.py). The file holds the catalogue as the
process held it (`Resolver.catalog`) with the change mark it was taken at. Unlike the BM25 file
it is used only when the graph's mark is that mark: the catalogue is not patched from a delta (any
change from elsewhere makes the service read it again, graph/follow.py), so a file of another
mark is ignored and the graph read as before.

Written to a temporary file and renamed (a crash leaves the older file whole); a torn file or
one of another format is logged and ignored. The caller drops a user's file when their catalogue
is dropped (a forget, a change from elsewhere), so no forgotten entity's name stays on disk.
"""

from __future__ import annotations

import json
import logging

from extraction.model import KnownEntity
from extraction.resolver import Catalog, RoleLink
from graph.records import Mark
from graph.user_files import UserFiles

log = logging.getLogger("recollect.catalog")

FORMAT = 2


class CatalogFiles(UserFiles):
    """Saves and loads users' catalogues under one directory."""

    suffix = ".json"

    def save(self, user_id: str, catalog: Catalog, mark: Mark) -> None:
        body = {
            "format": FORMAT,
            "epoch": mark.epoch,
            "seq": mark.seq,
            "entities": [
                [
                    e.key,
                    e.type,
                    e.label,
                    list(e.aliases),
                    e.mention_count,
                    e.gender,
                    e.unnamed,
                    e.plural,
                ]
                for e in catalog.entities
            ],
            "roles": [[r.owner, r.role, r.key] for r in catalog.roles],
            "candidates": [[key, list(memories)] for key, memories in catalog.candidates],
            "slugs": [list(names) for names in catalog.slugs],
        }
        with self.replacing(user_id) as out:
            # escaped: a label with a lone surrogate (bytes a client sent) is kept, not refused
            out.write(json.dumps(body, ensure_ascii=True, separators=(",", ":")).encode("ascii"))

    def load(self, user_id: str, mark: Mark) -> Catalog | None:
        """The user's saved catalogue when it was taken at `mark` (the graph's now); None when
        there is none, it is of another mark, or it is unusable (logged)."""
        path = self.path(user_id)
        if not path.exists():
            return None
        try:
            body = json.loads(path.read_text(encoding="utf-8"))
            if body.get("format") != FORMAT:
                log.info("a catalogue file of another format found; the graph is read")
                return None
            if Mark(body["epoch"], int(body["seq"])) != mark:
                return None
            catalog = Catalog(
                tuple(
                    KnownEntity(k, t, label, tuple(aliases), int(n), gender, bool(u), bool(p))
                    for k, t, label, aliases, n, gender, u, p in body["entities"]
                ),
                tuple(RoleLink(o, r, k) for o, r, k in body["roles"]),
                tuple((key, tuple(memories)) for key, memories in body["candidates"]),
                tuple(tuple(names) for names in body["slugs"]),
            )
            fits = len(catalog.slugs) == len(catalog.entities) and all(
                len(names) == 1 + len(e.aliases)
                for e, names in zip(catalog.entities, catalog.slugs, strict=True)
            )
            if not fits:
                raise ValueError("the names' slugs do not fit the entities")
            return catalog
        except (OSError, ValueError, KeyError, TypeError) as error:
            log.warning("unreadable catalogue file %s (%s); the graph is read", path.name, error)
            return None
