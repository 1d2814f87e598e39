"""The byte rule of a crawl, per request: none goes out once the encoded or decoded budget is
spent, and each response may use at most the per-response cap.

The budgets are counted where the bytes are: encoded bytes as they arrive
(crawl/extensions/encoded.py), decoded bytes around the decompression
(crawl/middlewares/decoded.py), both on the crawl's budget (crawl/budget.py). This
middleware refuses (``encoded_bytes`` / ``decoded_bytes``) a request once either is
spent, and gives it ``LIGHT_RESPONSE_MAX_BYTES`` as its ``download_maxsize``, which the
decompression middleware applies to the decoded size too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.crawl.budget import budget_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class ByteBudgetMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.budget = budget_of(crawler)
        self.response_max = crawler.settings.getint("LIGHT_RESPONSE_MAX_BYTES")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        spent = self.budget.bytes_spent()
        if spent is not None:
            self.budget.refuse(spent, request.url)
        request.meta["download_maxsize"] = min(request.meta.get("download_maxsize", self.response_max),
                                               self.response_max)
