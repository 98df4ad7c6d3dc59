"""The MCP server through the SDK's own client, over both transports, against the real engine and
models: `recollect mcp` started as a subprocess (stdio), and `/mcp` of a running app (HTTP)."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
import uvicorn
from mcp import Client
from mcp.client.stdio import StdioServerParameters, get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult

from api.app import create_app
from api.auth import KeyRing
from api.mcp_server import Caller, key_caller, stdio_caller
from api.runtime import Runtime, start
from api.settings import Settings
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from graph.errors import Forbidden, InvalidInput, Unauthenticated
from tests.conftest import graph_settings
from tests.documents import metric_samples

pytestmark = pytest.mark.slow

TOOLS = {
    "remember",
    "remember_many",
    "get_context",
    "search_memories",
    "get_entity",
    "list_entities",
    "forget",
    "unmerge",
    "end_session",
    "get_profile",
    "get_knowledge_gaps",
}
CONVERSATION = [
    {"text": "My sister Ana moved to Porto last year.", "speaker": "Alice", "session_id": "s1"},
    {"text": "She teaches at the university there now.", "speaker": "Alice", "session_id": "s1"},
    {"text": "I have been learning the cello since March.", "speaker": "Alice", "session_id": "s1"},
]


def _data(result: CallToolResult) -> Any:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)  # type: ignore[union-attr]


def _error(result: CallToolResult) -> str:
    assert result.is_error, f"expected an error, got {result.structured_content}"
    return " ".join(getattr(c, "text", "") for c in result.content)


async def _conversation(client: Client, **user: str) -> list[str]:
    """The shared scenario: every tool once, on a short conversation; returns the memory ids."""
    listed = await client.list_tools()
    assert {t.name for t in listed.tools} == TOOLS
    assert all(t.description and len(t.description) > 40 for t in listed.tools)

    stored = _data(await client.call_tool("remember_many", {"memories": CONVERSATION, **user}))
    ids = [m["id"] for m in stored["memories"]]
    assert len(ids) == 3
    one = _data(
        await client.call_tool(
            "remember",
            {"memory": {"text": "My dog Rex loves the beach.", "speaker": "Alice"}, **user},
        )
    )
    ids.append(one["id"])
    assert "pet:rex" in one["entities"]
    assert (one["stored"], one["earlier_id"], one["redactions"]) == ("NEW", None, [])
    # the storage policy answers on MCP as on GraphQL (tests/test_storage.py)
    card = {"text": "Card 4539 1488 0343 6467 is mine.", "speaker": "Alice"}
    redacted = _data(await client.call_tool("remember", {"memory": card, **user}))
    assert (redacted["stored"], redacted["redactions"]) == ("REDACTED", ["CREDIT_CARD"])
    again = _data(await client.call_tool("remember", {"memory": card, **user}))
    assert (again["stored"], again["earlier_id"]) == ("REPEAT", redacted["id"])
    refused = {**card, "pii_policy": "payment=refuse"}
    assert "memory.text: holds personal data of type CREDIT_CARD" in _error(
        await client.call_tool("remember", {"memory": refused, **user})
    )

    block = _data(
        await client.call_tool("get_context", {"message": "Where does Ana live?", **user})
    )
    assert "Porto" in block["text"]
    assert ids[0] in block["memory_ids"]
    # the block's confidence and conflicts, as with GraphQL; something never said gets the
    # "nothing relevant" block instead of the nearest unrelated memories
    assert 0.0 <= block["confidence"] <= 1.0 and block["conflicts"] == []
    never = _data(
        await client.call_tool(
            "get_context", {"message": "How much does a ticket to Mars cost?", **user}
        )
    )
    assert never["memory_ids"] == [] and "nothing relevant found" in never["text"]
    assert never["confidence"] < block["confidence"]

    card = _data(await client.call_tool("get_entity", {"name": "ana", **user}))
    assert card["label"] == "Ana"
    targets = {(r["type"], r["target_label"]) for r in card["relations"]}
    assert ("LIVES_IN", "Porto") in targets or ("MOVED_TO", "Porto") in targets, targets
    same = _data(await client.call_tool("get_entity", {"key": card["key"], **user}))
    assert same["key"] == card["key"]

    people = _data(await client.call_tool("list_entities", {"type": "person", **user}))
    assert "Ana" in {e["label"] for e in people["entities"]}

    found = _data(await client.call_tool("search_memories", {"query": "cello", "limit": 3, **user}))
    assert found["memories"][0]["id"] == ids[2]
    # times in UTC with their offset, as GraphQL shows them, whatever the server's zone
    assert found["memories"][0]["occurred_at"].endswith("+00:00"), found["memories"][0]
    assert {"score", "floor_score", "similarity", "via"} <= set(found["memories"][0])
    # asked by Alice, "I" is Alice, and what she said comes first (the trees weigh who said it),
    # as with GraphQL's speaker
    mine = _data(
        await client.call_tool(
            "search_memories", {"query": "What am I learning?", "speaker": "Alice", **user}
        )
    )
    assert "speaker:person:alice" in mine["memories"][0]["via"]
    plain = _data(
        await client.call_tool("search_memories", {"query": "What am I learning?", **user})
    )
    # named by no one, the asker of a first-person question is the user's main speaker, Alice
    assert "speaker:person:alice" in plain["memories"][0]["via"]

    gone = _data(await client.call_tool("forget", {"memory_id": ids[2], **user}))
    assert gone == {"forgotten": True}
    again = _data(await client.call_tool("search_memories", {"query": "cello", **user}))
    assert ids[2] not in {m["id"] for m in again["memories"]}

    episode = _data(await client.call_tool("end_session", {"session_id": "s1", **user}))
    assert episode["turn_count"] == 2

    # bad arguments come back as tool errors that name the field
    assert "text" in _error(
        await client.call_tool("remember", {"memory": {"speaker": "Alice"}, **user})
    )
    assert "memory.text" in _error(
        await client.call_tool("remember", {"memory": {"text": " "}, **user})
    )
    assert "limit" in _error(
        await client.call_tool("search_memories", {"query": "x", "limit": 0, **user})
    )
    message = _error(await client.call_tool("get_context", {"message": "  ", **user}))
    assert "BAD_USER_INPUT" in message and "message" in message
    assert "NOT_FOUND" in _error(
        await client.call_tool("end_session", {"session_id": "no", **user})
    )
    batch = [{"text": "My brother Tom lives in Oslo."}, {"text": " "}]
    assert "memories[1].text" in _error(
        await client.call_tool("remember_many", {"memories": batch, **user})
    )
    tom = await client.call_tool("get_entity", {"name": "Tom", **user})
    assert "NOT_FOUND" in _error(tom), "a refused batch writes nothing"
    assert "occurred_at" in _error(
        await client.call_tool(
            "remember", {"memory": {"text": "x", "occurred_at": "yesterday"}, **user}
        )
    )
    return ids


def test_callers_are_fixed_to_their_users() -> None:
    alone = stdio_caller("alice")
    assert alone.user(None) == "alice"
    with pytest.raises(Forbidden):
        alone.user("bob")
    ring = KeyRing("k1=alice;k2=alice|bob;k3=*")
    assert key_caller(ring, "Bearer k1").user(None) == "alice"
    with pytest.raises(InvalidInput, match="user_id"):
        key_caller(ring, "Bearer k2").user(None)
    assert key_caller(ring, "Bearer k2").user("bob") == "bob"
    assert key_caller(ring, "Bearer k3").user("carol") == "carol"
    with pytest.raises(Unauthenticated):
        key_caller(ring, "Bearer nope").user("alice")
    with pytest.raises(InvalidInput, match="--user"):
        stdio_caller("")
    assert Caller(ring.authenticate("Bearer k3"), None).user(" carol ") == " carol "


def test_stdio_server_for_one_user(tmp_path: Path) -> None:
    script = Path(sys.executable).with_name("recollect")
    params = StdioServerParameters(
        command=str(script),
        args=["mcp", "--user", "alice", "--data-dir", str(tmp_path)],
        cwd=str(Path(__file__).resolve().parents[1]),
        # a server in another zone still answers in UTC (api/present.py)
        env={**get_default_environment(), "TZ": "Asia/Kolkata"},
    )

    async def scenario() -> None:
        async with Client(params, read_timeout_seconds=300) as client:
            await _conversation(client)
            # the connection is alice's: naming another user is refused
            refused = _error(
                await client.call_tool("get_context", {"message": "Ana", "user_id": "bob"})
            )
            assert "FORBIDDEN" in refused

    anyio.run(scenario)


def test_stdio_server_lists_its_tools_without_waiting_for_the_service(tmp_path: Path) -> None:
    """The host gets its tool list while the engine and the models come up beside it: proven with
    a graph server that is never reachable, so the service never starts. The list arrives all the
    same, and a tool call answers with the start's error, naming what is wrong."""
    from graph.engine import free_port

    uri = f"bolt://127.0.0.1:{free_port()}"
    script = Path(sys.executable).with_name("recollect")
    params = StdioServerParameters(
        command=str(script),
        args=["mcp", "--user", "alice", "--data-dir", str(tmp_path)],
        cwd=str(Path(__file__).resolve().parents[1]),
        env={**get_default_environment(), "RECOLLECT_GRAPH_URI": uri},
    )

    async def scenario() -> None:
        async with Client(params, read_timeout_seconds=300) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS
            failed = _error(await client.call_tool("get_context", {"message": "Ana"}))
            assert f"cannot reach the graph server at {uri}" in failed

    anyio.run(scenario)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[tuple[str, Runtime]]:
    """The app on a real port (uvicorn in a thread), with keys for alice, bob, and both."""
    data_dir = tmp_path_factory.mktemp("mcp")
    settings = Settings(
        data_dir=data_dir,
        api_keys="key-a=alice;key-b=bob;key-ab=alice|bob",
        merge_facts=True,  # only stated facts merge: the shared scenario has none
        **graph_settings(data_dir),
    )
    runtime = start(settings, extractor=extractor, embedder=embedder)
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings, runtime=runtime), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline, "the app did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", runtime
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        runtime.close()


def _client(url: str, key: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=120)
    return Client(streamable_http_client(f"{url}/mcp", http_client=http))


def test_http_transport_with_keys(served: tuple[str, Runtime]) -> None:
    url, runtime = served

    async def scenario() -> None:
        async with _client(url, "key-a") as alice:
            ids = await _conversation(alice)
        async with _client(url, "key-b") as bob:
            facts = [
                {"text": text, "speaker": "Bob", "fact_type": "fact"}
                for text in ("My sister is Mary.", "My sister Mary lives in Boston.")
            ]
            first, second = _data(await bob.call_tool("remember_many", {"memories": facts}))[
                "memories"
            ]
            assert (second["stored"], second["earlier_id"]) == ("MERGED", first["id"])
            # bob's key reaches only bob's memories: alice's never show, naming her is refused
            block = _data(await bob.call_tool("get_context", {"message": "Where does Ana live?"}))
            assert not set(block["memory_ids"]) & set(ids)
            assert "Porto" not in block["text"] and block["conflicts"] == []
            refused = _error(
                await bob.call_tool("get_context", {"message": "Ana", "user_id": "alice"})
            )
            assert "FORBIDDEN" in refused
            assert "FORBIDDEN" in _error(
                await bob.call_tool("forget", {"memory_id": ids[0], "user_id": "alice"})
            )
        async with _client(url, "key-ab") as both:
            # a key for several users must say which
            assert "user_id" in _error(await both.call_tool("list_entities", {}))
            card = _data(await both.call_tool("get_entity", {"name": "Ana", "user_id": "alice"}))
            assert card["label"] == "Ana"
        async with _client(url, "key-a") as alice:
            # alice can neither undo bob's merge nor find it under her own user
            assert "FORBIDDEN" in _error(
                await alice.call_tool("unmerge", {"memory_id": second["id"], "user_id": "bob"})
            )
            assert "NOT_FOUND" in _error(
                await alice.call_tool("unmerge", {"memory_id": second["id"]})
            )
        async with _client(url, "key-b") as bob:
            restored = _data(await bob.call_tool("unmerge", {"memory_id": first["id"]}))
            assert restored["id"] == first["id"]

    before = metric_samples(httpx2.get(f"{url}/metrics", timeout=30).text)
    anyio.run(scenario)
    after = metric_samples(httpx2.get(f"{url}/metrics", timeout=30).text)

    def calls(tool: str, outcome: str) -> float:
        key = ("recollect_mcp_tool_calls_total", (("outcome", outcome), ("tool", tool)))
        return after.get(key, 0.0) - before.get(key, 0.0)

    # /metrics counts tool calls: bob's plain call and his refused one, by outcome
    assert calls("get_context", "ok") >= 1 and calls("get_context", "error") >= 1
    assert calls("forget", "error") == 1
    forbidden = ("recollect_mcp_tool_errors_total", (("code", "FORBIDDEN"),))
    assert after[forbidden] - before.get(forbidden, 0.0) >= 2
    # five remembered (one redacted), one forgotten, and the episode end_session wrote; bob's
    # two stated facts, merged and unmerged
    assert runtime.store.count_memories("alice") == 5
    assert runtime.store.count_memories("bob") == 2


def test_http_transport_refuses_missing_and_unknown_keys(served: tuple[str, Runtime]) -> None:
    url, _ = served
    request = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
    for headers in ({}, {"Authorization": "Bearer nope"}):
        response = httpx.post(f"{url}/mcp", json=request, headers=headers)
        assert response.status_code == 401
        assert response.json()["code"] == "UNAUTHENTICATED"
