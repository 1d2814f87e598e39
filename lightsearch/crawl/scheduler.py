"""The frontier: a Scrapy scheduler that spends a small hop budget where it counts.

Scrapy's default queue is per download slot and round-robins across origins, so a
low-value sitemap on an idle origin goes out before a strong candidate on a busy one.
With 24 hops per search that order decides what is found. This scheduler keeps one
best-first heap per (source, query) bucket and hands out the request with the highest
*effective* priority: its lexical priority minus a fairness charge for every hop its
source and its query have already been given. Every bucket's best request therefore
goes out before any bucket gets a second turn at equal value, and no source or query
starves another, while within a bucket the best candidate always goes first.

It also prefers requests whose origin has nothing in flight, so one busy origin does not
hold one of the three concurrency places while others sit idle.

A request marked ``reserve`` (the opening of a source the plan keeps in reserve: robots,
home page, feed and sitemap cost hops before any article) waits until no other request
worth a hop (a positive priority) is pending, downloading or being parsed (a page being
read may yield candidates): a reserve source is opened with the hops the first ones
leave, never instead of a candidate of theirs.
"""

from __future__ import annotations

import heapq
import itertools
import logging
from typing import TYPE_CHECKING, Any

from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import build_from_crawler, load_object

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from typing_extensions import Self

logger = logging.getLogger(__name__)


class FrontierScheduler:
    def __init__(self, crawler: Crawler, dupefilter: Any) -> None:
        self.crawler = crawler
        self.df = dupefilter
        settings = crawler.settings
        self.source_charge = settings.getfloat("LIGHT_FRONTIER_SOURCE_CHARGE")
        self.query_charge = settings.getfloat("LIGHT_FRONTIER_QUERY_CHARGE")
        self.max_depth = settings.getint("LIGHT_DISCOVERY_MAX_DEPTH")
        self._buckets: dict[tuple[str, int], list[tuple[float, int, Request]]] = {}
        self._served_source: dict[str, int] = {}
        self._served_query: dict[int, int] = {}
        self._counter = itertools.count()
        self._pending = 0
        self._worth = 0  # pending requests, reserve openings aside, with a positive priority

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        dupefilter_cls = load_object(crawler.settings["DUPEFILTER_CLASS"])
        return cls(crawler, build_from_crawler(dupefilter_cls, crawler))

    # ------------------------------------------------------------------ BaseScheduler
    def open(self, spider: Spider) -> Any:
        return self.df.open()

    def close(self, reason: str) -> Any:
        return self.df.close(reason)

    def has_pending_requests(self) -> bool:
        return self._pending > 0

    def __len__(self) -> int:
        return self._pending

    def enqueue_request(self, request: Request) -> bool:
        if not request.dont_filter and self.df.request_seen(request):
            self.df.log(request, self.crawler.spider)
            return False
        if request.meta.get("depth", 0) > self.max_depth:
            self.crawler.stats.inc_value("light/frontier/too_deep")
            return False
        key = (request.meta.get("source_id", ""), int(request.meta.get("query_index", 0)))
        heap = self._buckets.setdefault(key, [])
        heapq.heappush(heap, (-float(request.priority), next(self._counter), request))
        self._pending += 1
        if self._worth_a_hop(request):
            self._worth += 1
        self.crawler.stats.inc_value("light/frontier/enqueued")
        return True

    def next_request(self) -> Request | None:
        best_key = self._best(gate_reserve=bool(self._worth) or self._worth_in_flight())
        if best_key is None and self._worth:
            # a request worth a hop can sit under a reserve opening in one bucket (a link
            # into a reserve source's site): the gate must never stall the frontier
            best_key = self._best(gate_reserve=False)
        if best_key is None:
            return None
        _, _, request = heapq.heappop(self._buckets[best_key])
        self._pending -= 1
        if self._worth_a_hop(request):
            self._worth -= 1
        elif request.meta.get("reserve"):
            self.crawler.stats.inc_value("light/frontier/reserve_opened")
        self._served_source[best_key[0]] = self._served_source.get(best_key[0], 0) + 1
        self._served_query[best_key[1]] = self._served_query.get(best_key[1], 0) + 1
        self.crawler.stats.inc_value("light/frontier/dequeued")
        return request

    # ------------------------------------------------------------------ helpers
    def _best(self, *, gate_reserve: bool) -> tuple[str, int] | None:
        best_key: tuple[str, int] | None = None
        best_rank: tuple[int, float] | None = None
        busy = self._busy_slots()
        for key, heap in self._buckets.items():
            if not heap:
                continue
            neg_priority, _, request = heap[0]
            if gate_reserve and request.meta.get("reserve"):
                continue
            effective = (
                -neg_priority
                - self.source_charge * self._served_source.get(key[0], 0)
                - self.query_charge * self._served_query.get(key[1], 0)
            )
            idle = 0 if self._slot_key(request) in busy else 1
            rank = (idle, effective)
            if best_rank is None or rank > best_rank:
                best_key, best_rank = key, rank
        return best_key

    @staticmethod
    def _worth_a_hop(request: Request) -> bool:
        return request.priority > 0 and not request.meta.get("reserve") and "source_id" in request.meta

    def _worth_in_flight(self) -> bool:
        """Whether a request worth a hop is downloading or its response is being parsed
        (``Downloader.active`` and ``Scraper.slot.active``, public attributes, Scrapy 2.19)."""
        engine = getattr(self.crawler, "engine", None)
        if engine is None:
            return False
        downloading = getattr(getattr(engine, "downloader", None), "active", ()) or ()
        slot = getattr(getattr(engine, "scraper", None), "slot", None)
        parsing = getattr(slot, "active", ()) or ()
        return any(self._worth_a_hop(r) for r in itertools.chain(downloading, parsing))

    @staticmethod
    def _slot_key(request: Request) -> str:
        return request.meta.get("download_slot") or (urlparse_cached(request).hostname or "")

    def _busy_slots(self) -> set[str]:
        engine = getattr(self.crawler, "engine", None)
        downloader = getattr(engine, "downloader", None)
        slots = getattr(downloader, "slots", None) or {}
        return {key for key, slot in slots.items() if slot.active or slot.queue}
