"""Refuse any HTTP hop past the invocation's budgets.

Sits closest to the downloader (order 950) so that a hop is counted only when a request
is really about to go out: robots.txt fetches and each redirect hop pass through here
too, while a request that robots.txt forbids is never counted. No hop starts after the
soft deadline or once a byte budget is spent; every hop gets a download timeout that
cannot outlive the hard deadline.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import IgnoreRequest

from lightsearch.budget import DECODED, ENCODED, HOPS, record_stop

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
        self.max_encoded = settings.getint("LIGHT_MAX_ENCODED_BYTES")
        self.max_decoded = settings.getint("LIGHT_MAX_DECODED_BYTES")
        self.soft_deadline = settings.getfloat("LIGHT_SOFT_DEADLINE_SECS")
        self.hard_deadline = settings.getfloat("LIGHT_DEADLINE_SECS")
        self.download_timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.response_max = settings.getint("LIGHT_RESPONSE_MAX_BYTES")
        self.hops = 0
        self.started = time.monotonic()
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _spider_opened(self, spider: Spider) -> None:
        self.started = getattr(spider, "started_monotonic", None) or time.monotonic()

    def _refuse(self, reason: str, request: Request) -> None:
        record_stop(self.crawler.stats, reason)
        raise BudgetExceeded(reason, f"{reason} budget reached before {request.url}")

    def process_request(self, request: Request) -> None:
        stats = self.crawler.stats
        elapsed = time.monotonic() - self.started
        if elapsed >= self.soft_deadline:
            self._refuse("soft_deadline", request)
        if self.hops >= self.max_hops:
            self._refuse("hops", request)
        if stats.get_value(ENCODED, 0) >= self.max_encoded:
            self._refuse("encoded_bytes", request)
        if stats.get_value(DECODED, 0) >= self.max_decoded:
            self._refuse("decoded_bytes", request)
        self.hops += 1
        stats.set_value(HOPS, self.hops)
        remaining = self.hard_deadline - elapsed
        request.meta["download_timeout"] = max(
            0.1, min(request.meta.get("download_timeout", self.download_timeout), remaining)
        )
        # One response may use the per-response cap, encoded and decoded alike (the
        # compression middleware applies the same meta key to the decompressed size).
        request.meta["download_maxsize"] = min(
            request.meta.get("download_maxsize", self.response_max), self.response_max
        )
