"""Sessions: short-term and episodic memory without an LLM.

Turns with a sessionId belong to a `(:Session)`. Ending a session (explicitly, or automatically
once the user's newer turns are `idle_gap` past its last turn) writes an episode within a word
budget (graph/recall/episodes.py): who talked and when, the key facts first seen in it (typed
relations whose first evidence is one of its turns) as sentences, the sentences that say the most
in the third person, its entities and topics, and open threads (questions left at its end); the
numbers are an `EpisodeConfig`. The episode is an ordinary memory (kind "episode"), so context
scores it with the same formula as any memory. `turn_window` gives the current session as its
first and last turns in full and the middle summarised by the same policy, cached on the session
node until it grows.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from extraction.embedder import embedding_text
from graph.errors import NotFound
from graph.recall import episodes
from graph.recall.block import Window
from graph.recall.config import EPISODES, EpisodeConfig, RetrievalConfig
from graph.records import MemoryRecord
from graph.service import MemoryService
from graph.validation import NewMemory, check_user_id

log = logging.getLogger("recollect.sessions")
# the current session's middle: about this many words for each of `window_middle` sentences
WINDOW_WORDS_PER_SENTENCE = 15


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
    hints: episodes.ProfileHints


def _summary(
    service: MemoryService,
    turns: list[MemoryRecord],
    words: int,
    config: EpisodeConfig,
    fact_turns: frozenset[str] = frozenset(),
) -> list[str]:
    """The sentences of `turns` that say the most, without redundancy, within `words`
    (graph/recall/episodes.py), in the third person."""
    names = _names(turns)
    items = episodes.candidates(
        [(t.id, t.speaker, t.text) for t in turns], names, config.max_sentence_words
    )
    if not items:
        return []
    relevance = [episodes.salience(i.text, names, i.memory_id in fact_turns) for i in items]
    # MMR chooses among the most salient sentences (a session of long assistant replies has
    # hundreds), with redundancy measured on their content words
    keep = sorted(sorted(range(len(items)), key=lambda i: -relevance[i])[: config.candidates])
    items = [items[i] for i in keep]
    relevance = [relevance[i] for i in keep]
    vectors = episodes.word_vectors(items, names)
    chosen = episodes.select(items, relevance, vectors, words, config.mmr_lambda)
    # each speaker's sentences in the third person: "Caroline went to …"; with two speakers,
    # "you" is the other one
    speakers = [n for n in names if n in {t.speaker for t in turns}]
    listeners = dict(zip(speakers, reversed(speakers), strict=True)) if len(speakers) == 2 else {}
    voices = iter(service.reported([(c.text, c.speaker) for c in chosen if c.speaker], listeners))
    return [next(voices) if c.speaker else c.text for c in chosen]


def _names(turns: list[MemoryRecord]) -> list[str]:
    """The speakers' names and their first names, in order of first turn."""
    names: list[str] = []
    for turn in turns:
        if turn.speaker and turn.speaker not in names:
            names.append(turn.speaker)
    return names + [n.split()[0] for n in names if " " in n]


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
    entities = [
        e
        for e in service.session_entities(user_id, session_id, config.entities_read)
        if not episodes.is_formula(e["label"])
    ]
    speakers = {t.speaker for t in turns}
    labels = [e["label"] for e in entities if e["type"] != "topic" and e["label"] not in speakers][
        : config.entities_shown
    ]
    topics = [e["label"] for e in entities if e["type"] == "topic"][: config.topics_shown]
    rows = service.session_facts(user_id, session_id)
    hints = episodes.profile_hints(
        rows, entities, [(t.speaker, t.text) for t in turns], turns[0].occurred_at
    )
    facts = episodes.fact_sentences(rows, config.facts_shown, {t.id: t.text for t in turns})
    shown = episodes.fact_budget(facts, config.words, config.fact_share)
    header = _header(session_id, turns)
    room = config.words - len(header.split()) - sum(len(f.split()) for f in shown)
    room -= len(episodes.about_line(labels + topics).split())
    fact_turns = frozenset(str(r["evidence"]) for r in rows)
    key = _summary(service, turns, room, config, fact_turns)
    closing = turns[-config.last_turns :]
    speakers = {t.speaker for t in closing}
    open_threads = [
        embedding_text(t.text, t.speaker)
        for t in closing
        if t.text.rstrip().endswith("?") and (t is turns[-1] or len(speakers) == 1)
    ]
    ended = turns[-1].occurred_at
    extras = [f"Open: {t}" for t in open_threads] + hints.lines()
    text = episodes.compose(header, shown, key, labels + topics, extras, config.words)
    text = text[: service.limits.max_text_chars]
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
        user_id, session_id, episode.id, time.time() if now is None else now, topics, hints.params()
    )
    return SessionSummary(
        session_id, episode, len(turns), key, labels, topics, facts, open_threads, hints
    )


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
        words = WINDOW_WORDS_PER_SENTENCE * max(1, min(config.window_middle, len(middle) // 2))
        window.middle = _summary(service, middle, words, EPISODES)
        service.cache_window_summary(user_id, session_id, window.middle, len(turns))
    return window
