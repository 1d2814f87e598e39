"""The hop rule of a crawl: at most ``LIGHT_MAX_HOPS`` requests on the wire, robots.txt and
every redirect included.

The hop is counted where it happens, in the download handler (crawl/transport.py), on the
crawl's budget (crawl/budget.py), right before bytes go out: a request waits in Scrapy's
download slots after the middlewares saw it. This middleware refuses (``hops``), before it
queues, a request the handler would refuse anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.crawl.budget import budget_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class HopBudgetMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.budget = budget_of(crawler)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if self.budget.hops_spent():
            self.budget.refuse("hops", request.url)
