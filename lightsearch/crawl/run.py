"""Run one bounded crawl to its end: the only place a crawl is started, awaited and aborted.

Light searches and web_fetch both come through here, so the deadline, cancellation and
cleanup rules are written once: a crawl that outlives its deadline or whose caller is
cancelled is stopped, and its downloads with it, before the caller hears about it. Each
crawl is a crawler of its own (:class:`~lightsearch.crawl.runtime.EmbeddedCrawler`) on the
process's one reactor, beside any other: an embedding app's spiders run on it too.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from scrapy import signals
from scrapy.crawler import Crawler
from scrapy.settings import Settings

from lightsearch.config import check_retrieval
from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.budget import attach_budget, budget_of
from lightsearch.crawl.outcome import CrawlOutcome
from lightsearch.crawl.runtime import EmbeddedCrawler, crawl_slot, ensure_reactor
from lightsearch.errors import LightSearchError
from lightsearch.plan.frontier import CrawlFrontier, Frontier, attach


class CrawlDeadline(Exception):
    """The crawl did not finish within its deadline; it has been stopped."""

    def __init__(self, outcome: CrawlOutcome, deadline: float) -> None:
        super().__init__(f"the crawl did not finish within {deadline:g} s")
        self.outcome = outcome
        self.deadline = deadline


class CrawlCancelled(Exception):
    """The caller was cancelled; the crawl has been stopped."""

    def __init__(self, outcome: CrawlOutcome) -> None:
        super().__init__("the crawl was cancelled by its caller")
        self.outcome = outcome


async def run_crawl(settings: Settings, spider_cls: type, deadline: float, *, frontier: Frontier | None = None,
                    **spider_kwargs: Any) -> CrawlOutcome:
    """Crawl with ``spider_cls`` until it closes and return what it produced.

    ``frontier`` is the search's candidate state (plan/frontier.py): the spider gets it
    as its ``frontier`` argument and the components through the crawler. A crawl without
    one gets a plain :class:`CrawlFrontier` (its budgets' clock starts now), which its
    spider never sees.

    Items, consulted sources and source errors are collected from the crawler's signals
    as they happen, so a crawl stopped at its deadline still reports what it had (on
    :class:`CrawlDeadline` / :class:`CrawlCancelled`, raised after the crawl is stopped).
    The frontier's ``lane`` (the search's place in the worker pool, lightsearch/isolation)
    is closed first then, so no extraction keeps the crawl open.
    """
    check_retrieval(settings)  # below every surface: no crawl starts with the switch off
    ensure_reactor()
    with crawl_slot():
        outcome, ending = await _crawl(settings, spider_cls, deadline, frontier, spider_kwargs)
    # Raised here, from a frame that holds no crawler: an exception keeps the frames it
    # passed through (and their locals) for as long as anyone keeps the exception.
    if ending == "deadline":
        raise CrawlDeadline(outcome, deadline)
    if ending == "cancelled":
        raise CrawlCancelled(outcome)
    return outcome


async def _crawl(settings: Settings, spider_cls: type, deadline: float, frontier: Frontier | None,
                 spider_kwargs: dict[str, Any]) -> tuple[CrawlOutcome, str]:
    """Run the crawl; its outcome and how it ended (``completed``, ``deadline``,
    ``cancelled``), the crawl stopped in every case."""
    # A Crawler of its own, not one through an AsyncCrawlerRunner: a runner builds a
    # spider loader from a frozen deep copy of the settings, a second copy per search
    # for a lookup by spider name that never happens here.
    crawler = EmbeddedCrawler(spider_cls, settings)
    if frontier is not None:
        spider_kwargs["frontier"] = frontier
    else:
        frontier = CrawlFrontier()
    attach(crawler, frontier)
    attach_budget(crawler)
    collector = _Collector(crawler)
    task = asyncio.ensure_future(crawler.crawl_async(**spider_kwargs))
    lane = frontier.lane
    ending = "completed"
    try:
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=deadline)
        except asyncio.TimeoutError:
            ending = "deadline"
            if lane is not None:
                lane.close(LightSearchError("timeout", f"the crawl's deadline ({deadline:g} s) passed",
                                            {"reason": "deadline"}))
        except asyncio.CancelledError:
            ending = "cancelled"
            if lane is not None:
                lane.close()
        if ending != "completed":
            await abort(crawler, task)
    finally:
        collector.detach()
    return _finish(crawler, collector.outcome), ending


class _Collector:
    """Fills a crawl's outcome from its signals, and lets go of the crawl when asked.

    pydispatcher keeps every receiver in a module-wide table under its sender (the
    crawler) until the sender is collected. A receiver held strongly there, holding the
    outcome, would hold the items, a fetch's response, its request, the request's
    callback, the spider and so the crawler itself: the sender could never be collected
    and each crawl would stay in memory for the life of the process. So the receivers are
    this object's bound methods, held weakly (the caller's frame keeps the collector for
    the crawl), and :meth:`detach` disconnects them as soon as the crawl is over.
    """

    def __init__(self, crawler: Crawler) -> None:
        self.outcome = CrawlOutcome()
        self._signals = crawler.signals
        self._receivers = ((self.item_scraped, signals.item_scraped),
                           (self.source_consulted, light_signals.source_consulted),
                           (self.source_failed, light_signals.source_failed),
                           (self.discovery_read, light_signals.discovery_read),
                           (self.spider_closed, signals.spider_closed))
        for receiver, signal in self._receivers:
            self._signals.connect(receiver, signal=signal)

    def item_scraped(self, item: Any, **_: Any) -> None:
        self.outcome.items.append(item)

    def source_consulted(self, source_id: str, **_: Any) -> None:
        self.outcome.consulted.add(source_id)

    def source_failed(self, error: dict[str, Any], **_: Any) -> None:
        self.outcome.source_errors.append(error)

    def discovery_read(self, read: dict[str, Any], **_: Any) -> None:
        self.outcome.read.append(read)

    def spider_closed(self, reason: str, **_: Any) -> None:
        self.outcome.close_reason = reason

    def detach(self) -> None:
        for receiver, signal in self._receivers:
            with contextlib.suppress(Exception):
                self._signals.disconnect(receiver, signal=signal)
        self._receivers = ()


def _finish(crawler: Crawler, outcome: CrawlOutcome) -> CrawlOutcome:
    stats = getattr(crawler, "stats", None)
    outcome.stats = dict(stats.get_stats()) if stats is not None else {}
    outcome.spent = budget_of(crawler).spent()
    return outcome


async def abort(crawler: Crawler, task: Any) -> None:
    """Stop the crawl and wait for it, so no connection or timer outlives the caller."""
    with contextlib.suppress(Exception):
        crawler.signals.send_catch_log(signal=light_signals.abort_requested)
    with contextlib.suppress(Exception):
        if getattr(crawler, "crawling", False):
            await crawler.stop_async()
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(asyncio.shield(task), timeout=5)
