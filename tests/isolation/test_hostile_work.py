"""Hostile work, on loopback, through real crawls: bodies within the response limit whose
reading costs far more than their size (tests/bombs.py).

Each ends in a structured error or bounded text within its call's deadline; a killed
worker is replaced and the next call succeeds; a search whose extraction is stuck
returns at its hard deadline, never with ``stopReason: completed``; a caller with
hostile pages does not stop another caller's search. The reading happens in the worker
pool, never in the process that runs the event loop: with the parsers broken in this
process, searches and fetches still read their pages. No time is asserted: a limit a
test checks is set far below what the test waits (``WITHIN``), so a limit that did not
hold fails the test, and a limit a test does not check is generous (a busy machine is
slow, never stuck).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

import pytest

from lightsearch import LightSearch
from lightsearch.errors import LightSearchError
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.limits import SMALL_BODY_BYTES
from lightsearch.providers.fetch import WebFetch
from tests import bombs, stuck
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test, home_html, make_world

HOST = "bombs.hostile.test"
# What a test waits for a call whose limit it checks before failing it; the pool's own
# time limit is set above it there, so only the limit under test can end the call.
WITHIN = 60.0
POOL_LIMIT = 120.0
# name -> (builder, what web_fetch may answer: error codes, or "text" for bounded text)
CASES: dict[str, tuple[Any, set[str]]] = {
    "cmap.pdf": (bombs.cmap_pdf, {"extraction_failed"}),
    "pages.pdf": (bombs.many_pages_pdf, {"text"}),
    "nested.pdf": (bombs.nested_pdf, {"extraction_failed"}),
    "paragraphs": (bombs.paragraphs_html, {"timeout", "text"}),
    "deep": (bombs.deep_html, {"extraction_failed", "text"}),
    "links": (bombs.links_html, {"timeout", "text"}),
    "feed": (bombs.feed_xml, {"extraction_failed", "timeout"}),
    "sitemap": (bombs.sitemap_xml, {"unsupported_content_type"}),
}


@pytest.fixture(scope="module")
def routes() -> dict[str, Any]:
    """The bombs, built once for the module (building them is most of a test's cost)."""
    built: dict[str, Any] = {"/robots.txt": ROBOTS_ALLOW, "/plain": {"body": article_html("Harbour tides explained")}}
    for name, (build, _) in CASES.items():
        body, ctype = build()
        built[f"/{name}"] = {"body": body, "type": ctype}
    return built


@pytest.fixture
def settings(origins, routes) -> dict[str, Any]:
    origins.add_site(HOST, routes)
    origins.reset_log()
    # the input caps keep each bomb's reading under a second on an idle machine: these
    # limits are for a busy one
    return {**origins.settings(), "LOG_LEVEL": "ERROR", "WEB_FETCH_DEADLINE_SECS": 60.0,
            "LIGHT_POOL_TASK_SECS": 30.0}


async def outcome(reader: WebFetch, url: str) -> tuple[str, dict[str, Any]]:
    try:
        return "text", await asyncio.wait_for(reader.fetch(url), 2 * WITHIN)
    except LightSearchError as exc:
        return exc.code, exc.details


@pytest.mark.parametrize("name", list(CASES))
@coroutine_test
async def test_each_bomb_is_a_structured_error_or_bounded_text_within_the_deadline(settings, name):
    # a bomb that may end in a timeout gets a short limit: either answer is right, and the
    # test does not wait for its reading on a busy machine
    limit = 2.0 if "timeout" in CASES[name][1] else settings["LIGHT_POOL_TASK_SECS"]
    reader = WebFetch.from_settings({**settings, "LIGHT_POOL_TASK_SECS": limit})
    code, found = await outcome(reader, f"https://{HOST}/{name}")
    assert code in CASES[name][1]
    if code == "timeout":
        assert found["reason"] == "extraction_time"
    if code == "text":
        assert len(found["content"]) <= 8000
    if name == "pages.pdf":
        assert found["pdfPages"] == 3000
        assert found["pdfPagesRead"] <= 200
        assert found["partial"] is True


@coroutine_test
async def test_a_page_over_the_time_limit_is_a_timeout_and_the_next_fetch_reads(settings, monkeypatch):
    """The reader's input caps keep every bomb here under a second; a reading whose cost
    nothing foresaw (a worker burning CPU) is what the time limit is for."""
    reader = WebFetch.from_settings({**settings, "LIGHT_POOL_TASK_SECS": 0.5})
    monkeypatch.setattr(isolated, "read_body", stuck.busy)
    code, found = await outcome(reader, f"https://{HOST}/plain")
    assert (code, found["reason"]) == ("timeout", "extraction_time")
    assert found["limitSecs"] == 0.5
    monkeypatch.undo()
    page = await reader.fetch(f"https://{HOST}/plain")  # its worker was replaced
    assert page["title"] == "Harbour tides explained"


@coroutine_test
async def test_the_fetch_deadline_covers_the_reading(settings, monkeypatch):
    """``WEB_FETCH_DEADLINE_SECS`` once covered only the download: reading a page could
    take as long as it liked. Here the reading never ends (a worker that sleeps)."""
    monkeypatch.setattr(isolated, "read_body", stuck.forever)
    reader = WebFetch.from_settings({**settings, "WEB_FETCH_DEADLINE_SECS": 2.0, "LIGHT_POOL_TASK_SECS": POOL_LIMIT})
    code, found = await asyncio.wait_for(outcome(reader, f"https://{HOST}/plain"), WITHIN)
    assert code == "timeout"
    assert found["reason"] in ("deadline", "extraction_time")


@coroutine_test
async def test_fetch_many_of_five_bombs_takes_its_own_deadline(settings, monkeypatch):
    # the deadline is the call's: each page ends there however far it got (reading, or still
    # waiting for its turn on a busy machine)
    reader = WebFetch.from_settings({**settings, "WEB_FETCH_DEADLINE_SECS": 2.0, "LIGHT_POOL_TASK_SECS": POOL_LIMIT})
    monkeypatch.setattr(isolated, "read_body", stuck.forever)
    urls = [f"https://{HOST}/links?{i}" for i in range(5)]
    out = await asyncio.wait_for(reader.fetch_many(urls), WITHIN)
    assert [r.get("error", {}).get("code") for r in out["results"]] == ["timeout"] * 5
    assert {r["error"]["details"]["reason"] for r in out["results"]} <= {"extraction_time", "deadline"}


@coroutine_test
async def test_another_callers_search_completes_beside_hostile_fetches(settings, offline_settings, origins):
    # the hostile caller's own limits are short: what it reads does not matter here
    reader = WebFetch.from_settings({**settings, "WEB_FETCH_DEADLINE_SECS": 8.0, "LIGHT_POOL_TASK_SECS": 2.0})
    hostile = asyncio.ensure_future(reader.fetch_many([f"https://{HOST}/paragraphs?{i}" for i in range(5)]))
    for _ in range(int(WITHIN / 0.02)):  # the bombs arrive and hold the hostile caller's share of the workers
        if len([r for r in origins.requests_for(HOST) if r["path"].startswith("/paragraphs")]) >= 2:
            break
        await asyncio.sleep(0.02)
    result = await LightSearch.from_settings(offline_settings).search("photosynthesis calvin cycle")
    assert any("wikipedia.org/wiki/Photosynthesis" in h["url"] for h in result["hits"])
    # done with the bombs: their workers are freed as any cancelled caller's are
    # (tests/isolation/test_pool.py), not held to the hostile call's own deadline
    hostile.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await hostile


# ------------------------------------------------------------------------ Light
TOPIC = "glacier moraine sediment"


def bomb_world(origins, tmp_path, **settings: Any) -> dict[str, Any]:
    """A healthy source, and a hostile one whose home page has 20,000 links and whose
    sitemap has 50,000 entries (both far over what is parsed in the event loop's
    process)."""
    links, _ = bombs.links_html()
    sitemap, _ = bombs.sitemap_xml()
    home = links.replace(b"<body>", b'<body><a href="/glacier-moraine">glacier moraine sediment</a>', 1)
    article = article_html("Glacier moraine sediment: a survey of the valley")
    sites = {
        "hostile.bombs.test": {
            "/": {"body": home},
            "/glacier-moraine": {"body": article},
            "/sitemap.xml": {"body": sitemap, "type": "application/xml"},
        },
        "healthy.bombs.test": {
            "/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
            "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")},
        },
    }
    sources = [{"id": "hostile", "host": "hostile.bombs.test", "sitemaps": ["https://hostile.bombs.test/sitemap.xml"]},
               {"id": "healthy", "host": "healthy.bombs.test"}]
    return make_world(origins, tmp_path, sites, sources, **settings)


@coroutine_test
async def test_a_search_whose_extraction_is_stuck_returns_at_its_hard_deadline(origins, tmp_path, monkeypatch):
    """Every page's extraction sleeps (in a real worker, sent in place of the extractor):
    the search still answers at its hard deadline, what it read so far or its error."""
    import lightsearch.pipelines.extract as pipeline

    monkeypatch.setattr(pipeline, "light_document", stuck.forever)
    # the healthy source alone: its page is reached well before the soft deadline on a busy
    # machine too (the hostile one's bombs would hold the workers first)
    sites = {"healthy.bombs.test": {
        "/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
        "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")},
    }}
    cfg = make_world(origins, tmp_path, sites, [{"id": "healthy", "host": "healthy.bombs.test"}],
                     LIGHT_DEADLINE_SECS=8.0, LIGHT_SOFT_DEADLINE_SECS=6.0, LIGHT_POOL_TASK_SECS=POOL_LIMIT)
    code = "ok"
    try:
        result = await asyncio.wait_for(LightSearch.from_settings(cfg).search(TOPIC), WITHIN)
    except LightSearchError as exc:
        code, result = exc.code, None
    assert code in ("ok", "deadline_exceeded")  # the evidence so far, or the hard deadline's error
    if result is not None:
        assert result["stopReason"] == "deadline"
        assert result["hits"] == []  # no page was extracted
        errors = {e["url"]: e for e in result["meta"]["lightSearch"]["sourceErrors"]}
        assert errors["https://healthy.bombs.test/moraine"]["code"] == "timeout"


@coroutine_test
async def test_hostile_discovery_documents_are_parsed_apart_and_read(origins, tmp_path):
    cfg = bomb_world(origins, tmp_path)
    result = await LightSearch.from_settings(cfg).search(TOPIC)
    urls = [h["url"] for h in result["hits"]]
    assert "https://healthy.bombs.test/moraine" in urls
    assert "https://hostile.bombs.test/glacier-moraine" in urls  # the first of the home page's 20,001 links
    counts = result["meta"]["lightSearch"]["counts"]
    assert counts["sitemapEntriesDropped"] == 50_000  # no <loc> in any
    assert counts["linksDropped"] >= 18_000  # read up to MAX_PAGE_LINKS, the rest counted


@coroutine_test
async def test_a_discovery_document_over_the_time_limit_is_that_sources_error(origins, tmp_path, monkeypatch):
    monkeypatch.setattr(isolated, "page", stuck.forever_when_large)  # reading a large page never ends
    cfg = bomb_world(origins, tmp_path, LIGHT_POOL_TASK_SECS=0.5)
    result = await LightSearch.from_settings(cfg).search(TOPIC)
    assert "https://healthy.bombs.test/moraine" in [h["url"] for h in result["hits"]]
    errors = {e["url"]: e for e in result["meta"]["lightSearch"]["sourceErrors"]}
    home = errors["https://hostile.bombs.test/"]
    assert (home["code"], home["reason"], home["source"]) == ("timeout", "extraction_time", "hostile")


def _broken(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("parsed in the event loop's process")


def _broken_when_large(original: Any) -> Any:
    def parse(page: Any, url: str, *args: Any, **kwargs: Any) -> Any:
        size = len(page) if isinstance(page, (bytes, str)) else len(page.get())
        if size > SMALL_BODY_BYTES:
            _broken()
        return original(page, url, *args, **kwargs)

    return parse


@coroutine_test
async def test_no_page_is_parsed_in_the_event_loops_process(origins, tmp_path, monkeypatch, settings):
    """The parsers are broken in this process; the workers have their own. (Main-text
    extraction never runs here; a discovery document does only when it is small, as the
    healthy source's are.)"""
    import lightsearch.documents.html_extract as extract
    import lightsearch.documents.readable as readable

    cfg = bomb_world(origins, tmp_path)
    monkeypatch.setattr(extract, "_extract_html", _broken)
    monkeypatch.setattr(readable, "_extract_readable", _broken)
    # The tasks' own names, in this process only: a worker has its own modules.
    monkeypatch.setattr(isolated, "scan_page", _broken_when_large(isolated.scan_page))
    monkeypatch.setattr(isolated, "read_sitemap", _broken_when_large(isolated.read_sitemap))
    result = await LightSearch.from_settings(cfg).search(TOPIC)
    hits = {h["url"]: h["title"] for h in result["hits"]}
    assert hits["https://healthy.bombs.test/moraine"] == "Glacier moraine sediment notes from the field"
    assert "https://hostile.bombs.test/glacier-moraine" in hits
    page = await WebFetch.from_settings(settings).fetch(f"https://{HOST}/plain")
    assert page["title"] == "Harbour tides explained"
