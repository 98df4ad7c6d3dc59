"""Ending a session: its episode is written, without an LLM.

Turns with a sessionId belong to a `(:Session)`. Ending a session (explicitly with `endSession`, or
automatically once the user's newer turns are `idle_gap` past its last turn) writes an episode
within a word budget (graph/recall/episodes.py): who talked and when, the key facts first seen in
it (typed relations whose first evidence is one of its turns) as sentences, the sentences that
say the most in the third person, its entities and topics, and open threads (questions left at
its end); the numbers are an `EpisodeConfig`. The episode is an ordinary memory (kind "episode"),
so context scores it with the same formula as any memory; ending a session again replaces it.
The profiles of the people who spoke are then updated in the background (graph/write/profiles.py).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol

from extraction.embedder import embedding_text
from graph.chat import is_formula
from graph.errors import NotFound
from graph.limits import Limits
from graph.model_threads import Models
from graph.recall import episodes
from graph.recall.config import EPISODES, EpisodeConfig
from graph.records import MemoryRecord, SessionFact
from graph.store import Store
from graph.validation import NewMemory, check_user_id
from graph.write.pipeline import RememberResult
from graph.write.profiles import ProfileWriter


class SessionWrites(Protocol):
    """What ending a session reads and writes: the episode is an ordinary memory, written and
    replaced through the service's own operations. The service satisfies it, so this room imports
    nothing above it."""

    @property
    def store(self) -> Store: ...

    @property
    def models(self) -> Models: ...

    @property
    def limits(self) -> Limits: ...

    @property
    def profiles(self) -> ProfileWriter: ...

    def forget(self, user_id: str, memory_id: str) -> bool: ...

    def remember_many(self, inputs: Sequence[NewMemory]) -> RememberResult: ...


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    episode: MemoryRecord
    turn_count: int
    key_sentences: list[str]
    entities: list[str]
    topics: list[str]
    facts: list[str]
    open_threads: list[str]
    hints: episodes.ProfileHints


@dataclass(frozen=True)
class _About:
    """What a session is about: its entities and topics, its facts, the profile hints."""

    labels: list[str]
    topics: list[str]
    facts: list[SessionFact]
    hints: episodes.ProfileHints


def _date(stamp: float) -> str:
    return datetime.fromtimestamp(stamp, tz=UTC).strftime("%-d %B %Y")


def _clock(stamp: float) -> str:
    """ "1:56 pm", whatever the process's locale (strftime's %p follows it)."""
    moment = datetime.fromtimestamp(stamp, tz=UTC)
    return f"{moment.hour % 12 or 12}:{moment.minute:02d} {'am' if moment.hour < 12 else 'pm'}"


def _header(session_id: str, turns: list[MemoryRecord]) -> str:
    """Who talked, and when it began to the minute ("at 1:56 pm UTC on 8 May 2023"): a reader
    of several episodes, or a question about "this morning's chat", needs the time of day too."""
    speakers = list(dict.fromkeys(t.speaker for t in turns if t.speaker))
    who = " and ".join([", ".join(speakers[:-1]), speakers[-1]] if len(speakers) > 1 else speakers)
    started, ended = turns[0].occurred_at, turns[-1].occurred_at
    first, last = _date(started), _date(ended)
    begun = f"{_clock(started)} UTC on {first}"
    span = f"at {begun}" if first == last else f"from {begun} to {last}"
    talked = f"{who} talked" if who else "A conversation"
    return f"{talked} {span} ({session_id}, {len(turns)} turns)."


def _about(
    writes: SessionWrites,
    user_id: str,
    session_id: str,
    turns: list[MemoryRecord],
    config: EpisodeConfig,
) -> _About:
    store = writes.store
    entities = [
        e
        for e in store.session_entities(user_id, session_id, config.entities_read)
        if not is_formula(e.label)
    ]
    speakers = {t.speaker for t in turns}
    labels = [e.label for e in entities if e.type != "topic" and e.label not in speakers]
    topics = [e.label for e in entities if e.type == "topic"][: config.topics_shown]
    facts = store.session_facts(user_id, session_id)
    hints = episodes.profile_hints(
        facts, entities, [(t.speaker, t.text) for t in turns], turns[0].occurred_at
    )
    return _About(labels[: config.entities_shown], topics, facts, hints)


def _open_threads(turns: list[MemoryRecord], config: EpisodeConfig) -> list[str]:
    """Questions left at the session's end (by its last speaker, or when one person spoke)."""
    closing = turns[-config.last_turns :]
    speakers = {t.speaker for t in closing}
    return [
        embedding_text(t.text, t.speaker)
        for t in closing
        if t.text.rstrip().endswith("?") and (t is turns[-1] or len(speakers) == 1)
    ]


@dataclass(frozen=True)
class _Draft:
    """A session's episode composed, not yet written."""

    session_id: str
    turns: list[MemoryRecord]
    about: _About
    facts: list[str]
    key: list[str]
    open_threads: list[str]
    text: str  # the episode, cut to what a memory may hold


def end_session(
    writes: SessionWrites,
    user_id: str,
    session_id: str,
    now: float | None = None,
    config: EpisodeConfig = EPISODES,
) -> SessionSummary:
    check_user_id(user_id)
    return _finish(writes, user_id, _draft(writes, user_id, session_id, config), now)


def _draft(writes: SessionWrites, user_id: str, session_id: str, config: EpisodeConfig) -> _Draft:
    """The session's episode from its turns and what the graph holds of them; the episodes of
    other sessions play no part (an episode states no relation and names only known entities),
    so sessions ending together are drafted before any is written."""
    turns = writes.store.session_turns(user_id, session_id)
    if not turns:
        raise NotFound(f"no session {session_id!r} with turns for this user")
    about = _about(writes, user_id, session_id, turns, config)
    facts = episodes.fact_sentences(about.facts, config.facts_shown, {t.id: t.text for t in turns})
    shown = episodes.fact_budget(facts, config.words, config.fact_share)
    header = _header(session_id, turns)
    room = config.words - len(header.split()) - sum(len(f.split()) for f in shown)
    room -= len(episodes.about_line(about.labels + about.topics).split())
    fact_turns = frozenset(f.evidence for f in about.facts if f.evidence is not None)
    key = episodes.summarise(turns, room, config, writes.models.reported, fact_turns)
    open_threads = _open_threads(turns, config)
    extras = [f"Open: {t}" for t in open_threads] + about.hints.lines()
    text = episodes.compose(header, shown, key, about.labels + about.topics, extras, config.words)
    cut = text[: writes.limits.max_text_chars]
    return _Draft(session_id, turns, about, facts, key, open_threads, cut)


def _finish(
    writes: SessionWrites, user_id: str, draft: _Draft, now: float | None
) -> SessionSummary:
    """Writes the drafted episode, marks the session ended and queues its profile update."""
    session_id, about = draft.session_id, draft.about
    episode = _write_episode(writes, user_id, session_id, draft.text, draft.turns[-1].occurred_at)
    writes.store.end_session(
        user_id,
        session_id,
        episode.id,
        time.time() if now is None else now,
        about.topics,
        {**about.hints.params(), "open_threads": draft.open_threads},
    )
    writes.profiles.session_ended(user_id, session_id)  # off the request path
    return SessionSummary(
        session_id=session_id,
        episode=episode,
        turn_count=len(draft.turns),
        key_sentences=draft.key,
        entities=about.labels,
        topics=about.topics,
        facts=draft.facts,
        open_threads=draft.open_threads,
        hints=about.hints,
    )


def _write_episode(
    writes: SessionWrites, user_id: str, session_id: str, text: str, ended: float
) -> MemoryRecord:
    """The episode as a memory of kind "episode", replacing the session's earlier one."""
    external_id = f"episode:{session_id}"
    for old in writes.store.find_existing(user_id, [external_id], []):
        writes.forget(user_id, old.id)
    result = writes.remember_many(
        [
            NewMemory(
                user_id=user_id,
                text=text,
                occurred_at=ended,
                external_id=external_id,
                category="EVENT",
                kind="episode",
            )
        ]
    )
    return result.records[0]


def end_idle_sessions(
    writes: SessionWrites, user_id: str, latest: float, idle_gap: float
) -> list[str]:
    """Ends the user's open sessions whose last turn is more than `idle_gap` seconds before
    `latest` (the event time of the user's newest turns). Their episodes are drafted first and
    embedded in one batch, then written one by one, as `end_session` writes them."""
    drafts = []
    for session_id in writes.store.idle_sessions(user_id, latest - idle_gap):
        try:
            drafts.append(_draft(writes, user_id, session_id, EPISODES))
        except NotFound:
            continue
    with writes.models.embedded_ahead([(d.text, None) for d in drafts]):
        ended = []
        for draft in drafts:
            try:
                _finish(writes, user_id, draft, None)
                ended.append(draft.session_id)
            except NotFound:  # forgotten meanwhile
                continue
    return ended
