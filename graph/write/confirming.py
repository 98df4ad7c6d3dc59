"""Confirmations on the write path: a turn that is a bare "Yes" to the previous turn's yes/no
question about its speaker ("Did you move to Lisbon?" — "Yes!") states the question's content in
the speaker's voice (extraction/confirm.py). Here each such turn gets the facts of that
declarative added to its own extraction, so they stand on the confirming turn, as attribution
asks (extraction/attribution.py): the asker's question states nothing, the answerer's yes does.

The previous turn is the one before in the batch when it is of the same session, else the
session's last stored turn — read only for a turn that is a bare yes, so other turns cost nothing.
Turns only: a stated fact (`factType`), an episode or a turn without a session or a speaker has
no question it answers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from extraction.confirm import bare_yes, confirmed
from extraction.model import Extraction
from graph.ids import MemoryId
from graph.store import Store
from graph.validation import NewMemory


def _answers(memory: NewMemory) -> bool:
    return (
        memory.kind == "turn"
        and memory.fact_type is None
        and memory.session_id is not None
        and memory.speaker is not None
        and bare_yes(memory.text)
    )


def confirmations(
    store: Store, user_id: str, batch: Sequence[NewMemory], positions: Sequence[int]
) -> dict[int, str]:
    """By position: the declarative each bare-yes turn of `positions` affirms."""
    out: dict[int, str] = {}
    for p in (p for p in positions if _answers(batch[p])):
        memory = batch[p]
        before = _previous(store, user_id, batch, p)
        if before is None or before[1] in (None, memory.speaker):
            continue
        said = confirmed(before[0], memory.text)
        if said is not None:
            out[p] = said
    return out


def _previous(
    store: Store, user_id: str, batch: Sequence[NewMemory], p: int
) -> tuple[str, str | None] | None:
    """The text and speaker of the turn before `batch[p]` in its session."""
    session = batch[p].session_id
    earlier = [m for m in batch[:p] if m.user_id == user_id and m.session_id == session]
    if earlier:
        return earlier[-1].text, earlier[-1].speaker
    last = store.last_in_sessions(user_id, [str(session)]).get(str(session))
    if last is None:
        return None
    record = store.memories(user_id, [last]).get(MemoryId(last))
    return (record.text, record.speaker) if record is not None else None


def with_confirmations(
    extractions: dict[int, Extraction],
    said: dict[int, str],
    speakers: dict[int, str | None],
    extract: Callable[[list[tuple[str, str | None]]], list[Extraction]],
) -> None:
    """Adds to each confirming turn's extraction the mentions and facts of what it affirms."""
    if not said:
        return
    positions = [p for p in said if p in extractions]
    extra = extract([(said[p], speakers[p]) for p in positions])
    for p, more in zip(positions, extra, strict=True):
        own = extractions[p]
        known = set(own.keys())
        own.mentions.extend(m for m in more.mentions if m.key not in known)
        own.relations.extend(r for r in more.relations if r not in own.relations)
        own.cues = own.cues | more.cues
