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

from lightsearch.crawl.budget import ENCODED, record_stop

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class EncodedByteBudget:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.max_encoded = crawler.settings.getint("LIGHT_MAX_ENCODED_BYTES")
        crawler.signals.connect(self._bytes_received, signal=signals.bytes_received)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def _bytes_received(self, data: bytes, request: Request, spider: Spider) -> None:
        stats = self.crawler.stats
        stats.inc_value(ENCODED, len(data))
        if stats.get_value(ENCODED, 0) >= self.max_encoded:
            record_stop(stats, "encoded_bytes")
            raise StopDownload(fail=False)
