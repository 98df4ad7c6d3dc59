"""Every range an MCP tool's description states is the range the service accepts: for each
numeric argument whose description says "from N to M" or "at most N", the bound is accepted and
one past it is refused with BAD_USER_INPUT naming the argument — on the real engine and models,
through the SDK's in-process client. (The tools once described importance as "1 (trivia) to 10
(vital)" while the service accepted 0 to 3.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import anyio
from mcp import Client

from api.mcp_server import build_server, stdio_caller
from tests.conftest import Api

USER = "ranges-user"
_FROM_TO = re.compile(r"from (-?\d+) to (-?\d+)")
_AT_MOST = re.compile(r"at most (-?\d+)")
# any other way of writing a range ("1 (trivia) to 10 (vital)") would go untested
_LOOSE = re.compile(r"-?\d+\D{0,30}?\bto\s+\D{0,10}?-?\d+")


@dataclass(frozen=True)
class Stated:
    """One argument's stated bounds: the path to it in the tool's arguments, and the range."""

    tool: str
    path: tuple[str, ...]  # e.g. ("memory", "importance") or ("memories", "0", "importance")
    low: int | None
    high: int


def _walk(
    schema: dict[str, Any], defs: dict[str, Any], path: tuple[str, ...]
) -> Iterator[tuple[tuple[str, ...], str]]:
    """(path, description) of every property of an input schema, nested objects and list items
    followed through their $refs."""
    if "$ref" in schema:
        schema = defs[schema["$ref"].rsplit("/", 1)[-1]]
    for option in schema.get("anyOf", []):
        yield from _walk(option, defs, path)
    if schema.get("type") == "array" and "items" in schema:
        yield from _walk(schema["items"], defs, (*path, "0"))
    for name, prop in schema.get("properties", {}).items():
        if prop.get("description"):
            yield (*path, name), prop["description"]
        yield from _walk(prop, defs, (*path, name))


def unstated_ranges(text: str) -> list[str]:
    """Ranges a description writes in another form than "from N to M"."""
    return _LOOSE.findall(_FROM_TO.sub("", text))


def stated_ranges(tools: list[Any]) -> list[Stated]:
    found: list[Stated] = []
    for tool in tools:
        schema = tool.input_schema
        for path, text in _walk(schema, schema.get("$defs", {}), ()):
            assert not unstated_ranges(text), f"{tool.name} {path}: state ranges as 'from N to M'"
            for low, high in _FROM_TO.findall(text):
                found.append(Stated(tool.name, path, int(low), int(high)))
            if not _FROM_TO.search(text):
                for high in _AT_MOST.findall(text):
                    found.append(Stated(tool.name, path, None, int(high)))
    return found


# what each tool needs besides the argument under test
REQUIRED: dict[str, dict[str, Any]] = {
    "remember": {"memory": {"text": "I keep bees on the roof."}},
    "remember_many": {"memories": [{"text": "I keep bees on the roof."}]},
    "get_context": {"message": "What do I keep on the roof?"},
    "search_memories": {"query": "bees"},
    "list_entities": {},
}


def _arguments(stated: Stated, value: int) -> dict[str, Any]:
    arguments: dict[str, Any] = _copy(REQUIRED[stated.tool])
    target: Any = arguments
    for step in stated.path[:-1]:
        target = target[int(step)] if step.isdigit() else target.setdefault(step, {})
    target[stated.path[-1]] = value
    return arguments


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


def test_every_stated_range_is_the_range_the_service_accepts(api: Api) -> None:
    server = build_server(lambda: api.runtime.service, lambda ctx: stdio_caller(USER))

    async def check() -> list[Stated]:
        async with Client(server) as client:
            stated = stated_ranges((await client.list_tools()).tools)
            for item in stated:
                assert item.tool in REQUIRED, f"{item.tool} states a range the test cannot call"
                bounds = [item.high] if item.low is None else [item.low, item.high]
                for value in bounds:
                    result = await client.call_tool(item.tool, _arguments(item, value))
                    assert not result.is_error, (item, value, result.content)
                outside = [item.high + 1] if item.low is None else [item.low - 1, item.high + 1]
                for value in outside:
                    result = await client.call_tool(item.tool, _arguments(item, value))
                    text = " ".join(getattr(c, "text", "") for c in result.content)
                    assert result.is_error, (item, value)
                    assert "BAD_USER_INPUT: " in text, text
                    assert item.path[-1] in text, text
            return stated

    stated = anyio.run(check)
    named = {(s.tool, s.path[-1]) for s in stated}
    # the ranges that matter are stated, and so tested
    assert {("remember", "importance"), ("remember_many", "importance")} <= named
    assert {("search_memories", "limit"), ("list_entities", "limit")} <= named
    assert {("get_context", "max_memories"), ("get_context", "token_budget")} <= named


def test_the_old_importance_text_fails_the_check() -> None:
    """The tools once said "1 (trivia) to 10 (vital)": that text is refused as an unstated range,
    and stated as a range it is checked — and 10 is refused by the service."""
    assert unstated_ranges("1 (trivia) to 10 (vital).")
    assert _FROM_TO.findall("Importance from 1 to 10 (vital).") == [("1", "10")]
