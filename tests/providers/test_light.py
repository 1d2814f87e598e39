"""Light search end to end: real Scrapy crawls of the fixture sites on loopback."""

from __future__ import annotations

import asyncio
from urllib.parse import unquote

from lightsearch.providers.light import LightSearch
from tests.conftest import coroutine_test


def urls(result):
    return [unquote(h["url"]) for h in result["hits"]]


def assert_contract(result):
    meta = result["meta"]["lightSearch"]
    assert result["provider"] == "light"
    assert meta["counts"]["requests"] <= 24
    assert meta["catalog"]["id"] == "lightsearch-default"
    assert meta["catalog"]["version"]
    assert set(meta["sources"]["consulted"]) <= set(meta["sources"]["selected"])
    assert len(meta["sources"]["selected"]) <= 6
    assert result["coverage"]["level"] in {"none", "weak", "partial", "strong"}
    assert result["text"].startswith("Web search results for:")


@coroutine_test
async def test_english_query_finds_the_article(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search(
        "europa clipper earth flyby december 2026"
    )
    assert_contract(result)
    top = result["hits"][0]
    assert top["url"] == ("https://www.nasa.gov/missions/europa-clipper/"
                          "nasas-europa-clipper-prepares-for-earth-gravity-assist/")
    assert top["source"] == "nasa"
    assert top["publishedAt"].startswith("2026-11")
    assert "Europa" in top["snippet"]
    assert result["coverage"]["level"] in {"partial", "strong"}
    assert result["meta"]["lightSearch"]["counts"]["encodedBytes"] > 0


@coroutine_test
async def test_hebrew_query_selects_hebrew_sources_and_finds_the_page(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search("חידוש דרכון ביומטרי לבגיר")
    assert_contract(result)
    assert urls(result)[0] == "https://www.gov.il/he/service/renew-passport"
    selected = result["meta"]["lightSearch"]["sources"]["selected"]
    assert selected
    assert all(s in {"he-wikipedia", "gov-il", "ynet", "davidson-institute", "geektime"} for s in selected)
    assert "דרכון" in result["hits"][0]["snippet"]


@coroutine_test
async def test_catalog_absent_article_is_found_through_its_sitemap(offline_settings, origins):
    # The article is in no catalog entry and linked from no seed page or feed: only the
    # sitemap names it, so finding it proves discovery (with an empty cache).
    result = await LightSearch.from_settings(offline_settings).search("rust in the linux kernel drivers")
    target = "https://arstechnica.com/gadgets/2026/11/rust-in-the-linux-kernel-four-years-on/"
    assert urls(result)[0] == target
    paths = [e["path"] for e in origins.requests_for("arstechnica.com")]
    assert "/sitemap.xml" in paths
    # what coverage weighed of the frontier: the sitemap's entry was a candidate, scored
    # by its slug, and read; nothing better was left unread
    reach = result["meta"]["lightSearch"]["reach"]
    assert reach["hits"][0] > 0
    assert [reach["hits"][0], 1] in reach["top"]
    assert reach["unreadLead"] == 0.0
    assert reach["pages"] >= len(result["hits"])
    # the ranking kept the hits shown, and no more than the pages it saw
    assert len(result["hits"]) <= reach["kept"] <= reach["pages"]


@coroutine_test
async def test_feed_only_article_is_found(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search(
        "sodium-ion battery vs lithium-ion energy density"
    )
    assert urls(result)[0] == "https://arstechnica.com/science/2026/11/sodium-ion-batteries-go-mainstream/"


@coroutine_test
async def test_nonsense_query_succeeds_with_zero_hits(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search("qzxvbnm wqplkj")
    assert result["hits"] == []
    assert result["coverage"] == {"score": 0.0, "level": "none"}
    assert result["meta"]["lightSearch"]["sources"]["consulted"]
    assert "(no results)" in result["text"]


@coroutine_test
async def test_several_queries_are_fused(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search(
        queries=["europa clipper earth flyby", "council tax band values england"], max_results=10
    )
    found = urls(result)
    assert "https://www.gov.uk/council-tax-bands" in found
    assert any("europa-clipper" in u for u in found)
    assert result["query"] == "europa clipper earth flyby | council tax band values england"


@coroutine_test
async def test_concurrent_searches_in_one_process(offline_settings):
    engine = LightSearch.from_settings(offline_settings)
    first, second = await asyncio.gather(
        engine.search("solar maximum auroras northern lights"),
        engine.search("school lunch added sugar limits"),
    )
    assert "solar-maximum" in first["hits"][0]["url"]
    assert "school-lunch" in second["hits"][0]["url"]


@coroutine_test
async def test_max_results_is_honoured(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search("heat wave power grid", max_results=1)
    assert len(result["hits"]) == 1


EUROPA = "https://www.nasa.gov/missions/europa-clipper/nasas-europa-clipper-prepares-for-earth-gravity-assist/"


@coroutine_test
async def test_what_the_process_searched_before_does_not_change_the_evidence(offline_settings):
    """Searches that read nasa.gov's home and section pages as candidate pages (with their
    spare hops) leave them in the record cache; a later search returns the same evidence
    as a fresh process does, never those pages."""
    from lightsearch.cache import clear_process_caches

    fresh = urls(await LightSearch.from_settings(offline_settings).search("europa clipper"))
    clear_process_caches()
    engine = LightSearch.from_settings(offline_settings)
    for query in ("james webb exoplanet atmosphere", "artemis lander refuel"):
        await engine.search(query)
    later = urls(await engine.search("europa clipper"))
    assert fresh[0] == EUROPA
    assert later == fresh
    discovery = {"https://www.nasa.gov/", "https://www.nasa.gov/news/", "https://www.nasa.gov/missions/"}
    assert not discovery & set(later)


@coroutine_test
async def test_a_home_or_section_page_kept_as_a_record_is_not_evidence(offline_settings):
    """A record of a home page (a seed) or of a section the home page's menu names, stored
    by an earlier search, never joins a search's ranking, however well it matches."""
    import time

    from lightsearch.cache import load_cache
    from lightsearch.config import make_settings
    from lightsearch.documents import Document

    records = load_cache(make_settings(offline_settings), "LIGHT_RECORD_CACHE")
    text = "Europa Clipper news: NASA's Europa Clipper mission to Jupiter's moon Europa. " * 20
    for url, title in (("https://www.nasa.gov/", "NASA"), ("https://www.nasa.gov/missions/", "Missions")):
        assert records.put_document(Document(url=url, source_id="nasa", title=f"Europa Clipper {title}", text=text,
                                             retrieved_at="2026-11-20T00:00:00Z"), time.time() + 600)
    result = await LightSearch.from_settings(offline_settings).search("europa clipper")
    assert urls(result) == [EUROPA]
    assert result["meta"]["lightSearch"]["counts"]["cacheJoined"] == 0
