"""The pages the service serves (GET /explore, GraphiQL on GET /graphql) load nothing from another
host, every file they name is served, they say how to install missing scripts, and the Neo4j
Browser style and analyst queries they share with Browser users are complete. No engine or model
is needed: the pages hold no data (tests/test_explore_access.py checks the keys)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
from starlette.testclient import TestClient

from api import assets, explore
from api.app import create_app
from api.settings import Settings
from graph.vocabulary import ENTITY_LABELS

ANALYST = Path(__file__).resolve().parents[1] / "cypher" / "analyst"
HOST = "testserver"
PAGES = [("/explore", {}), ("/graphql", {"Accept": "text/html"})]


class Links(HTMLParser):
    """Every src and href of a page, with the tag that holds it."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found += [(tag, v) for k, v in attrs if k in ("src", "href", "action") and v]


def links(html: str) -> list[tuple[str, str]]:
    parser = Links()
    parser.feed(html)
    return parser.found


def foreign(url: str) -> bool:
    """Whether loading `url` from a page of this service would reach another host."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob"):
        return False
    return bool(parts.scheme or parts.netloc) and parts.hostname != HOST


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    if assets.missing():
        pytest.fail(f"the pages' scripts are not installed: {assets.INSTALL_HINT}", pytrace=False)
    settings = Settings(data_dir=tmp_path_factory.mktemp("pages"))
    with TestClient(create_app(settings, runtime=SimpleNamespace(service=None))) as test_client:
        yield test_client


def test_the_url_check_tells_hosts_apart() -> None:
    assert foreign("https://unpkg.com/react@18/umd/react.js")
    assert foreign("//cdn.example.org/x.js")
    assert not foreign("static/explore.js") and not foreign("/static/explore.css")
    assert not foreign("http://testserver/static/x.js") and not foreign("data:,")


@pytest.mark.parametrize(("path", "headers"), PAGES)
def test_pages_load_nothing_from_another_host(
    client: TestClient, path: str, headers: dict[str, str]
) -> None:
    response = client.get(path, headers=headers)
    assert response.status_code == 200
    assert "default-src 'self'" in response.headers["content-security-policy"]
    found = links(response.text)
    assert any(tag == "script" for tag, _ in found), "a page without its scripts"
    assert [url for _, url in found if foreign(url)] == []
    assert "unpkg" not in response.text and "cdn" not in response.text.lower()


@pytest.mark.parametrize(("path", "headers"), PAGES)
def test_every_file_a_page_names_is_served(
    client: TestClient, path: str, headers: dict[str, str]
) -> None:
    page = client.get(path, headers=headers)
    for _, url in links(page.text):
        if url.startswith("data:"):
            continue
        served = client.get(f"/{url.lstrip('/')}")
        assert served.status_code == 200, url
        if url.endswith(".css"):
            imported = re.findall(r"(?:url\(|@import\s+)['\"]?([^'\")\s]+)", served.text)
            assert [u for u in imported if foreign(u)] == [], url


def test_the_pages_name_only_pinned_files(client: TestClient) -> None:
    pinned = set(assets.served_paths(assets.load_lock()))
    named = set(explore.EXPLORER_SCRIPTS) | set(explore.GRAPHIQL_FILES)
    assert named <= pinned
    for path, headers in PAGES:
        page = client.get(path, headers=headers).text
        vendor = {u.removeprefix("static/vendor/") for _, u in links(page) if "vendor/" in u}
        assert vendor and vendor <= pinned


def test_missing_scripts_are_explained_not_loaded(tmp_path: Path) -> None:
    for response in (explore.explore_html(tmp_path), explore.graphiql_html(tmp_path)):
        assert response.status_code == 503
        text = bytes(response.body).decode()
        assert "make setup" in text and "python -m api.assets" in text
        assert [u for _, u in links(text) if "vendor/" in u] == []
        assert [u for _, u in links(text) if foreign(u)] == []


def test_the_explorer_page_carries_its_settings(client: TestClient) -> None:
    page = client.get("/explore").text
    assert '"relationTypes": ["WORKS_AT"' in page and '"maxNodes": 2000' in page
    assert "MATCH (e:Entity {user_id: $userId})" in page  # the query of its Browser button
    assert "</script>" not in page.split('id="explorer-config"')[1].split("</script>")[0]


# -- Neo4j Browser: the style file and the analyst queries --------------------------------------


def test_the_browser_style_colours_and_captions_every_label() -> None:
    text = (ANALYST / "recollect.grass").read_text(encoding="utf-8")
    # Browser's GraSS parser knows single quotes only, and no comments: a double quote or a brace
    # in the closing note would break it
    assert '"' not in text and text.count("{") == text.count("}")
    rules = explore.grass_rules(text)
    assert rules["relationship"]["caption"] == "<type>"
    assert rules["node.Memory"]["caption"] == "{caption}"
    colours = set()
    for label in (*ENTITY_LABELS.values(), "Memory", "Session"):
        rule = rules[f"node.{label}"]
        assert re.fullmatch(r"#[0-9A-F]{6}", rule["color"]), label
        colours.add(rule["color"])
    assert len(colours) == len(ENTITY_LABELS) + 2, "one colour per label"
    for label in ENTITY_LABELS.values():
        assert rules[f"node.{label}"]["caption"] == "{label}"
    page = explore.colours()
    assert {t: page[t] for t in ENTITY_LABELS} == {
        t: rules[f"node.{label}"]["color"] for t, label in ENTITY_LABELS.items()
    }


def test_the_style_parser_reads_grass_as_browser_does() -> None:
    rules = explore.grass_rules("node { color: #FFF; }\nnode.A {caption: '{name}'; x:1}\nnote")
    assert rules == {"node": {"color": "#FFF"}, "node.A": {"caption": "{name}", "x": "1"}}


@pytest.mark.parametrize("path", sorted(ANALYST.glob("*.cypher")), ids=lambda p: p.name)
def test_each_analyst_query_says_what_it_answers_and_which_user(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    comments = [line for line in text.splitlines() if line.startswith("//")]
    assert comments and comments[0].startswith("// Answers: "), (
        "the first line says what it answers"
    )
    said = " ".join(comments)
    assert "Parameters: $userId" in said
    body = "\n".join(line for line in text.splitlines() if not line.startswith("//"))
    used = set(re.findall(r"\$(\w+)", body))
    assert "user_id" not in used, "analyst queries take $userId, as Browser's :param sets it"
    assert used <= set(re.findall(r"\$(\w+)", said)), "every parameter is described"
