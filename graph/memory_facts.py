"""One user's memory facts held in process: what scoring reads of every memory (graph/records.py
MemoryFacts), the session order (NEXT) and which memories mention each entity, newest first.

A context call reads the facts of ~400 candidates, the newest memories of each seed and expanded
entity, and the session neighbours of the best: three statements that cost 20-25 ms of a call on
10,000 real turns and grow with the history. These facts change only through writes the service
sees, so the service keeps this copy in step with its own writes (the rows it wrote, the merges
and pins it made, the memories it forgot) and drops it when the graph changed through another
process (graph/follow.py), like the entity catalogue. It is read in one statement on the
service's background thread (about a second for 10,000 memories), and kept only if the user's
change mark did not move around the read; until then calls read the graph as before. The graph
stays the source of truth.

Not thread-safe by itself: the service reads it under its own lock and changes it under the write
lock (graph/caches.py).
"""

from __future__ import annotations

import bisect
import sys
from collections.abc import Iterable, Sequence
from dataclasses import replace

from graph.batch import BatchRows
from graph.ids import MemoryId
from graph.records import MemoryFacts, TurnFacts

# bytes one memory's entry weighs (facts record, its key tuples, the session links, its places in
# the entity lists), for the cache budget (graph/residency.py): 865 measured with tracemalloc on
# 10,000 real turns of bench/realtext.py
PER_MEMORY = 870

# the place of a memory in an entity's list: when it was said, then the order it was written in
Place = tuple[float, int, str]


class UserFacts:
    def __init__(self) -> None:
        self._facts: dict[str, MemoryFacts] = {}
        self._written: dict[str, int] = {}  # write order: ties of occurred_at, newest written first
        self._mentions: dict[str, list[Place]] = {}  # entity key → its memories, oldest first
        self._before: dict[str, str] = {}
        self._after: dict[str, str] = {}
        self._order = 0

    @classmethod
    def load(cls, turns: Iterable[TurnFacts]) -> UserFacts:
        """From the store's `user_facts`, in the order the memories were written."""
        held = cls()
        for turn in turns:
            held._put(turn.facts)
            if turn.before:
                held._link(turn.before, turn.facts.id)
        return held

    def __len__(self) -> int:
        return len(self._facts)

    @property
    def nbytes(self) -> int:
        return PER_MEMORY * len(self._facts) + sys.getsizeof(self._facts)

    # -- reads --------------------------------------------------------------------------------

    def facts(self, ids: Iterable[str]) -> dict[MemoryId, MemoryFacts]:
        held = self._facts
        return {MemoryId(i): held[i] for i in ids if i in held}

    def newest(self, keys: Iterable[str], limit: int) -> dict[str, list[MemoryId]]:
        """The newest `limit` memories mentioning each entity (cypher/entity_memories.cypher)."""
        out: dict[str, list[MemoryId]] = {}
        for key in dict.fromkeys(keys):
            places = self._mentions.get(key)
            if places:
                out[key] = [MemoryId(p[2]) for p in reversed(places[-limit:])] if limit > 0 else []
        return out

    def neighbours(
        self, ids: Sequence[str]
    ) -> tuple[dict[str, tuple[str | None, str | None]], dict[MemoryId, MemoryFacts]]:
        """Each memory's previous and next turn in its session, and the facts of those turns."""
        links = {i: (self._before.get(i), self._after.get(i)) for i in ids}
        around = [n for pair in links.values() for n in pair if n is not None]
        return links, self.facts(around)

    # -- the service's own changes ------------------------------------------------------------

    def wrote(self, rows: BatchRows) -> None:
        """A batch written by cypher/write_memories.cypher (graph/write/rows.py): its memories,
        their mentions and those it added to earlier memories (a candidate topic that recurs),
        and its NEXT links."""
        keys: dict[str, list[str]] = {}
        speaking: dict[str, list[str]] = {}
        for mention in rows.mentions:
            keys.setdefault(mention.memory_id, []).append(mention.key)
            if mention.as_speaker:
                speaking.setdefault(mention.memory_id, []).append(mention.key)
        for row in rows.memories:
            self._put(
                MemoryFacts(
                    id=MemoryId(row.id),
                    occurred_at=float(row.occurred_at),
                    kind=row.kind or "turn",
                    pinned=bool(row.pinned),
                    external_id=row.external_id,
                    entity_keys=tuple(keys.pop(row.id, [])),
                    event_start=row.event_start,
                    event_end=row.event_end,
                    speaker_keys=tuple(speaking.pop(row.id, [])),
                    session_id=row.session_id,
                    held_keys=tuple(row.topic_candidates or ()),
                )
            )
        for memory_id, added in keys.items():  # earlier memories now mentioning a topic
            known = self._facts.get(memory_id)
            if known is None:
                continue
            fresh = [k for k in added if k not in known.entity_keys]
            self._facts[memory_id] = replace(known, entity_keys=(*known.entity_keys, *fresh))
            for key in fresh:
                self._place(key, memory_id)
        for link in rows.next:
            self._link(link.before, link.after)

    def merged(self, source: str, target: str) -> None:
        """cypher/merge_entities.cypher: every memory mentioning `source` mentions `target`
        instead (once; said by whoever said the source when the mention is new)."""
        places = self._mentions.pop(source, [])
        for _, _, memory_id in places:
            known = self._facts.get(memory_id)
            if known is None:
                continue
            keys = [k for k in known.entity_keys if k != source]
            speakers = [k for k in known.speaker_keys if k != source]
            if target not in keys:
                keys.append(target)
                if source in known.speaker_keys:
                    speakers.append(target)
                self._place(target, memory_id)
            self._facts[memory_id] = replace(
                known, entity_keys=tuple(keys), speaker_keys=tuple(speakers)
            )

    def forgot(self, memory_id: str) -> None:
        """cypher/forget_memory.cypher: the memory goes and its session's gap closes."""
        known = self._facts.pop(memory_id, None)
        if known is None:
            return
        order = self._written.pop(memory_id)
        for key in known.entity_keys:
            places = self._mentions.get(key)
            if places is not None:
                place = (known.occurred_at, order, memory_id)
                at = bisect.bisect_left(places, place)
                if at < len(places) and places[at] == place:
                    del places[at]
                if not places:
                    del self._mentions[key]
        before, after = self._before.pop(memory_id, None), self._after.pop(memory_id, None)
        if before is not None:
            self._after.pop(before, None)
        if after is not None:
            self._before.pop(after, None)
        if before is not None and after is not None:
            self._link(before, after)

    def pinned(self, memory_id: str, pinned: bool) -> None:
        known = self._facts.get(memory_id)
        if known is not None:
            self._facts[memory_id] = replace(known, pinned=pinned)

    # -- internals ----------------------------------------------------------------------------

    def _put(self, facts: MemoryFacts) -> None:
        memory_id = str(facts.id)
        if memory_id in self._facts:  # written again (a repeated delta): keep the first place
            return
        self._order += 1
        self._written[memory_id] = self._order
        self._facts[memory_id] = facts
        for key in dict.fromkeys(facts.entity_keys):
            self._place(key, memory_id)

    def _place(self, key: str, memory_id: str) -> None:
        place = (self._facts[memory_id].occurred_at, self._written[memory_id], memory_id)
        places = self._mentions.setdefault(key, [])
        if not places or places[-1] < place:
            places.append(place)  # the common case: memories arrive in time order
        else:
            bisect.insort(places, place)

    def _link(self, before: str, after: str) -> None:
        self._after[before] = after
        self._before[after] = before
