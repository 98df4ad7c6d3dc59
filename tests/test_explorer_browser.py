"""The explorer page in a real browser: Debian's Chromium (/usr/bin/chromium, package `chromium`),
driven by Playwright for Python — never a Playwright browser download — against a real service
(uvicorn, the embedded engine, the real models) holding the first six sessions (108 turns) of the
LoCoMo dev conversation 26, read at run time from ../shared/data/locomo-dev (bench/locomo.py's
protocol; nothing of it is copied here).

One walk through the page, as an analyst would use it: sign in with a key, see the first view,
compare it with `neighbourhood`, click an entity for its card and evidence, filter, read the
timeline, take the Cypher for Browser and the exports, search, then sign in with another user's
key. Throughout, the browser's console shows no error and no request leaves the service's host.
"""

from __future__ import annotations

import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import uvicorn

from api.app import create_app
from api.runtime import start
from api.settings import Settings
from bench.locomo import DEFAULT_DATA, load
from extraction.embedder import Embedder
from extraction.extractor import Extractor
from extraction.keys import ENTITY_TYPES
from graph.engine import free_port
from tests.conftest import graph_settings
from tests.documents import REMEMBER_MANY

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CONVERSATION = DEFAULT_DATA / "26.json"
SESSIONS = {f"session_{n}" for n in range(1, 7)}
USER, OTHER = "locomo-26", "other"
KEYS = {USER: "key-locomo", OTHER: "key-other"}
VIEW = """query($u: ID!, $k: [String!]!, $et: [String!]) {
  neighbourhood(userId: $u, keys: $k, depth: 1, limit: 200, entityTypes: $et) {
    nodes { key type } edges { type source target evidence(first: 3) { text } } } }"""

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not CHROMIUM.is_file(),
        reason="Chromium is missing at /usr/bin/chromium: install the Debian package "
        "`chromium` (apt-get install chromium)",
    ),
    pytest.mark.skipif(
        not CONVERSATION.is_file(), reason=f"the LoCoMo dev data is missing: {CONVERSATION}"
    ),
]


@dataclass
class Served:
    base: str
    http: httpx.Client

    def ask(self, user: str, query: str, **variables: Any) -> dict[str, Any]:
        response = self.http.post(
            f"{self.base}/graphql",
            json={"query": query, "variables": variables},
            headers={"Authorization": f"Bearer {KEYS[user]}"},
        )
        body = response.json()
        assert "errors" not in body, body["errors"]
        return dict(body["data"])


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory, extractor: Extractor, embedder: Embedder
) -> Iterator[Served]:
    data_dir = tmp_path_factory.mktemp("browser")
    settings = Settings(
        data_dir=data_dir,
        api_keys=";".join(f"{key}={user}" for user, key in KEYS.items()),
        **graph_settings(data_dir),
    )
    runtime = start(settings, extractor=extractor, embedder=embedder)
    port = free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(settings, runtime=runtime), port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    http = httpx.Client(timeout=120)
    try:
        assert server.started, "the service did not start"
        there = Served(f"http://127.0.0.1:{port}", http)
        turns = [t for t in load(CONVERSATION).turns if t.session in SESSIONS]
        inputs = [
            {
                "userId": USER,
                "text": t.text,
                "speaker": t.speaker,
                "occurredAt": t.occurred_at,
                "sessionId": t.session,
                "externalId": t.dia_id,
            }
            for t in turns
        ]
        there.ask(USER, REMEMBER_MANY, inputs=inputs)
        other = ["My cousin Zed lives in Oslo.", "Zed works at Fjord Labs."]
        there.ask(OTHER, REMEMBER_MANY, inputs=[{"userId": OTHER, "text": t} for t in other])
        runtime.service.drain()
        yield there
    finally:
        http.close()
        server.should_exit = True
        thread.join(30)
        runtime.close()


@dataclass
class Watched:
    """What the browser reported: console errors, page errors, and every URL it requested."""

    errors: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("Playwright is missing: pip install -e '.[test]'", pytrace=False)
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield chromium
        finally:
            chromium.close()


def _watch(page: Any) -> Watched:
    seen = Watched()
    page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.errors.append(f"page error: {e}"))
    page.on("request", lambda r: seen.urls.append(r.url))
    return seen


def _drawn(page: Any) -> tuple[set[str], set[str]]:
    keys = page.evaluate("window.recollectExplorer.drawnKeys()")
    edges = page.evaluate("window.recollectExplorer.drawnEdges()")
    return set(keys), set(edges)


def _draws(page: Any) -> int:
    return int(page.get_attribute("#graph", "data-draws"))


def _await_draw(page: Any, after: int) -> None:
    page.wait_for_selector(f'#graph:not([data-draws="{after}"])', state="attached")


def _sign_in(page: Any, key: str) -> None:
    page.fill("#api-key", key)
    page.click("#signin button[type=submit]")


def _click_node(page: Any, key: str) -> None:
    """A real mouse click on the node's centre (after centring it, so nothing hides it)."""
    x, y = page.evaluate(
        """(key) => {
          const cy = window.recollectExplorer.cy;
          const node = cy.getElementById(key);
          cy.zoom(1.5);
          cy.center(node);
          const p = node.renderedPosition();
          const box = document.getElementById('graph').getBoundingClientRect();
          return [box.left + p.x, box.top + p.y];
        }""",
        key,
    )
    page.mouse.click(x, y)


def test_an_analyst_explores_a_conversation(served: Served, browser: Any, tmp_path: Path) -> None:
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    page = context.new_page()
    page.set_default_timeout(30_000)
    seen = _watch(page)

    # keys are configured: the page asks for one, then draws the most-mentioned person
    page.goto(f"{served.base}/explore")
    page.wait_for_selector("#signin", state="visible")
    _sign_in(page, KEYS[USER])
    page.wait_for_selector('#graph[data-draws="1"]', state="attached")
    seed = page.evaluate("window.recollectExplorer.state.seeds[0]")
    top = served.ask(
        USER,
        'query($u: ID!) { overview(userId: $u, limit: 1, entityTypes: ["person"]) '
        "{ nodes { key } } }",
        u=USER,
    )["overview"]["nodes"]
    assert seed == top[0]["key"]

    # the nodes and relations drawn are the neighbourhood's
    view = served.ask(USER, VIEW, u=USER, k=[seed])["neighbourhood"]
    keys, edges = _drawn(page)
    assert keys == {n["key"] for n in view["nodes"]} and len(keys) > 10
    assert edges == {f"{e['type']}|{e['source']}|{e['target']}" for e in view["edges"]}

    # clicking an entity shows its card with the text of the memories behind its relations
    neighbour = next(
        e["target"] if e["source"] == seed else e["source"]
        for e in view["edges"]
        if seed in (e["source"], e["target"]) and e["type"] != "RELATED_TO"
    )
    _click_node(page, neighbour)
    page.wait_for_selector(f'#panel[data-card="{neighbour}"]', state="attached")
    shown = set(page.locator("#panel .evidence q").all_inner_texts())
    panel = page.inner_text("#panel")
    assert "null" not in panel and "undefined" not in panel
    card = served.ask(USER, VIEW, u=USER, k=[neighbour])["neighbourhood"]
    stated = {
        m["text"]
        for e in card["edges"]
        if neighbour in (e["source"], e["target"])
        for m in e["evidence"]
    }
    assert shown and shown <= stated

    # the timeline: the memories that mention it
    page.click("#panel .card-actions button:text('Timeline')")
    page.wait_for_selector("#panel .timeline li")
    memories = served.ask(
        USER,
        "query($u: ID!, $k: String!) { entity(userId: $u, key: $k) { "
        "memories(first: 100) { text } } }",
        u=USER,
        k=neighbour,
    )["entity"]["memories"]
    assert page.locator("#panel .timeline li").count() == len(memories) > 0

    # a filter changes what is drawn, to exactly what neighbourhood gives with it
    before = _draws(page)
    page.uncheck("#entity-types input[value=topic]")
    _await_draw(page, before)
    kept = [t for t in ENTITY_TYPES if t != "topic"]  # every type the page offers, but topics
    filtered = served.ask(USER, VIEW, u=USER, k=[seed], et=kept)["neighbourhood"]
    keys_after, _ = _drawn(page)
    assert keys_after == {n["key"] for n in filtered["nodes"]}
    assert keys_after < keys and not any(k.startswith("topic:") for k in keys_after)

    # the Cypher for Neo4j Browser names this user and every entity drawn
    page.click("#show-cypher")
    cypher = page.inner_text("#cypher-text")
    assert cypher.startswith(":params {userId: 'locomo-26', keys: [")
    assert all(f"'{k}'" in cypher for k in keys_after) and "MATCH (e:Entity" in cypher
    page.click("#cypher-dialog form button:text('Close')")

    # exports of the visible subgraph
    with page.expect_download() as graphml:
        page.click("#export-graphml")
    root = ElementTree.parse(graphml.value.path()).getroot()
    ns = {"g": root.tag.partition("}")[0].lstrip("{")}
    assert {n.get("id") for n in root.iterfind(".//g:node", ns)} == keys_after
    with page.expect_download() as png:
        page.click("#export-png")
    assert Path(png.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # search by name: another entity's neighbourhood
    before = _draws(page)
    page.fill("#search", "melan")
    page.click("#results li[data-key='person:melanie']")
    _await_draw(page, before)
    assert page.evaluate("window.recollectExplorer.state.seeds") == ["person:melanie"]

    # another user's key sees that user only
    page.click("#signout")
    page.wait_for_selector("#signin", state="visible")
    before = _draws(page)
    _sign_in(page, KEYS[OTHER])
    _await_draw(page, before)
    assert page.eval_on_selector_all("#user option", "els => els.map(e => e.value)") == [OTHER]
    others, _ = _drawn(page)
    assert others and others <= {"person:zed", "place:oslo", "org:fjord_labs"}
    assert "Caroline" not in page.inner_text("body") and "Melanie" not in page.inner_text("body")

    # GraphiQL, also served offline
    page.goto(f"{served.base}/graphql")
    page.wait_for_selector(".graphiql-container .graphiql-editor")

    assert seen.errors == []
    host = urlsplit(served.base).netloc
    assert {urlsplit(u).netloc for u in seen.urls if not u.startswith(("data:", "blob:"))} == {host}
    context.close()
