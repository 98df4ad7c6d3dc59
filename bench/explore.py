"""The explorer's time to first draw at 1,000 and 10,000 memories of one user, in a real browser.

The user's history is bench/perf.py's real text (LoCoMo and LongMemEval dev turns, read from
../shared/data at run time), built once with the bulk path and cached under --cache (shared with
bench/perf.py). For each size a service is started on that data (embedded engine, no keys) and
Debian's Chromium, driven by Playwright, opens GET /explore:

  first draw     from the start of the page load until the first view (the most-mentioned
                 person's neighbourhood, depth 1, at most 200 entities) is drawn and laid out:
                 scripts, `users`, the people list, `neighbourhood`, cytoscape's fcose layout;
  view           of that, the `neighbourhood` request plus drawing and layout alone;
  2,000          the same person at depth 2 with the limit at 2,000 entities: request, drawing
                 and layout of the largest view the page allows;
  overview       the 200 most-mentioned entities and the relations among them;

and, beside them, `neighbourhood` over HTTP alone (median of 5, warm). Medians of --runs page
loads. The machine is shared: compare sizes within one run.

    python bench/explore.py [--sizes 1000,10000] [--runs 5] [--cache DIR]

`--conversation 26 --shot docs/explorer.png` takes the README's screenshot instead: LoCoMo dev
conversation 26 (every turn, bench/locomo.py's protocol, built once under --cache), the
most-mentioned person's neighbourhood with the card of the neighbour with the most typed
relations in the view (the other speaker aside).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from locomo import DEFAULT_DATA
from locomo import load as load_locomo
from perf import cached_data, real_corpus
from spawn import bulk_built, served

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
USER = "perf"
VIEW = """query($k: [String!]!, $d: Int, $l: Int) {
  neighbourhood(userId: "perf", keys: $k, depth: $d, limit: $l) {
    nodes { key } edges { type } truncated } }"""
TOP = 'query { overview(userId: "perf", limit: 1, entityTypes: ["person"]) { nodes { key } } }'


def cpu() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor()


def api_ms(http: httpx.Client, base: str, **variables: Any) -> tuple[float, int, int]:
    """Median milliseconds of `neighbourhood` over HTTP, and the view's nodes and edges."""
    times, view = [], {}
    for _ in range(6):
        began = time.perf_counter()
        body = http.post(f"{base}/graphql", json={"query": VIEW, "variables": variables}).json()
        times.append(time.perf_counter() - began)
        view = body["data"]["neighbourhood"]
    return statistics.median(times[1:]) * 1000, len(view["nodes"]), len(view["edges"])


def drawn(page: Any, draws: int) -> float:
    """Waits for the page's next drawing; its request, drawing and layout in ms."""
    page.wait_for_selector(f'#graph:not([data-draws="{draws}"])', state="attached")
    return float(page.get_attribute("#graph", "data-draw-ms"))


def measure_page(browser: Any, base: str, hub: str, runs: int, shot: str | None) -> dict[str, Any]:
    first, view = [], []
    for run in range(runs):
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        page.set_default_timeout(120_000)
        page.goto(f"{base}/explore?key={hub}")
        drawn(page, 0)
        first.append(page.evaluate("window.recollectExplorer.state.firstDrawAt"))
        view.append(page.evaluate("window.recollectExplorer.state.firstDrawMs"))
        nodes = len(page.evaluate("window.recollectExplorer.drawnKeys()"))
        if run == runs - 1:
            if shot:
                page.wait_for_timeout(500)
                page.screenshot(path=shot)
            page.select_option("#depth", "2")
            drawn(page, 1)
            page.fill("#limit", "2000")
            page.dispatch_event("#limit", "change")
            big = drawn(page, 2)
            big_nodes = len(page.evaluate("window.recollectExplorer.drawnKeys()"))
            page.fill("#limit", "200")
            page.dispatch_event("#limit", "change")
            drawn(page, 3)
            page.click("#overview")
            overview = drawn(page, 4)
            overview_nodes = len(page.evaluate("window.recollectExplorer.drawnKeys()"))
        page.close()
    return {
        "first": statistics.median(first),
        "view": statistics.median(view),
        "nodes": nodes,
        "big": big,
        "big_nodes": big_nodes,
        "overview": overview,
        "overview_nodes": overview_nodes,
    }


CARD_VIEW = """query($u: ID!, $k: [String!]!) { neighbourhood(userId: $u, keys: $k) {
  nodes { key mentionCount } edges { type source target count } } }"""


def screenshot(browser: Any, cache: Path, conversation: str, path: str) -> None:
    turns = load_locomo(DEFAULT_DATA / f"{conversation}.json").turns
    lines = [
        {
            "text": t.text,
            "speaker": t.speaker,
            "occurredAt": t.occurred_at,
            "sessionId": t.session,
            "externalId": t.dia_id,
        }
        for t in turns
    ]
    user = f"locomo-{conversation}"
    data_dir, _ = bulk_built(cache / f"explore-locomo-{conversation}", lambda: lines, {}, user=user)
    with served(data_dir) as (_, base), httpx.Client(timeout=300) as http:
        query = TOP.replace('"perf"', "$u").replace("query {", "query($u: ID!) {")
        top = http.post(f"{base}/graphql", json={"query": query, "variables": {"u": user}})
        hub = top.json()["data"]["overview"]["nodes"][0]["key"]
        body = {"query": CARD_VIEW, "variables": {"u": user, "k": [hub]}}
        view = http.post(f"{base}/graphql", json=body).json()["data"]["neighbourhood"]
        mentions = {n["key"]: n["mentionCount"] for n in view["nodes"]}
        typed: dict[str, int] = {}
        for e in view["edges"]:
            if e["type"] != "RELATED_TO":
                for key in (e["source"], e["target"]):
                    typed[key] = typed.get(key, 0) + 1
        # the neighbour with the most typed relations in the view, not the other speaker
        chosen = max(
            (k for k in typed if k != hub and mentions[k] < mentions[hub] / 4),
            key=lambda k: (typed[k], k),
        )
        page = browser.new_page(viewport={"width": 1500, "height": 900}, device_scale_factor=1)
        page.set_default_timeout(120_000)
        page.goto(f"{base}/explore?key={hub}")
        drawn(page, 0)
        page.wait_for_selector(f'#panel[data-card="{hub}"]', state="attached")
        page.evaluate(
            "(k) => { const cy = window.recollectExplorer.cy; cy.getElementById(k).emit('tap'); }",
            chosen,
        )
        page.wait_for_selector(f'#panel[data-card="{chosen}"]', state="attached")
        page.wait_for_timeout(500)
        page.screenshot(path=path)
        print(f"{path}: {user}, {hub} with the card of {chosen}", file=sys.stderr)


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--cache", default=str(Path.home() / ".cache" / "recollect-perf"))
    parser.add_argument("--shot", help="where to save a screenshot")
    parser.add_argument("--conversation", help="LoCoMo dev conversation of the screenshot, e.g. 26")
    args = parser.parse_args()
    if args.conversation:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            screenshot(browser, Path(args.cache), args.conversation, args.shot or "explorer.png")
            browser.close()
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    corpus = real_corpus()
    rows = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS, headless=True)
        for size in sizes:
            data_dir, _ = cached_data(Path(args.cache), corpus, size)
            with served(data_dir) as (_, base), httpx.Client(timeout=300) as http:
                hub = http.post(f"{base}/graphql", json={"query": TOP}).json()
                hub = hub["data"]["overview"]["nodes"][0]["key"]
                one = api_ms(http, base, k=[hub], d=1, l=200)
                two = api_ms(http, base, k=[hub], d=2, l=2000)
                shot = args.shot if size == sizes[-1] else None
                page = measure_page(browser, base, hub, args.runs, shot)
                rows.append({"size": size, "hub": hub, "one": one, "two": two, **page})
            print(f"  {size} memories done", file=sys.stderr)
        browser.close()
    print(f"\nCPU: {cpu()}; Chromium headless, software rendering; medians of {args.runs} loads\n")
    print(
        "| memories | person (hub) | first draw | view: request + layout | neighbourhood API "
        "(depth 1) | 2,000 limit, depth 2 | overview 200 |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        one, two = r["one"], r["two"]
        print(
            f"| {r['size']:,} | {r['hub']} | {r['first']:.0f} ms | {r['view']:.0f} ms "
            f"({r['nodes']} entities) | {one[0]:.0f} ms ({one[1]} / {one[2]}) "
            f"| {r['big']:.0f} ms ({r['big_nodes']} entities; API {two[0]:.0f} ms) "
            f"| {r['overview']:.0f} ms ({r['overview_nodes']}) |"
        )


if __name__ == "__main__":
    main()
