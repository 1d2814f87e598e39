"""Count decoded (decompressed) response bytes.

Order 580 is just inside ``HttpCompressionMiddleware`` (590), so ``process_response``
here sees the body after content decoding; the encoded side is counted from the wire by
:class:`lightsearch.extensions.bytebudget.EncodedBytesCounter`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self


class DecodedBytesMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        self.crawler.stats.inc_value("light/bytes/decoded", len(response.body))
        return response
