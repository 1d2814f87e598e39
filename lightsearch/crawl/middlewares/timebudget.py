"""The deadline rule of a crawl: no hop starts after the soft deadline, and no download
outlives the hard one.

A request past ``LIGHT_SOFT_DEADLINE_SECS`` is refused before it queues (``soft_deadline``;
the download handler refuses one that queued before it, on the same budget,
crawl/budget.py). Every hop's download timeout ends just after ``LIGHT_DEADLINE_SECS``, so
the crawl runner and the query controller, not a download timeout, decide that the search
failed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.crawl.budget import budget_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class DeadlineMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.budget = budget_of(crawler)
        self.download_timeout = crawler.settings.getfloat("DOWNLOAD_TIMEOUT")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if self.budget.past_soft_deadline():
            self.budget.refuse("soft_deadline", request.url)
        request.meta["download_timeout"] = max(
            0.1, min(request.meta.get("download_timeout", self.download_timeout), self.budget.remaining() + 1.0)
        )
