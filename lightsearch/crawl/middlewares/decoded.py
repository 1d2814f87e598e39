"""Count decoded (decompressed) bytes against the crawl's decoded budget (crawl/budget.py).

Two halves around Scrapy's ``HttpCompressionMiddleware`` (order 590). Outside it (591),
a compressed response reserves its whole output allowance, because a decompression
that fails or is aborted (a bomb) never reports how much it produced. Inside it (580),
the body is decoded and the reservation is replaced by the real size. A failed
decompression therefore keeps its reservation, as the bounds prescribe.

The outer half also refuses a response that stacks more than ``LIGHT_RESPONSE_MAX_ENCODINGS``
content encodings (the HTTP limits policy, crawl/http_limits.py), before any layer is
decoded: Scrapy bounds each layer's output but not their number, and thousands of stacked
layers would each be decoded. The download handler makes the same check as soon as the
headers arrive, so this one matters only for responses from another handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.downloadermiddlewares.httpcompression import HttpCompressionMiddleware
from scrapy.exceptions import IgnoreRequest

from lightsearch.crawl.budget import budget_of
from lightsearch.crawl.failures import ResponseRefused
from lightsearch.crawl.http_limits import HttpLimits, refuse_stacked_encodings

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

_RESERVED = "light_decoded_reserved"
REFUSED = "light/transport/refused"


class _DecodedBase:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.budget = budget_of(crawler)
        self.response_max = crawler.settings.getint("LIGHT_RESPONSE_MAX_BYTES")
        self.max_encodings = HttpLimits.from_settings(crawler.settings).max_encodings

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)


class DecompressionReserveMiddleware(_DecodedBase):
    def process_response(self, request: Request, response: Response) -> Response:
        if "cached" in response.flags:
            return response
        codings = response.headers.getlist("Content-Encoding")
        if codings:
            try:
                refuse_stacked_encodings(codings, self.max_encodings)
            except ResponseRefused as exc:
                self.crawler.stats.inc_value(f"{REFUSED}/{exc.reason}")
                raise
        if codings and request.method != "HEAD":
            allowance = min(request.meta.get("download_maxsize", self.response_max), self.response_max)
            request.meta[_RESERVED] = allowance
            self.budget.add_decoded(allowance, reservation=True)
        return response


class DecodedBytesMiddleware(_DecodedBase):
    def process_response(self, request: Request, response: Response) -> Response:
        if "cached" in response.flags:
            return response  # served from memory: nothing was decoded for this search
        reserved = request.meta.pop(_RESERVED, 0)
        self.budget.add_decoded(len(response.body) - reserved)
        return response


class BoundedDecompressionMiddleware(HttpCompressionMiddleware):
    """Scrapy's decompression, whose refusal of an output over ``DOWNLOAD_MAXSIZE`` (a bomb)
    is a typed ``too_large`` with reason ``decoded_bytes`` instead of a bare IgnoreRequest.

    In Scrapy 2.19 ``HttpCompressionMiddleware.process_response`` raises IgnoreRequest
    for that one case only, so no message has to be read to name it.
    """

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        middleware = super().from_crawler(crawler)
        middleware.default_max = crawler.settings.getint("DOWNLOAD_MAXSIZE")
        return middleware

    def process_response(self, request: Request, response: Response, spider: object = None) -> Response:
        try:
            return super().process_response(request, response)
        except IgnoreRequest as exc:
            limit = request.meta.get("download_maxsize", self.default_max)
            if self.stats is not None:
                self.stats.inc_value(f"{REFUSED}/decoded_bytes")
            raise ResponseRefused("too_large", f"the decompressed response is larger than {limit} bytes",
                                  reason="decoded_bytes", limit=limit) from exc
