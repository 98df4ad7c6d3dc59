"""The writes that change what is already stored: forget a memory, forget a user, pin, and merge
entities by hand. Each is one statement (two for a merge: the move, then the validity of the
target's one-value facts), run under the write lock, after which this process's caches follow it
and its held change mark advances (graph/caches.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial

from graph.caches import UserCaches
from graph.errors import InvalidInput, NotFound
from graph.ids import MemoryId
from graph.memory_facts import UserFacts
from graph.records import EntityRecord, MemoryRecord
from graph.store import Store
from graph.validation import check_entity_key, check_memory_id, check_user_id


class Edits:
    def __init__(self, store: Store, caches: UserCaches) -> None:
        self._store = store
        self._caches = caches
        # told, after a merge by hand, of the memories that mentioned a source or backed its
        # relations: their sessions' profile tallies name it (graph/write/profiles.py)
        self.after_merge: Callable[[str, list[str]], object] | None = None

    def forget(self, user_id: str, memory_id: str) -> bool:
        check_memory_id(user_id, memory_id)
        caches = self._caches
        with caches.lock:
            mark = self._store.forget(user_id, memory_id)
            if mark is None:
                raise NotFound(f"no memory {memory_id!r} for this user")
            caches.vectors.remove(user_id, [memory_id])
            caches.lexical.remove(user_id, [memory_id])
            caches.patch_facts(user_id, lambda held: held.forgot(memory_id))
            caches.forget_catalog(user_id, keep_facts=True)
            caches.advance(user_id, [mark])
            caches.vectors.flush()
        return True

    def unmerge(self, user_id: str, memory_id: str) -> MemoryRecord:
        """Undoes the merge of stated facts `memory_id` is either side of (write/merge_rules.py):
        the absorbed memories are active again and the kept one has its own text back. Returns
        the restored memory (the one named, when it was absorbed; else the first restored). The
        change takes a new epoch of the user's log: every process reloads the user's caches."""
        check_memory_id(user_id, memory_id)
        caches = self._caches
        with caches.lock:
            done = self._store.unmerge(user_id, memory_id)
            if done is None:
                raise NotFound(f"memory {memory_id!r} is part of no merge for this user")
            caches.drop_user(user_id)
        _kept, restored = done
        wanted = memory_id if memory_id in restored else restored[0]
        record = self._store.memories(user_id, [wanted]).get(MemoryId(wanted))
        if record is None:  # forgotten between the unmerge and the read
            raise NotFound(f"no memory {wanted!r} for this user")
        return record

    def forget_user(self, user_id: str) -> int:
        check_user_id(user_id)
        with self._caches.lock:
            count = self._store.forget_user(user_id)
            self._caches.drop_user(user_id)
        return count

    def pin(self, user_id: str, memory_id: str, pinned: bool) -> MemoryRecord:
        check_memory_id(user_id, memory_id)
        caches = self._caches
        with caches.lock:
            mark = self._store.set_pinned(user_id, memory_id, pinned)
            if mark is None:
                raise NotFound(f"no memory {memory_id!r} for this user")
            caches.patch_facts(user_id, lambda held: held.pinned(memory_id, pinned))
            caches.forget_relations(user_id)  # their strength changed: read again
            caches.advance(user_id, [mark])
        found = self._store.memories(user_id, [memory_id])
        record = next(iter(found.values()), None)
        if record is None:  # forgotten between the pin and the read
            raise NotFound(f"no memory {memory_id!r} for this user")
        return record

    def merge_entities(self, user_id: str, sources: Sequence[str], into: str) -> EntityRecord:
        """Corrects the graph by hand: each source entity's mentions, relations (counts summed,
        evidence joined) and names move into `into`, and the source is deleted. Idempotent: a
        source already merged into `into` (now its alias) is skipped; any other unknown key is
        NotFound. Each source is one atomic statement; the resolver learns the alias at once.
        The profiles follow in the background (`after_merge`)."""
        check_user_id(user_id)
        keys = [check_entity_key(k, "sources") for k in sources]
        check_entity_key(into, "into")
        if not keys:
            raise InvalidInput("sources", "must name at least one entity key")
        if into in keys:
            raise InvalidInput(
                "sources", f"holds the target {into!r}; an entity is not merged into itself"
            )
        caches = self._caches
        changed: dict[str, None] = {}
        with caches.lock:
            caches.follow_locked(user_id)
            resolver = caches.catalog(user_id)
            if into not in resolver.entities:
                raise NotFound(f"no entity {into!r} for this user")
            for key in keys:
                if key not in resolver.entities and resolver.resolve_key(key) != into:
                    raise NotFound(f"no entity {key!r} for this user (sources)")
            for key in dict.fromkeys(keys):
                source = resolver.entities.get(key)
                if source is None:
                    continue  # merged before: the alias resolves to the target
                merge = self._store.merge_entities(user_id, key, into)
                resolver.learn_alias(into, key, [source.label, *source.aliases])
                caches.patch_facts(user_id, partial(UserFacts.merged, source=key, target=into))
                caches.relations_changed(user_id, around=(key, into))
                if merge is not None:
                    caches.advance(user_id, [merge.mark])
                    changed.update(dict.fromkeys(merge.changed))
        if changed and self.after_merge is not None:
            self.after_merge(user_id, list(changed))
        record = self._store.entities(user_id, [into]).get(into)
        if record is None:  # forgotten between the merge and the read
            raise NotFound(f"no entity {into!r} for this user")
        return record
