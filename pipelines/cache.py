"""Item pipeline: keep completed documents in the process-wide record cache.

Only what may be reused goes in: not a partial download (usable evidence now, but
incomplete), not a record its origin marked ``no-store``/``private`` or that arrived
stale (``expires_at`` is None), and never a ``noindex`` page (the spider does not
yield those). The document in this search's ranking is the same either way: a
``no-store`` record fetched in this invocation stays usable in it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lightsearch.cache import load_cache

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from lightsearch.documents import Document

STORED = "light/cache/stored"
NOT_STORED = "light/cache/not_stored"


class RecordCachePipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.cache = load_cache(crawler.settings, "LIGHT_RECORD_CACHE")

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_item(self, item: Document) -> Document:
        if self.cache is None:
            return item
        stats = self.crawler.stats
        if item.partial or item.expires_at is None:
            stats.inc_value(NOT_STORED)
            stats.inc_value(f"{NOT_STORED}/{'partial' if item.partial else 'directives'}")
            return item
        if self.cache.put_document(item, item.expires_at):
            stats.inc_value(STORED)
        else:
            stats.inc_value(NOT_STORED)
        return item
