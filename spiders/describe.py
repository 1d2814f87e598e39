"""The describe spider: read one source's discovery documents to describe what it publishes.

``lightsearch sources describe`` runs it once per catalog source and writes what it
yields into a summary file (cache/descriptions.py) that processes load when they start.
It reads what a search's discovery reads and nothing else: robots.txt (through the robots
middleware, as every hop), the catalog's feeds, seed and sitemap pages, the sitemaps
robots.txt names, the child sitemaps of an index, the feed a seed page declares, a few
navigation hubs and the listing pages their pagination leads to, up to ``max_documents``
documents. It never reads an article: a description is built from the titles, slugs and
summaries discovery documents carry, never from a page's body.

Every document is parsed as a search's discovery parses it (lightsearch/isolation/apart.py:
a small page or sitemap here by a parser whose work is capped, anything larger, and
every feed, in a worker of the pool, in the spider's own lane).

Each document read is one item: ``{"source_id", "description", "via"}`` (how the document
was found: ``catalog``, ``robots.txt``, ``sitemap index``, ``declared by the home page``,
``pagination``, ``navigation``), and a seed page's also ``"page"``: its language and title
(``lightsearch sources add`` writes them into a catalog entry, with this evidence). A
document that cannot be read is a source error, as in a search.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from scrapy import Request, Spider, signals
from scrapy.http import TextResponse

from lightsearch.cache.descriptions import describe
from lightsearch.cache.parsed import lookup, remember
from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.budget import BudgetExceeded
from lightsearch.crawl.failures import classify
from lightsearch.documents.directives import page_directives
from lightsearch.documents.discovered_links import absolute_url, looks_like_page
from lightsearch.documents.urlkey import canonical_url
from lightsearch.errors import LightSearchError
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.apart import parse_apart
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.candidates import entry_terms
from lightsearch.plan.catalog import Source, origin_of
from lightsearch.ranking.tokenize import is_hebrew

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from lightsearch.documents.pagescan import PageScan

_MAX_FEED_ENTRIES = 200
_MAX_SITEMAP_URLS = 50_000
_MAX_HUBS = 3
# Read in this order: a sitemap names the most for one hop, then feeds, seed, listings.
_PRIORITY = {"sitemap": 60, "feed": 50, "seed": 40, "listing": 20}


def page_facts(response: TextResponse, scan: PageScan) -> dict[str, str | None]:
    """A seed page's declared language and its site's name, as the page states them."""
    lang = scan.language
    language = lang.split("-")[0].split("_")[0].lower() if lang else None
    via = "html lang" if lang else None
    if language is None:
        language, via = ("he" if is_hebrew(scan.text) else "en"), "script of the page text"
    return {"language": language, "languageVia": via, "name": scan.name}


class DescribeSpider(Spider):
    name = "light_describe"
    custom_settings = {"ITEM_PIPELINES": {}}

    def __init__(self, source: Source, max_documents: int = 96, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.source = source
        self.max_documents = max_documents
        self.requested: set[str] = set()
        self.hubs = 0

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> DescribeSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.max_response = crawler.settings.getint("LIGHT_RESPONSE_MAX_BYTES")
        spider.agents = frozenset(
            a.lower() for a in (crawler.settings.get("ROBOTSTXT_USER_AGENT"), crawler.settings.get("BOT_NAME")) if a
        )
        crawler.signals.connect(spider._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(spider._closed, signal=signals.spider_closed)
        spider.lane = Lane(crawler.settings, name="describe")
        return spider

    def _closed(self, spider: Spider) -> None:
        self.lane.close()

    async def start(self) -> AsyncIterator[Request]:
        source = self.source
        for stage, urls in (("sitemap", source.sitemaps), ("feed", source.feeds), ("seed", source.seeds)):
            for url in urls:
                req = self._request(url, stage, via="catalog")
                if req is not None:
                    yield req

    def _request(self, url: str, stage: str, priority: int | None = None, *, via: str) -> Request | None:
        key = canonical_url(url)
        if key in self.requested or len(self.requested) >= self.max_documents or not self.source.admits(url):
            return None
        self.requested.add(key)
        callback = {"sitemap": self.parse_sitemap, "feed": self.parse_feed}.get(stage, self.parse_page)
        try:
            return Request(url, callback=callback, errback=self.on_error,
                           priority=_PRIORITY[stage] if priority is None else priority,
                           meta={"source_id": self.source.id, "stage": stage, "depth": 0, "via": via})
        except ValueError:
            return None

    def _item(self, response: Response, kind: str, rows: list[Any], children: list[str] | None = None,
              terms: Any = None) -> dict[str, Any]:
        self.crawler.signals.send_catch_log(light_signals.source_consulted, source_id=self.source.id)
        return {"source_id": self.source.id, "via": response.meta.get("via", "catalog"),
                "description": describe(response.url, kind, rows, children=children or (), terms=terms)}

    # ------------------------------------------------------------------ parsers
    async def _read(self, response: Response, kind: str, task: Any, *args: Any, here: bool = True) -> Any:
        """``task(*args)`` for this body (here when it is small, in a worker otherwise), or
        what it returned for the same body before; None (and a source error) when it
        cannot be read."""
        url, body = response.url, response.body
        value = lookup(kind, url, body)
        if value is None:
            try:
                value = await parse_apart(self.lane, task, *args, size=len(body) if here else None,
                                          what=f"the {kind.split(':')[0]} {url}")
            except LightSearchError as exc:
                self._error(url, response.meta.get("stage", kind), exc.code, exc.message)
                return None
            remember(kind, url, body, value)
        return value

    async def parse_sitemap(self, response: Response):
        sitemap = await self._read(response, "sitemap", isolated.sitemap, response.body, response.url,
                                   self.max_response, _MAX_SITEMAP_URLS)
        if sitemap is None:
            return []
        out: list[Any] = []
        if sitemap.type == "sitemapindex":
            children = [e.loc for e in sitemap.entries if self.source.admits(e.loc)]
            out.append(self._item(response, "index", [], children))
            # the newest children first: a site adds to its newest sitemap
            for n, entry in enumerate(sorted(sitemap.entries, key=lambda e: e.lastmod or "", reverse=True)):
                req = self._request(entry.loc, "sitemap", _PRIORITY["sitemap"] - 1 - n, via="sitemap index")
                if req is not None:
                    out.append(req)
            return out
        # only the entries the description samples are read (a sitemap may name 50,000)
        return [self._item(response, "sitemap", sitemap.entries, terms=lambda e: entry_terms((), e.loc))]

    async def parse_feed(self, response: Response):
        feed = await self._read(response, "feed", isolated.feed, response.body, _MAX_FEED_ENTRIES, here=False)
        if feed is None:
            return []
        rows = []
        for entry in feed.entries:
            url = absolute_url(response.url, entry.link)
            if url is not None:
                rows.append(entry_terms([entry.title, entry.summary], url))
        return [self._item(response, "feed", rows)]

    async def parse_page(self, response: Response):
        stage = response.meta["stage"]
        if not isinstance(response, TextResponse) or b"html" not in response.headers.get(b"Content-Type", b"").lower():
            self._error(response.url, stage, "unsupported_content_type", "not an HTML page")
            return []
        scan = await self._read(response, f"page-scan:{','.join(sorted(self.agents))}", isolated.page,
                                response.text, response.url, self.agents)
        return [] if scan is None else list(self._parse_page(response, scan))

    def _parse_page(self, response: TextResponse, scan: PageScan):
        stage = response.meta["stage"]
        directives = page_directives(response, self.agents, meta=scan.metas)
        links = scan.links
        source = self.source
        rows = [entry_terms([link.anchor, link.title], link.url) for link in links.links
                if not link.in_nav and source.admits(link.url) and looks_like_page(link.url)]
        item = self._item(response, "seed" if stage == "seed" else "listing", rows)
        if stage == "seed":
            item["page"] = page_facts(response, scan)
        yield item
        if directives.nofollow:
            return
        if stage == "seed" and not source.feeds:
            for url in links.feeds[:2]:
                req = self._request(url, "feed", via="declared by the home page")
                if req is not None:
                    yield req
        nxt = absolute_url(response.url, scan.next_href) if scan.next_href else None
        if nxt is not None:
            req = self._request(nxt, "listing", via="pagination")
            if req is not None:
                yield req
        if stage == "seed":
            for link in links.links:
                if self.hubs >= _MAX_HUBS:
                    break
                if link.in_nav and not link.nofollow and looks_like_page(link.url) \
                        and canonical_url(link.url) != canonical_url(response.url):
                    req = self._request(link.url, "listing", _PRIORITY["listing"] + 1, via="navigation")
                    if req is not None:
                        self.hubs += 1
                        yield req

    # ------------------------------------------------------------------ robots, errors
    def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        if origin_of(request.url) not in self.source.origins or self.source.sitemaps:
            return
        for raw in list(getattr(getattr(robotparser, "rp", None), "sitemaps", []) or [])[:4]:
            url = absolute_url(request.url, raw)
            req = self._request(url, "sitemap", via="robots.txt") if url else None
            if req is not None:
                self.crawler.engine.crawl(req)

    def _error(self, url: str, stage: str, code: str, message: str = "") -> None:
        light_signals.report_source_error(self.crawler, self.source.id, url, stage, code, message[:200])

    def on_error(self, failure: Failure) -> None:
        request = failure.request
        if isinstance(failure.value, BudgetExceeded):
            return  # the build's own limit, not the source's fault
        named = classify(failure.value)
        self._error(request.url, request.meta.get("stage", "page"), named.source_code, named.message)
