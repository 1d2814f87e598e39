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


def test_an_index_children_no_search_has_described_are_read_with_the_places_left():
    """A site's first search read some of the children its index names: the next one reads
    the others too (valued at their described siblings' mean), never the index again."""
    source = Source(id="site:d.example", name="d.example", language="en", kind="reference",
                    origins=("https://d.example",), seeds=("https://d.example/",))
    children = [f"https://d.example/sitemap-{i}.xml" for i in range(1, 5)]
    tides = [["severn", "tidal", "power"]] * 10 + [["cup", "final"]] * 40
    docs = [describe(url, "sitemap", tides) for url in children[:3]]
    docs.append(describe("https://d.example/sitemap.xml", "index", [], children=children))
    terms = (("severn", "tidal", "power"),)
    plan = CrawlPlan(queries=("severn tidal power",), sources=(source,), terms=terms,
                     estimates=Estimates.build(terms, {source.id: docs}))
    cached = set(children[:3])
    reads = DescribedReads(plan, fresh=lambda url: url in cached, max_sitemaps=1, keeps_records=True)
    assert sorted(r.doc.url for r in reads.planned) == children  # three cached for free, the fourth in the place
    assert not reads.worth_reading(canonical_url("https://d.example/sitemap.xml"), "sitemap", source)
    none_left = DescribedReads(plan, fresh=lambda url: url in cached, max_sitemaps=0, keeps_records=True)
    assert children[3] not in [r.doc.url for r in none_left.planned]


def test_sites_probed_on_the_spot_are_selected_first_whatever_their_language():
    from lightsearch.config import make_settings
    from lightsearch.plan.catalog import Catalog
    from lightsearch.plan.crawlplan import make_plan
    from lightsearch.plan.request import build_request

    catalog_sources = tuple(Source(id=f"c{i}", name=f"C{i}", language="en", kind="news",
                                   origins=(f"https://c{i}.example",), seeds=(f"https://c{i}.example/",))
                            for i in range(6))
    catalog = Catalog(id="t", version="1", sources=catalog_sources)
    probed = [Source(id=f"site:p{i}.example", name=f"p{i}.example", language="he", kind="reference",
                     origins=(f"https://p{i}.example",), seeds=(f"https://p{i}.example/",)) for i in range(2)]
    plan = make_plan(build_request("tidal power"), catalog, {}, make_settings({}), opened=lambda s: False,
                     started=0.0, probing=probed, mapped_hosts=frozenset({"p0.example"}))
    ids = [s.id for s in plan.sources]
    assert ids[:2] == ["site:p0.example", "site:p1.example"]  # an English query, Hebrew sites: named, so read
    assert len(ids) <= 6  # the catalog's sources share the rest of LIGHT_MAX_SOURCES
    assert plan.probing == {"site:p0.example", "site:p1.example"}
    assert plan.mapped_hosts == {"p0.example"}
    assert plan.discovery_pages.entry("site:p1.example", "https://p1.example/")
