"""A probed site's entry: what the next search of the site starts from, kept in the record
cache under its bounds, read back as untrusted input (every URL on the site's own origins,
every list and description bounded), never a raise."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.cache.descriptions import describe
from lightsearch.cache.records import MemoryRecordCache
from lightsearch.cache.site_entries import MAX_ENTRY_BYTES, SiteEntry, on_site
from lightsearch.documents import Document


def entry(**kw) -> SiteEntry:
    sitemap = describe("https://www.walrus.test/sitemap.xml", "sitemap", [["walrus", "haul"], ["seal"]])
    return SiteEntry(**{"domain": "walrus.test", "seed": "https://www.walrus.test/",
                        "feeds": ("https://walrus.test/feed.xml",), "sitemaps": ("https://www.walrus.test/sitemap.xml",),
                        "language": "en", "probed": "2026-12-06T10:00:00Z", "documents": (sitemap,), **kw})


def test_an_entry_reads_back_as_written():
    back = SiteEntry.decode("walrus.test", entry().encoded())
    assert back == entry()
    assert back.documents[0].rows == (frozenset({"walrus", "haul"}), frozenset({"seal"}))


def test_an_entry_that_names_another_site_is_not_one():
    raw = entry().to_dict()
    assert SiteEntry.from_dict("other.test", raw) is None  # read under another site's key
    for field, value in (("seed", "https://evil.test/"), ("seed", "http://walrus.test/"),
                         ("seed", "https://walrus.test:8443/"), ("seed", "https://user@walrus.test/"),
                         ("feeds", ["https://walrus.test.evil.test/feed"]), ("sitemaps", ["ftp://walrus.test/x"]),
                         ("feeds", ["https://walrus.test/f"] * 5), ("language", "xx"), ("probed", 12),
                         ("documents", [{"url": "https://evil.test/s", "kind": "sitemap", "entries": 1,
                                         "terms": [], "rows": []}])):
        assert SiteEntry.from_dict("walrus.test", {**raw, field: value}) is None, field


def test_an_entry_keeps_within_its_byte_bound_by_leaving_descriptions_out():
    rows = [[f"term{i}x{j}" for j in range(24)] for i in range(200)]
    docs = tuple(describe(f"https://walrus.test/s{i}.xml", "sitemap", rows, seen=f"2026-12-06T10:00:{i:02d}Z")
                 for i in range(16))
    raw = entry(documents=docs).encoded()
    assert len(raw) <= MAX_ENTRY_BYTES
    back = SiteEntry.decode("walrus.test", raw)
    assert 0 < len(back.documents) < 16
    assert back.documents[-1].url == "https://walrus.test/s15.xml"  # the newest kept


def test_the_record_cache_keeps_entries_in_its_discovery_share_until_they_expire():
    clock = [1000.0]
    cache = MemoryRecordCache(max_records=4, max_bytes=1 << 20)
    cache.lru.clock = lambda: clock[0]
    assert cache.put_site(entry(), 1060.0)
    for i in range(4):  # documents never evict it while the discovery share holds it
        doc = Document(url=f"https://a.test/{i}", source_id="a", title="t", text="x " * 50, retrieved_at="")
        cache.put_document(doc, 1060.0)
    assert cache.get_site("walrus.test") == entry()
    assert cache.documents()
    assert all(isinstance(d, Document) for d in cache.documents())
    clock[0] = 1061.0
    assert cache.get_site("walrus.test") is None


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner,
                                                                               max_size=6), max_leaves=20),
       st.sampled_from(["domain", "seed", "feeds", "sitemaps", "language", "probed", "documents"]))
def test_any_record_is_an_entry_of_the_site_or_none(value, field):
    raw = {**entry().to_dict(), field: value}
    back = SiteEntry.from_dict("walrus.test", raw)
    if back is not None:
        assert on_site(back.seed, "walrus.test")
        assert all(on_site(u, "walrus.test") for u in (*back.feeds, *back.sitemaps))
        assert all(on_site(d.url, "walrus.test") for d in back.documents)
    assert SiteEntry.decode("walrus.test", json.dumps(raw).encode()) == back


def test_bytes_that_are_not_an_entry():
    for raw in (b"", b"\xff\xfe", b"[" * 100_000, b'{"domain": "walrus.test"}', b"null"):
        assert SiteEntry.decode("walrus.test", raw) is None
