"""Sessions through the API: episodes when a session ends (explicitly or after an idle gap), the
turn window of the current session, episodic retrieval, and the composed block within budget."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.ids import MemoryId
from graph.recall.config import EPISODES
from graph.recall.window import WINDOW_WORDS_PER_SENTENCE as WINDOW_WORDS
from graph.records import SessionRecord
from tests.conftest import Api, close_api, open_api
from tests.conversation import USER, text_of, turns
from tests.documents import REMEMBER_MANY

END = """mutation($s: ID!) { endSession(userId: "alice", sessionId: $s) {
  sessionId turnCount keySentences entities topics facts openThreads
  episode { id kind text externalId } } }"""
CONTEXT = """query($m: String!, $s: ID, $b: Int) {
  context(userId: "alice", message: $m, sessionId: $s, tokenBudget: $b,
          asOf: "2026-10-16T00:00:00Z") {
    text tokens pruned
    window { sessionId turnCount first { text } middle last { text } }
    memories { memory { id text } }
    episodes { score via memory { text kind } }
  } }"""


@pytest.fixture(scope="module")
def sessions(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Api]:
    api, _ = open_api(tmp_path_factory.mktemp("sessions"), extractor, embedder)
    api.ok(REMEMBER_MANY, inputs=turns())
    api.runtime.service.drain()  # the idle check runs in the background
    yield api
    close_api(api)


def _source(sentence: str, texts: list[str]) -> str | None:
    """The text a sentence was taken from: it holds most of the sentence's words (the sentence
    is in the third person, so a few words differ)."""
    words = set(re.findall(r"[a-z]+", sentence.lower())) - {"alice", "ben", "they", "their"}
    for text in texts:
        if len(words & set(re.findall(r"[a-z]+", text.lower()))) >= 0.7 * len(words):
            return text
    return None


def _session(api: Api, session_id: str) -> SessionRecord:
    found = api.runtime.store.session(USER, session_id)
    assert found is not None
    return found


def test_idle_sessions_end_by_themselves(sessions: Api) -> None:
    # s01 and s08 lie days before the newest turns (gap 30 min); s15 is the current one
    assert _session(sessions, "s01").ended is True
    assert _session(sessions, "s08").ended is True
    assert not _session(sessions, "s15").ended
    assert _session(sessions, "s01").episode_id


def test_sessions_ending_together_embed_their_episodes_in_one_batch(
    sessions: Api, embedder: Embedder
) -> None:
    """s01 and s08 ended in the same idle check: their episodes were embedded as one batch
    ahead of their writes, and each stored vector is the one its text gets alone."""
    service = sessions.runtime.service
    ids = [MemoryId(str(_session(sessions, s).episode_id)) for s in ("s01", "s08")]
    stored = service.caches.vectors.vectors(USER, ids)
    texts = service.store.memories(USER, ids)
    assert len(stored) == len(texts) == 2
    for memory_id in ids:
        alone = embedder.embed([texts[memory_id].text])[0]
        assert float(stored[memory_id] @ alone) > 0.99999
    assert not service.models._ahead  # nothing kept past the writes


# Two sessions days apart that an idle check ends together, and a third still going. The second
# returns to a topic the first said once: it becomes an entity there (promoted), its first_seen is
# the first session's time, and the second episode's "Returns to" hint reads it.
_RETURNING = [
    ("2026-09-01T18:00:00Z", "r1", "Alice Smith", "I started sourdough baking with my sister."),
    ("2026-09-01T18:01:00Z", "r1", "Ben Carter", "That sounds fun. How did it go?"),
    ("2026-09-01T18:02:00Z", "r1", "Alice Smith", "The first loaf was flat but we laughed a lot."),
    ("2026-09-04T09:00:00Z", "r2", "Alice Smith", "My sourdough baking got better this week."),
    ("2026-09-04T09:01:00Z", "r2", "Ben Carter", "Nice, did you bring a loaf to work?"),
    ("2026-09-04T09:02:00Z", "r2", "Alice Smith", "Yes, and Mary from accounting loved it."),
    ("2026-09-08T10:00:00Z", "r3", "Alice Smith", "Good morning, Ben."),
]


def _returning_turns(user: str) -> list[dict[str, str]]:
    return [
        {"userId": user, "text": text, "speaker": who, "occurredAt": when, "sessionId": sid}
        for when, sid, who, text in _RETURNING
    ]


def test_sessions_ending_together_get_the_episodes_they_get_one_by_one(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> None:
    """The idle check drafts every idle session's episode before it writes any (so that their
    embeddings are one batch): that is the one-by-one order only if no draft reads what another
    episode's write changes (first_seen, which "Returns to" reads; a promoted topic's mentions).
    The same turns with no idle check, r1 and r2 ended one after the other, give the same
    episodes and hints."""
    hints = ("topics", "expertise", "returning_topics", "declined_topics")
    seen: dict[str, list[tuple[str, list[tuple[str, ...]]]]] = {}
    for how, settings in (("together", {}), ("one by one", {"session_idle_minutes": 0})):
        api, _ = open_api(tmp_path_factory.mktemp("ending"), extractor, embedder, **settings)
        try:
            api.ok(REMEMBER_MANY, inputs=_returning_turns("alice"))
            api.runtime.service.drain()  # the idle check runs in the background
            if how == "one by one":
                assert not _session(api, "r1").ended
                for session_id in ("r1", "r2"):
                    api.ok(END, s=session_id)
            seen[how] = []
            for session_id in ("r1", "r2"):
                record = _session(api, session_id)
                assert record.ended and record.episode_id
                episode = api.ok(
                    'query($id: ID!) { memory(userId: "alice", id: $id) { text } }',
                    id=record.episode_id,
                )["memory"]["text"]
                seen[how].append((episode, [getattr(record, h) for h in hints]))
        finally:
            close_api(api)
    assert seen["together"] == seen["one by one"]
    # the path is exercised: r2 returns to a topic r1 said once
    returning = seen["together"][1][1][2]
    first = " ".join(text for _, sid, _, text in _RETURNING if sid == "r1").lower()
    assert returning and all(topic in first for topic in returning), seen["together"]


def test_end_session_writes_an_episode_with_the_key_facts(sessions: Api) -> None:
    summary = sessions.ok(END, s="s01")["endSession"]
    assert summary["turnCount"] == 10
    facts = summary["facts"]
    assert "Alice Smith's sister is Mary." in facts
    assert "Mary lives in Boston." in facts
    assert "Alice Smith works at Acme Corp." in facts
    assert "Ben Carter's brother is Jake." in facts
    assert "Mary" in summary["entities"]
    # the sentences that say the most, in the third person; greetings and questions never
    key = summary["keySentences"]
    assert "Alice works at Acme Corp as a software engineer." in key
    assert not any(s.startswith("Hi") or s.endswith("?") for s in key)
    episode = summary["episode"]
    assert episode["kind"] == "episode" and episode["externalId"] == "episode:s01"
    text = episode["text"]
    assert text.startswith(
        "Alice Smith and Ben Carter talked at 9:00 am UTC on 1 October 2026 (s01, 10 turns). "
    )
    assert "Mary lives in Boston." in text and "Alice works at Acme Corp" in text
    assert len(text.split()) <= EPISODES.words
    # ending again replaces the episode: one per session
    again = sessions.ok(END, s="s01")["endSession"]["episode"]
    store = sessions.runtime.store
    rows = store.find_existing(USER, ["episode:s01"], [])
    assert [row.id for row in rows] == [again["id"]]
    # an episode repeats facts but is not evidence for them
    mary = store.entities(USER, ["person:mary"])["person:mary"]
    lives = [r for r in mary.relations if r.type == "LIVES_IN"]
    assert lives[0].count == 1


CHAT = [
    ("Carol", "Hi Dan!"),
    ("Dan", "Hey Carol, great to see you, how are you?"),
    ("Carol", "I adopted a dog named Rex from the animal shelter last weekend."),
    ("Dan", "Wow, congratulations, that's amazing!"),
    ("Carol", "Thanks so much, Dan, I really appreciate it."),
    ("Dan", "My sister Ana is training for the Lisbon marathon in May."),
    ("Dan", "I work as a nurse at the city hospital now."),
    ("Carol", "I'd rather not talk about my divorce right now."),
    ("Carol", "Thank you for telling me, that's so cool."),
    ("Dan", "Good luck with Rex, talk soon!"),
    ("Carol", "Bye Dan, take care!"),
]
assert len(CHAT) == 11


def test_greetings_and_thanks_never_enter_an_episode(sessions: Api) -> None:
    inputs = [
        {
            "userId": "carol",
            "speaker": who,
            "text": text,
            "sessionId": "chat",
            "occurredAt": f"2026-10-20T10:{i:02d}:00Z",
        }
        for i, (who, text) in enumerate(CHAT)
    ]
    sessions.ok(REMEMBER_MANY, inputs=inputs)
    summary = sessions.ok(
        """mutation { endSession(userId: "carol", sessionId: "chat") {
        keySentences expertise declinedTopics returningTopics episode { text } } }"""
    )["endSession"]
    text = summary["episode"]["text"]
    for formula in ("Hi Dan", "Hey Carol", "Wow", "Thanks", "Thank you", "Good luck", "Bye"):
        assert formula not in text, text
    key = summary["keySentences"]
    assert "Carol adopted a dog named Rex from the animal shelter last weekend." in key
    assert "Dan's sister Ana is training for the Lisbon marathon in May." in key
    assert all(s.startswith(("Carol", "Dan")) for s in key), key
    # profile hints: on the summary, on the session node, and in the episode as room allows
    assert summary["expertise"] == ["Dan (nurse)"]
    assert summary["declinedTopics"] == ["Carol (my divorce right now)"]
    assert summary["returningTopics"] == []
    node = sessions.runtime.store.session("carol", "chat")
    assert node is not None and node.expertise == ("Dan (nurse)",)
    assert node.declined_topics == ("Carol (my divorce right now)",)


def test_unknown_session_is_not_found(sessions: Api) -> None:
    assert sessions.error_code(END, s="no-such-session") == "NOT_FOUND"


def test_turn_window_of_the_current_session(sessions: Api) -> None:
    block = sessions.ok(CONTEXT, m="Shall we meet up in Seattle?", s="s15")["context"]
    window = block["window"]
    assert window["sessionId"] == "s15" and window["turnCount"] == 12
    assert [t["text"] for t in window["first"]] == [text_of(20), text_of(21)]
    assert [t["text"] for t in window["last"]] == [text_of(29), text_of(30), text_of(31)]
    # the seven middle turns: a word budget for three sentences
    assert window["middle"] and len(" ".join(window["middle"]).split()) <= 3 * WINDOW_WORDS
    middle_turns = [text_of(i) for i in range(22, 29)]
    assert all(_source(s, middle_turns) for s in window["middle"]), window["middle"]
    shown = {text_of(i) for i in (20, 21, 29, 30, 31)}
    assert not shown & {m["memory"]["text"] for m in block["memories"]}
    assert "[CURRENT CONVERSATION] session s15, 12 turns" in block["text"]
    assert "[USER] alice — Alice Smith; last session s08 " in block["text"]
    assert _session(sessions, "s15").window_upto == 12


def test_window_summary_is_recomputed_only_when_the_session_grows(sessions: Api) -> None:
    sessions.ok(CONTEXT, m="Seattle plans", s="s15")
    store = sessions.runtime.store
    store.cache_window_summary(USER, "s15", ["Alice Smith: marker sentence."], 12)
    cached = sessions.ok(CONTEXT, m="Seattle plans", s="s15")["context"]["window"]
    assert cached["middle"] == ["Alice Smith: marker sentence."]
    sessions.ok(
        'mutation { remember(input: {userId: "alice", sessionId: "s15", speaker: "Ben Carter",'
        ' occurredAt: "2026-10-15T12:12:00Z", text: "See you at Green Lake then."}) { id } }'
    )
    grown = sessions.ok(CONTEXT, m="Seattle plans", s="s15")["context"]["window"]
    assert grown["turnCount"] == 13 and grown["last"][-1]["text"] == "See you at Green Lake then."
    assert grown["middle"] != ["Alice Smith: marker sentence."]


def test_episodes_of_earlier_sessions_are_retrieved(sessions: Api) -> None:
    block = sessions.ok(CONTEXT, m="What happened with Mary and Boston?", s="s15")["context"]
    episodes = block["episodes"]
    assert episodes and episodes[0]["memory"]["kind"] == "episode"
    assert any("(s01, 10 turns)" in e["memory"]["text"] for e in episodes)
    assert "[EARLIER SESSIONS]" in block["text"]


def test_composed_block_stays_within_budget_and_prunes_in_order(sessions: Api) -> None:
    full = sessions.ok(CONTEXT, m="What happened with Mary and Boston?", s="s15")["context"]
    previous: list[str] = []
    for budget in range(full["tokens"], 40, -25):
        block = sessions.ok(CONTEXT, m="What happened with Mary and Boston?", s="s15", b=budget)[
            "context"
        ]
        assert block["tokens"] <= budget
        assert block["text"].startswith("[NOW] 2026-10-16 00:00 UTC (Friday)\n[USER] alice")
        assert block["pruned"][: len(previous)] == previous
        previous = block["pruned"]
    kinds = [p.split(":")[0] for p in previous]
    assert kinds and kinds[0] == "window-middle"
    rank = {"window-middle": 0, "memory": 1, "episode": 1, "profile": 2, "card": 3, "turn": 4}
    assert [rank[k] for k in kinds] == sorted(rank[k] for k in kinds)


class _Counted:
    """The real embedder, with the batches it is asked to embed recorded."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.batches: list[int] = []
        self.dimensions = embedder.dimensions

    def embed(self, texts: list[str]) -> object:
        self.batches.append(len(texts))
        return self._embedder.embed(texts)

    def embed_one(self, text: str) -> object:
        return self._embedder.embed_one(text)


def test_texts_embedded_ahead_are_not_embedded_again(
    extractor: Extractor, embedder: Embedder
) -> None:
    from graph.model_threads import Models

    counted = _Counted(embedder)
    models = Models(extractor, counted)  # type: ignore[arg-type]
    try:
        with models.embedded_ahead([("Alice went home.", None), ("I like tea.", "Ben")]):
            _, inside = models.read_and_embed([("I like tea.", "Ben")])
            assert counted.batches == [2]  # one batch for both, none for the write
        _, after = models.read_and_embed([("I like tea.", "Ben")])
        assert counted.batches == [2, 1] and not models._ahead
        assert float(inside[0] @ after[0]) > 0.99999
        with models.embedded_ahead([("One alone.", None)]):  # nothing to batch with
            models.read_and_embed([("One alone.", None)])
        assert counted.batches == [2, 1, 1]
    finally:
        models.close()
