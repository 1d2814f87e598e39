"""The frontier (plan/frontier.py): one search's candidate state, as its spider writes it
and its scheduler, middlewares and pipelines read it."""

from __future__ import annotations

import time

from scrapy import Request
from scrapy.utils.test import get_crawler

from lightsearch.config import make_settings
from lightsearch.plan.catalog import Source
from lightsearch.plan.crawlplan import CrawlPlan
from lightsearch.plan.frontier import CrawlFrontier, Frontier, SearchFrontier, attach, frontier_of

A = Source(id="a", name="A", language="en", kind="news", origins=("https://a.example",), seeds=())
B = Source(id="b", name="B", language="en", kind="news", origins=("https://b.example",), seeds=())


def frontier(queries=("severn tidal power",), *, max_candidates=200, max_results=8, started=None):
    plan = CrawlPlan(queries=tuple(queries), sources=(A, B), max_results=max_results, started_monotonic=started)
    return SearchFrontier(plan, make_settings({"LIGHT_DISCOVERY_MAX_CANDIDATES": max_candidates}))


def candidate(url, source="a", depth=1):
    return Request(url, meta={"candidate": url, "source_id": source, "depth": depth, "stage": "page"})


def test_both_frontiers_declare_what_the_components_may_ask():
    assert isinstance(frontier(), Frontier)
    assert isinstance(CrawlFrontier(), Frontier)


def test_a_search_that_probes_a_site_uses_the_host_map_only_for_the_hosts_its_plan_names():
    assert frontier().may_map("anything.test")  # no site probed: the map is configuration
    assert CrawlFrontier().may_map("anything.test")
    plan = CrawlPlan(queries=("x",), sources=(A,), mapped_hosts=frozenset({"a.example"}))
    probing = SearchFrontier(plan, make_settings({}))
    assert probing.may_map("a.example")
    assert not probing.may_map("b.example")


def test_priority_follows_the_score_against_the_pool_depth_and_source_rank():
    f = frontier()
    urls = ["https://a.example/severn-tidal-power", "https://a.example/tidal-news", "https://a.example/cup-final"]
    f.scorer.score_many([(u, (), u) for u in urls])
    full, partial, none = (f.priority(candidate(u)) for u in urls)
    assert 30 <= partial < full <= 100
    assert none < 0  # shares no query term: read only with hops nothing else wants
    assert f.priority(candidate(urls[0], depth=2)) == full - 5
    assert f.priority(candidate(urls[0], source="b")) == full - 1


def test_priority_changes_with_the_pool_and_the_version_says_when():
    f = frontier()
    f.scorer.score_many([("https://a.example/severn", (), "https://a.example/severn"),
                         ("https://a.example/tidal", (), "https://a.example/tidal")])
    severn, tidal = candidate("https://a.example/severn"), candidate("https://a.example/tidal")
    assert f.priority(severn) == f.priority(tidal)
    before = f.version
    # many candidates about tides: "tidal" is common now, "severn" rare
    f.scorer.score_many([(f"https://a.example/tidal-{i}", (), f"https://a.example/tidal-{i}") for i in range(20)])
    assert f.version != before
    assert f.priority(severn) > f.priority(tidal)


def test_priority_names_the_query_a_candidate_serves_best():
    f = frontier(("severn estuary", "cup final"))
    f.scorer.score_many([("https://a.example/cup-final", (), "https://a.example/cup-final")])
    request = candidate("https://a.example/cup-final")
    f.priority(request)
    assert request.meta["query_index"] == 1


def test_a_candidate_no_better_than_the_best_kept_is_outranked():
    f = frontier(max_candidates=2)
    f.keep_score(0.5)
    f.keep_score(0.6)
    assert not f.outranked(0.7)
    assert f.outranked(0.0)
    assert not f.gave_up_relevant
    assert f.outranked(0.4)
    assert f.gave_up_relevant


def test_deferred_entries_are_bounded_released_through_the_spider_factory_and_given_up():
    f = frontier(max_candidates=2)
    made = []

    def make(url, source, depth, query_index):
        made.append((url, source.id, depth, query_index))
        return None if url.endswith("gone") else candidate(url, source.id, depth)

    f.open(make)
    assert f.defer("https://a.example/one", A, 1, 0, 0.0)
    assert f.defer("https://b.example/gone", B, 2, 0, 0.0)
    assert not f.defer("https://a.example/three", A, 1, 0, 0.0)  # the bound is full
    assert f.deferred() == 2
    released = f.release_deferred()
    assert [r.url for r in released] == ["https://a.example/one"]  # the factory refused the other
    assert made == [("https://a.example/one", "a", 1, 0), ("https://b.example/gone", "b", 2, 0)]
    assert f.deferred() == 0
    assert f.release_deferred() == []
    f.defer("https://a.example/four", A, 1, 0, 0.0)
    assert f.give_up_deferred() == 1
    assert f.deferred() == 0


def test_page_allowance_is_per_query_and_never_below_the_results_asked_for():
    assert frontier(("one", "two"), max_results=3).page_allowance(5) == 10
    assert frontier(("one",), max_results=12).page_allowance(5) == 12
    assert CrawlFrontier().page_allowance(5) == 5


def test_sources_and_clock_come_from_the_plan():
    f = frontier(started=123.0)
    assert f.source("b") is B
    assert f.source("elsewhere") is None
    assert f.started == 123.0


def test_a_crawl_frontier_defers_nothing_and_keeps_priorities():
    f = CrawlFrontier([A])
    request = Request("https://a.example/", priority=7)
    assert f.priority(request) == 7
    assert (f.deferred(), f.release_deferred(), f.give_up_deferred()) == (0, [], 0)
    assert f.source("a") is A
    assert not f.gave_up_relevant


def test_a_crawler_has_the_frontier_attached_or_one_stable_plain_one():
    crawler = get_crawler()
    plain = frontier_of(crawler)
    assert isinstance(plain, CrawlFrontier)
    assert frontier_of(crawler) is plain
    assert plain.started <= time.monotonic()
    search = frontier()
    attach(crawler, search)
    assert frontier_of(crawler) is search
