"""The noindex rule of a search: a page whose robots directives say ``noindex`` (or
``none``, or an ``unavailable_after`` date that has passed) is read for its links but
never becomes evidence, fetched now or cached for later.

A spider middleware: the discovery spider reads the directives (documents/directives.py,
from the page's meta tags and ``X-Robots-Tag`` headers) while it reads the page, and marks
the response (``meta["noindex"]``); this middleware drops that response's items before
they reach the pipelines (extraction and the record cache), and counts the page
(``light/directives/noindex``). The page's requests (its links, unless ``nofollow``) go on.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterable
from typing import TYPE_CHECKING, Any

from scrapy import Request

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

NOINDEX = "noindex"  # the response meta key the spider sets
COUNT = "light/directives/noindex"


class NoindexMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.stats = crawler.stats

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_spider_output(self, response: Response, result: Iterable[Any]) -> Iterable[Any]:
        if not response.meta.get(NOINDEX):
            yield from result
            return
        self.stats.inc_value(COUNT)
        yield from (out for out in result if isinstance(out, Request))

    async def process_spider_output_async(self, response: Response, result: AsyncIterator[Any]) -> AsyncIterator[Any]:
        noindex = bool(response.meta.get(NOINDEX))
        if noindex:
            self.stats.inc_value(COUNT)
        async for out in result:
            if not noindex or isinstance(out, Request):
                yield out
