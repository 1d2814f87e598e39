"""A source's discovery pages: the catalog's entry pages, described hubs and listings, and
the sections a crawl adds."""

from __future__ import annotations

from lightsearch.cache.descriptions import describe
from lightsearch.plan.catalog import Source
from lightsearch.plan.discovery_pages import DiscoveryPages

NEWS = Source(id="news", name="News", language="en", kind="news",
              origins=("https://news.example", "https://feeds.news.example"),
              seeds=("https://news.example/", "https://news.example/world"))
OTHER = Source(id="other", name="Other", language="en", kind="news", origins=("https://other.example",),
               seeds=("https://other.example/home",))


def test_the_catalog_entry_pages_and_the_origin_roots():
    pages = DiscoveryPages([NEWS, OTHER])
    for url in ("https://news.example/", "https://news.example", "https://news.example/world",
                "https://feeds.news.example/", "https://other.example/home", "https://other.example/"):
        source = "other" if "other" in url else "news"
        assert pages.entry(source, url), url
        assert pages.covers(source, url), url
    assert not pages.covers("news", "https://news.example/world/2026/11/a-story")
    assert not pages.covers("news", "https://other.example/home")  # another source's
    assert not pages.covers("unknown", "https://news.example/")


def test_described_hubs_and_listings_and_the_sections_a_crawl_adds():
    described = {"news": [describe("https://news.example/sections/science", "listing", []),
                          describe("https://news.example/feed.xml", "feed", []),
                          describe("https://news.example/sitemap.xml", "sitemap", [])]}
    pages = DiscoveryPages([NEWS], described)
    assert pages.covers("news", "https://news.example/sections/science")
    assert not pages.entry("news", "https://news.example/sections/science")
    assert not pages.covers("news", "https://news.example/feed.xml")  # a feed is no page
    pages.add("news", ["https://news.example/sections/culture", "http://[bad"])
    assert pages.covers("news", "https://news.example/sections/culture")
    assert not pages.covers("news", "not a url at all")
