"""The query controller: one search's plan made a bounded Scrapy crawl, the crawl run to its
end within the search's deadline, and what it read ranked within the same deadline.

:class:`LightSearch <lightsearch.providers.light.LightSearch>` turns a call into a
:class:`~lightsearch.plan.request.SearchRequest` and a :class:`~lightsearch.plan.crawlplan.CrawlPlan`
and the outcome into the result envelope; everything between is here, in the order a
search goes:

1. the search's frontier (plan/frontier.py) and its lane in the worker pool
   (isolation/lanes.py), both made from the plan and closed with the controller;
2. one crawl of the discovery spider over the plan's sources (crawl/run.py), bounded by
   the crawl's budgets (crawl/budget.py) and the hard deadline; a crawl past its deadline
   is ``deadline_exceeded``, a cancelled caller :class:`~lightsearch.errors.SearchCancelled`;
3. the evidence: the pages the crawl read, less the discovery pages (home, hub and
   listing pages), joined by the fresh records of earlier searches;
4. BM25 ranking (ranking/rank.py) in a thread, within what is left of the deadline.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lightsearch.cache import load_cache
from lightsearch.crawl.run import CrawlCancelled, CrawlDeadline, run_crawl
from lightsearch.documents import Document
from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.filters import filtered
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.frontier import SearchFrontier
from lightsearch.ranking.rank import RankingStopped, rank_documents
from lightsearch.spiders.discovery import DiscoverySpider

if TYPE_CHECKING:
    from scrapy.settings import Settings
    from typing_extensions import Self

    from lightsearch.crawl.outcome import CrawlOutcome
    from lightsearch.plan.crawlplan import CrawlPlan
    from lightsearch.plan.request import SearchRequest

# Time the search keeps for ranking and assembly after its pages' extraction stops.
RANKING_RESERVE_SECS = 1.0

# Web hygiene counters reported in meta.lightSearch.counts (stats key per name).
HYGIENE_COUNTS = {
    "robotsFetches": "light/robots/fetches",
    "robotsCacheHits": "light/robots/cache_hits",
    "robotsDenied": "light/robots/denied",
    "robotsBlocked": "light/robots/blocked",
    "noindexPages": "light/directives/noindex",
    "nofollowPages": "light/directives/nofollow",
    "nofollowLinks": "light/directives/nofollow_links",
    "encodingRefused": "light/encoding/refused",
    "redirectsRefused": "light/redirects/refused",
    "cacheHits": "light/cache/hits",
    "cacheDiscoveryHits": "light/cache/discovery_hits",
    "cacheStored": "light/cache/stored",
    "cacheNotStored": "light/cache/not_stored",
    "cacheJoined": "light/cache/joined",
    # Hostile input: entries and links dropped one by one, documents lost as a whole.
    "feedEntriesDropped": "light/feeds/entries_dropped",
    "sitemapEntriesDropped": "light/sitemaps/entries_dropped",
    "linksDropped": "light/links/dropped",
    # the weakest candidates given up to LIGHT_DISCOVERY_MAX_CANDIDATES
    "candidatesDropped": "light/discovery/candidates_dropped",
    # candidates still waiting when the hops (or the page hops) were spent: ground a larger budget would cover
    "candidatesUnread": "light/frontier/unread",
    # described discovery documents left unread: they name too few likely relevant pages
    "describedSkipped": "light/discovery/skipped_described",
    "unreadableDocuments": "light/discovery/unreadable",
    "extractionFailed": "light/extract/failed",
}


@dataclass
class Crawled:
    """What one search's crawl produced, as evidence: the pages it read (``fetched``) and the
    fresh records of earlier searches that join them (``cached``), with the crawl's outcome."""

    outcome: CrawlOutcome
    fetched: list[Document] = field(default_factory=list)
    cached: list[Document] = field(default_factory=list)


class QueryController:
    """One search's crawl and ranking, within its budgets and its hard deadline.

    Made per search from its request and plan; use it as a context manager (``with``), so
    its lane in the worker pool is closed when the search is over, however it ends.
    """

    def __init__(self, settings: Settings, request: SearchRequest, plan: CrawlPlan) -> None:
        self.settings = settings
        self.request = request
        self.plan = plan
        self.deadline = settings.getfloat("LIGHT_DEADLINE_SECS")
        self.started = time.monotonic() if plan.started_monotonic is None else plan.started_monotonic
        # The pages' extraction (in the worker pool) stops a little before the hard
        # deadline, so a page still being read then costs that page, and the search
        # returns what it has with time to rank it; the hard deadline is an error.
        self.lane = Lane(settings, name="search",
                         deadline_at=self.started + self.deadline - min(RANKING_RESERVE_SECS, self.deadline / 5))
        # the search's candidate state, shared by its spider and its scheduler
        self.frontier = SearchFrontier(plan, settings, lane=self.lane)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.lane.close()

    async def crawl(self, *, joins: Callable[[Document], bool] = lambda doc: True) -> Crawled:
        """Run the search's crawl to its end; its evidence. A fresh record of an earlier
        search joins it when ``joins`` admits it and the request's filters do."""
        try:
            outcome = await run_crawl(self.settings, DiscoverySpider, self.deadline, frontier=self.frontier)
        except CrawlDeadline as exc:
            raise deadline_error(exc.deadline, exc.outcome) from None
        except CrawlCancelled as exc:
            raise SearchCancelled(details=counts_of(exc.outcome)) from None
        # A source's home, entry, hub and listing pages are read for discovery and are never
        # evidence, fetched now or kept by an earlier search (plan/discovery_pages.py).
        pages = self.plan.discovery_pages
        fetched = [item for item in outcome.items
                   if isinstance(item, Document) and not pages.covers(item.source_id, item.url)]
        cached, _ = filtered([doc for doc in joined_documents(self.settings, fetched)
                              if not pages.covers(doc.source_id, doc.url) and joins(doc)],
                             self.request.filters, lambda d: d.url)
        return Crawled(outcome, fetched, cached)

    async def rank(self, crawled: Crawled) -> Any:
        """Rank the evidence within the hard deadline, or fail with ``deadline_exceeded``.

        Ranking needs every document (BM25's statistics are over the whole retrieved
        corpus), so it runs once the crawl has returned. It runs in a thread, so a large
        record cache's worth of pure Python does not stall the other searches on the event
        loop; it stays in this process rather than the worker pool because its input is the
        whole corpus, where the workers read one page at a time (docs/EVALUATION.md has the
        measurements). A thread cannot be killed, so ranking checks a flag per document and
        stops when the deadline has passed (ranking/rank.py)."""
        remaining = self.started + self.deadline - time.monotonic()
        if remaining <= 0:
            raise deadline_error(self.deadline, crawled.outcome)
        stop = threading.Event()
        try:
            return await asyncio.wait_for(asyncio.to_thread(
                rank_documents, crawled.fetched + crawled.cached, self.plan.queries,
                snippet_chars=self.settings.getint("LIGHT_SNIPPET_CHARS"), terms=self.request.terms,
                background=self.plan.background, should_stop=stop.is_set), remaining)
        except (asyncio.TimeoutError, RankingStopped):
            raise deadline_error(self.deadline, crawled.outcome) from None
        finally:
            stop.set()

    def stop_reason(self, crawled: Crawled) -> str:
        """Why the search stopped: the crawl's reason, never ``completed`` past the hard
        deadline, however it came."""
        reason = crawled.outcome.stop_reason
        if reason == "completed" and time.monotonic() - self.started > self.deadline:
            return "deadline"
        return reason


def deadline_error(deadline: float, outcome: CrawlOutcome) -> LightSearchError:
    return LightSearchError("deadline_exceeded", f"the search did not finish within {deadline:g} s",
                            {"deadlineSecs": deadline, **counts_of(outcome)})


def joined_documents(settings: Settings, fetched: list[Document]) -> list[Document]:
    """Fresh completed records of earlier searches join this one's evidence (a result's
    sources may include fresh cached evidence); the cache drops expired records as it
    lists them, so an expired record never reaches result assembly."""
    cache = load_cache(settings, "LIGHT_RECORD_CACHE")
    if cache is None:
        return []
    seen = {doc.url for doc in fetched}
    return [doc for doc in cache.documents() if doc.url not in seen]


def counts_of(outcome: CrawlOutcome) -> dict[str, int]:
    """``meta.lightSearch.counts``: hops and bytes, then the web hygiene counters."""
    spent = outcome.spent
    counts = {"requests": spent.hops, "encodedBytes": spent.encoded, "decodedBytes": spent.decoded}
    counts.update({name: outcome.stat(key) for name, key in HYGIENE_COUNTS.items()})
    return counts


def hops_of(outcome: CrawlOutcome, fetched: list[Document]) -> dict[str, Any]:
    """Where this search's hops went (``byStage``) and which pages were read as evidence,
    so an evaluation can tell hops spent on discovery from hops that found documents."""
    return {"byStage": dict(sorted(outcome.spent.by_stage.items())), "documents": [d.url for d in fetched]}
