"""GET /explore (the graph explorer page), the offline GraphiQL page of GET /graphql, and /static.

The pages hold no data: everything they show comes from POST /graphql with the visitor's API key
(the explorer asks `users`, `entities`, `neighbourhood`, `entity`), so loading them needs no key
and they see exactly what the key grants. Their files are api/web/ — the pages' own scripts and
styles, committed — and api/web/vendor/, the third-party files api/assets.py installs at setup
(cytoscape.js for the explorer; React and GraphiQL for GraphiQL). Nothing is fetched from another
host: a Content-Security-Policy of 'self' says so to the browser, and a test checks every src and
href. When the vendor files are missing the service still starts and each page says, with status
503, how to install them.

The explorer's settings are rendered into its page as JSON: the vocabulary (entity and relation
types), the colours of cypher/analyst/recollect.grass (one palette for Neo4j Browser and the
page), the view's limits and the analyst query behind its "Cypher for Browser" button.

Imports nothing of graph/ but the vocabulary and the view's limits; no statement runs here.
"""

from __future__ import annotations

import functools
import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from api import assets
from extraction.keys import ENTITY_TYPES
from extraction.model import RELATION_TYPES
from graph.limits import MAX_PAGE
from graph.neighbourhood import DEFAULT_LIMIT, MAX_KEYS, MAX_NODES
from graph.vocabulary import ENTITY_LABELS

WEB = assets.WEB
EXPLORER_SCRIPTS = (
    "cytoscape/cytoscape.min.js",
    "layout-base/layout-base.js",
    "cose-base/cose-base.js",
    "cytoscape-fcose/cytoscape-fcose.js",
)
GRAPHIQL_FILES = (
    "react/react.production.min.js",
    "react-dom/react-dom.production.min.js",
    "graphiql/graphiql.min.js",
    "graphiql/graphiql.min.css",
    "graphiql-plugin-explorer/index.umd.js",
    "graphiql-plugin-explorer/style.css",
)
GRAPHML_NAMESPACE = "http://graphml.graphdrawing.org/xmlns"  # an XML name, never fetched
POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self' 'unsafe-inline'",  # cytoscape and React set style attributes
        "img-src 'self' data: blob:",
        "font-src 'self' data:",  # GraphiQL's fonts are inlined in its stylesheet
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'self'",
    )
)


def grass_rules(text: str) -> dict[str, dict[str, str]]:
    """A GraSS stylesheet's rules (`node.Person` -> {'color': '#4E79A7', …}), read the way Neo4j
    Browser reads it: single quotes delimit strings and are dropped, braces outside them open and
    close a rule, whitespace outside rules is ignored, and there are no comments (text after the
    last rule is never closed by a brace, so it is dropped)."""
    raw: dict[str, str] = {}
    keyword, props, inside_props, inside_string = "", "", False, False
    for c in text:
        if c == "'":
            inside_string = not inside_string
            continue
        if c == "{" and not inside_string:
            inside_props = True
            continue
        if c == "}" and not inside_string:
            raw[keyword], keyword, props, inside_props = props, "", "", False
            continue
        if inside_props:
            props += c
        elif not c.isspace():
            keyword += c
    rules: dict[str, dict[str, str]] = {}
    for selector, body in raw.items():
        pairs = (part.split(":", 1) for part in body.split(";") if ":" in part)
        rules[selector] = {k.strip(): v.strip() for k, v in pairs if k.strip()}
    return rules


def _analyst(name: str) -> str:
    return (resources.files("cypher") / "analyst" / name).read_text(encoding="utf-8")


@functools.cache
def colours() -> dict[str, str]:
    """Entity type -> colour, from the Browser style file; 'default' for anything else."""
    rules = grass_rules(_analyst("recollect.grass"))
    out = {"default": rules["node"]["color"]}
    for entity_type, label in ENTITY_LABELS.items():
        out[entity_type] = rules[f"node.{label}"]["color"]
    return out


def page_config() -> dict[str, Any]:
    return {
        "graphql": "graphql",
        "entityTypes": list(ENTITY_TYPES),
        "relationTypes": list(RELATION_TYPES),
        "colours": colours(),
        "defaultLimit": DEFAULT_LIMIT,
        "maxNodes": MAX_NODES,
        "maxKeys": MAX_KEYS,
        "timelineLength": MAX_PAGE,
        "browserQuery": _analyst("explorer_view.cypher").strip(),
        "graphmlNamespace": GRAPHML_NAMESPACE,
    }


def _script_json(value: Any) -> str:
    """JSON that cannot end the <script> element it sits in."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _page(text: str, status_code: int = 200) -> HTMLResponse:
    return HTMLResponse(text, status_code=status_code, headers={"Content-Security-Policy": POLICY})


def _unavailable(title: str, missing: list[str]) -> HTMLResponse:
    text = (WEB / "unavailable.html").read_text(encoding="utf-8")
    for name, value in (
        ("TITLE", title),
        ("MISSING", ", ".join(f"vendor/{m}" for m in missing)),
        ("HINT", assets.INSTALL_HINT),
    ):
        text = text.replace(f"%%{name}%%", html.escape(value))
    return _page(text, status_code=503)


def explore_html(vendor: Path = assets.VENDOR) -> HTMLResponse:
    missing = [m for m in assets.missing(vendor) if m in EXPLORER_SCRIPTS]
    if missing:
        return _unavailable("The explorer", missing)
    scripts = [f"static/vendor/{path}" for path in EXPLORER_SCRIPTS] + ["static/explore.js"]
    text = (WEB / "explore.html").read_text(encoding="utf-8")
    text = text.replace("%%CONFIG%%", _script_json(page_config()))
    tags = "\n  ".join(f'<script src="{src}"></script>' for src in scripts)
    return _page(text.replace("%%SCRIPTS%%", tags))


def graphiql_html(vendor: Path = assets.VENDOR) -> HTMLResponse:
    """GraphiQL with its explorer plugin, every file from this service (strawberry's own page
    loads them from unpkg.com)."""
    missing = [m for m in assets.missing(vendor) if m in GRAPHIQL_FILES]
    if missing:
        return _unavailable("GraphiQL", missing)
    return _page((WEB / "graphiql.html").read_text(encoding="utf-8"))


async def explore(request: Request) -> HTMLResponse:
    return explore_html()


def routes() -> list[BaseRoute]:
    return [
        Route("/explore", explore, methods=["GET"]),
        Mount("/static", app=StaticFiles(directory=WEB, check_dir=False), name="static"),
    ]
