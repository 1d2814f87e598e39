"""Item pipeline: a fetched HTML page becomes a :class:`~lightsearch.documents.Document`.

Extraction is the CPU hot spot of a search (15-20 ms a page with trafilatura), so it
runs in a worker thread and the reactor keeps downloading meanwhile. A page the
extractor cannot read at all is a source error of the search (``extraction_failed``),
not a log line: the agent sees which page was lost and why.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from scrapy.exceptions import DropItem

from lightsearch.documents import Document
from lightsearch.documents.extract import ExtractionError, extract_html
from lightsearch.ranking.tokenize import tokenize

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


def build_document(item: dict[str, Any]) -> Document | None:
    fields = extract_html(item["html"], item["url"])
    text = fields["text"] or ""
    if not text.strip():
        return None
    doc = Document(
        url=item["url"],
        source_id=item["source_id"],
        title=fields["title"] or item["url"],
        text=text,
        retrieved_at=item["retrieved_at"],
        language=fields["language"],
        published_at=fields["published_at"],
        modified_at=fields["modified_at"],
        original_url=item.get("original_url"),
        status=item.get("status", 200),
        partial=bool(item.get("partial")),
        discovered_via=item.get("stage", "page"),
        expires_at=item.get("expires_at"),
    )
    doc.tokens = tokenize(f"{doc.title}\n{doc.text}")
    return doc


class ExtractionPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_item(self, item: dict[str, Any]) -> Document:
        try:
            doc = await asyncio.to_thread(build_document, item)
        except ExtractionError as exc:
            self.crawler.stats.inc_value("light/extract/failed")
            record = getattr(self.crawler.spider, "record_error", None)
            if record is not None:
                record(item.get("source_id", ""), item["url"], item.get("stage", "page"), exc.code, exc.message)
            raise DropItem(f"extraction failed for {item['url']}") from None
        if doc is None:
            self.crawler.stats.inc_value("light/extract/empty")
            raise DropItem(f"no main text in {item['url']}")
        self.crawler.stats.inc_value("light/extract/documents")
        return doc
