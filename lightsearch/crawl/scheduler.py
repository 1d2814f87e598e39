"""The frontier scheduler: what a search's crawl reads next, per origin and per source.

Scrapy's default queue is per download slot and round-robins across origins, so a
low-value sitemap on an idle origin goes out before a strong candidate on a busy one.
With a budget of a couple of dozen hops that order decides what is found.

Two kinds of request wait here. **Discovery documents** (lookups, feeds, sitemaps, home,
hub and listing pages) say what a source has; **candidates** are the pages they list.
Reading the map first pays more than reading articles as soon as the first feed names
them (a child sitemap names a hundred pages for one hop), so the frontier works in two
phases:

- while more than ``LIGHT_ARTICLE_HOPS`` hops are left, discovery documents go first
  (candidates wait while one is queued, downloading or being parsed). While no sitemap
  is among them, the page hops the allowance holds beyond ``LIGHT_ARTICLE_HOPS`` read
  the best candidates on origins the search has nothing in flight on, so a search whose
  one discovery document waits behind another search's transfers does not sit idle. A
  sitemap in flight is waited for: it may name better candidates than any pending;
- the last ``LIGHT_ARTICLE_HOPS`` hops go to the best candidates, discovery only when no
  candidate is left nor can come from a document in flight (what it names could not be
  read with the hops left anyway), and the very last hop only to a lookup, itself a
  page: a feed read with it names nothing that can be read.

Discovery documents are kept in one best-first heap per (source, query) bucket and handed
out by *effective* priority: lexical priority minus a fairness charge for every hop the
source and the query have already been given, so no source's map or query starves another.
Candidates are rescored whenever the search's candidate pool has changed (their idf is
the pool's: plan/candidates.py); they pay the query's charge, not the source's: their
scores weigh them against each other whatever source or document named them, and a
source's charge would hand a served source's strong pages to another's weak ones (a big
site's hundred-item feed, read instead of what its maps name). The best
``LIGHT_DISCOVERY_MAX_CANDIDATES`` are kept, by their current scores.

Per-origin fairness within the crawl is decided here: among what the hops left would
read anyway and the near-ties of the best (:func:`idle_first`), a request whose origin has
nothing in flight goes first, so one busy origin does not hold one of the concurrency
places while others sit idle; the preference orders the reads, it does not choose them,
so a search reads the same pages however busy the origins are. In the map phase a
discovery document weaker than what a document in flight may name (a sitemap index names
child sitemaps) waits for it. Which origins are busy and which requests are in flight
the scheduler asks only through its :class:`~lightsearch.crawl.downloader_interface.DownloaderView`
(as Scrapy's downloader-aware queue asks ``DownloaderInterface``). Politeness across the
searches of a process (one transfer per origin, a few at once, turns per client) is
enforced where a transfer happens, by the download handler's limiter (crawl/politeness.py).

The scheduler knows the search only through its frontier (plan/frontier.py, the one
object the spider and the scheduler share): the page allowance, candidate priorities
against the pool as it stands, and the listed entries the frontier keeps back until no
candidate is left. Its hop counts are the crawl's budget (crawl/budget.py). It never
reads the spider.

A request marked ``reserve`` (the opening of a source the plan keeps in reserve) waits
until the first sources' discovery documents are read (in the map phase) or no
candidate is left (in the read phase): a reserve source is opened with the hops the
first ones leave, never instead of theirs.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from scrapy.utils.misc import build_from_crawler, load_object

from lightsearch.crawl.budget import budget_of
from lightsearch.crawl.downloader_interface import DownloaderInterface, DownloaderView
from lightsearch.plan.frontier import Frontier, frontier_of

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


# Candidate priorities within this many points (of 30..100) of the best one, and holding
# at least NEAR_TIE_SHARE of its score (its points over 30), are near-ties: the frontier may
# read one on an idle origin first even if it is not among the best the page hops left can
# read. A candidate's score is an idf-weighted share of the query, often a few tenths: ten
# points are most of the range a search's candidates span, and would let an idle origin's
# weak candidates take the hops its busy origin's strong ones wanted.
NEAR_TIE = 10
NEAR_TIE_SHARE = 0.9


def near_tie_floor(best: float) -> float:
    """The lowest priority that is a near-tie of ``best``."""
    return max(best - NEAR_TIE, 30 + NEAR_TIE_SHARE * (best - 30))


class FrontierScheduler:
    def __init__(self, crawler: Crawler, dupefilter: Any, downloader: DownloaderView | None = None) -> None:
        self.crawler = crawler
        self.df = dupefilter
        # what it asks about the requests past it: this interface only, never the engine
        self.downloader: DownloaderView = downloader if downloader is not None else DownloaderInterface(crawler)
        settings = crawler.settings
        self.source_charge = settings.getfloat("LIGHT_FRONTIER_SOURCE_CHARGE")
        self.query_charge = settings.getfloat("LIGHT_FRONTIER_QUERY_CHARGE")
        self.max_depth = settings.getint("LIGHT_DISCOVERY_MAX_DEPTH")
        self.max_hops = settings.getint("LIGHT_MAX_HOPS")
        # never more than half the budget: a small one still reads a map before pages
        self.article_hops = min(settings.getint("LIGHT_ARTICLE_HOPS"), self.max_hops // 2)
        self.max_candidates = settings.getint("LIGHT_DISCOVERY_MAX_CANDIDATES")
        self.max_pages = settings.getint("LIGHT_MAX_PAGE_HOPS")
        self.page_allowance = self.max_pages  # per request, set when the spider opens
        self.frontier: Frontier = frontier_of(crawler)
        self.budget = budget_of(crawler)
        self._buckets: dict[tuple[str, int], list[tuple[float, int, Request]]] = {}
        # pending candidates: (priority, arrival, slot, (source, query), request), kept by
        # priority once rescored
        self._candidates: list[tuple[int, int, str, tuple[str, int], Request]] = []
        self._sorted = True
        self._scored = -1  # the candidate pool version the candidates were last scored at
        self._served_source: dict[str, int] = {}
        self._served_query: dict[int, int] = {}
        self._counter = itertools.count()
        self._pending = 0  # discovery requests queued
        self._dropped = False

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        dupefilter_cls = load_object(crawler.settings["DUPEFILTER_CLASS"])
        return cls(crawler, build_from_crawler(dupefilter_cls, crawler))

    # ------------------------------------------------------------------ BaseScheduler
    def open(self, spider: Spider) -> Any:
        self.frontier = frontier_of(self.crawler)
        self.page_allowance = self.frontier.page_allowance(self.max_pages)
        return self.df.open()

    def has_pending_requests(self) -> bool:
        return self._pending > 0 or bool(self._candidates) or self.frontier.deferred() > 0

    def __len__(self) -> int:
        return self._pending + len(self._candidates) + self.frontier.deferred()

    def enqueue_request(self, request: Request) -> bool:
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.crawler.spider)
            return False
        if request.meta.get("depth", 0) > self.max_depth:
            self.crawler.stats.inc_value("light/frontier/too_deep")
            return False
        self.crawler.stats.inc_value("light/frontier/enqueued")
        if _is_candidate(request):
            self._add_candidate(request)
            if len(self._candidates) > 2 * self.max_candidates:
                self._prune()  # amortised: the pool is cut back to the bound in batches
            return True
        key = (request.meta.get("source_id", ""), int(request.meta.get("query_index", 0)))
        heap = self._buckets.setdefault(key, [])
        heapq.heappush(heap, (-float(request.priority), next(self._counter), request))
        self._pending += 1
        return True

    def next_request(self) -> Request | None:
        if self._hops_spent():
            if self._candidates or self.frontier.deferred():
                self._give_up_candidates("hops")
        elif self._pages_spent():
            if self._candidates or self.frontier.deferred() or self._pending:
                # what a discovery document names now could not be read: it goes too
                self._give_up_candidates("page_hops", discovery=True)
            return None
        busy = self._busy_slots()
        if self._hops_left() > self.article_hops:
            # map phase: what the sources list first, then (their maps read) the reserve
            request = self._next_discovery(busy, gate_reserve=self._discovery_in_flight(first_only=True),
                                           limit=self._hops_left() - self.article_hops,
                                           floor=self._named_floor())
            if request is None and self._discovery_in_flight():
                # a document on its way may name more ground: wait for it. Unless it is a
                # sitemap (a hundred pages named) or already downloaded (its links are
                # being read, a moment's work), the page hops the allowance holds beyond
                # the article hops read the best candidates on origins not waited for.
                if self._spare_pages() > 0 and not self._sitemap_in_flight() and not self._discovery_parsing():
                    request = self._next_candidate(busy, idle_only=True)
                if request is None:
                    return None
            if request is None:
                request = self._next_candidate(busy) or self._next_deferred(busy)
        else:
            # read phase: what a discovery document would name now could not be read with
            # the hops left, so every candidate, even one sharing no query term, goes first;
            # but the links of a document already downloaded are scored in a moment, and
            # may name a better page than any candidate now
            if self._discovery_parsing():
                return None
            request = self._next_candidate(busy) or self._next_deferred(busy)
            if request is None and self._discovery_in_flight():
                return None  # what it names goes first
            if request is None and self._hops_left() <= 1:
                # the last hop: what a feed, map or listing page names could not be read
                # after it, so only a lookup (a page itself) may take it
                self._drop_all_discovery_but_lookups()
            if request is None:
                request = self._next_discovery(busy, gate_reserve=False, limit=self._hops_left())
        if request is None:
            return None
        if _is_candidate(request) and self._pages_left() <= 0:
            # the page allowance is promised to candidates already on their way; this one
            # waits (it is given up if they all claim their hop)
            self._add_candidate(request)
            return None
        if request.meta.get("reserve"):
            self.crawler.stats.inc_value("light/frontier/reserve_opened")
        source = request.meta.get("source_id", "")
        query = int(request.meta.get("query_index", 0))
        self._served_source[source] = self._served_source.get(source, 0) + 1
        self._served_query[query] = self._served_query.get(query, 0) + 1
        self.crawler.stats.inc_value("light/frontier/dequeued")
        return request

    # ------------------------------------------------------------------ discovery
    def _next_discovery(self, busy: set[str], *, gate_reserve: bool, limit: int,
                        floor: float = float("-inf")) -> Request | None:
        first = gate_reserve or self._first_discovery_pending()
        best_key = self._best_bucket(busy, gate_reserve=first, limit=limit, floor=floor)
        if best_key is None:
            best_key = self._best_bucket(busy, gate_reserve=gate_reserve, limit=limit, floor=floor)
        if best_key is None:
            return None
        _, _, request = heapq.heappop(self._buckets[best_key])
        self._pending -= 1
        return request

    def _best_bucket(self, busy: set[str], *, gate_reserve: bool, limit: int,
                     floor: float) -> tuple[str, int] | None:
        """The bucket whose head goes next: :func:`idle_first` among the documents the
        ``limit`` hops left could read. A bucket's head is its best document, so a bucket
        with any document in that set offers it by its head. Documents under ``floor``
        (what a document in flight may name outranks them) wait."""
        heads, everything = [], []
        for key, heap in self._buckets.items():
            if not heap:
                continue
            neg_priority, order, request = heap[0]
            if (gate_reserve and request.meta.get("reserve")) or -neg_priority < floor:
                continue
            charge = self._effective(0.0, key)
            heads.append((-neg_priority + charge, -order, self._slot_key(request), key))
            everything.extend(-p + charge for p, _, _ in heap)
        if not heads:
            return None
        kth = heapq.nlargest(max(1, limit), everything)[-1]
        return idle_first([h for h in heads if h[0] >= kth], busy)

    def _drop_all_discovery_but_lookups(self) -> None:
        """Let go the queued discovery documents that only name pages (they cannot pay)."""
        dropped = 0
        for key, heap in self._buckets.items():
            kept = [entry for entry in heap if entry[2].meta.get("stage") == "lookup"]
            if len(kept) < len(heap):
                dropped += len(heap) - len(kept)
                heapq.heapify(kept)
                self._buckets[key] = kept
        if dropped:
            self._pending -= dropped
            self.crawler.stats.inc_value("light/frontier/unread_discovery", dropped)

    def _first_discovery_pending(self) -> bool:
        return any(not heap[0][2].meta.get("reserve") for heap in self._buckets.values() if heap)

    # ------------------------------------------------------------------ candidates
    def _next_candidate(self, busy: set[str], idle_only: bool = False) -> Request | None:
        """The next candidate: :func:`idle_first` among those the page hops left can read
        and the near-ties of the best one (``idle_only``: only on an idle origin)."""
        if not self._candidates:
            return None
        self._prune()
        self._rescore()
        # the best by effective priority, scanning by priority and stopping once no later
        # one can enter (charges only lower a priority)
        k = max(1, self._pages_left())
        top: list[tuple[float, int, str, int]] = []
        for i, (priority, _, slot, key, _request) in enumerate(self._candidates):
            if len(top) >= k and priority <= top[0][0]:
                break
            entry = (self._effective(priority, key, candidate=True), -i, slot, i)
            if len(top) < k:
                heapq.heappush(top, entry)
            elif entry > top[0]:
                heapq.heapreplace(top, entry)
        # near-ties with the best are as good a bet: an idle origin's may go first too
        near = near_tie_floor(max(top)[0])
        for i, (priority, _, slot, key, _request) in enumerate(self._candidates[: 3 * k]):
            if priority < near:
                break
            entry = (self._effective(priority, key, candidate=True), -i, slot, i)
            if entry[0] >= near and entry not in top:
                top.append(entry)
        if idle_only:
            top = [e for e in top if e[2] not in busy]
            if not top:
                return None
        return self._candidates.pop(idle_first(top, busy))[4]

    def _next_deferred(self, busy: set[str]) -> Request | None:
        """No candidate sharing a query term is left: the listed entries that share none
        become candidates now (the frontier keeps them back until then)."""
        if not self.frontier.deferred():
            return None
        for request in self.frontier.release_deferred():
            self.crawler.stats.inc_value("light/frontier/enqueued")
            self._add_candidate(request)
        return self._next_candidate(busy)

    def _add_candidate(self, request: Request) -> None:
        key = (request.meta.get("source_id", ""), int(request.meta.get("query_index", 0)))
        self._candidates.append((request.priority, next(self._counter), self._slot_key(request), key, request))
        self._sorted = False

    def _rescore(self) -> None:
        """Rescore with the pool as it stands (when it changed) and keep them by priority."""
        version = self.frontier.version
        if version != self._scored:
            self._scored = version
            entries = []
            for _, order, slot, _, request in self._candidates:
                request.priority = self.frontier.priority(request)
                key = (request.meta.get("source_id", ""), int(request.meta.get("query_index", 0)))
                entries.append((request.priority, order, slot, key, request))
            self._candidates = entries
            self._sorted = False
        if not self._sorted:
            self._candidates.sort(key=lambda e: (-e[0], e[1]))
            self._sorted = True

    def _prune(self) -> None:
        """Keep the best ``LIGHT_DISCOVERY_MAX_CANDIDATES`` candidates by current score."""
        over = len(self._candidates) - self.max_candidates
        if over <= 0:
            return
        self._rescore()
        del self._candidates[self.max_candidates:]
        self.crawler.stats.inc_value("light/discovery/candidates_dropped", over)
        self._dropped = True

    def _give_up_candidates(self, reason: str, *, discovery: bool = False) -> None:
        """Every hop (or every page hop) is claimed: no candidate can be read (one with a
        fresh record never became a request), so the frontier lets them go at once rather
        than hand each out to be refused by the hop budget after the middlewares."""
        self.budget.stop(reason)
        unread = len(self._candidates) + self.frontier.give_up_deferred()
        self.crawler.stats.inc_value("light/frontier/unread", unread)
        self._candidates.clear()
        if discovery and self._pending:
            self.crawler.stats.inc_value("light/frontier/unread_discovery", self._pending)
            self._buckets.clear()
            self._pending = 0

    def close(self, reason: str) -> Any:
        # The bound keeps the best candidates, so it only stopped the search short when the
        # search ended for no other reason with candidates given up.
        if self._dropped or self.frontier.gave_up_relevant:
            self.budget.stop("candidates")
        return self.df.close(reason)

    # ------------------------------------------------------------------ helpers
    def _effective(self, priority: float, key: tuple[str, int], *, candidate: bool = False) -> float:
        """``priority`` less the fairness charges (a candidate's: its query's only)."""
        charge = self.query_charge * self._served_query.get(key[1], 0)
        if not candidate:
            charge += self.source_charge * self._served_source.get(key[0], 0)
        return priority - charge

    def _hops_spent(self) -> bool:
        return self.budget.hops >= self.max_hops

    def _pages_read(self) -> int:
        return self.budget.by_stage.get("article", 0)

    def _pages_spent(self) -> bool:
        return self._pages_read() >= self.page_allowance

    def _pages_left(self) -> int:
        """Page hops neither claimed nor promised to a candidate already on its way."""
        return self.page_allowance - self._pages_read() - self._coming(candidates_only=True)

    def _spare_pages(self) -> int:
        """Page hops the allowance holds beyond ``article_hops``, neither claimed nor promised:
        read while the map is still being read (14 pages, 8 article hops: 6)."""
        return self._pages_left() - self.article_hops

    def _hops_left(self) -> int:
        """Hops not yet claimed nor promised to a request already on its way (waiting for
        its origin's turn or its robots.txt), so three slots freeing at once do not take
        the map phase past its end."""
        return self.max_hops - self.budget.hops - self._coming()

    def _coming(self, *, candidates_only: bool = False) -> int:
        """Requests in the downloader that have not claimed their hop yet."""
        return sum(1 for r in self.downloader.downloading()
                   if not r.meta.get("hop_claimed") and (not candidates_only or _is_candidate(r)))

    def _in_flight(self) -> Iterable[Request]:
        """Requests downloading or whose response is being parsed."""
        return self.downloader.in_flight()

    def _named_floor(self) -> float:
        """The priority of the discovery documents a document in flight may name.

        A sitemap index names child sitemaps, a hundred pages each for one hop; a hub or a
        listing page read while the index is on its way would take a child's place, and the
        more so the busier the origins."""
        return max((float(r.meta["names_at"]) for r in self._in_flight() if "names_at" in r.meta),
                   default=float("-inf"))

    def _discovery_in_flight(self, *, first_only: bool = False) -> bool:
        return any(
            _is_discovery(r) and not (first_only and r.meta.get("reserve"))
            for r in self._in_flight()
        )

    def _discovery_parsing(self) -> bool:
        """A discovery document downloaded whose links are being read (in the worker pool
        when it is not small)."""
        return any(_is_discovery(r) for r in self.downloader.parsing())

    def _sitemap_in_flight(self) -> bool:
        return any(r.meta.get("stage") == "sitemap" for r in self._in_flight())

    def _slot_key(self, request: Request) -> str:
        return self.downloader.slot_key(request)

    def _busy_slots(self) -> set[str]:
        return self.downloader.busy_slots()


def idle_first(readable: Sequence[tuple[float, int, str, Any]], busy: set[str]) -> Any:
    """Of ``readable`` (effective priority, tie order, slot, value), the documents the hops
    left would read anyway, the value of the one on an idle origin first.

    The preference orders the reads and never chooses them: over the whole queue it would
    let a busy origin's strong documents lose to an idle one's weak ones, and a search's
    reads would depend on what other searches were doing."""
    return max(readable, key=lambda e: (e[2] not in busy, e[0], e[1]))[3]


def _is_candidate(request: Request) -> bool:
    return "candidate" in request.meta


def _is_discovery(request: Request) -> bool:
    """A source's document read for what it names (a feed, map, hub or listing page)."""
    return "source_id" in request.meta and not _is_candidate(request)
