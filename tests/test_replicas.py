"""Several replicas over one graph: two services on one graph server, each with its own data
directory (its own FAISS files) and its own caches, reached through the GraphQL API. What one
replica writes, forgets or forgets of a user, the other's next answer reflects; writes through both
at once lose nothing; a key of one user reads nothing of another on either replica; a separate
`recollect ingest` process writing to the same server is seen by a running one; and a service in
another namespace (RECOLLECT_NAMESPACE) on the same server sees none of it.

The server is a FalkorDB server (`falkordb://`, the engine Recollect embeds, started here on its
own), or, when the suite runs against a graph server (RECOLLECT_TEST_GRAPH_URI: `make
test-neo4j`), that server: two services over one Neo4j. There both replicas share a namespace of
this module's own, since the server keeps what other modules and earlier runs wrote."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.engine import EmbeddedEngine
from tests.conftest import TEST_GRAPH_URI, Api, close_api, graph_settings, held_facts, open_api
from tests.documents import AS_OF, CONTEXT, REMEMBER_MANY

pytestmark = pytest.mark.slow  # starts the engine and two services

KEYS = "key-alice=alice;key-bob=bob;key-ops=*"
ALICE = {"Authorization": "Bearer key-alice"}
OPS = {"Authorization": "Bearer key-ops"}
FORGET = "mutation($user: ID!, $id: ID!) { forget(userId: $user, id: $id) }"
FORGET_USER = "mutation($user: ID!) { forgetUser(userId: $user) }"
PIN = """mutation($user: ID!, $id: ID!, $pinned: Boolean!) {
  pin(userId: $user, id: $id, pinned: $pinned) { id } }"""
MERGE = """mutation($user: ID!, $sources: [String!]!, $into: String!) {
  mergeEntities(userId: $user, sources: $sources, into: $into) { key } }"""


class Replica:
    """One service over the shared server, called with a key that may read every user."""

    def __init__(self, api: Api) -> None:
        self.api = api

    def ok(self, query: str, **variables: Any) -> Any:
        body = self.api.raw(query, headers=OPS, **variables)
        assert "errors" not in body, body["errors"]
        return body["data"]

    def remember(self, user: str, *texts: str, session: str | None = None) -> list[str]:
        inputs = [
            {"userId": user, "text": t, "speaker": "Dana", "sessionId": session} for t in texts
        ]
        made = self.ok(REMEMBER_MANY, inputs=inputs)["rememberMany"]
        return [m["id"] for m in made]

    def answer(self, user: str, message: str) -> dict[str, str]:
        """Every memory this replica can see for the message: the relevance floors off (they
        decide what is relevant, not what a replica holds)."""
        floors = {"minScore": 0.0, "minConfidence": 0.0}
        block = self.ok(CONTEXT, user=user, message=message, max=20, **floors)["context"]
        return {m["memory"]["id"]: m["memory"]["text"] for m in block["memories"]}


@dataclass(frozen=True)
class Server:
    """The graph server the replicas share: the settings that reach it (URI, credentials, the
    replicas' namespace) and the engine kind /healthz names for it."""

    settings: dict[str, Any]
    kind: str

    @property
    def namespace(self) -> str:
        return str(self.settings["namespace"])

    def other_namespace(self) -> str:
        """A namespace on the same server that is not the replicas'."""
        return f"{self.namespace}-staging" if self.namespace else "staging"

    def env(self) -> dict[str, str]:
        """The same settings for a separate process (RECOLLECT_*)."""
        names = {
            "graph_uri": "RECOLLECT_GRAPH_URI",
            "graph_user": "RECOLLECT_GRAPH_USER",
            "graph_password": "RECOLLECT_GRAPH_PASSWORD",
            "namespace": "RECOLLECT_NAMESPACE",
        }
        return {names[k]: str(v) for k, v in self.settings.items() if v}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The suite's graph server when it has one (RECOLLECT_TEST_GRAPH_URI), else a FalkorDB
    server (the engine Recollect embeds, run on its own) started here."""
    here = tmp_path_factory.mktemp("server")
    if TEST_GRAPH_URI is not None:
        kind = "falkordb" if TEST_GRAPH_URI.startswith("falkordb://") else "bolt"
        yield Server(graph_settings(here), kind)
        return
    engine = EmbeddedEngine(here)
    engine.start()
    try:
        yield Server(
            {"graph_uri": f"falkordb://127.0.0.1:{engine.port}/shared", "namespace": ""},
            "falkordb",
        )
    finally:
        engine.stop()


@pytest.fixture(scope="module")
def replicas(
    server: Server,
    tmp_path_factory: pytest.TempPathFactory,
    extractor: Extractor,
    embedder: Embedder,
) -> Iterator[tuple[Replica, Replica]]:
    # one namespace for both: none on a FalkorDB server of their own, the module's on the suite's
    a, _ = open_api(
        tmp_path_factory.mktemp("a"), extractor, embedder, api_keys=KEYS, **server.settings
    )
    b, _ = open_api(
        tmp_path_factory.mktemp("b"), extractor, embedder, api_keys=KEYS, **server.settings
    )
    try:
        yield Replica(a), Replica(b)
    finally:
        close_api(a)
        close_api(b)


def test_both_replicas_run_on_the_shared_server(
    server: Server, replicas: tuple[Replica, Replica]
) -> None:
    a, b = replicas
    for replica in (a, b):
        health = replica.api.client.get("/healthz").json()
        assert health["engine"] == {"kind": server.kind, "ok": True, "restarts": 0}
        assert replica.api.runtime.settings.graph_uri == server.settings["graph_uri"]


def test_a_write_through_one_is_answered_by_the_other(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    a.remember("u-write", "I adopted a greyhound called Biscuit.", "My sister lives in Porto.")
    assert (
        "I adopted a greyhound called Biscuit."
        in b.answer("u-write", "What is my dog called?").values()
    )
    # B holds the user's caches now; the next write through A reaches B's next answer
    [memory_id] = a.remember("u-write", "I started learning the cello in March.")
    assert memory_id in b.answer("u-write", "Which instrument do I play?")
    # B's own indexes hold it (not only the graph): FAISS found it, and BM25 scores its words
    service = b.api.runtime.service
    assert memory_id in {
        str(i) for i, _ in service.caches.vectors.search("u-write", _vector(b, "cello"), 5)
    }
    assert service.caches.lexical.get("u-write").scores("cello").top(3)[0] == memory_id
    # the entity catalogue follows too: B knows every entity A's writes made
    in_graph = {e.key for e in b.api.runtime.store.catalog("u-write")}
    assert any("cello" in key for key in in_graph)
    assert set(service.caches.catalog("u-write").entities) == in_graph


LAST_SESSION = """query($user: ID!, $session: ID) {
  context(userId: $user, message: "What did we talk about?", sessionId: $session) { text } }"""
END_SESSION = """mutation($user: ID!, $session: ID!) {
  endSession(userId: $user, sessionId: $session) { topics } }"""


def _user_line(replica: Replica, user: str, session: str) -> str:
    text = replica.ok(LAST_SESSION, user=user, session=session)["context"]["text"]
    return next(line for line in text.splitlines() if line.startswith("[USER]"))


def test_the_user_line_names_the_last_session_the_other_wrote(
    replicas: tuple[Replica, Replica],
) -> None:
    # B holds the user's two newest sessions until the change mark moves (graph/caches.py)
    a, b = replicas
    a.remember("u-last", "I booked a week in Madeira for June.", session="trip")
    assert "; last session trip today" in _user_line(b, "u-last", "now")
    a.remember(
        "u-last",
        "My cello teacher moved my lesson to Friday.",
        "I practise the cello every evening after work.",
        "The cello recital at the conservatory is in May.",
        session="music",
    )
    assert "; last session music today" in _user_line(b, "u-last", "now")
    # the current session is never the last one: the one before it is
    assert "; last session trip today" in _user_line(b, "u-last", "music")
    # ending a session writes its topics without a new memory of the session's own: B reads
    # them from the graph, not from what it held
    topics = a.ok(END_SESSION, user="u-last", session="music")["endSession"]["topics"]
    assert topics
    line = _user_line(b, "u-last", "now")
    assert f"; last session music today, about {topics[0]}" in line, line


def test_a_memory_forgotten_through_one_is_never_returned_by_the_other(
    replicas: tuple[Replica, Replica],
) -> None:
    a, b = replicas
    ids = a.remember(
        "u-forget",
        "My locker code at the gym is 4417.",
        "I keep my passport in the blue drawer.",
    )
    secret = ids[0]
    assert secret in b.answer("u-forget", "What is my locker code?")
    assert a.ok(FORGET, user="u-forget", id=secret) == {"forget": True}
    for message in ("What is my locker code?", "gym locker 4417", "Where is my passport?"):
        assert secret not in b.answer("u-forget", message)
    service = b.api.runtime.service
    assert secret not in {
        str(i)
        for i, _ in service.caches.vectors.search("u-forget", _vector(b, "locker code 4417"), 10)
    }
    assert secret not in service.caches.lexical.get("u-forget").scores("locker 4417").top(10)
    assert b.api.runtime.reconcile["deltas"] >= 1  # applied as a delta, not a reload


def test_a_pin_and_a_merge_through_one_reach_the_others_scoring(
    replicas: tuple[Replica, Replica],
) -> None:
    """B holds the user's memory facts in process (graph/memory_facts.py); a pin and a merge made
    through A change facts scoring reads, and B's next call reads them again."""
    a, b = replicas
    user = "u-facts"
    first, _ = a.remember(user, "My cousin Jo lives in Lyon.", "Joanna Reyes teaches pottery.")
    b.answer(user, "Where does Jo live?")
    service = b.api.runtime.service
    copy = held_facts(service, user)
    held = service.caches.memory_facts(user, [first])[first]  # type: ignore[index]
    assert not held.pinned and "person:jo" in held.entity_keys
    a.ok(PIN, user=user, id=first, pinned=True)
    a.ok(MERGE, user=user, sources=["person:jo"], into="person:joanna_reyes")
    b.answer(user, "Where does Jo live?")
    assert held_facts(service, user) is not copy  # dropped at the change, read again
    held = service.caches.memory_facts(user, [first])[first]  # type: ignore[index]
    assert held.pinned
    assert "person:joanna_reyes" in held.entity_keys and "person:jo" not in held.entity_keys
    newest = service.caches.entity_memory_ids(user, ["person:joanna_reyes"], 5)
    assert first in newest["person:joanna_reyes"]


def test_forget_user_through_one_empties_the_others_answers(
    replicas: tuple[Replica, Replica],
) -> None:
    a, b = replicas
    a.remember("u-gone", "I work at a bakery in Leeds.", "My brother Sam plays rugby.")
    assert b.answer("u-gone", "Where do I work?")
    assert a.ok(FORGET_USER, user="u-gone") == {"forgetUser": 2}
    assert b.answer("u-gone", "Where do I work?") == {}
    assert b.answer("u-gone", "bakery Leeds rugby Sam") == {}
    assert b.api.runtime.service.caches.catalog("u-gone").entities == {}
    # the user can start again, through either replica
    [again] = b.remember("u-gone", "I moved to York.")
    assert list(a.answer("u-gone", "Where did I move?")) == [again]


def test_concurrent_writes_through_both_lose_nothing(replicas: tuple[Replica, Replica]) -> None:
    a, b = replicas
    acknowledged: list[str] = []
    failures: list[BaseException] = []
    lock = threading.Lock()

    def write(replica: Replica, name: str) -> None:
        try:
            for batch in range(4):
                texts = [
                    f"Note {name}-{batch}-{i}: I visited gallery number {name}{batch}{i} today."
                    for i in range(5)
                ]
                ids = replica.remember("u-both", *texts, session=f"s-{name}")
                with lock:
                    acknowledged.extend(ids)
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [
        threading.Thread(target=write, args=(a, "a")),
        threading.Thread(target=write, args=(b, "b")),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert len(acknowledged) == len(set(acknowledged)) == 40
    # every acknowledged memory is in the graph once, and each replica's indexes hold all of them
    store = a.api.runtime.store
    turns = [r for r in store.memories("u-both", acknowledged).values() if r.kind == "turn"]
    assert len(turns) == 40
    for replica in (a, b):
        service = replica.api.runtime.service
        service.caches.follow("u-both")
        assert set(acknowledged) <= {str(i) for i in replica.api.runtime.vectors.ids("u-both")}
        marks = replica.api.runtime.vectors.mark("u-both")
        assert marks == store.change_mark("u-both")


def _at_once(replicas: tuple[Replica, Replica], turn: dict[str, str]) -> list[str]:
    """`turn` sent to both replicas at the same instant; the ids they answer with."""
    start = threading.Barrier(len(replicas))
    answers: dict[int, str] = {}
    failures: list[BaseException] = []

    def send(at: int) -> None:
        try:
            start.wait(timeout=30)
            made = replicas[at].ok(REMEMBER_MANY, inputs=[turn])["rememberMany"]
            answers[at] = made[0]["id"]
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)

    threads = [threading.Thread(target=send, args=(at,)) for at in range(len(replicas))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    return [answers[at] for at in range(len(replicas))]


def test_the_same_input_sent_to_both_at_once_is_stored_once(
    replicas: tuple[Replica, Replica],
) -> None:
    """An agent retrying through a load balancer: the same turn (one externalId) reaches both
    replicas at the same instant, ten times. The graph's uniqueness constraint refuses the second
    write, whose replica checks again and answers with the first one's memory: one memory, one id
    on both (before the constraint: two memories in 4 rounds of 10)."""
    store = replicas[0].api.runtime.store
    for round_ in range(10):
        turn = {
            "userId": "u-once",
            "text": f"Round {round_}: the parcel for Dana arrives on Friday.",
            "speaker": "Dana",
            "sessionId": "s-once",
            "externalId": f"turn-{round_}",
        }
        first, second = _at_once(replicas, turn)
        assert first == second, f"round {round_}: two ids for one input"
        stored = store.find_existing("u-once", [turn["externalId"]], [])
        assert [m.id for m in stored] == [first], f"round {round_}: stored {len(stored)}"


def test_one_users_key_reads_nothing_of_another_on_either_replica(
    replicas: tuple[Replica, Replica],
) -> None:
    a, b = replicas
    [bobs] = a.remember("bob", "My bank PIN hint is the name of my first cat, Whiskers.")
    for replica in (a, b):
        body = replica.api.raw(
            CONTEXT, headers=ALICE, user="bob", message="What is my PIN hint?", asOf=AS_OF
        )
        assert body["errors"][0]["extensions"]["code"] == "FORBIDDEN"
        own = replica.api.raw(
            CONTEXT, headers=ALICE, user="alice", message="Whiskers PIN hint cat", asOf=AS_OF
        )
        assert "errors" not in own
        assert bobs not in json.dumps(own) and "Whiskers" not in json.dumps(own)


def test_an_ingest_process_writing_to_the_server_is_seen_by_a_running_replica(
    server: Server, replicas: tuple[Replica, Replica], tmp_path: Path
) -> None:
    a, _ = replicas
    a.remember("u-cli", "I grow tomatoes on my balcony.")
    assert a.answer("u-cli", "What do I grow?")  # A holds the user's caches
    lines = tmp_path / "memories.jsonl"
    lines.write_text(
        json.dumps({"userId": "u-cli", "text": "I bought a kayak last weekend.", "speaker": "Dana"})
        + "\n"
    )
    cli = Path(sys.executable).with_name("recollect")
    done = subprocess.run(
        [str(cli), "ingest", str(lines), "--data-dir", str(tmp_path / "cli")],
        env={**os.environ, **server.env()},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "I bought a kayak last weekend." in a.answer("u-cli", "What did I buy?").values()


def _vector(replica: Replica, text: str) -> Any:
    return replica.api.runtime.service.models.embedder.embed([text])[0]


def test_another_namespace_on_the_server_sees_nothing_of_these_users(
    server: Server,
    replicas: tuple[Replica, Replica],
    tmp_path: Path,
    extractor: Extractor,
    embedder: Embedder,
) -> None:
    a, _ = replicas
    [ours] = a.remember("u-ns", "My allotment is plot 12 by the river.")
    elsewhere = {**server.settings, "namespace": server.other_namespace()}
    other, _ = open_api(tmp_path, extractor, embedder, api_keys=KEYS, **elsewhere)
    try:
        theirs = Replica(other)
        assert theirs.answer("u-ns", "Where is my allotment plot?") == {}
        assert "u-ns" not in other.runtime.service.store.users()
        [own] = theirs.remember("u-ns", "My allotment is plot 40 on the hill.")
        assert list(theirs.answer("u-ns", "Where is my allotment plot?")) == [own]
        # and the first namespace's user is untouched by the second's
        assert own not in a.answer("u-ns", "Where is my allotment plot?")
        assert ours in a.answer("u-ns", "Where is my allotment plot?")
        assert "u-ns" in a.api.runtime.service.store.users()
    finally:
        close_api(other)
