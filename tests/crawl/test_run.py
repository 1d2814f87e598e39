"""The crawl runner (crawl/run.py): real crawls on loopback origins, to their end, to
their deadline, cancelled, and with the frontier handed to the spider and the components."""

from __future__ import annotations

import asyncio
import time

import pytest
from scrapy import Request, Spider, signals
from scrapy.exceptions import DontCloseSpider

from lightsearch.config import make_settings
from lightsearch.crawl.run import CrawlCancelled, CrawlDeadline, run_crawl
from lightsearch.documents import Document
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.catalog import Source
from lightsearch.plan.crawlplan import CrawlPlan
from lightsearch.plan.frontier import CrawlFrontier, SearchFrontier, frontier_of
from lightsearch.spiders.discovery import DiscoverySpider
from tests.conftest import article_html, coroutine_test, home_html, make_world

HOST = "run.example"
SOURCE = Source(id="run", name="Run Times", language="en", kind="news", origins=(f"https://{HOST}",),
                seeds=(f"https://{HOST}/",))
SLACK = 20.0  # generous: the machine may be busy; the bound is what is checked, not speed


@pytest.fixture
def settings(origins, tmp_path):
    return make_world(origins, tmp_path, {HOST: {
        "/": {"body": home_html([("/severn-tidal-power", "Tidal power in the Severn estuary"),
                                 ("/cup-final", "Cup final report")])},
        "/severn-tidal-power": {"body": article_html("Tidal power in the Severn estuary")},
        "/cup-final": {"body": article_html("Cup final report")},
    }}, [{"id": "run", "host": HOST}], LIGHT_RECORD_CACHE="")


class PageSpider(Spider):
    """Reads one page and hands it to the item pipelines as the source ``run``'s."""

    name = "test_page"

    def __init__(self, url: str, frontier=None, **kwargs):
        super().__init__(**kwargs)
        self.url = url
        self.given = frontier

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.attached = frontier_of(crawler)
        return spider

    async def start(self):
        yield Request(self.url, meta={"source_id": "run", "stage": "page"})

    def parse(self, response):
        yield {"url": response.url, "html": response.text, "source_id": "run", "stage": "page",
               "status": response.status, "retrieved_at": "2026-01-01T00:00:00Z"}


class IdleSpider(Spider):
    """A crawl that never ends on its own: nothing to read, and it will not close."""

    name = "test_idle"

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.stay, signal=signals.spider_idle)
        return spider

    def stay(self):
        raise DontCloseSpider

    async def start(self):
        return
        yield


@coroutine_test
async def test_a_search_crawl_reads_its_sources_through_the_frontier_it_was_given(settings):
    s = make_settings(settings)
    plan = CrawlPlan(queries=("severn tidal power",), sources=(SOURCE,), started_monotonic=time.monotonic())
    frontier = SearchFrontier(plan, s)
    outcome = await run_crawl(s, DiscoverySpider, 60.0, frontier=frontier)
    assert outcome.stop_reason == "completed"
    assert outcome.close_reason == "finished"
    assert outcome.consulted == {"run"}
    assert outcome.source_errors == []
    urls = [item.url for item in outcome.items if isinstance(item, Document)]
    assert f"https://{HOST}/severn-tidal-power" in urls
    # the spider scored what the home page named into this frontier, and the scheduler
    # handed out what it kept
    assert frontier.scorer.pool >= 2
    assert outcome.stat("light/frontier/dequeued") >= 2
    assert frontier.lane is not None  # the spider's own, made when none was given


@coroutine_test
async def test_the_spider_and_the_components_get_the_same_frontier(settings):
    frontier = CrawlFrontier([SOURCE])
    seen = {}

    class Seeing(PageSpider):
        def closed(self, reason):
            seen.update(given=self.given, attached=self.attached)

    outcome = await run_crawl(make_settings(settings), Seeing, 60.0, frontier=frontier, url=f"https://{HOST}/")
    assert seen == {"given": frontier, "attached": frontier}
    assert outcome.stat("light/extract/documents") + outcome.stat("light/extract/empty") == 1


@coroutine_test
async def test_a_crawl_without_a_frontier_gets_a_plain_one_its_spider_never_sees(settings):
    seen = {}

    class Seeing(PageSpider):
        def closed(self, reason):
            seen.update(given=self.given, attached=self.attached)

    await run_crawl(make_settings(settings), Seeing, 60.0, url=f"https://{HOST}/")
    assert seen["given"] is None
    assert isinstance(seen["attached"], CrawlFrontier)


@coroutine_test
async def test_a_page_the_pipeline_loses_is_its_sources_error_through_the_signal(settings):
    # a lane whose deadline has passed: extraction fails at once with a timeout
    s = make_settings(settings)
    lane = Lane(s, name="test", deadline_at=time.monotonic() - 1.0)
    outcome = await run_crawl(s, PageSpider, 60.0, frontier=CrawlFrontier([SOURCE], lane=lane),
                              url=f"https://{HOST}/severn-tidal-power")
    assert [(e["source"], e["code"], e["url"]) for e in outcome.source_errors] == [
        ("run", "timeout", f"https://{HOST}/severn-tidal-power")]
    assert outcome.stat("light/extract/failed") == 1
    assert outcome.stop_reason == "deadline"
    assert outcome.items == []


@coroutine_test
async def test_a_page_of_no_source_of_the_frontier_is_not_attributed(settings):
    s = make_settings(settings)
    lane = Lane(s, name="test", deadline_at=time.monotonic() - 1.0)
    outcome = await run_crawl(s, PageSpider, 60.0, frontier=CrawlFrontier(lane=lane), url=f"https://{HOST}/")
    assert outcome.stat("light/extract/failed") == 1
    assert outcome.source_errors == []


@coroutine_test
async def test_the_hop_gate_keeps_the_frontiers_clock(settings):
    # the search started long ago (planning took its time): no hop may start now
    s = make_settings(settings)
    started = time.monotonic() - s.getfloat("LIGHT_SOFT_DEADLINE_SECS") - 1.0
    outcome = await run_crawl(s, PageSpider, 60.0, frontier=CrawlFrontier([SOURCE], started=started),
                              url=f"https://{HOST}/")
    assert outcome.stop_reason == "soft_deadline"
    assert outcome.stat("light/hops") == 0
    assert outcome.items == []


@coroutine_test
async def test_a_crawl_past_its_deadline_is_stopped_and_its_lane_closed(settings):
    s = make_settings(settings)
    lane = Lane(s, name="test")
    with pytest.raises(CrawlDeadline) as info:  # an idle spider that only its deadline ends
        await asyncio.wait_for(run_crawl(s, IdleSpider, 1.0, frontier=CrawlFrontier(lane=lane)), 60)
    assert info.value.deadline == 1.0
    assert info.value.outcome.close_reason is not None  # closed before the caller heard
    assert (lane.closed.code, lane.closed.details["reason"]) == ("timeout", "deadline")


@coroutine_test
async def test_a_cancelled_caller_stops_the_crawl_and_closes_its_lane(settings):
    s = make_settings(settings)
    lane = Lane(s, name="test")
    task = asyncio.ensure_future(run_crawl(s, IdleSpider, 120.0, frontier=CrawlFrontier(lane=lane)))
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(CrawlCancelled) as info:
        await asyncio.wait_for(task, SLACK)
    assert info.value.outcome.close_reason is not None
    assert lane.closed.code == "cancelled"


@coroutine_test
async def test_a_crawl_with_retrieval_switched_off_never_starts(settings):
    from lightsearch.errors import LightSearchError

    s = make_settings({**settings, "WEB_RETRIEVAL_ENABLED": False})
    with pytest.raises(LightSearchError) as info:
        await run_crawl(s, IdleSpider, 1.0)
    assert info.value.code == "disabled"
