"""Count encoded response bytes as they arrive on the wire.

``bytes_received`` fires per chunk in every built-in HTTP handler, before any content
decoding, so the sum is what the origin actually sent us (robots.txt included).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy import signals

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class EncodedBytesCounter:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _bytes_received(self, data: bytes, request: Request, spider: Spider) -> None:
        self.crawler.stats.inc_value("light/bytes/encoded", len(data))
