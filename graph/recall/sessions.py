"""Sessions: short-term and episodic memory without an LLM.

Turns with a sessionId belong to a `(:Session)`. Ending a session (explicitly, or automatically
once the user's newer turns are `idle_gap` past its last turn) writes an extractive episode: the
session's key sentences chosen by TextRank over sentence embeddings, its top entities and topics,
the key facts first seen in it (typed relations whose first evidence is one of its turns) and its
open threads (questions left at its end); the numbers are an `EpisodeConfig`. The episode is an
ordinary memory (kind "episode"), so context scores it with the same formula as any memory.
`turn_window` gives the current session as its first and last turns in full and the middle as its
extractive summary (`RetrievalConfig.window_*`), cached on the session node until it grows.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from extraction.embedder import embedding_text
from graph.errors import NotFound
from graph.ingest import NewMemory, check_user_id
from graph.recall import textrank
from graph.recall.block import Window, day
from graph.recall.config import EPISODES, EpisodeConfig, RetrievalConfig
from graph.records import MemoryRecord
from graph.service import MemoryService

log = logging.getLogger("recollect.sessions")


@dataclass
class SessionSummary:
    session_id: str
    episode: MemoryRecord
    turn_count: int
    key_sentences: list[str]
    entities: list[str]
    topics: list[str]
    facts: list[str]
    open_threads: list[str]


def _key_sentences(service: MemoryService, turns: list[MemoryRecord], k: int) -> list[str]:
    items = [
        embedding_text(sentence, turn.speaker)
        for turn in turns
        for sentence in (textrank.sentences(turn.text) or [turn.text])
    ]
    if not items:
        return []
    return textrank.summarize(items, service.embed(items), k)


def _fact(row: dict[str, object]) -> str:
    role = f" ({row['role']})" if row.get("role") else ""
    return f"{row['src']} {row['type']} {row['dst']}{role}"


def end_session(
    service: MemoryService,
    user_id: str,
    session_id: str,
    now: float | None = None,
    config: EpisodeConfig = EPISODES,
) -> SessionSummary:
    check_user_id(user_id)
    turns = service.session_turns(user_id, session_id)
    if not turns:
        raise NotFound(f"no session {session_id!r} with turns for this user")
    key = _key_sentences(service, turns, config.key_sentences)
    entities = service.session_entities(user_id, session_id, config.entities_read)
    labels = [e["label"] for e in entities if e["type"] != "topic"][: config.entities_shown]
    topics = [e["label"] for e in entities if e["type"] == "topic"][: config.topics_shown]
    facts = [_fact(row) for row in service.session_facts(user_id, session_id)]
    facts = facts[: config.facts_shown]
    closing = turns[-config.last_turns :]
    speakers = {t.speaker for t in closing}
    open_threads = [
        embedding_text(t.text, t.speaker)
        for t in closing
        if t.text.rstrip().endswith("?") and (t is turns[-1] or len(speakers) == 1)
    ]
    started, ended = turns[0].occurred_at, turns[-1].occurred_at
    span = day(started) if day(started) == day(ended) else f"{day(started)} to {day(ended)}"
    parts = [f"Session {session_id} ({span}, {len(turns)} turns): " + " ".join(key)]
    if facts:
        parts.append("Key facts: " + "; ".join(facts) + ".")
    if labels or topics:
        parts.append("About: " + ", ".join(labels + topics) + ".")
    if open_threads:
        parts.append("Open: " + " ".join(open_threads))
    text = " ".join(parts)[: service.limits.max_text_chars]
    external_id = f"episode:{session_id}"
    for old in service.find_existing(user_id, [external_id]):
        service.forget(user_id, old)
    result = service.remember_many(
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
    episode = result.records[0]
    service.mark_session_ended(
        user_id, session_id, episode.id, time.time() if now is None else now, topics
    )
    return SessionSummary(session_id, episode, len(turns), key, labels, topics, facts, open_threads)


def end_idle_sessions(
    service: MemoryService, user_id: str, latest: float, idle_gap: float
) -> list[str]:
    """Ends the user's open sessions whose last turn is more than `idle_gap` seconds before
    `latest` (the event time of the user's newest turns)."""
    ended = []
    for session_id in service.idle_sessions(user_id, latest - idle_gap):
        try:
            end_session(service, user_id, session_id)
            ended.append(session_id)
        except NotFound:
            continue
    return ended


def turn_window(
    service: MemoryService, user_id: str, session_id: str, config: RetrievalConfig
) -> Window | None:
    session = service.session(user_id, session_id)
    if session is None:
        return None
    turns = service.session_turns(user_id, session_id)
    first, last = config.window_first, config.window_last
    window = Window(session_id, len(turns))
    if len(turns) <= first + last:
        window.first = turns
        return window
    window.first = turns[:first]
    window.last = turns[-last:]
    middle = turns[first:-last]
    cached = session.get("window_summary")
    if cached is not None and session.get("window_upto") == len(turns):
        window.middle = list(cached)
    else:
        k = max(1, min(config.window_middle, len(middle) // 2))
        window.middle = _key_sentences(service, middle, k)
        service.cache_window_summary(user_id, session_id, window.middle, len(turns))
    return window
