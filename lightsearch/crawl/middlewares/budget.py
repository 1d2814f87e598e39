"""Refuse hops past the invocation's budgets early, and bound each download in time.

The authoritative hop count is claimed in the download handler (on the crawl's
:class:`~lightsearch.crawl.budget.CrawlBudget`), right before a request goes on the wire; this
middleware refuses, before they queue, requests that the budget would refuse anyway, and
gives every hop a download timeout that ends just after the hard deadline (so the query
controller, not a timeout, decides the search failed) and the per-response size cap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.crawl.budget import BudgetExceeded, budget_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self

__all__ = ["BudgetExceeded", "HopBudgetMiddleware"]


class HopBudgetMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        settings = crawler.settings
        self.budget = budget_of(crawler)
        self.download_timeout = settings.getfloat("DOWNLOAD_TIMEOUT")
        self.response_max = settings.getint("LIGHT_RESPONSE_MAX_BYTES")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        self.budget.check(request.url)
        remaining = self.budget.remaining()
        request.meta["download_timeout"] = max(
            0.1, min(request.meta.get("download_timeout", self.download_timeout), remaining + 1.0)
        )
        # One response may use the per-response cap, encoded and decoded alike (the
        # compression middleware applies the same meta key to the decompressed size).
        request.meta["download_maxsize"] = min(
            request.meta.get("download_maxsize", self.response_max), self.response_max
        )
