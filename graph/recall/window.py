"""The current session as a context block shows it: its first and last turns in full, and the
middle summarised by the episodes' policy (graph/recall/episodes.py), cached on the session node
until the session grows, so a long conversation's window costs one summary per new turn at most.
"""

from __future__ import annotations

from graph.recall import episodes
from graph.recall.block import Window
from graph.recall.config import EPISODES, RetrievalConfig
from graph.recall.reads import RecallReads

# the current session's middle: about this many words for each of `window_middle` sentences
WINDOW_WORDS_PER_SENTENCE = 15


def turn_window(
    reads: RecallReads, user_id: str, session_id: str, config: RetrievalConfig
) -> Window | None:
    store = reads.store
    session = store.session(user_id, session_id)
    if session is None:
        return None
    turns = store.session_turns(user_id, session_id)
    first, last = config.window_first, config.window_last
    window = Window(session_id, len(turns))
    if len(turns) <= first + last:
        window.first = turns
        return window
    window.first = turns[:first]
    window.last = turns[-last:]
    middle = turns[first:-last]
    if session.window_summary is not None and session.window_upto == len(turns):
        window.middle = list(session.window_summary)
    else:
        words = WINDOW_WORDS_PER_SENTENCE * max(1, min(config.window_middle, len(middle) // 2))
        window.middle = episodes.summarise(middle, words, EPISODES, reads.models.reported)
        store.cache_window_summary(user_id, session_id, window.middle, len(turns))
    return window
