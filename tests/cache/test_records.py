"""HTTP freshness (RFC 9111, narrowed as docs/BOUNDS.md says) and the process-wide caches."""

from __future__ import annotations

import asyncio
import sys
import time
from email.utils import formatdate

import pytest

from lightsearch.cache import load_cache
from lightsearch.cache.freshness import freshness
from lightsearch.cache.lru import BoundedLRU
from lightsearch.cache.records import MemoryRecordCache, StoredResponse, document_size
from lightsearch.cache.robots import MemoryRobotsCache, RobotsRules
from lightsearch.config import make_settings
from lightsearch.documents import Document
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world
from tests.hygiene_world import QUERY, case_routes, counts, hit_urls, paths, slug, world

NOW = 1_800_000_000.0
KIB, MIB = 1024, 1024 * 1024


def _date(offset: float = 0.0) -> str:
    return formatdate(NOW + offset, usegmt=True)


# ---------------------------------------------------------------- freshness, unit table
FRESHNESS = [
    # name, headers, cap, storable, remaining lifetime
    ("max-age", {"Cache-Control": "max-age=600"}, 1800, True, 600),
    ("max-age beats Expires", {"Cache-Control": "max-age=60", "Date": _date(), "Expires": _date(900)}, 1800, True, 60),
    ("Expires without max-age", {"Date": _date(), "Expires": _date(900)}, 1800, True, 900),
    ("Expires in the past", {"Date": _date(), "Expires": _date(-10)}, 1800, False, 0),
    ("invalid Expires is expired", {"Expires": "0"}, 1800, False, 0),
    ("s-maxage beats max-age (shared cache)", {"Cache-Control": "max-age=60, s-maxage=120"}, 1800, True, 120),
    ("Age spends lifetime", {"Cache-Control": "max-age=600", "Age": "200"}, 1800, True, 400),
    ("Age pushes it stale", {"Cache-Control": "max-age=600", "Age": "700"}, 1800, False, 0),
    ("Date in the past spends lifetime", {"Cache-Control": "max-age=600", "Date": _date(-500)}, 1800, True, 100),
    ("larger of Age and apparent age", {"Cache-Control": "max-age=600", "Date": _date(-100), "Age": "300"},
     1800, True, 300),
    ("cap for pages", {"Cache-Control": "max-age=86400"}, 1800, True, 1800),
    ("cap for feeds", {"Cache-Control": "max-age=86400"}, 300, True, 300),
    ("no directives: the cap", {}, 1800, True, 1800),
    ("heuristic from Last-Modified", {"Date": _date(), "Last-Modified": _date(-3000)}, 1800, True, 300),
    ("no-store", {"Cache-Control": "no-store, max-age=600"}, 1800, False, 0),
    ("private (shared cache)", {"Cache-Control": "private, max-age=600"}, 1800, False, 0),
    ("no-cache (never revalidated)", {"Cache-Control": "no-cache"}, 1800, False, 0),
    ("Pragma no-cache", {"Pragma": "no-cache"}, 1800, False, 0),
    ("max-age=0", {"Cache-Control": "max-age=0"}, 1800, False, 0),
]


@pytest.mark.parametrize(("name", "headers", "cap", "storable", "remaining"), FRESHNESS, ids=[f[0] for f in FRESHNESS])
def test_freshness(name, headers, cap, storable, remaining):
    fresh = freshness(headers, cap, now=NOW)
    assert fresh.storable is storable
    assert fresh.expires_at == pytest.approx(NOW + remaining, abs=1)


# ---------------------------------------------------------------- bounds, unit
def _doc(i: int, size: int = 200) -> Document:
    return Document(url=f"https://x.test/{i}", source_id="s", title=f"t{i}", text="x" * size,
                    retrieved_at="2026-12-04T00:00:00Z")


def test_record_cache_evicts_least_recently_used_at_500_documents():
    cache = MemoryRecordCache(*MemoryRecordCache.bounds(make_settings()))
    for i in range(500):
        assert cache.put_document(_doc(i), 4e9)
    assert cache.get_document("https://x.test/0") is not None  # touched: now most recent
    assert cache.put_document(_doc(500), 4e9)
    assert len(cache) == 500
    assert cache.get_document("https://x.test/1") is None  # the least recently used went
    assert cache.get_document("https://x.test/0") is not None
    assert cache.get_document("https://x.test/500") is not None


def test_record_cache_evicts_at_16_mib_of_serialized_content():
    cache = MemoryRecordCache(*MemoryRecordCache.bounds(make_settings()))
    big = [_doc(i, size=700 * KIB) for i in range(30)]
    for doc in big:
        cache.put_document(doc, 4e9)
    assert cache.bytes <= 16 * MIB
    kept = len(cache)
    assert kept == (16 * MIB) // document_size(big[0])
    assert cache.get_document(big[-1].url) is not None
    assert cache.get_document(big[0].url) is None
    assert not cache.put_document(_doc(99, size=17 * MIB), 4e9)  # can never fit


def test_expired_records_are_never_returned():
    clock = [NOW]
    lru: BoundedLRU[str] = BoundedLRU(10, 1000, clock=lambda: clock[0])
    lru.put("a", "A", 1, NOW + 5)
    assert lru.get("a") == "A"
    clock[0] += 6
    assert lru.get("a") is None
    assert lru.values() == []
    assert not lru.put("b", "B", 1, NOW)  # stale on arrival


def test_robots_cache_bounds_64_origins_4_mib_24_hours():
    settings = make_settings()
    cache = MemoryRobotsCache(*MemoryRobotsCache.bounds(settings))
    assert cache.max_age == 24 * 3600
    for i in range(65):
        cache.put(f"https://o{i}.test", RobotsRules("rules", text="User-agent: *\nDisallow: /x\n"), 4e9)
    assert len(cache) == 64
    assert cache.get("https://o0.test") is None
    huge = RobotsRules("rules", text="# " + "x" * (4 * MIB))
    assert not cache.put("https://huge.test", huge, 4e9)
    assert not cache.put("https://down.test", RobotsRules("block", detail="HTTP 500"), 4e9)
    mid = RobotsRules("rules", text="# " + "x" * (3 * MIB))
    assert cache.put("https://mid.test", mid, 4e9)
    assert cache.lru.bytes <= 4 * MIB


# ---------------------------------------------------------------- end to end
def _twice_world(origins, tmp_path, name: str, headers: dict, **settings):
    host = f"fresh-{slug(name)}.test"
    routes = case_routes(**{"/a": {"body": article_html("Glacier moraine sediment survey"), "headers": headers}})
    return host, world(origins, tmp_path, host, routes, healthy=False, **settings)


@coroutine_test
async def test_fresh_page_is_served_from_cache_with_its_retrieval_time(origins, tmp_path):
    host, cfg = _twice_world(origins, tmp_path, "max-age", {"Cache-Control": "max-age=600"})
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert counts(first)["cacheStored"] == 1
    hit1 = next(h for h in first["hits"] if h["url"] == f"https://{host}/a")
    await asyncio.sleep(1.1)  # retrieval times are to the second
    origins.reset_log()
    second = await engine.search(QUERY)
    assert "/a" not in paths(origins, host)
    c = counts(second)
    assert c["cacheHits"] == 1
    assert c["cacheJoined"] == 1
    hit2 = next(h for h in second["hits"] if h["url"] == f"https://{host}/a")
    assert hit2["retrievedAt"] == hit1["retrievedAt"]


@pytest.mark.parametrize(("name", "headers"), [
    ("no-store", {"Cache-Control": "no-store"}),
    ("Age pushes it stale", {"Cache-Control": "max-age=60", "Age": "120"}),
    ("Expires in the past", {"Expires": "Thu, 01 Jan 1970 00:00:00 GMT"}),
])
@coroutine_test
async def test_unstorable_page_is_usable_now_and_fetched_again_later(origins, tmp_path, name, headers):
    host, cfg = _twice_world(origins, tmp_path, name, headers)
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert f"https://{host}/a" in hit_urls(first)  # usable within the invocation that fetched it
    assert counts(first)["cacheStored"] == 0
    assert counts(first)["cacheNotStored"] == 1
    origins.reset_log()
    second = await engine.search(QUERY)
    assert "/a" in paths(origins, host)  # across invocations: fetched again
    assert counts(second)["cacheHits"] == 0
    assert f"https://{host}/a" in hit_urls(second)


@coroutine_test
async def test_expired_record_is_excluded_at_assembly(origins, tmp_path):
    host, cfg = _twice_world(origins, tmp_path, "short", {"Cache-Control": "max-age=1"})
    engine = LightSearch.from_settings(cfg)
    await engine.search(QUERY)
    records = load_cache(make_settings(cfg), "LIGHT_RECORD_CACHE")
    # The max-age=1 record is now past its lifetime, and so is the cached home page (at most
    # five minutes), which still links /a.
    records.lru.clock = lambda: time.time() + 301
    try:
        origins.add_site(host, case_routes(**{"/": {"body": home_html([])}}))  # the home page links nothing now
        second = await engine.search(QUERY)
    finally:
        records.lru.clock = time.time
    assert counts(second)["cacheJoined"] == 0
    assert hit_urls(second) == []


@coroutine_test
async def test_cached_record_joins_a_search_that_did_not_reach_it(origins, tmp_path):
    host, cfg = _twice_world(origins, tmp_path, "join", {"Cache-Control": "max-age=600"})
    engine = LightSearch.from_settings(cfg)
    await engine.search(QUERY)
    origins.add_site(host, case_routes(**{"/": {"body": home_html([])}}))
    second = await engine.search(QUERY)
    assert hit_urls(second) == [f"https://{host}/a"]
    assert counts(second)["cacheJoined"] == 1


@coroutine_test
async def test_partial_document_is_evidence_but_never_cached(origins, tmp_path):
    text = ["Glacier moraine sediment layers and till. " * 40] * 60  # ~100 KiB
    host = "fresh-partial.test"
    routes = case_routes(**{"/a": {"body": article_html("Glacier moraine sediment survey", text),
                                   "drip": {"chunk": 16 * KIB, "interval": 0.05}}})
    cfg = world(origins, tmp_path, host, routes, healthy=False, LIGHT_MAX_ENCODED_BYTES=48 * KIB)
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert result["stopReason"] == "encoded_bytes"
    assert f"https://{host}/a" in hit_urls(result)
    assert counts(result)["cacheStored"] == 0
    assert counts(result)["cacheNotStored"] == 1
    assert load_cache(make_settings(), "LIGHT_RECORD_CACHE").documents() == []


@coroutine_test
async def test_feeds_are_reused_for_five_minutes_at_most(origins, tmp_path):
    host = "fresh-feed.test"
    feed = ('<?xml version="1.0"?><rss version="2.0"><channel><title>f</title>'
            f'<item><title>Glacier moraine sediment survey</title><link>https://{host}/a</link></item>'
            "</channel></rss>")
    routes = case_routes(**{"/": {"body": home_html([])}, "/feed.xml": {"body": feed, "type": "application/rss+xml",
                                          "headers": {"Cache-Control": "max-age=86400"}},
                            "/a": {"body": article_html("Glacier moraine sediment survey"),
                                   "headers": {"Cache-Control": "no-store"}}})
    cfg = make_world_with_feed(origins, tmp_path, host, routes)
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert f"https://{host}/a" in hit_urls(first)
    record = load_cache(make_settings(cfg), "LIGHT_RECORD_CACHE").get_response(f"https://{host}/feed.xml")
    assert record is not None
    assert record.expires_at - time.time() <= 300  # capped at five minutes
    origins.reset_log()
    second = await engine.search(QUERY)
    assert "/feed.xml" not in paths(origins, host)
    # the feed and the home page: a news source's change by the hour, so they are read
    # again whatever the first search's description of them says
    assert counts(second)["cacheDiscoveryHits"] == 2
    assert counts(second)["describedSkipped"] == 0
    assert f"https://{host}/a" in hit_urls(second)


def make_world_with_feed(origins, tmp_path, host, routes):
    return make_world(origins, tmp_path, {host: routes},
                      [{"id": "feedcase", "host": host, "feeds": [f"https://{host}/feed.xml"]}])


@coroutine_test
async def test_cached_evidence_adds_its_source_id(origins, tmp_path):
    host, cfg = _twice_world(origins, tmp_path, "source-id", {"Cache-Control": "max-age=600"})
    await LightSearch.from_settings(cfg).search(QUERY)
    # Another deployment of the catalog, without that source, in the same process.
    other = make_world(origins, tmp_path, {"fresh-other.test": {"/": {"body": home_html([])}}},
                       [{"id": "other", "host": "fresh-other.test"}])
    result = await LightSearch.from_settings(other).search(QUERY)
    sources = result["meta"]["lightSearch"]["sources"]
    assert sources["selected"] == ["other"]
    assert hit_urls(result) == [f"https://{host}/a"]
    assert sources["cached"] == ["case"]
    receipt = next(e for e in result["meta"]["webSources"]["entries"] if e["url"] == f"https://{host}/a")
    assert receipt["retrieval"] == "cached"


@pytest.mark.parametrize(("key", "value"), [
    ("LIGHT_PAGE_MAX_AGE_SECS", 3600), ("LIGHT_DISCOVERY_MAX_AGE_SECS", 301),
    ("LIGHT_RECORD_CACHE_MAX_RECORDS", 501), ("LIGHT_ROBOTS_CACHE_MAX_AGE_SECS", 90000),
    ("LIGHT_ALLOWED_ENCODINGS", ["utf-8", "x-martian"]),
])
@coroutine_test
async def test_cache_bounds_cannot_exceed_the_seed_table(key, value):
    from lightsearch.errors import LightSearchError

    with pytest.raises(LightSearchError) as info:
        await LightSearch.from_settings({key: value}).search("anything")
    assert info.value.code == "invalid_settings"
    assert info.value.details["key"] == key


@coroutine_test
async def test_fresh_home_page_is_not_read_again_and_its_links_cost_no_hop(origins, tmp_path):
    """A stream of searches spends its hops on new ground, not on the home page."""
    host = "fresh-home.test"
    routes = {"/": {"body": home_html([("/a", "Glacier moraine sediment survey"), ("/b", "Tidal estuary silt")])},
              "/a": {"body": article_html("Glacier moraine sediment survey"), "headers": {"Cache-Control": "no-store"}},
              "/b": {"body": article_html("Tidal estuary silt deposits"), "headers": {"Cache-Control": "no-store"}}}
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "homecase", "host": host}])
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert first["meta"]["lightSearch"]["hops"]["byStage"].get("home") == 1
    record = load_cache(make_settings(cfg), "LIGHT_RECORD_CACHE").get_response(f"https://{host}/")
    assert record is not None
    assert record.expires_at - time.time() <= 300
    origins.reset_log()
    second = await engine.search("tidal estuary silt")
    assert "/" not in paths(origins, host)
    assert "home" not in second["meta"]["lightSearch"]["hops"]["byStage"]
    assert counts(second)["cacheDiscoveryHits"] >= 1
    # the cached home page's link is still a candidate, and fetched
    assert f"https://{host}/b" in hit_urls(second)


@coroutine_test
async def test_articles_read_do_not_evict_the_site_maps_inside_the_one_bound(origins, tmp_path):
    """Discovery responses live inside the record cache's bounds, in a reserved share that
    documents never take: a record cache of two holds the home page and one of the three
    articles read, and the next search is served the home page from it."""
    host = "maps-inside.test"
    links = [(f"/glacier-{i}", f"Glacier moraine sediment survey {i}") for i in range(3)]
    routes = {"/": {"body": home_html(links)}}
    for href, title in links:
        routes[href] = {"body": article_html(title)}
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "inside", "host": host}],
                     LIGHT_RECORD_CACHE_MAX_RECORDS=2)
    engine = LightSearch.from_settings(cfg)
    await engine.search(QUERY)
    records = load_cache(make_settings(cfg), "LIGHT_RECORD_CACHE")
    assert len(records) == 2  # one bound for both kinds
    assert len(records.documents()) == 1  # three articles read, one kept
    assert records.get_response(f"https://{host}/") is not None
    origins.reset_log()
    second = await engine.search(QUERY)
    assert "/" not in paths(origins, host)  # the home page came from the cache
    assert counts(second)["cacheDiscoveryHits"] >= 1


def _map(i: int) -> StoredResponse:
    return StoredResponse(f"https://maps.test/sitemap-{i}.xml", 200, {}, b"<urlset></urlset>", "", 4e9)


def test_documents_never_evict_discovery_records_within_their_share():
    cache = MemoryRecordCache(10, 1 << 20, 0.5)  # five places reserved for discovery records
    for i in range(5):
        assert cache.put_response(_map(i))
    for i in range(20):
        assert cache.put_document(_doc(i), 4e9)
    assert len(cache) == 10
    assert all(cache.get_response(_map(i).url) is not None for i in range(5))
    assert [d.url for d in cache.documents()] == [f"https://x.test/{i}" for i in range(15, 20)]


def test_discovery_records_beyond_their_share_compete_in_lru_order():
    cache = MemoryRecordCache(10, 1 << 20, 0.2)  # two places reserved
    for i in range(6):
        assert cache.put_document(_doc(i), 4e9)
    for i in range(6):
        assert cache.put_response(_map(i))
    assert len(cache) == 10
    # over the reserve, the least recently used entries went, whatever their kind
    assert [d.url for d in cache.documents()] == [f"https://x.test/{i}" for i in range(2, 6)]
    for i in range(10):
        cache.put_document(_doc(100 + i), 4e9)
    # documents take back everything but the reserved share (the two most recent maps)
    assert [i for i in range(6) if cache.get_response(_map(i).url) is not None] == [4, 5]
    assert len(cache.documents()) == 8


def test_a_separate_discovery_cache_is_an_opt_in_profile():
    assert MemoryRecordCache(*MemoryRecordCache.bounds(make_settings())).responses is None
    cache = MemoryRecordCache(10, 1 << 20, 0.5, 1, 1 << 20)
    for i in range(3):
        cache.put_response(_map(i))
    assert len(cache.responses) == 1
    assert cache.get_response(_map(2).url) is not None
    assert len(cache.lru) == 0


# ---------------------------------------------------------------- what the records hold in memory
def test_documents_whose_memory_dwarfs_their_content_are_bounded_in_memory_too():
    """ASCII with one emoji is four bytes a character in memory, and a token list of short
    words eight bytes a word beside it: about seven times the JSON. The content bound
    alone (512 KiB here) would keep 3.5 MiB; the memory bound, four times the content's."""
    cache = MemoryRecordCache(500, 512 * KIB)
    words = "ab " * 16_500
    for i in range(10):
        doc = Document(url=f"https://emoji.test/{i}", source_id="e", title=f"t{i}", text=words + "\U0001F600",
                       retrieved_at="2026-12-06T00:00:00Z", tokens=["ab"] * 16_500)
        cache.put_document(doc, time.time() + 600)
    docs = cache.documents()
    assert docs  # the newest are kept
    assert sum(document_size(d) for d in docs) <= 512 * KIB
    held = sum(sys.getsizeof(d.text) + sys.getsizeof(d.tokens) for d in docs)
    assert held <= 4 * 512 * KIB
