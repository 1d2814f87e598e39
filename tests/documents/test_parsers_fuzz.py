"""Property tests for every parser of attacker-controlled documents.

Each parser gets real samples from the shared data (feeds, sitemaps, robots.txt files,
article pages), mutated by hypothesis: bytes flipped, cut, deleted, and hostile
fragments inserted (lone surrogates as character references, NULs and controls, bad
encodings in the XML declaration, huge numbers, ``http://[``). The property is the
contract: the parser returns its result type, or raises the project's
structured error (a LightSearchError with a code), and nothing else; what it returns
is safe to hand on (URLs requestable, text encodable). The issue's reproducers are
pinned as ``@example``. Seeds are fixed (``derandomize``) and examples bounded, so the
file runs in a few seconds; ``benchmarks/fuzz.py`` runs the same targets for longer.
"""

from __future__ import annotations

import gzip
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scrapy import Request
from w3lib.url import canonicalize_url

from lightsearch.cache.robots import RobotsRules
from lightsearch.crawl.middlewares.robotstxt import parse_robots
from lightsearch.documents.directives import PageDirectives, parse_directives
from lightsearch.documents.discovered_links import MAX_URL_CHARS, PageLinks, absolute_url
from lightsearch.documents.feeds import Feed, FeedError, read_feed
from lightsearch.documents.html_extract import ExtractionError, extract_html
from lightsearch.documents.pagescan import scan_page
from lightsearch.documents.readable import Readable, extract_readable
from lightsearch.documents.sitemaps import SitemapDocument, SitemapError, read_sitemap
from lightsearch.documents.walls import detect_wall
from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import summarise_feed
from tests.conftest import SHARED_DATA

SAMPLE_BYTES = 24 * 1024  # a sample's head is enough for the parser paths; keeps it fast
BASE = "https://fuzz.example/dir/page.html"


def _files(*parts: str, pattern: str = "*") -> list[Path]:
    root = SHARED_DATA.joinpath(*parts)
    return sorted(p for p in root.rglob(pattern) if p.is_file() and p.name not in ("LICENSE", "SOURCE.md"))


def _read(path: Path) -> bytes:
    data = path.read_bytes()
    if path.suffix == ".gz" and not path.name.startswith("sitemap"):
        data = gzip.decompress(data)  # article pages are stored gzipped; a .gz sitemap stays one
    return data[:SAMPLE_BYTES]


# Built-in seeds, so the properties run (weaker) without the shared data too.
_RSS = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>A</title>'
        b"<link>https://fuzz.example/a</link><description>d</description></item></channel></rss>")
_ATOM = (b'<feed xmlns="http://www.w3.org/2005/Atom"><title>T</title><entry><title>A</title>'
         b'<link href="/a"/><updated>2026-01-01T00:00:00Z</updated></entry></feed>')
_JSON = b'{"version": "https://jsonfeed.org/version/1.1", "items": [{"url": "https://fuzz.example/a"}]}'
_SITEMAP = (b'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
            b'xmlns:xhtml="http://www.w3.org/1999/xhtml"><url><loc>https://fuzz.example/a</loc>'
            b'<lastmod>2026-01-01</lastmod><xhtml:link rel="alternate" hreflang="he" href="/he/a"/></url>'
            b"</urlset>")
_INDEX = (b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap>'
          b"<loc>https://fuzz.example/s1.xml</loc></sitemap></sitemapindex>")
_PAGE = (b'<!doctype html><html lang="en"><head><meta name="robots" content="noindex, nofollow">'
         b'<link rel="alternate" type="application/rss+xml" href="/feed"><title>T</title></head>'
         b'<body><nav><a href="/n">nav</a></nav><article><h1>Heading</h1><p>' + b"Some words here. " * 40
         + b'</p><a href="/a" rel="nofollow" title="t">anchor</a></article></body></html>')
_ROBOTS = b"User-agent: *\nDisallow: /private\nAllow: /\nCrawl-delay: 2\nSitemap: https://fuzz.example/s.xml\n"

FEEDS = [_RSS, _ATOM, _JSON] + [_read(p) for p in _files("sitemaps-feeds-trafilatura", pattern="feed*")] \
    + [_read(p) for p in _files("feeds")]
SITEMAPS = [_SITEMAP, _INDEX] + [_read(p) for p in _files("sitemaps-feeds-trafilatura", pattern="sitemap*")]
PAGES = [_PAGE] + [_read(p) for p in _files("article-extraction-benchmark", "html")[:40]] \
    + [_read(p) for p in _files("newspaper4k-test-articles", "html")[:10]]
ROBOTS = [_ROBOTS] + [_read(p) for p in _files("robots-txt", "files")]

HOSTILE = [
    b"&#xD800;", b"&#xdfff;", b"&#55296;", b"&#0;", b"&#x1;", b"&#99999999999999999999999;", b"&#x110000;",
    b"\x00", b"\x05", b"\x1f\x8b", b"\xff\xfe", b"\xef\xbb\xbf", b"\x80", b"\xed\xa0\x80",
    b'<?xml version="1.0" encoding="\x80"?>', b'<?xml version="1.0" encoding="\x00"?>',
    b'<?xml version="1.0" encoding="x-no-such-codec"?>', b' encoding="utf-16"', b' xmlns="http://["',
    b' xmlns:a="\x97\xa3\xe6\xc8\xa0\xcc"', b"<a:b>x</a:b>", b"http://[", b"h://:x", b"a://[]",
    b"http://a.test:99999/", b"http://" + b"1" * 4301 + b"/", b"http://.\xe2\x91\xa0:/", b"9" * 5000,
    b"<![CDATA[", b"]]>", b"<!--", b"-->", b"<!DOCTYPE x [<!ENTITY e 'v'>]>", b"&e;", b"&amp;", b"<", b">",
    b"<item>", b"</item>", b"<entry>", b"<link>", b"</link>", b"<url>", b"<loc>", b"</loc>", b"<sitemap>",
    b'<xhtml:link rel="alternate" href="&#xD800;"/>', b'<xhtml:link href="h://:x"/>', b'<a href="h://:x">',
    b'<a href="&#xD800;">', b"<a \x05 href=/x>", b"<meta \x05 name=t content=1>",
    b'<meta name="robots" content="unavailable_after: 99999-01-01">', b'<meta name="robots" content="none">',
    b'<time datetime="99999-99-99">', b'<meta property="article:published_time" content="9999999999-01">',
    b"User-agent: *\n", b"Disallow: /*$*$[\n", b"Allow: " + b"*" * 300 + b"\n", b"Crawl-delay: 1e99999\n",
    b"Request-rate: 1/0\n", b"Sitemap: http://[\n", b'{"items": [', b"[" * 3000, b'"url": 5,',
]


@st.composite
def mutated(draw: st.DrawFn, samples: list[bytes]) -> bytes:
    """A real sample with a few hostile edits, or (sometimes) plain random bytes."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.binary(max_size=512))
    data = bytearray(draw(st.sampled_from(samples)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(("insert", "insert", "flip", "truncate", "delete", "duplicate")))
        pos = draw(st.integers(0, len(data)))
        if op == "insert":
            data[pos:pos] = draw(st.sampled_from(HOSTILE))
        elif op == "flip" and data:
            data[min(pos, len(data) - 1)] = draw(st.integers(0, 255))
        elif op == "truncate":
            del data[pos:]
        elif op == "delete":
            del data[pos:pos + draw(st.integers(1, 64))]
        elif op == "duplicate":
            data[pos:pos] = data[pos:pos + draw(st.integers(1, 256))]
    return bytes(data)


FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=40,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.large_base_example])


def outcome(fn, *args, **kwargs):
    """(result, None) or (None, the LightSearchError raised); any other exception
    propagates and fails the property."""
    try:
        return fn(*args, **kwargs), None
    except LightSearchError as exc:
        return None, exc


def _encodable(*texts: str | None) -> None:
    for text in texts:
        if text is not None:
            text.encode("utf-8")  # no lone surrogate leaves a parser


def _requestable(url: str) -> None:
    parts = urlsplit(url)
    assert parts.scheme in ("http", "https")
    assert parts.hostname
    assert len(url) <= MAX_URL_CHARS
    parts.port  # noqa: B018 - must not raise
    canonicalize_url(url)
    Request(url)


def test_shared_samples_were_loaded():
    if not SHARED_DATA.exists():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set LIGHTSEARCH_SHARED_DATA)")
    assert len(FEEDS) > 50
    assert len(SITEMAPS) > 5
    assert len(PAGES) > 40
    assert len(ROBOTS) > 50


# ------------------------------------------------------------------------ feeds
@FUZZ
@given(mutated(FEEDS))
@example(b"<>&#xD800;")
@example(_RSS.replace(b"<description>d", b"<description><>&#xD800;"))
@example(b'<?xml version="1.0" encoding="\x80"?>' + _RSS[21:])
@example(b'<?xml version="1.0" encoding="\x00"?>' + _RSS[21:])
@example(_RSS.replace(b'version="2.0"', b'version="2.0" xmlns:a="\x97\xa3\xe6\xc8\xa0\xcc"')
         .replace(b"<item>", b"<item><a:b>x</a:b>"))
@example(_RSS.replace(b"https://fuzz.example/a", b"http://["))
@example(b'{"items": [' + b"[" * 100_000)
@example(b"/etc/hostname")
def test_read_feed_returns_a_feed_or_feed_error(body):
    feed, error = outcome(read_feed, body, limit=50)
    if error is not None:
        assert isinstance(error, FeedError)
        assert error.code == "parse_error"
        _encodable(error.message)
        return
    assert isinstance(feed, Feed)
    assert len(feed.entries) <= 50
    assert feed.dropped >= 0
    _encodable(feed.title)
    for entry in feed.entries:
        _encodable(entry.link, entry.title, entry.summary, entry.date)
        joined = absolute_url(BASE, entry.link)
        if joined is not None:
            _requestable(joined)


@settings(FUZZ, max_examples=32)
@given(mutated(FEEDS))
@example(b"<>&#xD800;")
@example(b'<?xml version="1.0" encoding="\x00"?><rss><>&#xD800;')
def test_summarise_feed_returns_text_or_extraction_failed(body):
    summary, error = outcome(summarise_feed, body)
    if error is not None:
        assert error.code == "extraction_failed"
        return
    assert summary["feedEntries"] >= 1
    _encodable(summary["text"], summary["title"])


# ------------------------------------------------------------------------ sitemaps
@FUZZ
@given(mutated(SITEMAPS))
@example(b"\x1f\x8b")
@example(gzip.compress(_SITEMAP)[:-12])
@example(_SITEMAP.replace(b"<url>", b"<url><loc>http://[</loc></url><url>", 1))
@example(_SITEMAP.replace(b'href="/he/a"', b'href="&#xD800;"'))
@example(_SITEMAP.replace(b'href="/he/a"', b'href="h://:x"'))
@example(_SITEMAP.replace(b'href="/he/a"', b'href="a://[]"'))
@example(b'<?xml version="1.0" encoding="\x00"?>' + _SITEMAP[21:])
def test_read_sitemap_returns_entries_or_sitemap_error(body):
    doc, error = outcome(read_sitemap, body, BASE, max_bytes=256 * 1024, max_entries=500)
    if error is not None:
        assert isinstance(error, SitemapError)
        assert error.code in ("parse_error", "decode_error", "too_large")
        _encodable(error.message)
        return
    assert isinstance(doc, SitemapDocument)
    assert doc.type in ("urlset", "sitemapindex")
    assert len(doc.entries) <= 500
    assert min(doc.dropped, doc.links_dropped) >= 0
    for entry in doc.entries:
        _requestable(entry.loc)
        _encodable(entry.lastmod)
        for url in entry.alternates:
            _requestable(url)


def test_gzip_bomb_sitemap_is_too_large():
    bomb = gzip.compress(b"<urlset>" + b" " * (4 * 1024 * 1024))
    with pytest.raises(SitemapError) as info:
        read_sitemap(bomb, BASE, max_bytes=1024 * 1024)
    assert info.value.code == "too_large"


# ------------------------------------------------------------------------ pages
@FUZZ
@given(mutated(PAGES), st.lists(mutated([b"noindex", b"lightbot: nofollow", b"otherbot: none",
                                         b"unavailable_after: 2001-01-01", b"max-snippet:5, NoIndex"]),
                                max_size=3))
@example(b"<html><head><meta \x05 name=t content=1></head><body>x</body></html>", [])
@example(b'<meta name="robots" content="unavailable_after: Mon, 1 Jan 99999999 00:00:00 GMT">', [])
def test_page_directives_always_answer(body, headers):
    directives = parse_directives(body, headers, frozenset({"lightbot"}))
    assert isinstance(directives, PageDirectives)
    assert directives.source in ("", "header", "meta")


def test_control_character_attribute_keeps_the_other_meta_tags():
    body = b'<html><head><meta \x05 name=t content=1><meta name="robots" content="noindex"></head></html>'
    assert parse_directives(body).noindex


@FUZZ
@given(mutated(PAGES))
@example(b'<a href="h://:x">1</a><a href="a://[]">2</a><a href="&#xD800;">3</a><a href="http://[">4</a>'
         b'<a \x05 href="/ok">ok</a>')
def test_page_scan_returns_requestable_links(body):
    links = scan_page(body, BASE).links
    assert isinstance(links, PageLinks)
    assert links.dropped >= 0
    for link in links.links:
        _requestable(link.url)
        _encodable(link.anchor, link.title)
    for url in links.feeds:
        _requestable(url)


@settings(FUZZ, max_examples=30)
@given(st.sampled_from([BASE, "http://fuzz.example", "https://fuzz.example:8443/a/b?c#d"]),
       st.one_of(st.text(max_size=80), st.sampled_from([h.decode("latin-1") for h in HOSTILE]),
                 st.builds(lambda a, b: a + b, st.sampled_from(["http://", "https://", "//", "/", "h://"]),
                           st.text(max_size=40))))
@example(BASE, "h://:x")
@example(BASE, "a://[]")
@example(BASE, "\ud800")
@example(BASE, "http://[")
def test_absolute_url_is_none_or_requestable(base, href):
    url = absolute_url(base, href)
    if url is not None:
        _requestable(url)


def _text_of(body: bytes) -> str:
    return body.decode("utf-8", "replace")


@settings(FUZZ, max_examples=50)
@given(mutated(PAGES), st.booleans())
@example(b"<html><body><p>\xed\xa0\x80</p></body></html>", False)
@example(b"", True)
def test_extraction_returns_fields_or_extraction_error(body, surrogate):
    html = _text_of(body) + ("\ud800" if surrogate else "")
    fields, error = outcome(extract_html, html, BASE)
    if error is not None:
        assert isinstance(error, ExtractionError)
        assert error.code == "extraction_failed"
        return
    assert set(fields) == {"title", "text", "language", "published_at", "modified_at"}
    _encodable(*fields.values())


@settings(FUZZ, max_examples=50)
@given(mutated(PAGES), st.booleans())
@example(b"", True)
def test_readable_and_walls_return_or_extraction_error(body, markdown):
    html = _text_of(body) + "\udfff"
    page, error = outcome(extract_readable, html, BASE, markdown=markdown)
    if error is None:
        wall, error = outcome(detect_wall, html, page.text)
    if error is not None:
        assert isinstance(error, ExtractionError)
        assert error.code == "extraction_failed"
        return
    assert isinstance(page, Readable)
    assert wall in (None, "paywall_or_cookie_wall", "javascript_required")
    _encodable(page.text, page.title, page.byline)


# ------------------------------------------------------------------------ robots
@FUZZ
@given(mutated(ROBOTS), st.sampled_from(["https://fuzz.example/", "https://fuzz.example/private/x?y=1",
                                         "https://fuzz.example/%F0%9F%98%80/*$"]))
@example(b"Sitemap: http://[\nDisallow: /*$*$[\nRequest-rate: 1/0\nCrawl-delay: 1e99999\n", "https://fuzz.example/")
def test_robots_parse_to_rules(body, url):
    rules = parse_robots(body, "lightbot")
    assert isinstance(rules, RobotsRules)
    assert rules.verdict in ("rules", "block")
    assert isinstance(rules.allowed(url, "lightbot"), bool)
    assert all(isinstance(s, str) for s in rules.sitemaps)
