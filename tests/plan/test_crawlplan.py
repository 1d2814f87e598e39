"""The crawl plan (plan/crawlplan.py): which selected sources the hop budget reads in
depth and which it keeps in reserve, and which described documents a search reads."""

from __future__ import annotations

from lightsearch.cache.descriptions import describe
from lightsearch.documents.urlkey import canonical_url
from lightsearch.plan.catalog import Source
from lightsearch.plan.crawlplan import (
    ARTICLE_HOPS_PER_SOURCE,
    OPENING_HOPS,
    CrawlPlan,
    DescribedReads,
    affordable,
)
from lightsearch.plan.estimates import Estimates
from lightsearch.plan.selection import SelectedSource


def selected(*languages):
    return [SelectedSource(Source(id=f"s{i}", name=f"S{i}", language=lang, kind="news",
                                  origins=(f"https://s{i}.example",), seeds=(f"https://s{i}.example/",)),
                           score=1.0, rank=i) for i, lang in enumerate(languages)]


def test_cold_sources_past_what_the_hops_can_read_go_to_the_reserve_lowest_ranked_first():
    sources = selected("en", "en", "en", "en")
    kept = affordable(sources, 1, 24, opened=lambda sel: False)
    # 24 hops: 2 cold sources cost 8 to open and leave 16 >= 6 * 2 for articles; 3 do not
    assert [sel.source.id for sel in kept] == ["s0", "s1"]
    assert 24 - OPENING_HOPS * 2 >= ARTICLE_HOPS_PER_SOURCE * 2


def test_warm_sources_cost_no_opening_and_are_all_kept():
    sources = selected("en", "en", "en", "en")
    assert affordable(sources, 1, 24, opened=lambda sel: True) == sources


def test_the_first_sources_floor_is_kept_whatever_the_budget():
    sources = selected("en", "en", "en", "en")
    assert len(affordable(sources, 3, 8, opened=lambda sel: False)) == 3
    assert len(affordable(sources, 0, 8, opened=lambda sel: False)) == 1


def test_each_query_language_keeps_a_source():
    sources = selected("en", "he", "en", "en")
    kept = affordable(sources, 1, 8, opened=lambda sel: False)
    assert {sel.source.language for sel in kept} == {"en", "he"}


def described_plan(*, recency=None, kind="blog"):
    """A source whose sitemap names pages about tides, an index of that sitemap, a feed
    naming one such page in fifty and a listing page naming none."""
    source = Source(id="d", name="D", language="en", kind=kind, origins=("https://d.example",),
                    seeds=("https://d.example/",))
    tides = [["severn", "tidal", "power"]] * 40 + [["cup", "final"]] * 10
    docs = [
        describe("https://d.example/sitemap-1.xml", "sitemap", tides),
        describe("https://d.example/sitemap.xml", "index", [["https://d.example/sitemap-1.xml"]],
                 children=["https://d.example/sitemap-1.xml"]),
        describe("https://d.example/feed", "feed", [["severn", "tidal"]] + [["cup", "final"]] * 49),
        describe("https://d.example/archive", "listing", [["cup", "final"]] * 20),
    ]
    terms = (("severn", "tidal", "power"),)
    plan = CrawlPlan(queries=("severn tidal power",), sources=(source,), terms=terms, recency=recency,
                     estimates=Estimates.build(terms, {"d": docs}))
    return plan, source


def test_described_reads_plan_the_sitemap_naming_the_most_and_skip_what_names_too_little():
    plan, source = described_plan()
    reads = DescribedReads(plan, fresh=lambda url: False, max_sitemaps=4, keeps_records=True)
    assert [(r.doc.url, r.stage) for r in reads.planned] == [("https://d.example/sitemap-1.xml", "sitemap")]
    assert reads.best == reads.value(canonical_url("https://d.example/sitemap-1.xml")) > 0
    # the index names only a described child, read directly: the index is not read
    assert not reads.worth_reading(canonical_url("https://d.example/sitemap.xml"), "sitemap", source)
    # a feed naming one relevant page in fifty is under the floor
    assert not reads.worth_reading(canonical_url("https://d.example/feed"), "feed", source)
    assert reads.worth_reading(canonical_url("https://d.example/unknown"), "seed", source)


def test_described_reads_always_read_a_feed_for_a_recent_search_and_a_news_sources_feed():
    plan, source = described_plan(recency="1d")
    reads = DescribedReads(plan, fresh=lambda url: False, max_sitemaps=4, keeps_records=True)
    assert reads.worth_reading(canonical_url("https://d.example/feed"), "feed", source)
    plan, source = described_plan(kind="news")
    reads = DescribedReads(plan, fresh=lambda url: False, max_sitemaps=4, keeps_records=True)
    assert reads.worth_reading(canonical_url("https://d.example/feed"), "feed", source)


def test_described_reads_keep_to_the_sitemap_allowance_unless_the_sitemap_is_cached():
    plan, _ = described_plan()
    assert DescribedReads(plan, fresh=lambda url: False, max_sitemaps=0, keeps_records=True).planned == []
    cached = DescribedReads(plan, fresh=lambda url: url.endswith("sitemap-1.xml"), max_sitemaps=0,
                            keeps_records=True)
    assert [r.doc.url for r in cached.planned] == ["https://d.example/sitemap-1.xml"]


def test_a_plan_without_estimates_reads_nothing_by_description():
    plan = CrawlPlan(queries=("severn",), sources=())
    reads = DescribedReads(plan, fresh=lambda url: False, max_sitemaps=4, keeps_records=True)
    assert reads.planned == []
    assert reads.worth_reading("any", "feed", Source(id="x", name="X", language="en", kind="news",
                                                      origins=(), seeds=()))
