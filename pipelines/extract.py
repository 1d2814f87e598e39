"""Item pipeline: a fetched HTML page becomes a :class:`~lightsearch.documents.Document`.

Extraction is the CPU hot spot of a search (and a hostile page can take far longer than
a real one), so it runs in the worker pool (lightsearch/isolation:
:func:`~lightsearch.isolation.tasks.light_document`), in the search's lane, and the
reactor keeps downloading meanwhile. A page the extractor cannot read at all, or not
within its time or memory limit, is a source error of the search (``extraction_failed``,
``timeout``, ``too_large``), not a log line: the agent sees which page was lost and why.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import DropItem

from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.budget import budget_of
from lightsearch.documents import Document
from lightsearch.errors import LightSearchError
from lightsearch.isolation.lanes import Lane
from lightsearch.isolation.tasks import light_document
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)

# What the worker needs of an item (the rest, e.g. discovery hints, stays here).
WORKER_FIELDS = ("html", "url", "source_id", "retrieved_at", "original_url", "status", "partial", "stage",
                 "expires_at")


class ExtractionPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self._lane: Lane | None = None

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def lane(self) -> Lane:
        """The search's lane (its frontier's), or one of this crawl's own."""
        frontier = frontier_of(self.crawler)
        lane = frontier.lane
        if lane is None:
            if self._lane is None:
                self._lane = Lane(self.crawler.settings, name="extraction", client=frontier.client)
            lane = self._lane
        return lane

    async def process_item(self, item: dict[str, Any]) -> Document:
        payload = {key: item[key] for key in WORKER_FIELDS if key in item}
        try:
            doc = await self.lane().run(light_document, payload, what=f"the page {item['url']}")
        except LightSearchError as exc:
            stats = self.crawler.stats
            stats.inc_value("light/extract/failed")
            if exc.details.get("reason") == "deadline":
                budget_of(self.crawler).stop("deadline")  # the search's time ran out while it was read
            elif exc.details.get("reason"):
                stats.inc_value(f"light/extract/{exc.details['reason']}")
            self._lost(item, exc)
            raise DropItem(f"extraction failed for {item['url']}") from None
        if doc is None:
            self.crawler.stats.inc_value("light/extract/empty")
            raise DropItem(f"no main text in {item['url']}")
        self.crawler.stats.inc_value("light/extract/documents")
        return doc

    def _lost(self, item: dict[str, Any], exc: LightSearchError) -> None:
        """A page of one of the search's sources that could not be read is that source's
        error, reported like the spider's own (``source_failed``)."""
        source_id = item.get("source_id", "")
        if frontier_of(self.crawler).source(source_id) is None:
            return
        light_signals.report_source_error(self.crawler, source_id, item["url"], item.get("stage", "page"), exc.code,
                                          exc.message)
