"""Count every HTTP hop and refuse the ones past the invocation's budget.

Sits closest to the downloader (order 950) so that a hop is counted only when a request
is really about to go out: robots.txt fetches and each redirect hop pass through here
too, while a request that robots.txt forbids is never counted. Past the soft deadline no
new hop starts; every hop gets a download timeout that cannot outlive the hard deadline.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import IgnoreRequest

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class BudgetExceeded(IgnoreRequest):
    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class HopBudgetMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        settings = crawler.settings
        self.max_hops = settings.getint("LIGHT_MAX_HOPS")
        self.soft_deadline = settings.getfloat("LIGHT_SOFT_DEADLINE_SECS")
        self.hard_deadline = settings.getfloat("LIGHT_DEADLINE_SECS")
        self.download_timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.hops = 0
        self.started = time.monotonic()
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _spider_opened(self, spider: Spider) -> None:
        self.started = getattr(spider, "started_monotonic", None) or time.monotonic()

    def _stop(self, reason: str, request: Request) -> None:
        stats = self.crawler.stats
        stats.inc_value(f"light/budget/refused/{reason}")
        if not stats.get_value("light/stop_reason"):
            stats.set_value("light/stop_reason", reason)
        raise BudgetExceeded(reason, f"{reason} budget reached before {request.url}")

    def process_request(self, request: Request) -> None:
        elapsed = time.monotonic() - self.started
        if elapsed >= self.soft_deadline:
            self._stop("soft_deadline", request)
        if self.hops >= self.max_hops:
            self._stop("hops", request)
        self.hops += 1
        self.crawler.stats.set_value("light/hops", self.hops)
        remaining = self.hard_deadline - elapsed
        request.meta["download_timeout"] = max(
            0.1, min(request.meta.get("download_timeout", self.download_timeout), remaining)
        )
