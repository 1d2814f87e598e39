"""Run one bounded crawl to its end: the only place a crawl is started, awaited and aborted.

Light searches and web_fetch both come through here, so the deadline, cancellation and
cleanup rules are written once: a crawl that outlives its deadline or whose caller is
cancelled is stopped, and its downloads with it, before the caller hears about it.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from scrapy.crawler import AsyncCrawlerRunner, Crawler
from scrapy.settings import Settings

from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.runtime import crawl_slot, ensure_reactor


class CrawlDeadline(Exception):
    """The crawl did not finish within its deadline; it has been stopped."""

    def __init__(self, crawler: Crawler, deadline: float) -> None:
        super().__init__(f"the crawl did not finish within {deadline:g} s")
        self.crawler = crawler
        self.deadline = deadline


class CrawlCancelled(Exception):
    """The caller was cancelled; the crawl has been stopped."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__("the crawl was cancelled by its caller")
        self.crawler = crawler


async def run_crawl(settings: Settings, spider_cls: type, deadline: float, **spider_kwargs: Any) -> Crawler:
    """Crawl with ``spider_cls`` until it closes; the finished crawler (stats, spider) is returned.

    Raises :class:`CrawlDeadline` or :class:`CrawlCancelled` after the crawl is stopped.
    """
    ensure_reactor()
    with crawl_slot():
        runner = AsyncCrawlerRunner(settings)
        crawler = runner.create_crawler(spider_cls)
        task = runner.crawl(crawler, **spider_kwargs)
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout=deadline)
        except asyncio.TimeoutError:
            await abort(crawler, task)
            raise CrawlDeadline(crawler, deadline) from None
        except asyncio.CancelledError:
            await abort(crawler, task)
            raise CrawlCancelled(crawler) from None
        return crawler


async def abort(crawler: Crawler, task: Any) -> None:
    """Stop the crawl and wait for it, so no connection or timer outlives the caller."""
    with contextlib.suppress(Exception):
        crawler.signals.send_catch_log(signal=light_signals.abort_requested)
    with contextlib.suppress(Exception):
        if getattr(crawler, "crawling", False):
            await crawler.stop_async()
    with contextlib.suppress(BaseException):
        await asyncio.wait_for(asyncio.shield(task), timeout=5)
