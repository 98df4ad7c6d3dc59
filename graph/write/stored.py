"""How each remembered item was stored, as `remember` answers it (`stored` on GraphQL's Memory and
in MCP's answer): the storage decision made visible, with the earlier memory it concerns.

    NEW       written as given
    REDACTED  written, with personal data or secrets replaced by their type (graph/write/policy.py)
    REPEAT    said before: the same externalId or normalised text returns the stored memory (no
              write; `earlier` is that memory), or a near-duplicate written and linked to the
              earlier saying (graph/repeats.py; `earlier` is the first saying)
    MERGED    a stated fact that absorbed earlier ones (write/merge_rules.py): `earlier` is the
              first absorbed, now inactive and readable by id

REDACTED wins over NEW and REPEAT-by-near-duplicate, since what was lost is what a client must
learn first; `redactions` on the memory says which types.
"""

from __future__ import annotations

from dataclasses import dataclass

from graph.records import MemoryRecord

NEW, REPEAT, MERGED, REDACTED = "NEW", "REPEAT", "MERGED", "REDACTED"
DECISIONS = (NEW, REPEAT, MERGED, REDACTED)


@dataclass(frozen=True)
class Stored:
    decision: str
    earlier: str | None = None  # the earlier memory's id, where one applies


def decide(record: MemoryRecord, created: bool, absorbed: str | None = None) -> Stored:
    """The decision for one input, from the record it resolved to, whether this call wrote it
    and the first earlier fact it absorbed (graph/write/merge_stage.py)."""
    if absorbed is not None:
        return Stored(MERGED, absorbed)
    if not created:
        return Stored(REPEAT, str(record.id))
    if record.redactions:
        return Stored(REDACTED, record.repeat_of)
    if record.repeat_of:
        return Stored(REPEAT, record.repeat_of)
    return Stored(NEW)
