"""The discovery spider: one bounded crawl over the sources selected for one search.

It reads what each source publishes about itself (lookup pages, feeds, sitemaps, seed
pages, and the sitemaps its robots.txt names), turns every link it learns of into a
candidate scored lexically against the queries (in the search's frontier,
plan/frontier.py, which the scheduler reads too), and fetches the best candidates within
the hop budget. Fetched pages go to the lightsearch.pipelines as items; everything that went wrong
is kept per source, because an agent needs to know what was not consulted and why.

Every document is attacker-controlled. A feed, sitemap or page that cannot be read is a
source error with a code (and its source does not count as consulted for it); one bad
entry or link inside a readable document is dropped and counted
(``light/feeds/entries_dropped``, ``light/sitemaps/entries_dropped``,
``light/links/dropped``), and costs nothing else.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from scrapy import Request, Spider, signals
from scrapy.http import TextResponse
from scrapy.spidermiddlewares.httperror import HttpError

from lightsearch.cache import load_cache
from lightsearch.cache.descriptions import describe
from lightsearch.cache.freshness import freshness
from lightsearch.cache.parsed import lookup, parsed, remember
from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.budget import BudgetExceeded, budget_of
from lightsearch.crawl.failures import CodedRefusal, classify
from lightsearch.crawl.middlewares.noindex import NOINDEX
from lightsearch.documents.directives import page_directives
from lightsearch.documents.discovered_links import Link, absolute_url, looks_like_page, score_text
from lightsearch.documents.urlkey import canonical_url
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.apart import parse_apart
from lightsearch.isolation.lanes import Lane
from lightsearch.isolation.turns import in_turns
from lightsearch.plan.candidates import entry_terms
from lightsearch.plan.catalog import Source, origin_of
from lightsearch.plan.crawlplan import DescribedReads
from lightsearch.plan.discovery_pages import DiscoveryPages
from lightsearch.plan.frontier import SearchFrontier
from lightsearch.ranking.tokenize import tokenize
from lightsearch.spiders.lookups import lookup_titles
from lightsearch.timestamps import utc_stamp

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure

    from lightsearch.documents.feeds import Feed
    from lightsearch.documents.pagescan import PageScan
    from lightsearch.documents.sitemaps import SitemapDocument

# Base priorities: higher is fetched first. A candidate page scores 30..100 by relevance,
# so a strong candidate overtakes the remaining discovery documents of other sources.
PRIORITY = {"lookup": 95, "feed": 75, "seed": 70, "sitemap": 45, "secondary": 25, "explore": 30, "listing": 29}
FEED_ENTRIES_DROPPED = "light/feeds/entries_dropped"
SITEMAP_ENTRIES_DROPPED = "light/sitemaps/entries_dropped"
LINKS_DROPPED = "light/links/dropped"
UNREADABLE = "light/discovery/unreadable"  # documents that are a source error of their own
_MAX_EXPLORE_PER_SOURCE = 3
_MAX_ROBOTS_SITEMAPS = 64  # sitemaps of one robots.txt considered (the allowance reads fewer)
SKIPPED = "light/discovery/skipped_described"
_MAX_FEED_ENTRIES = 200
# A sitemap's entries read, as a page's links (documents/pagescan.py MAX_PAGE_LINKS): each
# is scored in this process (tens of microseconds apiece), and the frontier keeps the best
# 256 candidates of a search anyway; a real sitemap within the response limit holds a few
# thousand. The entries past it are counted in sitemapEntriesDropped.
_MAX_SITEMAP_URLS = 2_000


# Discovery stages and the kinds of document description they read and write.
_KIND_OF_STAGE = {"seed": "seed", "explore": "listing", "listing": "listing"}
_DESCRIBED_STAGES = frozenset(["feed", "seed", "explore", "listing", "sitemap"])




@dataclass(frozen=True)
class _Listed:
    """A sitemap robots.txt lists, shaped as an index entry (no date)."""

    loc: str
    lastmod: str | None = None


def best_first(output: Iterable[Any]) -> list[Any]:
    """A callback's output with its items first and its requests in priority order.

    Scrapy hands a callback's output to CONCURRENT_ITEMS workers and the engine may take
    the next request from the scheduler before the last of them is enqueued, so the
    first requests yielded are the first fetched: they must be the best candidates, not
    the first links of the page."""
    out = list(output)
    requests = sorted((r for r in out if isinstance(r, Request)), key=lambda r: -r.priority)
    return [r for r in out if not isinstance(r, Request)] + requests


def by_score(items: list[Any], scores: list[tuple[float, int]]) -> list[tuple[Any, tuple[float, int]]]:
    """A document's candidates, the best first (stable): once the frontier's pool is full
    the weaker ones are given up before any request is made for them."""
    return sorted(zip(items, scores, strict=True), key=lambda pair: -pair[1][0])


def newest_last(entries: list[Any], named: Any) -> list[Any]:
    """Child sitemaps of a site probed on the spot, in :func:`order_child_sitemaps`' order
    but with the newest of those whose names do not match the query read last: the site's
    home page, feed and first listing page, which the probe reads anyway, name its newest
    pages, so the allowance goes first to the parts of the map nothing else names."""
    plain = [e for e in entries if named(e) <= 0]
    if len(plain) < 2:
        return entries
    newest = max(plain, key=lambda e: e.lastmod or "")
    return [e for e in entries if e is not newest] + [newest]


def order_child_sitemaps(entries: list[Any], named: Any) -> list[Any]:
    """Child sitemaps whose names match the query first; the rest spread across the date
    range (newest, oldest, then the middles), because a query's documents are no more
    likely among the newest than elsewhere in an archive."""
    matched = sorted((e for e in entries if named(e) > 0), key=lambda e: (named(e), e.lastmod or ""), reverse=True)
    rest = sorted((e for e in entries if named(e) <= 0), key=lambda e: e.lastmod or "", reverse=True)
    spread: list[Any] = []
    ranges = [(0, len(rest) - 1)] if rest else []
    if rest:
        spread.append(rest[0])
        if len(rest) > 1:
            spread.append(rest[-1])
    while ranges:
        nxt = []
        for lo, hi in ranges:
            if hi - lo < 2:
                continue
            mid = (lo + hi) // 2
            spread.append(rest[mid])
            nxt += [(lo, mid), (mid, hi)]
        ranges = nxt
    return matched + spread


class DiscoverySpider(Spider):
    name = "light_discovery"

    def __init__(self, frontier: SearchFrontier, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The search's candidate state, shared with the scheduler; the plan it was made for.
        self.frontier = frontier
        self.plan = frontier.plan
        self.query_terms = frontier.query_terms
        self.sources = frontier.sources
        self.source_rank = frontier.source_rank
        self.scorer = frontier.scorer
        self.hints: dict[str, dict[str, Any]] = {}
        self.requested: set[str] = set()
        self.sitemaps_read = 0
        self.explored: dict[str, int] = {}
        # which described discovery documents are read first and which not at all (set
        # when the crawl opens: it depends on what the record cache holds then)
        self.described: DescribedReads | None = None
        # sites probed on the spot whose robots.txt lists sitemaps: read by those, not by
        # their hub and listing pages
        self.mapped: set[str] = set()
        # home, entry, hub and listing pages: read for the pages they name, never yielded
        self.discovery_pages = self.plan.discovery_pages or DiscoveryPages(self.plan.sources)

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> DiscoverySpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        spider.max_depth = crawler.settings.getint("LIGHT_DISCOVERY_MAX_DEPTH")
        spider.max_sitemaps = crawler.settings.getint("LIGHT_DISCOVERY_MAX_SITEMAPS")
        spider.max_response = crawler.settings.getint("LIGHT_RESPONSE_MAX_BYTES")
        spider.explore = crawler.settings.getbool("LIGHT_DISCOVERY_EXPLORE")
        spider.page_max_age = crawler.settings.getfloat("LIGHT_PAGE_MAX_AGE_SECS")
        spider.records = load_cache(crawler.settings, "LIGHT_RECORD_CACHE")
        spider.descriptions = getattr(spider.records, "descriptions", None)  # learned as documents are read
        spider.agents = frozenset(
            a.lower() for a in (crawler.settings.get("ROBOTSTXT_USER_AGENT"), crawler.settings.get("BOT_NAME")) if a
        )
        if spider.frontier.lane is None:  # the search's lane, given by its caller
            spider.frontier.lane = Lane(crawler.settings, name="crawl", client=spider.frontier.client)
        spider.lane = spider.frontier.lane
        spider.frontier.open(spider._candidate)  # what a deferred entry becomes when released
        crawler.signals.connect(spider._robots_parsed, signal=signals.robots_parsed)
        crawler.signals.connect(spider._callback_failed, signal=signals.spider_error)
        return spider

    # ------------------------------------------------------------------ start
    async def start(self) -> AsyncIterator[Request]:
        planned = self._plan_described()
        per_source = [planned.get(s.id, []) + self._discovery_requests(s) for s in self.plan.sources]
        # Interleave by source so every selected source gets its first hop early.
        while any(per_source):
            for queue in per_source:
                if queue:
                    yield queue.pop(0)

    def _discovery_requests(self, source: Source) -> list[Request]:
        rank = self.source_rank[source.id]
        reserve = source.id in self.plan.reserve
        out: list[Request | None] = []
        site_words = tokenize(source.name) + re.findall(r"\w+", source.name.lower())
        for template in source.lookup:
            for qi, query in enumerate(self.plan.queries):
                for i, title in enumerate(lookup_titles(query, site_words)):
                    # the likeliest name first of all; the other noun phrases with spare hops
                    prio = PRIORITY["lookup"] if i == 0 else PRIORITY["sitemap"] - i
                    url = template.replace("{title}", quote(title, safe="_()'-,"))
                    out.append(self._request(url, source, "lookup", prio - rank, 0, qi, reserve=reserve))
        for i, url in enumerate(source.feeds):
            prio = PRIORITY["feed" if i == 0 else "secondary"] - rank
            out.append(self._request(url, source, "feed", prio, 0, reserve=reserve))
        for i, url in enumerate(source.seeds):
            prio = PRIORITY["seed" if i == 0 else "secondary"] - rank
            out.append(self._request(url, source, "seed", prio, 0, reserve=reserve))
        if reserve:
            # A sitemap request takes one of the search's few sitemap places when it is
            # made; a reserve source's come from its robots.txt if it is opened at all.
            return [r for r in out if r is not None]
        for i, url in enumerate(source.sitemaps):
            prio = PRIORITY["sitemap" if i == 0 else "secondary"] - rank
            out.append(self._request(url, source, "sitemap", prio, 0))
        return [r for r in out if r is not None]

    def _request(self, url: str, source: Source, stage: str, priority: int, depth: int,
                 query_index: int = 0, child: bool = False, reserve: bool = False) -> Request | None:
        key = canonical_url(url)
        if key in self.requested:
            return None
        if stage in _DESCRIBED_STAGES and self.described is not None \
                and not self.described.worth_reading(key, stage, source):
            self.crawler.stats.inc_value(SKIPPED)
            return None
        if stage == "sitemap" and not self._fresh_discovery(url):
            # The allowance bounds what one invocation fetches: a fresh cached sitemap is free.
            if self.sitemaps_read >= self.max_sitemaps:
                self.crawler.stats.inc_value("light/discovery/sitemaps_skipped")
                return None
            self.sitemaps_read += 1
        self.requested.add(key)
        if stage in ("page", "lookup") and self.records is not None and self.records.get_document(url) is not None:
            # A fresh completed record joins the ranking when the crawl ends; no hop needed.
            self.crawler.stats.inc_value("light/cache/hits")
            return None
        callback = {
            "feed": self.parse_feed,
            "sitemap": self.parse_sitemap,
            "seed": self.parse_page,
            "lookup": self.parse_page,
            "page": self.parse_page,
            "explore": self.parse_page,
            "listing": self.parse_page,
        }[stage]
        try:
            return Request(
                url,
                callback=callback,
                errback=self.on_error,
                priority=priority,
                meta={"source_id": source.id, "stage": stage, "depth": depth, "query_index": query_index,
                      **({"sitemap_child": True} if child else {}), **({"reserve": True} if reserve else {}),
                      # a sitemap that may be an index names child sitemaps at this priority:
                      # the frontier holds weaker discovery documents until it is read
                      **({"names_at": PRIORITY["sitemap"] - 1} if stage == "sitemap" and not child else {})},
            )
        except ValueError:  # a discovered URL links.absolute_url let through: only it is lost
            self.crawler.stats.inc_value(LINKS_DROPPED)
            return None

    def _fresh_discovery(self, url: str) -> bool:
        return self.records is not None and self.records.get_response(url) is not None

    # ------------------------------------------------------------------ described sources
    def _plan_described(self) -> dict[str, list[Request]]:
        """The described discovery documents worth reading first (plan/crawlplan.py), as
        requests by source, at priorities that follow their estimates."""
        reads = self.described = DescribedReads(self.plan, fresh=self._fresh_discovery,
                                                max_sitemaps=self.max_sitemaps,
                                                keeps_records=self.records is not None)
        planned: dict[str, list[Request]] = {}
        for read in reads.planned:
            rank = self.source_rank[read.source.id]
            priority = PRIORITY["sitemap"] + int(30 * read.value / reads.best) - rank
            req = self._request(read.doc.url, read.source, read.stage, priority, 0, child=read.stage == "sitemap")
            if req is not None:
                req.meta["described"] = round(read.value, 3)
                planned.setdefault(read.source.id, []).append(req)
        return planned

    def _learn(self, source: Source, response: Response, kind: str, entries: Any, children: Any = (),
               terms: Any = None) -> None:
        """Describe a discovery document just read (its entries' terms, never a body) into
        the process's source descriptions, once per body (cache/parsed.py). ``terms`` reads
        one entry's terms; only the entries the description samples are read."""
        if self.descriptions is None:
            return
        doc = parsed(f"describe-{kind}", response.url, response.body,
                     lambda: describe(response.url, kind, entries(), terms=terms,
                                      children=children() if callable(children) else ()))
        self.descriptions.put(source.id, doc)

    # ------------------------------------------------------------------ candidates
    async def _scores(self, items: list[tuple[str, Any, str | None]], source_id: str,
                      summaries: list[str] | None = None) -> list[tuple[float, int]]:
        """The scorer's ``score_many`` for one document's candidates, counted and scored a
        slice at a time: a document names up to 2,000 of them, and every other caller of
        the process waits while its event loop counts them (isolation/turns.py)."""
        scorer = self.scorer
        async for n, (key, texts, url) in in_turns(enumerate(items)):
            scorer.count(key, texts, url, source_id, summaries[n] if summaries is not None else "")
        return [scorer.rescore(key) async for key, _, _ in in_turns(items)]

    def _admit(self, url: str, source: Source, scored: tuple[float, int], depth: int,
               hint: dict[str, Any] | None = None, *, listed: bool = False) -> Request | None:
        """Admit a discovered link to the frontier when it is relevant and in bounds.

        A ``listed`` entry (a feed's or a sitemap's: the site says it is a document) that
        shares no term with the query is still admitted, last of all: its words may be in
        another script than its slug (a Hebrew title behind a Latin URL), and a hop left
        unused finds nothing (a search stops only on its budget, its deadline or an empty
        frontier). The frontier keeps the best ``LIGHT_DISCOVERY_MAX_CANDIDATES`` of them
        by their current scores (crawl/scheduler.py), not the first ones met."""
        score, query_index = scored
        if depth > self.max_depth or (score <= 0 and not listed) or not source.admits(url) \
                or not looks_like_page(url):
            return None
        if self.frontier.outranked(score):
            self.crawler.stats.inc_value("light/discovery/candidates_dropped")
            return None
        key = canonical_url(url)
        if hint:
            self.hints.setdefault(key, hint)
        if key in self.requested or self.discovery_pages.entry(source.id, key):
            return None  # a home page is read as a seed, when it is worth reading, not as a page
        if score <= 0:
            # Read only when no candidate sharing a term is left, so not made a request
            # (and sent through the engine) until then: 40% of a stream search's
            # admissions, nearly all of them never read.
            if not self.frontier.defer(url, source, depth, query_index, score):
                self.crawler.stats.inc_value("light/discovery/candidates_dropped")
            return None
        request = self._candidate(url, source, depth, query_index)
        if request is not None:
            self.frontier.keep_score(score)
        return request

    def _candidate(self, url: str, source: Source, depth: int, query_index: int) -> Request | None:
        request = self._request(url, source, "page", 0, depth, query_index)
        if request is not None:
            request.meta["candidate"] = url  # the scorer's key: the frontier rescores it
            request.priority = self.frontier.priority(request)
        return request

    # ------------------------------------------------------------------ parsers
    def _source(self, response: Response) -> Source:
        return self.sources[response.meta["source_id"]]

    # Every parse of a document goes through _read: a body the pool's rule keeps here (a
    # small one, to a parser whose work is capped) is parsed here, any other in the
    # search's lane of the worker pool (lightsearch/isolation/apart.py); the result is
    # remembered by body (cache/parsed.py), so a cached discovery document read by
    # every search is parsed once. The parsers below only walk what was parsed.
    async def parse_feed(self, response: Response):
        # feedparser's work has no cap of its own: a feed is always read in a worker.
        feed = await self._read(response, "feed", isolated.feed, response.body, _MAX_FEED_ENTRIES, here=False)
        return [] if feed is None else best_first([out async for out in self._parse_feed(response, feed)])

    async def parse_sitemap(self, response: Response):
        sitemap = await self._read(response, "sitemap", isolated.sitemap, response.body, response.url,
                                   self.max_response, _MAX_SITEMAP_URLS)
        return [] if sitemap is None else best_first([out async for out in self._parse_sitemap(response, sitemap)])

    async def parse_page(self, response: Response):
        ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
        if "html" not in ctype or not isinstance(response, TextResponse):
            self._error(self._source(response), response.url, response.meta["stage"], "unsupported_content_type",
                        f"content type {quote_untrusted(ctype)} is not read as a page")
            return []
        scan = await self._read(response, f"page-scan:{','.join(sorted(self.agents))}", isolated.page,
                                response.text, response.url, self.agents)
        return [] if scan is None else best_first([out async for out in self._parse_page(response, scan)])

    async def _read(self, response: Response, kind: str, task: Any, *args: Any, here: bool = True) -> Any:
        """``task(*args)`` for this body, or what it returned for the same body before;
        None (and a source error) when it cannot be read, within its limits or at all."""
        url, body = response.url, response.body
        value = lookup(kind, url, body)
        if value is not None:
            return value
        try:
            value = await parse_apart(self.lane, task, *args, size=len(body) if here else None,
                                      what=f"the {kind.split(':')[0]} {url}")
        except LightSearchError as exc:
            self._apart_failed(response, response.meta.get("stage", kind), exc)
            return None
        remember(kind, url, body, value)
        return value

    def _apart_failed(self, response: Response, stage: str, exc: LightSearchError) -> None:
        """A document the pool could not read (or not in time) is a source error; one cut
        by the search's own deadline is also why the search stopped."""
        reason = exc.details.get("reason")
        if reason == "deadline":
            budget_of(self.crawler).stop("deadline")
        self._unreadable(self._source(response), response.url, stage, exc.code, exc.message,
                         **({"reason": reason} if reason else {}))

    async def _parse_feed(self, response: Response, feed: Feed):
        source = self._source(response)
        dropped = feed.dropped
        admitted = []
        for entry in feed.entries:
            url = absolute_url(response.url, entry.link)
            if url is None:
                dropped += 1
                continue
            admitted.append((url, entry))
        if dropped:
            self.crawler.stats.inc_value(FEED_ENTRIES_DROPPED, dropped)
        if not admitted and dropped:
            self._unreadable(source, response.url, "feed", "parse_error",
                             f"none of the feed's {dropped} entries has a usable link", dropped=dropped)
            return
        self._consulted(source)
        self._report_read(source, response, "feed", lambda: len(admitted))
        self._learn(source, response, "feed", lambda: admitted,
                    terms=lambda pair: entry_terms([pair[1].title, pair[1].summary], pair[0]))
        scores = await self._scores([(url, [entry.title], url) for url, entry in admitted], source.id,
                                    summaries=[entry.summary or "" for _, entry in admitted])
        async for (url, entry), score in in_turns(by_score(admitted, scores)):
            hint = {"title": entry.title, "summary": entry.summary, "date": entry.date}
            req = self._admit(url, source, score, 1, hint, listed=True)
            if req is not None:
                yield req

    async def _parse_sitemap(self, response: Response, sitemap: SitemapDocument):
        source = self._source(response)
        stats = self.crawler.stats
        if sitemap.dropped or sitemap.unread:
            stats.inc_value(SITEMAP_ENTRIES_DROPPED, sitemap.dropped + sitemap.unread)
        if sitemap.links_dropped:
            stats.inc_value(LINKS_DROPPED, sitemap.links_dropped)
        entries = sitemap.entries
        if not entries and sitemap.dropped:
            self._unreadable(source, response.url, "sitemap", "parse_error",
                             f"none of the sitemap's {sitemap.dropped} entries has a usable <loc>",
                             dropped=sitemap.dropped)
            return
        self._consulted(source)
        self._report_read(source, response, "sitemap", lambda: len(entries))
        if sitemap.type == "sitemapindex":
            self._learn(source, response, "index", list,
                        lambda: [e.loc for e in entries if source.admits(e.loc)])
            # Newest child sitemaps first, with a nudge for a slug that matches the query.
            def named(entry: Any) -> float:
                return score_text(self.query_terms, [], entry.loc)

            entries = order_child_sitemaps(entries, named)
            if source.id in self.plan.probing:
                entries = newest_last(entries, named)
            for entry in entries:
                if source.admits(entry.loc):
                    req = self._request(entry.loc, source, "sitemap", PRIORITY["sitemap"] - 1, 0, child=True)
                    if req is not None:
                        yield req
            return
        self._learn(source, response, "sitemap", lambda: entries, terms=lambda e: entry_terms((), e.loc))
        scores = await self._scores([(entry.loc, (), entry.loc) for entry in entries], source.id)
        async for entry, score in in_turns(by_score(entries, scores)):
            req = self._admit(entry.loc, source, score, 1, {"date": entry.lastmod}, listed=True)
            if req is not None:
                yield req

    async def _parse_page(self, response: Response, scan: PageScan):
        source = self._source(response)
        stage = response.meta["stage"]
        depth = response.meta.get("depth", 0)
        directives = page_directives(response, self.agents, meta=scan.metas)
        follow = depth < self.max_depth and not directives.nofollow
        # Links are read for following, and on a seed for the feeds it declares.
        wanted = follow or (stage == "seed" and not directives.nofollow)
        page_links = scan.links if wanted else None
        self._consulted(source)
        stats = self.crawler.stats
        if page_links is not None and page_links.dropped:
            stats.inc_value(LINKS_DROPPED, page_links.dropped)
        if directives.noindex:  # its items are dropped by the noindex middleware (crawl/middlewares/noindex.py)
            response.meta[NOINDEX] = True
        if directives.nofollow:
            stats.inc_value("light/directives/nofollow")
        if stage in _KIND_OF_STAGE and page_links is not None:
            self._learn(source, response, _KIND_OF_STAGE[stage], lambda: [
                link for link in page_links.links
                if not link.in_nav and source.admits(link.url) and looks_like_page(link.url)],
                terms=lambda link: entry_terms([link.anchor, link.title], link.url))
        if stage in _KIND_OF_STAGE:
            self._report_read(source, response, stage, lambda: 0 if page_links is None else sum(
                1 for link in page_links.links
                if not link.in_nav and source.admits(link.url) and looks_like_page(link.url)))
        if stage == "seed" and page_links is not None:
            # the site's sections: pages for discovery (hubs), never evidence
            self.discovery_pages.add(source.id, [link.url for link in page_links.links if link.in_nav])
        if stage == "seed" and not directives.nofollow and page_links is not None:
            for req in self._autodiscovered_feeds(page_links.feeds, source):
                yield req
        if stage in ("seed", "explore", "listing") and not directives.nofollow:
            # Listing pages 2..N reach past the newest: read when hops are left over.
            req = self._next_listing(response, scan.next_href, source, depth)
            if req is not None:
                yield req
        discovery_page = stage not in ("seed", "explore", "listing") \
            and self.discovery_pages.covers(source.id, response.url)
        if discovery_page and page_links is not None:
            # a section read as a candidate: what it names describes the source as any hub's would
            self._learn(source, response, "listing", lambda: [
                link for link in page_links.links
                if not link.in_nav and source.admits(link.url) and looks_like_page(link.url)],
                terms=lambda link: entry_terms([link.anchor, link.title], link.url))
        if stage not in ("seed", "explore", "listing") and not discovery_page:
            fresh = freshness(response.headers, self.page_max_age)
            yield {
                "url": response.url,
                "original_url": (response.meta.get("redirect_urls") or [None])[0],
                "source_id": source.id,
                "stage": stage,
                "status": response.status,
                "html": response.text,
                "retrieved_at": utc_stamp(),
                "partial": "download_stopped" in response.flags,
                "hint": self.hints.get(canonical_url(response.url)),
                # Origin directives decide whether and how long the record may be reused.
                "expires_at": fresh.expires_at if fresh.storable else None,
                "cache_reason": fresh.reason,
            }
        if not follow or page_links is None:
            return
        followed = []
        for link in page_links.links:
            if link.nofollow:
                stats.inc_value("light/directives/nofollow_links")
                continue
            followed.append(link)
        scores = await self._scores([(link.url, [link.anchor, link.title], link.url) for link in followed],
                                    source.id)
        hubs = []
        async for link, score in in_turns(by_score(followed, scores)):
            req = self._admit(link.url, source, score, depth + 1)
            if req is None and stage == "seed" and score[0] <= 0 and self.explore:
                hubs.append(link)
            if req is not None:
                yield req
        # The hubs a seed page links to again outside its menu ("More from ...") are the
        # ones it promotes; they go first, the rest in the menu's order.
        mentions = Counter(link.url for link in followed)
        for link in sorted(hubs, key=lambda link: -mentions[link.url]):
            req = self._explore(link, source, depth + 1)
            if req is not None:
                yield req

    def _next_listing(self, response: Response, href: str, source: Source, depth: int) -> Request | None:
        if source.id in self.mapped:
            return None  # a probed site's sitemaps name its pages for fewer hops
        url = absolute_url(response.url, href) if href else None
        if url is None or not source.admits(url):
            return None
        rank = self.source_rank.get(source.id, 0)
        # The next page is a sibling of this one: its articles are at the same depth.
        return self._request(url, source, "listing", PRIORITY["listing"] - rank, depth)

    def _autodiscovered_feeds(self, feeds: list[str], source: Source):
        """Feeds a seed page declares with ``<link rel=alternate>``, when the catalog has none."""
        if source.feeds:
            return
        for url in feeds[:1]:
            if source.admits(url):
                rank = self.source_rank.get(source.id, 0)
                req = self._request(url, source, "feed", PRIORITY["feed"] - 5 - rank, 0)
                if req is not None:
                    yield req

    def _explore(self, link: Link, source: Source, depth: int) -> Request | None:
        """A seed page's navigation links lead to section pages that list what the home
        page does not; a few are fetched at the lowest priority, when hops are left over."""
        url = link.url
        if self.explored.get(source.id, 0) >= _MAX_EXPLORE_PER_SOURCE or not source.admits(url) \
                or source.id in self.mapped:
            return None
        if not link.in_nav or not looks_like_page(url):
            return None
        rank = self.source_rank.get(source.id, 0)
        req = self._request(url, source, "explore", PRIORITY["explore"] - rank, depth)
        if req is not None:
            # Only a new hub counts: the logo, "home" and language links all lead back to
            # the page being read, and once used up the allowance before any hub.
            self.explored[source.id] = self.explored.get(source.id, 0) + 1
        return req

    # ------------------------------------------------------------------ robots sitemaps
    def _robots_parsed(self, robotparser: Any, request: Request) -> None:
        """The sitemaps robots.txt lists, for a source the catalog gives none: a site that
        lists its child sitemaps there (no index) is read by them directly. They are read in
        the order they likely name relevant pages (described ones by their estimate, then
        those whose names match the query, then spread over the list), within the search's
        sitemap allowance; a described index whose children are known is not read."""
        origin = origin_of(request.url)
        announced = list(getattr(getattr(robotparser, "rp", None), "sitemaps", []) or [])[:_MAX_ROBOTS_SITEMAPS]
        sitemaps = [url for url in (absolute_url(request.url, u) for u in announced) if url is not None]
        if len(sitemaps) < len(announced):
            self.crawler.stats.inc_value(LINKS_DROPPED, len(announced) - len(sitemaps))
        for source in self.plan.sources:
            if origin not in source.origins or source.sitemaps:
                continue
            listed = [_Listed(url) for url in sitemaps if source.admits(url)]
            if listed and source.id in self.plan.probing:
                # A site probed on the spot has no description to say which of its hub and
                # listing pages are worth a hop: its sitemaps name its pages for fewer.
                self.mapped.add(source.id)
            named = order_child_sitemaps(listed, lambda e: score_text(self.query_terms, [], e.loc))
            value = self.described.value if self.described is not None else (lambda _key: None)
            known = sorted((e for e in named if value(canonical_url(e.loc)) is not None),
                           key=lambda e: -(value(canonical_url(e.loc)) or 0.0))
            for entry in known + [e for e in named if e not in known]:
                req = self._request(entry.loc, source, "sitemap", PRIORITY["sitemap"] - 10, 0)
                if req is not None:
                    self.crawler.engine.crawl(req)

    # ------------------------------------------------------------------ errors
    def _report_read(self, source: Source, response: Response, stage: str, named: Any) -> None:
        """A discovery document of a site this search probes on the spot, reported for what
        the search learns of the site (providers/light.py keeps it as the site's entry)."""
        if source.id not in self.plan.probing:
            return
        self.crawler.signals.send_catch_log(light_signals.discovery_read, read={
            "source": source.id, "url": response.url, "stage": stage, "named": named(),
            "child": bool(response.meta.get("sitemap_child")), "redirected": bool(response.meta.get("redirect_urls"))})

    def _consulted(self, source: Source) -> None:
        self.crawler.signals.send_catch_log(light_signals.source_consulted, source_id=source.id)

    def _error(self, source: Source, url: str, stage: str, code: str, message: str = "", **extra: Any) -> None:
        light_signals.report_source_error(self.crawler, source.id, url, stage, code, message, **extra)

    def _unreadable(self, source: Source, url: str, stage: str, code: str, message: str, **extra: Any) -> None:
        """A fetched document none of which could be read: a source error, never silence."""
        self.crawler.stats.inc_value(UNREADABLE)
        self._error(source, url, stage, code, message, **extra)

    def _callback_failed(self, failure: Failure, response: Response | Failure, spider: Spider) -> None:
        """The last line of defence: a parser exception the parsers above did not turn into
        a source error would otherwise be a log line only (Scrapy's ``spider_error``)."""
        # ``response`` is a Failure when an errback raised; both carry their request.
        request = getattr(response, "request", None)
        meta = getattr(request, "meta", None) or {}
        source = self.sources.get(meta.get("source_id", ""))
        if source is None:
            return
        exc = failure.value
        url = getattr(response, "url", None) or getattr(request, "url", "")
        self._unreadable(source, url, meta.get("stage", "page"), "parse_error",
                         f"the document could not be read ({type(exc).__name__}: {quote_untrusted(str(exc))})")

    def on_error(self, failure: Failure) -> None:
        request = failure.request
        source = self.sources.get(request.meta.get("source_id", ""))
        if source is None:
            return
        stage = request.meta.get("stage", "page")
        exc = failure.value
        if isinstance(exc, BudgetExceeded):
            return  # the search's own limit: counted in the stop reason, not the source's fault
        if isinstance(exc, HttpError) and stage == "lookup" and exc.response.status == 404:
            return  # a lookup miss is an answer, not a failure
        named = classify(exc)
        extra = {"status": named.details["status"]} if "status" in named.details else {}
        if named.reason and named.reason != "status":
            extra["reason"] = named.reason  # which rule or transport fault (dns, connect, off_source, ...)
        message = named.message if isinstance(exc, CodedRefusal | HttpError) else f"{type(exc).__name__}: {exc}"
        self._error(source, request.url, stage, named.source_code, message[:200], **extra)
