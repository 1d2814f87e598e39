"""Count decoded (decompressed) bytes against the invocation's decoded budget.

Two halves around Scrapy's ``HttpCompressionMiddleware`` (order 590). Outside it (591),
a compressed response reserves its whole output allowance, because a decompression
that fails or is aborted (a bomb) never reports how much it produced. Inside it (580),
the body is decoded and the reservation is replaced by the real size. A failed
decompression therefore keeps its reservation, as seed 000 prescribes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.crawl.budget import DECODED, record_stop

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

_RESERVED = "light_decoded_reserved"


class _DecodedBase:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.response_max = crawler.settings.getint("LIGHT_RESPONSE_MAX_BYTES")
        self.max_decoded = crawler.settings.getint("LIGHT_MAX_DECODED_BYTES")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)


class DecompressionReserveMiddleware(_DecodedBase):
    def process_response(self, request: Request, response: Response) -> Response:
        if "cached" in response.flags:
            return response
        if response.headers.getlist("Content-Encoding") and request.method != "HEAD":
            allowance = min(request.meta.get("download_maxsize", self.response_max), self.response_max)
            request.meta[_RESERVED] = allowance
            self.crawler.stats.inc_value(DECODED, allowance)
        return response


class DecodedBytesMiddleware(_DecodedBase):
    def process_response(self, request: Request, response: Response) -> Response:
        if "cached" in response.flags:
            return response  # served from memory: nothing was decoded for this search
        stats = self.crawler.stats
        reserved = request.meta.pop(_RESERVED, 0)
        stats.inc_value(DECODED, len(response.body) - reserved)
        if stats.get_value(DECODED, 0) >= self.max_decoded:
            record_stop(stats, "decoded_bytes")
        return response
