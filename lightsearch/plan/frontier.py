"""The frontier: one search's candidate state, shared openly by its spider and its scheduler.

A search's spider discovers candidates and its scheduler hands them out; both need the
same state (the candidate scores against the pool as it grows, the listed entries kept
back until nothing better is left, whether a relevant candidate was given up, the
search's clock and sources). It lives here, in one object made with the plan
(:class:`SearchFrontier`), handed to the spider as its ``frontier`` argument and to every
component through the crawler (:func:`attach`, :func:`frontier_of`, the one place that
says where it is kept). The components ask it only what :class:`Frontier` declares, the
way Scrapy's scheduler asks the downloader only through ``DownloaderInterface``; none of
them reads the spider.

Who asks what:

- the scheduler (crawl/scheduler.py): :meth:`~Frontier.page_allowance`,
  :attr:`~Frontier.version` and :meth:`~Frontier.priority` (rescoring its pending
  candidates when the pool changed), :meth:`~Frontier.deferred`,
  :meth:`~Frontier.release_deferred`, :meth:`~Frontier.give_up_deferred` and
  :attr:`~Frontier.gave_up_relevant`;
- the redirect confinement (crawl/middlewares/confine.py): :meth:`~Frontier.source`;
- the hop gate (crawl/budget.py): :attr:`~Frontier.started`;
- the transport (crawl/transport.py): :attr:`~Frontier.private_origins`;
- the extraction pipeline: :attr:`~Frontier.lane` and :meth:`~Frontier.source`;
- the download handler (crawl/transport.py): :attr:`~Frontier.client` and the frontier
  itself, whose transfers take their turns for a slot together, and :meth:`~Frontier.may_map`.

The spider also writes to a :class:`SearchFrontier` (the scores it admits, the entries it
defers, the factory that makes a deferred entry a request); those methods are the
spider's side and the components never call them.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from lightsearch.clients import current_client
from lightsearch.plan.candidates import CandidateScorer, DescribedTitles
from lightsearch.ranking.tokenize import tokenize

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from lightsearch.isolation.lanes import Lane
    from lightsearch.plan.catalog import Source
    from lightsearch.plan.crawlplan import CrawlPlan

# The crawler attribute the frontier is kept under: read and written only here.
_ATTRIBUTE = "lightsearch_frontier"


@runtime_checkable
class Frontier(Protocol):
    """What a crawl's components may ask of the search they serve."""

    #: ``time.monotonic()`` when the search started (its budgets' clock).
    started: float
    #: The search's place in the worker pool, or None (a component makes its own).
    lane: Lane | None
    #: The client the crawl's call is made for (lightsearch/clients.py), or None.
    client: str | None
    #: True once a candidate sharing a query term was given up to the candidate bound.
    gave_up_relevant: bool
    #: The origins of the crawl's sources that a user added with ``--allow-private``: the
    #: only ones the transport guard lets reach a private address (crawl/guard/private.py).
    private_origins: frozenset[str]

    @property
    def version(self) -> int:
        """Changes whenever a candidate's :meth:`priority` could have changed."""

    def page_allowance(self, max_pages: int) -> int:
        """The page hops the search may spend, given ``LIGHT_MAX_PAGE_HOPS`` per query."""

    def source(self, source_id: str) -> Source | None:
        """The plan's source of that id (which origins it vouches for), or None."""

    def priority(self, request: Request) -> int:
        """A pending candidate's priority against the candidate pool as it stands."""

    def deferred(self) -> int:
        """How many listed entries sharing no query term are kept back."""

    def release_deferred(self) -> list[Request]:
        """The kept-back entries as requests (asked when no other candidate is left)."""

    def give_up_deferred(self) -> int:
        """Let every kept-back entry go (the hops are spent); how many there were."""

    def may_map(self, host: str) -> bool:
        """Whether this crawl may connect to ``host`` through ``LIGHT_HOST_MAP``."""


class CrawlFrontier:
    """The frontier of a crawl without a search plan (web_fetch, describing a source): its
    clock and the sources that confine its redirects, nothing scored, nothing deferred."""

    gave_up_relevant = False
    version = 0

    def __init__(self, sources: Iterable[Source] = (), *, started: float | None = None,
                 lane: Lane | None = None) -> None:
        self.started = time.monotonic() if started is None else started
        self.lane = lane
        # read here, in the call's own task: a crawl's callbacks run in whatever context
        # fired them, so its components ask the frontier, never the context
        self.client = lane.client if lane is not None else current_client()
        self.sources = {s.id: s for s in sources}
        self.private_origins = frozenset(o for s in self.sources.values() if s.allow_private for o in s.origins)

    def page_allowance(self, max_pages: int) -> int:
        return max_pages  # nothing to bound: a crawl without a plan has no candidate pages

    def source(self, source_id: str) -> Source | None:
        return self.sources.get(source_id)

    def priority(self, request: Request) -> int:
        return request.priority

    def deferred(self) -> int:
        return 0

    def release_deferred(self) -> list[Request]:
        return []

    def give_up_deferred(self) -> int:
        return 0

    def may_map(self, host: str) -> bool:
        return True  # the host map is configuration; a crawl without a plan names no site of its own


class SearchFrontier(CrawlFrontier):
    """One search's candidates: scored by :class:`CandidateScorer` over the pool the
    discovery documents name, the best ``LIGHT_DISCOVERY_MAX_CANDIDATES`` kept by score.

    A listed entry (a feed's or a sitemap's) sharing no query term is *deferred*: kept as
    a tuple, not made a request (nor sent through the engine) until the scheduler has no
    other candidate left (many of a stream search's admissions, nearly all never read:
    docs/EVALUATION.md).
    """

    def __init__(self, plan: CrawlPlan, settings: BaseSettings, *, lane: Lane | None = None) -> None:
        super().__init__(plan.sources, started=plan.started_monotonic, lane=lane)
        self.plan = plan
        self.query_terms = [set(t) for t in plan.terms or [tokenize(q) for q in plan.queries]]
        self.source_rank = {s.id: i for i, s in enumerate(plan.sources)}
        self.max_candidates = settings.getint("LIGHT_DISCOVERY_MAX_CANDIDATES")
        wanted = set().union(*self.query_terms) if self.query_terms else set()
        described = plan.estimates.described if plan.estimates is not None else {}
        titles = DescribedTitles(wanted, {s.id: described[s.id] for s in plan.sources if s.id in described})
        self.scorer = CandidateScorer(self.query_terms, plan.background, titles if titles.rows else None)
        self.admitted_scores: list[float] = []  # min-heap: the best candidates' scores
        self.gave_up_relevant = False
        # listed entries sharing no query term: (url, source, depth, query index)
        self._deferred: list[tuple[str, Source, int, int]] = []
        self._make: Callable[[str, Source, int, int], Request | None] | None = None

    # ------------------------------------------------------------------ the scheduler's
    @property
    def version(self) -> int:  # type: ignore[override]
        return self.scorer.version

    def page_allowance(self, max_pages: int) -> int:
        # per query of the request, never fewer than the results it asked for
        return max(max_pages * max(1, len(self.plan.queries)), self.plan.max_results)

    def priority(self, request: Request) -> int:
        """30..100 for a relevant candidate, less for every link depth and source rank;
        below zero for a listed entry sharing no query term (read only with hops nothing
        else wants). Sets the request's ``query_index`` to the query it serves best."""
        meta = request.meta
        score, query_index = self.scorer.rescore(meta["candidate"])
        meta["query_index"] = query_index
        rank = self.source_rank.get(meta["source_id"], 0)
        if score <= 0:
            return -rank - 20
        return int(30 + 70 * score) - 5 * (meta.get("depth", 1) - 1) - rank

    def deferred(self) -> int:
        return len(self._deferred)

    def release_deferred(self) -> list[Request]:
        pending, self._deferred = self._deferred, []
        if self._make is None:
            return []
        out = [self._make(url, source, depth, qi) for url, source, depth, qi in pending]
        return [r for r in out if r is not None]

    def give_up_deferred(self) -> int:
        given_up = len(self._deferred)
        self._deferred.clear()
        return given_up

    def may_map(self, host: str) -> bool:
        """A search that probes a site outside the catalog connects through the host map
        only to the hosts its plan names (the catalog's origins and the ones configured for
        probing): nothing the probed site says (a redirect of its robots.txt, a link) leads
        into another mapped host."""
        mapped = self.plan.mapped_hosts
        return mapped is None or host in mapped

    def candidate_scores(self) -> dict[str, float]:
        """Every candidate the search scored (its URL), against the pool as it stands:
        read-only, for the coverage of what the search read (evidence/reach.py)."""
        return {key: self.scorer.rescore(key)[0] for key in self.scorer.terms_of}

    # ------------------------------------------------------------------ the spider's
    def open(self, make_candidate: Callable[[str, Source, int, int], Request | None]) -> None:
        """The spider's factory for a candidate request (url, source, depth, query index):
        what :meth:`release_deferred` makes of a deferred entry."""
        self._make = make_candidate

    def outranked(self, score: float) -> bool:
        """True when the best ``max_candidates`` so far are all at least as good: the
        scheduler would give this one up, so it is not made a request at all (a stream
        search re-admits every cached sitemap entry: 3,200 a search)."""
        best = self.admitted_scores
        if len(best) >= self.max_candidates and score <= best[0]:
            self.gave_up_relevant = self.gave_up_relevant or score > 0
            return True
        return False

    def defer(self, url: str, source: Source, depth: int, query_index: int, score: float) -> bool:
        """Keep a listed entry sharing no query term back; False when the bound is full."""
        if len(self._deferred) >= self.max_candidates:
            return False
        self._deferred.append((url, source, depth, query_index))
        self.keep_score(score)
        return True

    def keep_score(self, score: float) -> None:
        best = self.admitted_scores
        if len(best) >= self.max_candidates:
            heapq.heapreplace(best, score)
        else:
            heapq.heappush(best, score)


def attach(crawler: Crawler, frontier: Frontier) -> None:
    """Give a crawl's components its frontier (the crawl runner does, before it starts)."""
    setattr(crawler, _ATTRIBUTE, frontier)


def frontier_of(crawler: Crawler) -> Frontier:
    """The frontier attached to ``crawler``; a crawl started without one (a test's
    ``get_crawler``) gets a plain one on first asking, so its clock is stable."""
    frontier = getattr(crawler, _ATTRIBUTE, None)
    if frontier is None:
        frontier = CrawlFrontier()
        attach(crawler, frontier)
    return frontier
