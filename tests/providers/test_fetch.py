"""web_fetch on loopback origins: every structured error code, and what a success carries.

Pages come from the ``walls.example`` fixture site (reached through ``LIGHT_HOST_MAP``:
the public-address path of the offline origins) and from per-test sites scripted with
faults. A refused or disabled fetch is asserted at the server: no request arrived.
"""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
from jsonschema import validate

from lightsearch.errors import LightSearchError
from lightsearch.evidence.render import render_result
from lightsearch.providers.fetch import WebFetch, window_text
from lightsearch.surfaces.tools import FETCH_OUTPUT
from tests.conftest import ROBOTS_ALLOW, coroutine_test

WALLS = "https://walls.example"
PAGES = Path(__file__).parents[1] / "documents" / "reader_pages"
FAULTS = "faults.fetch.test"
BIG = "<!doctype html><html><body><article>" + "<p>tide gauge reading</p>" * 6000 + "</article></body></html>"
LONG = "<!doctype html><html lang='en'><head><title>Long read</title></head><body><article>" + "".join(
    f"<p>Paragraph {i} explains one more step of the harbour survey in plain words.</p>"
    for i in range(120)) + "</article></body></html>"


@pytest.fixture
def settings(origins):
    origins.add_site(FAULTS, {
        "/robots.txt": ROBOTS_ALLOW,
        "/big": {"body": BIG},
        "/bomb": {"body": "0" * (2 * 1024 * 1024), "gzip": True},
        "/slow": {"body": "<p>late</p>", "delay": 2.0},
        "/teapot": {"status": 418, "body": "<p>short and stout</p>"},
        "/cut": {"body": "<article><p>" + "sea level " * 400 + "</p></article>", "truncate": 4000},
        "/long": {"body": LONG},
        "/hidden": {"body": "<!doctype html><html><head><title>Hidden</title></head><body><article><p>"
                            + "Visible\u200b text\u202e with hidden controls, repeated for length. " * 20
                            + "</p></article></body></html>"},
        "/xhtml": {"body": LONG, "type": "application/xhtml+xml"},
        "/binary": {"body": b"\x89PNG\r\n\x1a\n" + b"\x00" * 64, "type": "image/png"},
        "/nested.json": {"body": b"[" + b",".join([b"[[[[[[[[[[]]]]]]]]]]"] * 20_000) + b"]",
                         "type": "application/json"},
        "/night-bus": {"body": (PAGES / "article_with_comments.html").read_bytes()},
        "/front": {"body": (PAGES / "listing_page.html").read_bytes()},
    })
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR", "WEB_FETCH_MAX_BYTES": 64 * 1024}


def requested(origins, host):
    return [e["path"] for e in origins.requests_for(host)]


async def fetch_error(settings, url, **kwargs) -> LightSearchError:
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(url, **kwargs)
    return info.value


# ------------------------------------------------------------------------ successes
@coroutine_test
async def test_article_reads_with_metadata_receipt_and_trust(settings, origins):
    """The public-address fixture: a mapped host behaves as a public site end to end."""
    result = await WebFetch.from_settings(settings).fetch(f"{WALLS}/article")
    assert result["status"] == 200
    assert result["url"] == result["originalUrl"] == f"{WALLS}/article"
    assert result["title"] == "How tide tables are computed"
    assert result["byline"] == "Mira Okafor"
    assert result["language"] == "en"
    assert result["publishedAt"] == "2026-03-14T09:30:00Z"
    assert result["modifiedAt"] == "2026-03-15T11:00:00Z"
    assert result["contentType"] == "text/html"
    assert "harmonic analysis" in result["content"]
    assert "Walls Example, a fixture site" not in result["content"]  # boilerplate is not content
    # ``text`` is the fenced model text, as in a search result; ``content`` the raw window.
    assert result["text"].startswith("Fetched web page | status 200 | text/html")
    assert "    > " + result["content"].split("\n")[0][:40] in result["text"]
    assert len(result["text"].encode()) <= 16 * 1024
    assert result["truncated"] is False
    assert result["nextStartIndex"] is None
    assert result["trust"] == "volatile_external"
    assert result["carryPolicy"] == "never"
    receipt = result["meta"]["webSources"]
    assert receipt["version"] == 1
    assert receipt["entries"][0]["url"] == f"{WALLS}/article"
    assert receipt["entries"][0]["retrieval"] == "fetched"
    assert receipt["entries"][0]["presentation"] == "content"
    assert result["retrievedAt"].endswith("Z")


@coroutine_test
async def test_reading_on_with_start_index_covers_the_whole_text(settings):
    fetcher = WebFetch.from_settings(settings)
    parts, start = [], 0
    while start is not None:
        page = await fetcher.fetch(f"https://{FAULTS}/long", max_chars=1500, start_index=start)
        assert len(page["content"]) <= 1500
        parts.append(page["content"])
        start = page["nextStartIndex"]
    whole = await fetcher.fetch(f"https://{FAULTS}/long", max_chars=100_000)
    assert "".join(parts) == whole["content"]
    assert len(parts) == -(-whole["totalChars"] // 1500)
    first = await fetcher.fetch(f"https://{FAULTS}/long", max_chars=1500)
    assert first["truncated"] is True
    assert first["meta"]["webSources"]["entries"][0]["contentTruncated"] == ["perSource"]
    text = first["text"]  # rendered once, by web_fetch, as its receipt describes
    assert "startIndex=1500" in text


@coroutine_test
async def test_head_tail_returns_both_ends_in_one_read(settings):
    page = await WebFetch.from_settings(settings).fetch(f"https://{FAULTS}/long", max_chars=2000,
                                                        head_tail=True)
    assert page["headTail"] is True
    assert "Paragraph 0 " in page["content"]
    assert "Paragraph 119 " in page["content"]
    assert "characters omitted" in page["content"]


def test_window_bounds():
    assert window_text("abcdef", 4, 0)["content"] == "abcd"
    assert window_text("abcdef", 4, 4) == {"content": "ef", "totalChars": 6, "totalLength": 6,
                                           "startIndex": 4, "truncated": False, "nextStartIndex": None}
    # Past the end: an empty window that says how long the text is, not an error.
    assert window_text("abc", 4, 10) == {"content": "", "totalChars": 3, "totalLength": 3, "startIndex": 10,
                                         "truncated": False, "nextStartIndex": None, "pastEnd": True}


@pytest.mark.parametrize("max_chars", [1, 5, 30, 45, 46, 60, 600, 1999, 2000])
def test_head_tail_never_exceeds_max_chars(max_chars):
    """``--max-chars 600 --head-tail`` returned 637 characters: the marker was extra."""
    text = "".join(f"Paragraph {i} says something.\n\n" for i in range(200))
    window = window_text(text, max_chars, 0, head_tail=True)
    assert len(window["content"]) <= max_chars
    assert window["truncated"] is True
    if window.get("headTail"):
        assert window["content"].startswith(text[:window["nextStartIndex"]])
        assert "characters omitted" in window["content"]


@coroutine_test
async def test_start_index_past_the_end_is_an_empty_window(settings):
    fetcher = WebFetch.from_settings(settings)
    page = await fetcher.fetch(f"https://{FAULTS}/long", max_chars=1500, start_index=10**7)
    assert page["content"] == ""
    assert page["truncated"] is False
    assert page["nextStartIndex"] is None
    assert page["pastEnd"] is True
    assert page["totalLength"] == page["totalChars"] > 0
    validate(page, FETCH_OUTPUT)


@coroutine_test
async def test_markdown_keeps_structure(settings):
    page = await WebFetch.from_settings(settings).fetch(f"{WALLS}/article", markdown=True)
    assert page["format"] == "markdown"
    assert "harmonic analysis" in page["content"]


@coroutine_test
async def test_comments_under_an_article_come_only_when_asked_for(settings):
    fetch = WebFetch.from_settings(settings)
    plain = await fetch.fetch(f"https://{FAULTS}/night-bus")
    asked = await fetch.fetch(f"https://{FAULTS}/night-bus", comments=True)
    for page in (plain, asked):
        assert "keep running for at least two more years" in page["content"]
    assert "children's ward for eleven years" not in plain["content"]
    assert "children's ward for eleven years" in asked["content"]
    validate(asked, FETCH_OUTPUT)


@coroutine_test
async def test_a_page_of_links_with_no_main_content_says_so(settings):
    err = await fetch_error(settings, f"https://{FAULTS}/front")
    assert err.code == "extraction_failed"
    assert err.details["reason"] == "no_main_content"
    assert "no main content" in err.message


@pytest.mark.parametrize(("path", "kind", "needle"), [
    ("/notes.txt", "text", "Second line of the notes."),
    ("/data.json", "json", '"tide tables"'),  # JSON passed through
    ("/feed.xml", "text", "How tide tables are computed"),  # RSS summarised
])
@coroutine_test
async def test_other_allowed_content_types(settings, path, kind, needle):
    page = await WebFetch.from_settings(settings).fetch(f"{WALLS}{path}")
    assert page["format"] == kind
    assert needle in page["content"]


@coroutine_test
async def test_a_json_body_is_returned_as_text_never_loaded(settings, monkeypatch):
    """JSON is decoded and returned, not parsed: 420 KB of small nested arrays would be a
    Python object for every two bytes, loaded where every caller's events wait."""
    import json

    def refused(*_args, **_kwargs):
        raise AssertionError("a fetched body was loaded as JSON")

    monkeypatch.setattr(json, "loads", refused)
    page = await WebFetch.from_settings({**settings, "WEB_FETCH_MAX_BYTES": 1024 * 1024}).fetch(
        f"https://{FAULTS}/nested.json", max_chars=100)
    assert page["format"] == "json"
    assert page["content"].startswith("[[[[")


@coroutine_test
async def test_xhtml_is_html(settings):
    page = await WebFetch.from_settings(settings).fetch(f"https://{FAULTS}/xhtml")
    assert page["title"] == "Long read"


@coroutine_test
async def test_cookie_banner_on_a_real_article_is_not_a_wall(settings):
    page = await WebFetch.from_settings(settings).fetch(f"{WALLS}/banner-article")
    assert "double high water" in page["content"]


@coroutine_test
async def test_redirect_and_meta_refresh_report_both_urls(settings):
    for path in ("/moved", "/refresh"):
        page = await WebFetch.from_settings(settings).fetch(f"{WALLS}{path}")
        assert page["url"] == f"{WALLS}/article"
        assert page["originalUrl"] == f"{WALLS}{path}"
        assert page["redirects"] == [f"{WALLS}/article"]


@coroutine_test
async def test_body_cut_short_is_returned_marked_partial(settings):
    page = await WebFetch.from_settings(settings).fetch(f"https://{FAULTS}/cut")
    assert page["partial"] is True
    assert "sea level" in page["content"]
    assert "extraction" in page["meta"]["webSources"]["entries"][0]["contentTruncated"]


@coroutine_test
async def test_invisible_and_bidi_controls_are_removed(settings):
    page = await WebFetch.from_settings(settings).fetch(f"https://{FAULTS}/hidden")
    for field in ("content", "text"):
        assert "\u200b" not in page[field]
        assert "\u202e" not in page[field]
        assert "Visible text with hidden controls" in page[field]


@coroutine_test
async def test_robots_can_be_switched_off_per_fetch(settings):
    page = await WebFetch.from_settings(settings).fetch(f"{WALLS}/private/page", robots=False)
    assert page["title"] == "How tide tables are computed"


# ------------------------------------------------------------------------ every error code
@pytest.mark.parametrize("url", ["", "   ", "not a url", "ftp://walls.example/", "//walls.example/",
                                 "https://" + "a" * 2100 + ".example/", 42])
@coroutine_test
async def test_invalid_url(settings, origins, url):
    error = await fetch_error(settings, url)
    assert error.code == "invalid_url"
    assert origins.log == []


@coroutine_test
async def test_blocked_address(settings, origins):
    error = await fetch_error(settings, "http://[::ffff:127.0.0.1]:8080/")
    assert error.code == "blocked_address"
    assert error.details["reason"] == "ipv4-mapped:loopback"
    assert origins.log == []


@coroutine_test
async def test_robots_disallowed(settings, origins):
    error = await fetch_error(settings, f"{WALLS}/private/page")
    assert error.code == "robots_disallowed"
    assert "/private/page" not in requested(origins, "walls.example")


@pytest.mark.parametrize(("path", "status"), [("/missing", 404), ("/error", 503)])
@coroutine_test
async def test_http_status(settings, path, status):
    error = await fetch_error(settings, f"{WALLS}{path}")
    assert error.code == "http_status"
    assert error.details["status"] == status
    assert render_result(error.to_dict(), 16 * 1024).startswith(f"ERROR: http_status: the server answered HTTP {status}")


@coroutine_test
async def test_http_status_for_unusual_codes(settings):
    error = await fetch_error(settings, f"https://{FAULTS}/teapot")
    assert error.details["status"] == 418


@coroutine_test
async def test_timeout(settings):
    error = await fetch_error({**settings, "WEB_FETCH_DEADLINE_SECS": 0.8}, f"https://{FAULTS}/slow")
    assert error.code == "timeout"


@pytest.mark.parametrize("path", ["/big", "/bomb"])
@coroutine_test
async def test_too_large(settings, path):
    error = await fetch_error(settings, f"https://{FAULTS}{path}")  # 64 KiB limit in this test
    assert error.code == "too_large"


@coroutine_test
async def test_unsupported_content_type(settings):
    error = await fetch_error(settings, f"https://{FAULTS}/binary")
    assert error.code == "unsupported_content_type"
    assert error.details["contentType"] == "image/png"


@coroutine_test
async def test_a_file_that_only_claims_to_be_a_pdf_is_extraction_failed(settings):
    """walls.example's report.pdf is a PDF header and a comment: read as a PDF, it fails."""
    error = await fetch_error(settings, f"{WALLS}/report.pdf")
    assert error.code == "extraction_failed"
    assert "PDF" in error.message


@pytest.mark.parametrize("path", ["/cookie-wall", "/paywall"])
@coroutine_test
async def test_paywall_or_cookie_wall(settings, path):
    error = await fetch_error(settings, f"{WALLS}{path}")
    assert error.code == "paywall_or_cookie_wall"


@coroutine_test
async def test_javascript_required(settings):
    error = await fetch_error(settings, f"{WALLS}/js-shell")
    assert error.code == "javascript_required"


@coroutine_test
async def test_extraction_failed(settings):
    error = await fetch_error(settings, f"{WALLS}/empty")
    assert error.code == "extraction_failed"


@coroutine_test
async def test_network_error_connection_refused(settings, origins):
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens here now
    dead = {"down.fetch.test": {"http": f"127.0.0.1:{port}", "https": f"127.0.0.1:{port}"}}
    cfg = {**settings, "LIGHT_HOST_MAP": {**settings["LIGHT_HOST_MAP"], **dead}}
    error = await fetch_error(cfg, "https://down.fetch.test/page", robots=False)
    assert error.code == "network_error"


@coroutine_test
async def test_disabled(settings, origins):
    error = await fetch_error({**settings, "WEB_FETCH_ENABLED": False}, f"{WALLS}/article")
    assert error.code == "disabled"
    assert origins.log == []


@pytest.mark.parametrize(("kwargs", "key"), [({"max_chars": 0}, "maxChars"),
                                             ({"max_chars": True}, "maxChars"),
                                             ({"start_index": -1}, "startIndex")])
@coroutine_test
async def test_bad_window_arguments(settings, origins, kwargs, key):
    error = await fetch_error(settings, f"{WALLS}/article", **kwargs)
    assert error.code == "invalid_input"
    assert key in error.details
    assert origins.log == []


def test_error_text_and_json_forms():
    error = LightSearchError("timeout", "the page did not arrive within 30 s", {"deadlineSecs": 30})
    assert error.to_dict() == {"error": {"code": "timeout", "message": "the page did not arrive within 30 s",
                                         "details": {"deadlineSecs": 30}}}
    assert render_result(error.to_dict(), 16 * 1024).splitlines()[0].startswith("ERROR: timeout:")


def test_date_extraction_never_builds_the_slow_locale_parser():
    """htmldate's extensive search hands a date written only in running text (here in
    Polish) to dateparser, whose first use resolves every locale (seconds on one page):
    fast-mode date search must not build it (checked in a fresh process, where the cache
    of the parser is empty), while a declared date is still read."""
    import subprocess
    import sys

    script = """
from htmldate.extractors import get_external_parser
from lightsearch.documents.readable import extract_readable
body = "<p>" + "Some article text that goes on for a while. " * 40 + "</p>"
free = extract_readable("<html><body><article><h1>A</h1><span class=date>wtorek, 14 grudnia 2021 r.</span>"
                        + body + "</article></body></html>", "https://example.com/a")
declared = extract_readable("<html><head><meta property='article:published_time' content='2021-12-14'>"
                            "</head><body><article>" + body + "</article></body></html>", "https://example.com/b")
print(get_external_parser.cache_info().currsize, free.published_at, declared.published_at)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=300)
    assert out.stdout.split() == ["0", "None", "2021-12-14"]


@coroutine_test
async def test_the_crawl_settings_are_built_once_and_no_crawl_changes_them(settings):
    """A deep copy of the settings is much of a small page's crawl setup on the event loop:
    a page's crawl is given the settings built once, which its crawler copies, never changes."""
    fetcher = WebFetch.from_settings(settings)
    first = fetcher._crawl_settings(None)
    before = first.copy_to_dict()
    for _ in range(2):
        assert (await fetcher.fetch(f"{WALLS}/article"))["status"] == 200
    assert fetcher._crawl_settings(None) is first
    assert first.copy_to_dict() == before
    assert not first.frozen
    assert fetcher._crawl_settings(False) is not first  # robots ignored: settings of its own
    assert fetcher._crawl_settings(None, 5.0)["WEB_FETCH_DEADLINE_SECS"] == 5.0  # a page with less time left


def test_a_page_reads_crawl_carries_only_what_a_page_read_needs(settings):
    """web_fetch's crawl runs Scrapy's own scheduler and no dupefilter, pipeline, discovery
    cache or source confinement (a search's components); the transport's rules stay."""
    from scrapy.utils.conf import build_component_list

    crawl = WebFetch.from_settings(settings)._crawl_settings(None)
    assert crawl["SCHEDULER"] == "scrapy.core.scheduler.Scheduler"
    assert crawl["DUPEFILTER_CLASS"] == "scrapy.dupefilters.BaseDupeFilter"
    assert build_component_list(crawl.getwithbase("ITEM_PIPELINES")) == []
    ours = [path for path in build_component_list(crawl.getwithbase("DOWNLOADER_MIDDLEWARES"))
            if path.startswith("lightsearch.")]
    assert ours == [
        "lightsearch.crawl.middlewares.robotstxt.RobotsMiddleware",
        "lightsearch.crawl.middlewares.encoding.EncodingMiddleware",
        "lightsearch.crawl.middlewares.decoded.DecodedBytesMiddleware",
        "lightsearch.crawl.middlewares.decoded.BoundedDecompressionMiddleware",
        "lightsearch.crawl.middlewares.decoded.DecompressionReserveMiddleware",
        "lightsearch.crawl.middlewares.timebudget.DeadlineMiddleware",
        "lightsearch.crawl.middlewares.hops.HopBudgetMiddleware",
        "lightsearch.crawl.middlewares.bytebudget.ByteBudgetMiddleware",
    ]
    assert [path for path in build_component_list(crawl.getwithbase("SPIDER_MIDDLEWARES"))
            if path.startswith("lightsearch.")] == []
    assert [path for path in build_component_list(crawl.getwithbase("EXTENSIONS"))
            if path.startswith("lightsearch.")] == ["lightsearch.crawl.extensions.encoded.EncodedByteBudget"]
