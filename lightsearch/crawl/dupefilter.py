"""Drop a request this crawl has already scheduled, by its method, URL and body as they are.

The discovery spider keeps every URL it has asked for (by ``canonical_url``), so what reaches
the scheduler twice is a redirect to a page already read, or a sitemap named by both the
catalog and robots.txt. Scrapy's ``RFPDupeFilter`` fingerprints every request (canonical
URL, method, body, hashed), CPU spent on every request for a filter that finds nothing
the spider has not already kept out (docs/EVALUATION.md). A set of the URLs as requested
does the same work here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.dupefilters import BaseDupeFilter

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class UrlDupeFilter(BaseDupeFilter):
    def __init__(self, crawler: Crawler | None = None) -> None:
        self.crawler = crawler
        self.seen: set[tuple[str, str, bytes]] = set()

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def request_seen(self, request: Request) -> bool:
        key = (request.method, request.url, request.body)
        if key in self.seen:
            return True
        self.seen.add(key)
        return False

    def log(self, request: Request, spider: Spider) -> None:
        if self.crawler is not None:
            self.crawler.stats.inc_value("dupefilter/filtered")
