"""Item pipeline: rank every usable document of the invocation with BM25.

Documents arrive one by one during the crawl; ranking needs them all (BM25's statistics
are over the whole retrieved corpus), so it runs when the spider closes. Each query is
ranked separately and the rankings are fused, so that five queries weigh alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy import signals

from lightsearch.cache import load_cache
from lightsearch.ranking.rank import rank_documents

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

    from lightsearch.documents import Document


class RankingPipeline:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.documents: list[Document] = []
        crawler.signals.connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_item(self, item: Document) -> Document:
        self.documents.append(item)
        return item

    def cached_documents(self) -> list[Document]:
        """Fresh completed records of earlier searches join this one's evidence (seed 000:
        "source IDs may include fresh cached evidence"); the cache drops expired records
        as it lists them, so an expired record never reaches result assembly."""
        cache = load_cache(self.crawler.settings, "LIGHT_RECORD_CACHE")
        if cache is None:
            return []
        seen = {doc.url for doc in self.documents}
        joined = [doc for doc in cache.documents() if doc.url not in seen]
        self.crawler.stats.set_value("light/cache/joined", len(joined))
        return joined

    def _spider_closed(self, spider: Spider, reason: str) -> None:
        plan: Any = getattr(spider, "plan", None)
        spider.documents = list(self.documents)
        if plan is None:
            return
        cached = self.cached_documents()
        spider.cached_documents = cached
        snippet_chars = self.crawler.settings.getint("LIGHT_SNIPPET_CHARS")
        spider.ranking = rank_documents(self.documents + cached, plan.queries, snippet_chars=snippet_chars)
