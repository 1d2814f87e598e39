"""Hostile input for the content parsers: crafted feeds, sitemaps, pages and
links, served by the loopback origins to a real web_fetch or a real Light crawl.

A crafted document either gives a result or a structured error; inside a readable
document one bad entry or link costs only itself (and is counted in
``meta.lightSearch.counts``); a document that cannot be read at all is a source error
with its stage and code, and does not count its source as consulted.
"""

from __future__ import annotations

from typing import Any

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.light import LightSearch
from tests.conftest import (
    ROBOTS_ALLOW,
    article_html,
    coroutine_test,
    home_html,
    make_world,
    shared_data,
)
from tests.hygiene_world import HEALTHY, QUERY, counts, errors, hit_urls, slug

ARTICLE = "/glacier-moraine-sediment-survey"
TITLE = "Glacier moraine sediment survey"


# ------------------------------------------------------------------------ web_fetch
FEED_HOST = "hostile-feeds.fetch.test"


def _rss(description: bytes = b"Tide tables", *, decl: bytes = b'<?xml version="1.0"?>',
         channel_attrs: bytes = b"") -> bytes:
    return (decl + b'<rss version="2.0"' + channel_attrs + b"><channel><title>Harbour news</title>"
            b"<item><title>Tide gauge readings</title><link>https://" + FEED_HOST.encode() + b"/tides</link>"
            b"<description>" + description + b"</description></item></channel></rss>")


READABLE_FEEDS = {
    # UnicodeEncodeError from feedparser's handle_charref
    "lone surrogate reference": _rss(b"<>&#xD800;"),
    # UnicodeDecodeError from feedparser's convert_to_utf8
    "encoding 0x80 in the declaration": _rss(decl=b'<?xml version="1.0" encoding="\x80"?>'),
    # ValueError (embedded null character)
    "encoding NUL in the declaration": _rss(decl=b'<?xml version="1.0" encoding="\x00"?>'),
    # ValueError from the SAX parser's namespace split
    "bad xmlns": _rss(channel_attrs=b' xmlns:a="\x97\xa3\xe6\xc8\xa0\xcc"').replace(
        b"<item>", b"<item><a:b>x</a:b>"),
    "huge character reference": _rss(b"&#99999999999999999999999;"),
}


@pytest.fixture
def feed_settings(origins) -> dict[str, Any]:
    routes: dict[str, Any] = {"/robots.txt": ROBOTS_ALLOW}
    for name, body in READABLE_FEEDS.items():
        routes[f"/{slug(name)}"] = {"body": body, "type": "application/rss+xml"}
    routes["/bare"] = {"body": b"<>&#xD800;", "type": "application/rss+xml"}
    routes["/bare-xml"] = {"body": b'<?xml version="1.0" encoding="\x00"?><rss><>&#xD800;', "type": "text/xml"}
    # feedparser given bytes tries them as a file name first: a body naming a local feed
    # must not be answered with that file's entries.
    local = shared_data("feeds", "real-rss", "yahoo_news_rss_2019-11-17.xml")
    routes["/local-path"] = {"body": str(local).encode(), "type": "application/rss+xml"}
    origins.add_site(FEED_HOST, routes)
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


@pytest.mark.parametrize("name", list(READABLE_FEEDS), ids=list(READABLE_FEEDS))
@coroutine_test
async def test_crafted_feed_is_read_by_web_fetch(feed_settings, name):
    result = await WebFetch.from_settings(feed_settings).fetch(f"https://{FEED_HOST}/{slug(name)}")
    assert result["feedEntries"] == 1
    assert f"https://{FEED_HOST}/tides" in result["text"]


@pytest.mark.parametrize("path", ["/bare", "/bare-xml", "/local-path"])
@coroutine_test
async def test_unreadable_crafted_feed_is_extraction_failed(feed_settings, path):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(feed_settings).fetch(f"https://{FEED_HOST}{path}")
    assert info.value.code == "extraction_failed"
    assert info.value.details["url"] == f"https://{FEED_HOST}{path}"


# ------------------------------------------------------------------------ Light
def _world(origins, tmp_path, host: str, routes: dict[str, Any], **source: Any) -> dict[str, Any]:
    """The case source (seed ``/``, plus ``source`` fields such as sitemaps) next to the
    healthy source of :mod:`tests.hygiene_world`."""
    routes = {"/": {"body": home_html([])}, ARTICLE: {"body": article_html(TITLE)}, **routes}
    sites = {
        host: routes,
        HEALTHY: {
            "/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
            "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")},
        },
    }
    sources = [{"id": "case", "host": host, **source}, {"id": "healthy", "host": HEALTHY}]
    return make_world(origins, tmp_path, sites, sources)


def _sitemap(*entries: str) -> str:
    body = "".join(entries)
    return ('<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
            f' xmlns:xhtml="http://www.w3.org/1999/xhtml">{body}</urlset>')


def _consulted(result: dict[str, Any]) -> list[str]:
    return result["meta"]["lightSearch"]["sources"]["consulted"]


@coroutine_test
async def test_bad_sitemap_loc_costs_only_that_entry(origins, tmp_path):
    host = "bad-loc.sitemap.test"
    sitemap = _sitemap("<url><loc>http://[</loc></url>", f"<url><loc>https://{host}{ARTICLE}</loc></url>")
    cfg = _world(origins, tmp_path, host, {"/sitemap.xml": {"body": sitemap, "type": "application/xml"}},
                 sitemaps=[f"https://{host}/sitemap.xml"])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" in hit_urls(result)
    assert counts(result)["sitemapEntriesDropped"] == 1
    assert errors(result) == []
    assert "case" in _consulted(result)


@coroutine_test
async def test_bad_links_in_sitemap_alternates_cost_only_those_links(origins, tmp_path):
    host = "bad-alternates.sitemap.test"
    first = (f'<url><loc>https://{host}/other</loc><xhtml:link rel="alternate" hreflang="he" href="h://:x"/>'
             '<xhtml:link rel="alternate" hreflang="fr" href="a://[]"/>'
             '<xhtml:link rel="alternate" hreflang="de" href="&#xD800;"/></url>')
    sitemap = _sitemap(first, f"<url><loc>https://{host}{ARTICLE}</loc></url>")
    cfg = _world(origins, tmp_path, host, {"/sitemap.xml": {"body": sitemap, "type": "application/xml"}},
                 sitemaps=[f"https://{host}/sitemap.xml"])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" in hit_urls(result)
    assert counts(result)["linksDropped"] == 3
    assert counts(result)["sitemapEntriesDropped"] == 0
    # /other is listed, so it is fetched with a spare hop (and is not served here)
    assert [e for e in errors(result) if e["url"] != f"https://{host}/other"] == []


@coroutine_test
async def test_bad_page_links_cost_only_those_links(origins, tmp_path):
    host = "bad-links.page.test"
    home = ('<!doctype html><html><body><ul><li><a href="h://:x">glacier</a></li><li><a href="a://[]">moraine'
            '</a></li><li><a href="http://[">sediment</a></li><li><a href="&#xD800;">survey</a></li>'
            f'<li><a \x05 href="{ARTICLE}">glacier moraine sediment survey</a></li></ul></body></html>')
    cfg = _world(origins, tmp_path, host, {"/": {"body": home}})
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" in hit_urls(result)
    assert counts(result)["linksDropped"] >= 3  # &#xD800; parses as U+FFFD, a valid path
    assert errors(result) == []


@coroutine_test
async def test_control_character_attribute_does_not_drop_the_page(origins, tmp_path):
    host = "meta-control.page.test"
    page = article_html(TITLE).replace("<head>", "<head><meta \x05 name=t content=1>")
    cfg = _world(origins, tmp_path, host, {
        "/": {"body": home_html([(ARTICLE, "glacier moraine sediment survey")])},
        ARTICLE: {"body": page},
    })
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" in hit_urls(result)
    assert errors(result) == []


@coroutine_test
async def test_control_character_attribute_keeps_a_noindex_directive(origins, tmp_path):
    host = "meta-control-noindex.page.test"
    page = article_html(TITLE).replace("<head>", '<head><meta \x05 name=t content=1><meta name="robots" '
                                       'content="noindex">')
    cfg = _world(origins, tmp_path, host, {
        "/": {"body": home_html([(ARTICLE, "glacier moraine sediment survey")])},
        ARTICLE: {"body": page},
    })
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" not in hit_urls(result)
    assert counts(result)["noindexPages"] == 1


# name, sitemap route, expected code
UNREADABLE_SITEMAPS = [
    ("gzip magic only", {"body": b"\x1f\x8b", "type": "application/gzip"}, "decode_error"),
    ("truncated gzip header", {"body": b"\x1f\x8b\x08\x00\x00", "type": "application/gzip"}, "decode_error"),
    ("an html page", {"body": "<html><body><p>not a sitemap</p></body></html>", "type": "application/xml"},
     "parse_error"),
    ("not xml at all", {"body": b"\x00\x01 garbage", "type": "application/xml"}, "parse_error"),
    ("every loc unusable", {"body": _sitemap("<url><loc>http://[</loc></url>", "<url><loc>h://:x</loc></url>",
                                             "<url><loc>&#xD800;</loc></url>"), "type": "application/xml"},
     "parse_error"),
]


@pytest.mark.parametrize(("name", "route", "code"), UNREADABLE_SITEMAPS, ids=[c[0] for c in UNREADABLE_SITEMAPS])
@coroutine_test
async def test_unreadable_sitemap_is_a_source_error(origins, tmp_path, name, route, code):
    host = f"{slug(name)}.sitemap.test"
    cfg = _world(origins, tmp_path, host, {"/": {"status": 404, "body": "gone"}, "/sitemap.xml": route},
                 sitemaps=[f"https://{host}/sitemap.xml"])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    sitemap_errors = [e for e in errors(result) if e["stage"] == "sitemap"]
    assert [e["code"] for e in sitemap_errors] == [code]
    assert sitemap_errors[0]["url"] == f"https://{host}/sitemap.xml"
    assert "case" not in _consulted(result)  # its seed is a 404 and its sitemap unreadable
    assert counts(result)["unreadableDocuments"] == 1
    assert "https://healthy.test/moraine" in hit_urls(result)


@coroutine_test
async def test_bad_feed_link_costs_only_that_entry(origins, tmp_path):
    host = "bad-link.feed.test"
    feed = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Field notes</title>'
            "<item><title>Glacier moraine sediment</title><link>http://[</link></item>"
            "<item><title>Glacier moraine sediment</title><link>h://:x</link></item>"
            f"<item><title>{TITLE}</title><link>https://{host}{ARTICLE}</link>"
            "<description>glacier &#xD800; moraine</description></item></channel></rss>")
    cfg = _world(origins, tmp_path, host, {"/feed.xml": {"body": feed, "type": "application/rss+xml"}},
                 feeds=[f"https://{host}/feed.xml"])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}{ARTICLE}" in hit_urls(result)
    assert counts(result)["feedEntriesDropped"] == 2
    assert errors(result) == []


@coroutine_test
async def test_feed_with_no_usable_link_is_a_source_error(origins, tmp_path):
    host = "no-link.feed.test"
    feed = ('<?xml version="1.0"?><rss version="2.0"><channel><title>Field notes</title>'
            "<item><title>Glacier</title><link>http://[</link></item></channel></rss>")
    cfg = _world(origins, tmp_path, host, {"/": {"status": 404, "body": "gone"},
                                           "/feed.xml": {"body": feed, "type": "application/rss+xml"}},
                 feeds=[f"https://{host}/feed.xml"])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    feed_errors = [e for e in errors(result) if e["stage"] == "feed"]
    assert [e["code"] for e in feed_errors] == ["parse_error"]
    assert "case" not in _consulted(result)
