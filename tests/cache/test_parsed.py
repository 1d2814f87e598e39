"""The parsed-result memo holds at most its bound of memory, however far a result outgrows
its body: a 12 KiB page whose 1,000 relative links resolve against a 1,900-character URL
holds 2 MiB of URLs (the links are made here as the link parser makes them)."""

from __future__ import annotations

from lightsearch.cache import parsed
from lightsearch.cache.lru import BoundedLRU
from lightsearch.documents.discovered_links import Link, PageLinks

LONG = "https://wide.test/" + "d" * 1900 + "/"
BOUND = 8 * 1024 * 1024


def page(n: int) -> bytes:
    return ("<html><body>" + "".join(f"<a href={n}-{i:x}>" for i in range(1000)) + "</body></html>").encode()


def links(n: int) -> PageLinks:
    return PageLinks(links=[Link(url=f"{LONG}{n}-{i:x}") for i in range(1000)])


def held_urls() -> int:
    return sum(len(link.url) for value in parsed._parsed.values() for link in value.links)


def test_links_that_dwarf_their_body_are_weighed_by_what_they_hold(monkeypatch):
    monkeypatch.setattr(parsed, "_parsed", BoundedLRU(parsed.MAX_ENTRIES, BOUND))
    for n in range(8):
        assert len(parsed.parsed("links", LONG, page(n), lambda n=n: links(n)).links) == 1000
    assert 2 <= len(parsed._parsed) < 8
    assert held_urls() <= BOUND  # the URLs alone; what the cache weighs is more
    assert parsed.known("links", LONG, page(7))


def test_a_result_parsed_elsewhere_is_weighed_the_same(monkeypatch):
    monkeypatch.setattr(parsed, "_parsed", BoundedLRU(parsed.MAX_ENTRIES, BOUND))
    for n in range(8):
        parsed.remember("links", LONG, page(n), links(n))
    assert held_urls() <= BOUND
    assert parsed.known("links", LONG, page(7))
