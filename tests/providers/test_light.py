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
