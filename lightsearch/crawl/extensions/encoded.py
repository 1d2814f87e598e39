"""The aggregate encoded-byte budget, enforced as bytes arrive on the wire.

``bytes_received`` fires per chunk in every built-in HTTP handler, before any content
decoding, so the running sum is what origins actually sent (robots.txt included). When
the sum reaches the budget the transfer in progress is stopped but kept
(``StopDownload(fail=False)``): what was retrieved before the stop is still evidence, a
partial document that is never cached.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.exceptions import StopDownload

from lightsearch.crawl.budget import budget_of

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class EncodedByteBudget:
    def __init__(self, crawler: Crawler) -> None:
        self.budget = budget_of(crawler)
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _bytes_received(self, data: bytes, request: Request, spider: Spider) -> None:
        if self.budget.add_encoded(len(data)):
            raise StopDownload(fail=False)
