"""The frontier scheduler (crawl/scheduler.py) against a real frontier and a real Scrapy
crawler: what it hands out and when, asking the search only through its frontier."""

from __future__ import annotations

from scrapy import Request, Spider
from scrapy.core.downloader import Slot
from scrapy.core.engine import ExecutionEngine
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from lightsearch.config import make_settings
from lightsearch.crawl.budget import STOP_REASON
from lightsearch.crawl.downloader_interface import DownloaderInterface, DownloaderView
from lightsearch.crawl.dupefilter import UrlDupeFilter
from lightsearch.crawl.runtime import ensure_reactor
from lightsearch.crawl.scheduler import NEAR_TIE, FrontierScheduler, idle_first, near_tie_floor
from lightsearch.plan.catalog import Source
from lightsearch.plan.crawlplan import CrawlPlan
from lightsearch.plan.frontier import SearchFrontier, attach
from tests.conftest import loop_of_tests

A = Source(id="a", name="A", language="en", kind="news", origins=("https://a.example",), seeds=())
B = Source(id="b", name="B", language="en", kind="news", origins=("https://b.example",), seeds=())


def real_crawler(settings):
    """A real Scrapy crawler (stats, settings, signals) on the tests' reactor; not crawling,
    so nothing is downloading and every origin is idle unless a test says otherwise."""

    async def make():
        ensure_reactor()
        # lightsearch's settings over Scrapy's defaults (a copy of every default would
        # set deprecated ones too)
        ours = {key: value for key, value in settings.items() if settings.getpriority(key) > 0}
        crawler = get_crawler(Spider, ours)
        # the engine a crawl would have: its downloader is what the scheduler asks which
        # requests are in flight and which origins are busy
        crawler.engine = ExecutionEngine(crawler, lambda _: None)
        return crawler

    return loop_of_tests().run_until_complete(make())


def scheduler(queries=("severn tidal power",), **overrides):
    settings = make_settings({"LIGHT_MAX_HOPS": 10, "LIGHT_ARTICLE_HOPS": 4, "LIGHT_MAX_PAGE_HOPS": 6,
                              "LIGHT_FRONTIER_SOURCE_CHARGE": 0, "LIGHT_FRONTIER_QUERY_CHARGE": 0,
                              **overrides})
    crawler = real_crawler(settings)
    frontier = SearchFrontier(CrawlPlan(queries=tuple(queries), sources=(A, B), max_results=1), crawler.settings)
    frontier.open(lambda url, source, depth, qi: page(url, source.id, depth, frontier=frontier))
    attach(crawler, frontier)
    sched = FrontierScheduler.from_crawler(crawler)
    sched.open(Spider("test"))
    return sched, frontier, crawler.stats


def discovery(url, priority, source="a", **meta):
    return Request(url, priority=priority, meta={"source_id": source, "stage": "feed", "depth": 0, **meta})


def page(url, source="a", depth=1, *, frontier=None, priority=0):
    request = Request(url, priority=priority,
                      meta={"candidate": url, "source_id": source, "stage": "page", "depth": depth})
    if frontier is not None:
        frontier.scorer.score_many([(url, (), url)])
        request.priority = frontier.priority(request)
    return request


def drain(sched):
    out = []
    while (request := sched.next_request()) is not None:
        out.append(request.url)
    return out


def test_in_the_map_phase_discovery_documents_go_before_candidates():
    sched, frontier, _ = scheduler()
    sched.enqueue_request(page("https://a.example/severn-tidal-power", frontier=frontier))
    sched.enqueue_request(discovery("https://a.example/feed", 45))
    assert drain(sched) == ["https://a.example/feed", "https://a.example/severn-tidal-power"]


def test_in_the_read_phase_candidates_go_before_discovery_documents():
    sched, frontier, _ = scheduler()
    sched.budget.hops = 6  # 4 hops left: the article hops
    sched.enqueue_request(discovery("https://a.example/feed", 75))
    sched.enqueue_request(page("https://a.example/severn-tidal-power", frontier=frontier))
    assert drain(sched) == ["https://a.example/severn-tidal-power", "https://a.example/feed"]


def test_candidates_are_rescored_by_the_frontier_when_the_pool_changed():
    sched, frontier, _ = scheduler()
    sched.budget.hops = 6
    tidal, severn = page("https://a.example/tidal", frontier=frontier), page("https://a.example/severn",
                                                                             frontier=frontier)
    tidal.priority, severn.priority = 100, 0  # stale: scored before the pool grew
    sched.enqueue_request(tidal)
    sched.enqueue_request(severn)
    # a discovery document named twenty pages about tides: "tidal" is common, "severn" rare
    frontier.scorer.score_many([(f"https://a.example/tidal-{i}", (), f"https://a.example/tidal-{i}")
                                for i in range(20)])
    first = sched.next_request()
    assert first.url == "https://a.example/severn"
    assert first.priority == frontier.priority(severn) > frontier.priority(tidal)


def test_deferred_entries_are_released_only_when_no_candidate_is_left():
    sched, frontier, _ = scheduler()
    sched.budget.hops = 6
    frontier.defer("https://b.example/unrelated", B, 1, 0, 0.0)
    assert sched.has_pending_requests()
    assert len(sched) == 1
    sched.enqueue_request(page("https://a.example/severn-tidal-power", frontier=frontier))
    assert sched.next_request().url == "https://a.example/severn-tidal-power"
    assert frontier.deferred() == 1  # still kept back
    assert sched.next_request().url == "https://b.example/unrelated"
    assert frontier.deferred() == 0
    assert not sched.has_pending_requests()


def test_spent_hops_give_up_every_candidate_and_deferred_entry_at_once():
    sched, frontier, stats = scheduler()
    sched.enqueue_request(page("https://a.example/severn", frontier=frontier))
    sched.enqueue_request(page("https://a.example/tidal", frontier=frontier))
    frontier.defer("https://b.example/unrelated", B, 1, 0, 0.0)
    sched.budget.hops = 10
    assert sched.next_request() is None
    assert stats.get_value("light/frontier/unread") == 3
    assert stats.get_value(STOP_REASON) == "hops"
    assert frontier.deferred() == 0
    assert not sched.has_pending_requests()


def test_the_page_allowance_comes_from_the_frontier_and_spent_it_drops_discovery_too():
    sched, frontier, stats = scheduler(("severn tidal", "cup final"))
    assert sched.page_allowance == 12  # six page hops for each of the two queries
    sched.enqueue_request(page("https://a.example/severn", frontier=frontier))
    sched.enqueue_request(discovery("https://a.example/feed", 75))
    sched.budget.by_stage["article"] = 12
    assert sched.next_request() is None
    assert stats.get_value("light/frontier/unread") == 1
    assert stats.get_value("light/frontier/unread_discovery") == 1
    assert stats.get_value(STOP_REASON) == "page_hops"


def test_a_reserve_source_opens_after_the_first_sources_discovery():
    sched, _, stats = scheduler()
    sched.enqueue_request(discovery("https://b.example/feed", 95, source="b", reserve=True))
    sched.enqueue_request(discovery("https://a.example/sitemap.xml", 45))
    assert drain(sched) == ["https://a.example/sitemap.xml", "https://b.example/feed"]
    assert stats.get_value("light/frontier/reserve_opened") == 1


def test_fairness_charges_let_another_source_go_before_a_served_one():
    sched, _, _ = scheduler(LIGHT_FRONTIER_SOURCE_CHARGE=10)
    for i in range(3):
        sched.enqueue_request(discovery(f"https://a.example/doc-{i}", 50 - i))
    sched.enqueue_request(discovery("https://b.example/doc", 45, source="b"))
    # a's first document (50), then b's (45 against a's 49 - 10), then a's others
    assert drain(sched) == ["https://a.example/doc-0", "https://b.example/doc",
                            "https://a.example/doc-1", "https://a.example/doc-2"]


def test_candidates_pay_their_query_charge_not_their_source_charge():
    """A served source's discovery documents wait for another's; its pages do not: the
    strong page of a source read a lot goes before another source's weak one."""
    sched, frontier, _ = scheduler(LIGHT_FRONTIER_SOURCE_CHARGE=30)
    for i in range(3):
        sched.enqueue_request(discovery(f"https://a.example/doc-{i}", 50 - i))
    assert len(drain(sched)) == 3
    sched.budget.hops = 6
    strong = page("https://a.example/severn-tidal-power", frontier=frontier)
    weak = page("https://b.example/tidal", "b", frontier=frontier)
    assert strong.priority - weak.priority < 3 * 30  # a's charge would put it under b's
    sched.enqueue_request(weak)
    sched.enqueue_request(strong)
    assert drain(sched) == ["https://a.example/severn-tidal-power", "https://b.example/tidal"]


def test_the_best_candidates_are_kept_by_their_current_scores():
    sched, frontier, stats = scheduler(LIGHT_DISCOVERY_MAX_CANDIDATES=2)
    sched.budget.hops = 6
    for url in ("https://a.example/cup", "https://a.example/severn-tidal-power", "https://a.example/tidal",
                "https://a.example/final", "https://a.example/power-cut"):
        sched.enqueue_request(page(url, frontier=frontier))
    assert stats.get_value("light/discovery/candidates_dropped") == 3
    assert drain(sched) == ["https://a.example/severn-tidal-power", "https://a.example/tidal"]
    sched.close("finished")
    assert stats.get_value(STOP_REASON) == "candidates"  # the bound stopped the search short


def test_a_relevant_candidate_the_frontier_gave_up_is_why_the_search_stopped():
    sched, frontier, stats = scheduler(LIGHT_DISCOVERY_MAX_CANDIDATES=1)
    frontier.keep_score(0.9)
    assert frontier.outranked(0.5)
    sched.close("finished")
    assert stats.get_value(STOP_REASON) == "candidates"


def test_a_finished_search_with_nothing_given_up_records_no_stop():
    sched, _, stats = scheduler()
    sched.close("finished")
    assert stats.get_value(STOP_REASON) is None


def test_requests_past_the_depth_and_seen_urls_are_refused():
    sched, _, stats = scheduler(LIGHT_DISCOVERY_MAX_DEPTH=1)
    assert not sched.enqueue_request(discovery("https://a.example/deep", 30, depth=2))
    assert stats.get_value("light/frontier/too_deep") == 1
    assert sched.enqueue_request(discovery("https://a.example/feed", 75))
    assert not sched.enqueue_request(discovery("https://a.example/feed", 75))
    assert len(sched) == 1


def test_a_crawl_without_a_search_keeps_the_priorities_it_was_given():
    crawler = real_crawler(make_settings({"LIGHT_MAX_HOPS": 10}))
    sched = FrontierScheduler.from_crawler(crawler)
    sched.open(Spider("test"))
    assert sched.page_allowance == crawler.settings.getint("LIGHT_MAX_PAGE_HOPS")
    for url, priority in (("https://a.example/low", 1), ("https://a.example/high", 9)):
        sched.enqueue_request(page(url, priority=priority))
    assert drain(sched) == ["https://a.example/high", "https://a.example/low"]


def test_idle_first_prefers_an_idle_origin_among_what_would_be_read_anyway():
    readable = [(90.0, 0, "busy.example", "strong"), (85.0, -1, "idle.example", "near")]
    assert idle_first(readable, set()) == "strong"
    assert idle_first(readable, {"busy.example"}) == "near"
    assert idle_first(readable, {"busy.example", "idle.example"}) == "strong"


def test_a_near_tie_on_an_idle_origin_may_go_first_but_not_a_weaker_one():
    sched, frontier, _ = scheduler()
    sched.budget.hops = 6
    best = page("https://a.example/severn-tidal-power", frontier=frontier)
    near = page("https://b.example/severn-tidal-power-plan", "b", frontier=frontier)
    far = page("https://b.example/power", "b", frontier=frontier)
    assert near_tie_floor(best.priority) <= near.priority
    assert best.priority - NEAR_TIE >= far.priority
    for request in (best, near, far):
        sched.enqueue_request(request)
    # a.example has a download in flight
    slot = Slot(concurrency=1, delay=0, jitter=0)
    slot.active.add(Request("https://a.example/elsewhere"))
    sched.crawler.engine.downloader.slots["a.example"] = slot
    assert sched.next_request().url == "https://b.example/severn-tidal-power-plan"


def test_a_candidate_with_much_less_of_the_best_ones_score_is_no_near_tie():
    """Within ten points of the best, but with a lower share of its score (the points
    over 30): an idle origin's weaker page does not take the busy origin's best one's hop."""
    sched, frontier, _ = scheduler(queries=("severn tidal power barrage estuary flow",), LIGHT_MAX_PAGE_HOPS=1)
    sched.budget.hops = 6
    urls = ("https://a.example/tidal-flow", "https://a.example/estuary-flow", "https://b.example/power",
            "https://b.example/flow", "https://b.example/estuary")
    requests = [page(url, url[8], frontier=frontier) for url in urls]
    best, weaker = (frontier.priority(requests[i]) for i in (0, 2))
    assert best - weaker < NEAR_TIE
    assert weaker < near_tie_floor(best)
    for request in requests:
        sched.enqueue_request(request)
    slot = Slot(concurrency=1, delay=0, jitter=0)
    slot.active.add(Request("https://a.example/elsewhere"))
    sched.crawler.engine.downloader.slots["a.example"] = slot
    assert sched.next_request().url == "https://a.example/tidal-flow"


def test_while_a_discovery_document_is_in_flight_only_the_spare_page_hops_read_idle_origins():
    """In the map phase a search waits for the discovery document in flight (it may name
    better candidates), but the page hops its allowance holds beyond the article hops (6
    pages, 4 article hops: 2) read the best candidates at once, on origins it is not
    waiting for; once the document is read, the rest follow."""
    sched, frontier, _ = scheduler()
    downloading = sched.crawler.engine.downloader.active
    feed = discovery("https://a.example/feed", 75)
    downloading.add(feed)  # being downloaded; a.example is busy
    slot = Slot(concurrency=1, delay=0, jitter=0)
    slot.active.add(feed)
    sched.crawler.engine.downloader.slots["a.example"] = slot
    on_a = page("https://a.example/severn-tidal-power-barrage", frontier=frontier)
    on_b = [page(f"https://b.example/severn-tidal-power-{k}", "b", frontier=frontier) for k in range(3)]
    for request in (on_a, *on_b):
        sched.enqueue_request(request)
    handed = []
    while (request := sched.next_request()) is not None:
        handed.append(request.url)
        downloading.add(request)  # on its way, its hop not yet claimed
    assert len(handed) == 2
    assert all(url.startswith("https://b.example/") for url in handed)
    downloading.discard(feed)  # read: the map phase goes on
    slot.active.discard(feed)
    rest = []
    while (request := sched.next_request()) is not None:
        rest.append(request.url)
    assert sorted(rest) == sorted({r.url for r in (on_a, *on_b)} - set(handed))


def test_while_a_sitemap_is_in_flight_no_candidate_is_read():
    """A sitemap names a hundred pages for one hop: while one is on its way, even the spare
    page hops wait for it."""
    sched, frontier, _ = scheduler()
    sitemap = Request("https://a.example/sitemap.xml", priority=45,
                      meta={"source_id": "a", "stage": "sitemap", "depth": 0})
    sched.crawler.engine.downloader.active.add(sitemap)
    sched.enqueue_request(page("https://b.example/severn-tidal-power", "b", frontier=frontier))
    assert sched.next_request() is None
    sched.crawler.engine.downloader.active.discard(sitemap)
    assert sched.next_request().url == "https://b.example/severn-tidal-power"


def test_in_the_read_phase_a_document_in_flight_is_waited_for_before_another_is_read():
    """With no candidate left, what a discovery document being read names goes before
    another discovery document takes a hop."""
    sched, _, _ = scheduler()
    sched.budget.hops = 6  # 4 hops left: the article hops
    sched.enqueue_request(discovery("https://a.example/feed", 75))
    listing = discovery("https://b.example/news", 29, "b")
    sched.crawler.engine.downloader.active.add(listing)
    assert sched.next_request() is None
    sched.crawler.engine.downloader.active.discard(listing)
    assert sched.next_request().url == "https://a.example/feed"


def test_a_discovery_document_being_parsed_is_waited_for_before_a_candidate_takes_a_hop():
    """A hub downloaded whose links are being read (in the worker pool) may name a better
    page than any candidate queued: in the read phase, and with the spare page hops of the
    map phase, the scheduler waits the moment it takes."""
    for hops_spent in (6, 0):  # the read phase (4 hops left: the article hops), the map phase
        sched, frontier, _ = scheduler()
        traffic = _Traffic()
        sched.downloader = traffic
        sched.budget.hops = hops_spent
        sched.enqueue_request(page("https://b.example/severn-tidal-power", "b", frontier=frontier))
        hub = discovery("https://a.example/sections/energy", 60)
        traffic.parsed.append(hub)
        assert sched.next_request() is None
        traffic.parsed.clear()
        assert sched.next_request().url == "https://b.example/severn-tidal-power"


def test_the_last_hop_goes_to_a_lookup_never_to_a_document_that_only_names_pages():
    """What a feed names could not be read after the last hop: the feed is let go (so the
    crawl ends instead of waiting on it) and a lookup, itself a page, may take the hop."""
    sched, _, stats = scheduler()
    sched.budget.hops = 9  # one hop left
    sched.enqueue_request(discovery("https://a.example/feed", 75))
    sched.enqueue_request(discovery("https://b.example/wiki/Severn", 40, "b", stage="lookup"))
    assert drain(sched) == ["https://b.example/wiki/Severn"]
    assert not sched.has_pending_requests()
    assert stats.get_value("light/frontier/unread_discovery") == 1


class _Tripwire:
    """An engine no component may read: the scheduler asks its downloader interface."""

    def __getattr__(self, name):
        raise AssertionError(f"the scheduler read engine.{name} itself")


class _Traffic:
    """A DownloaderView of the test's own: which origins are busy, what is in flight."""

    def __init__(self, busy=()):
        self.busy = set(busy)
        self.active = []
        self.parsed = []

    def slot_key(self, request):
        return urlparse_cached(request).hostname or ""

    def busy_slots(self):
        return set(self.busy)

    def downloading(self):
        return list(self.active)

    def in_flight(self):
        return [*self.active, *self.parsed]

    def parsing(self):
        return list(self.parsed)


def test_the_scheduler_asks_about_the_traffic_only_through_its_downloader_interface():
    """Per-origin fairness is the scheduler's, decided on what the declared interface says
    (as Scrapy's DownloaderAwarePriorityQueue asks DownloaderInterface): with an engine that
    fails when read, it still prefers the near-tie on the idle origin and waits for the
    discovery document the interface says is in flight."""
    settings = make_settings({"LIGHT_MAX_HOPS": 10, "LIGHT_ARTICLE_HOPS": 4, "LIGHT_MAX_PAGE_HOPS": 6,
                              "LIGHT_FRONTIER_SOURCE_CHARGE": 0, "LIGHT_FRONTIER_QUERY_CHARGE": 0})
    crawler = real_crawler(settings)
    crawler.engine = _Tripwire()
    frontier = SearchFrontier(CrawlPlan(queries=("severn tidal power",), sources=(A, B), max_results=1),
                              crawler.settings)
    attach(crawler, frontier)
    traffic = _Traffic(busy={"a.example"})
    sched = FrontierScheduler(crawler, build_from_crawler(UrlDupeFilter, crawler), downloader=traffic)
    assert isinstance(DownloaderInterface(crawler), DownloaderView)
    sched.open(Spider("test"))
    sched.budget.hops = 6
    best = page("https://a.example/severn-tidal-power", frontier=frontier)
    near = page("https://b.example/severn-tidal-power-plan", "b", frontier=frontier)
    for request in (best, near):
        sched.enqueue_request(request)
    assert sched.next_request().url == "https://b.example/severn-tidal-power-plan"
    assert sched.next_request().url == "https://a.example/severn-tidal-power"
    # what a listing page in flight names goes before another discovery document
    traffic.active.append(discovery("https://b.example/news", 29, "b"))
    sched.enqueue_request(discovery("https://a.example/feed", 75))
    assert sched.next_request() is None
    traffic.active.clear()
    assert drain(sched) == ["https://a.example/feed"]
