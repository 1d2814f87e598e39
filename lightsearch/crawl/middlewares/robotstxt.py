"""robots.txt, RFC 9309, and stricter where the bounds say so.

Replaces Scrapy's ``RobotsTxtMiddleware``, which parses whatever body comes back (a 500
error page included) and allows everything when the fetch fails. Here:

* 2xx with a complete body within ``LIGHT_ROBOTS_MAX_BYTES``: the rules apply;
* 4xx, or more than ``LIGHT_ROBOTS_MAX_REDIRECTS`` redirects: "unavailable", crawl freely;
* 5xx, a timeout, a network error, a body cut short or over the size limit: an
  incomplete robots response, which blocks crawling the origin; so does a file whose
  rules for us are past their bounds (more than 500 rules, more than 64 KiB of them:
  documents/robots_digest.py), which cannot be applied whole.

A body is read into the digest of the group that binds us (documents/robots_digest.py): a
small one here, a larger one in the call's lane of the worker pool
(lightsearch/isolation/apart.py); protego parses only the digest. The digest is kept by the
body's hash for a while (cache/parsed.py): the same file from another origin is not read again.

Robots fetches and each of their redirects go through the downloader like any hop, so
the download handler counts them against the hop budget and the transport guard vets
them. Definite answers go to the process-wide robots cache (``LIGHT_ROBOTS_CACHE``): rules,
"allow", and the block of a complete file whose rules are past their bounds (the same file
gives it to every search; it is not fetched and read again while fresh); a failure blocks
the origin for this search only.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from scrapy import Request, signals
from scrapy.exceptions import NotConfigured
from scrapy.http.request import NO_CALLBACK
from scrapy.utils.httpobj import urlparse_cached

from lightsearch.cache import load_cache
from lightsearch.cache.freshness import freshness
from lightsearch.cache.parsed import lookup, remember
from lightsearch.cache.robots import OVER_BOUNDS, RobotsRules
from lightsearch.crawl.budget import BudgetExceeded
from lightsearch.crawl.failures import CodedRefusal, classify
from lightsearch.documents.robots_digest import RobotsDigest, digest_robots
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.apart import parse_apart
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

logger = logging.getLogger(__name__)

FETCHES = "light/robots/fetches"
CACHE_HITS = "light/robots/cache_hits"
DENIED = "light/robots/denied"
BLOCKED = "light/robots/blocked"
WAITED = "light/robots/waited"  # rules another search was fetching, waited for
DIGESTS_KEPT = "light/robots/digests_kept"  # bodies read before (for another origin): not read again
CLAIM_POLL_SECS = 0.05
CLAIM_MARGIN_SECS = 5.0
# Failures of the robots.txt fetch reported under their own code, not robots_unreachable.
ORIGIN_FAULTS = frozenset({"blocked_address", "invalid_url", "tls_error"})


class RobotsDenied(CodedRefusal):
    """The origin's robots.txt disallows the URL, or could not be read completely."""

    def __init__(self, message: str, *, code: str, origin: str, detail: str = "", reason: str = "") -> None:
        super().__init__(message)
        self.code = code  # robots_disallowed | robots_unreachable | a transport code
        self.origin = origin
        self.detail = detail
        self.reason = reason  # the transport refusal's reason (guard, header/size bounds)


def rules_of(digest: RobotsDigest) -> RobotsRules:
    """The verdict a file's digest gives: its rules, or a block when they are past their
    bounds.

    Protego has not been seen to raise on any input (fuzzed with the shared robots.txt
    corpus and hostile fragments), but it documents no exception set and the digest is
    the origin's words; should it raise, the file counts as unreadable, which blocks the
    origin like an incomplete one instead of failing the request raw.
    """
    if digest.over:
        return RobotsRules("block", detail=f"robots.txt: {digest.over}", reason=OVER_BOUNDS, agent=digest.agent)
    try:
        return RobotsRules("rules", text=digest.text, agent=digest.agent)
    except Exception as exc:  # see the docstring
        return RobotsRules("block", detail=f"unparseable robots.txt ({type(exc).__name__}: "
                           f"{quote_untrusted(str(exc), 40, sentence=True)})"[:200])


def parse_robots(body: bytes, agent: str) -> RobotsRules:
    """The rules of a complete robots.txt body for the crawler named ``agent`` (RFC 9309:
    UTF-8, a BOM ignored), read here."""
    return rules_of(digest_robots(body, agent))


# The robots.txt bodies being read now, by their digest's key: a reading for one origin
# serves the others that got the same file meanwhile.
_READING: dict[str, asyncio.Future[None]] = {}


class RobotsMiddleware:
    DOWNLOAD_PRIORITY = 1000

    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        if not settings.getbool("ROBOTSTXT_OBEY"):
            raise NotConfigured
        self.crawler = crawler
        self.user_agent = settings.get("ROBOTSTXT_USER_AGENT") or settings.get("USER_AGENT")
        self.agent = self.user_agent.strip().lower()
        self.max_bytes = settings.getint("LIGHT_ROBOTS_MAX_BYTES")
        self.max_redirects = settings.getint("LIGHT_ROBOTS_MAX_REDIRECTS")
        self.timeout = settings.getfloat("LIGHT_ROBOTS_TIMEOUT_SECS")
        self.max_age = settings.getfloat("LIGHT_ROBOTS_CACHE_MAX_AGE_SECS")
        self.cache = load_cache(settings, "LIGHT_ROBOTS_CACHE")
        self._pending: dict[str, asyncio.Future[RobotsRules]] = {}
        self._rules: dict[str, RobotsRules] = {}
        # origin -> the gate its requests pass while its rules are learnt, and how many wait
        self._gates: dict[str, asyncio.Lock] = {}
        self._waiting: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    async def process_request(self, request: Request) -> None:
        if request.meta.get("dont_obey_robotstxt"):
            return
        parts = urlparse_cached(request)
        if parts.scheme not in ("http", "https"):
            return
        origin = f"{parts.scheme}://{parts.netloc.lower()}"
        rules = await self.rules_for(origin, request)
        if rules.allowed(request.url, self.user_agent):
            return
        stats = self.crawler.stats
        if rules.verdict == "block":
            stats.inc_value(BLOCKED)
            raise RobotsDenied(
                f"robots.txt of {origin} could not be read completely ({rules.detail}); the origin is blocked",
                code=rules.cause, origin=origin, detail=rules.detail, reason=rules.reason,
            )
        stats.inc_value(DENIED)
        raise RobotsDenied(f"Forbidden by robots.txt of {origin}", code="robots_disallowed", origin=origin)

    # ------------------------------------------------------------------ rules
    async def rules_for(self, origin: str, request: Request) -> RobotsRules:
        """The origin's rules. Requests pass this stage in the order they came to it, so
        the scheduler's order holds on an origin whose rules were being learnt: a request
        that came while others waited queues behind them, even after the rules arrive
        (it went ahead of them when it found the rules stored before they resumed)."""
        rules = self._rules.get(origin)
        if rules is not None and origin not in self._gates:
            return rules
        gate = self._gates.setdefault(origin, asyncio.Lock())
        self._waiting[origin] = self._waiting.get(origin, 0) + 1
        try:
            async with gate:  # FIFO: a newcomer does not take it while others wait
                rules = self._rules.get(origin)
                if rules is None:
                    # One learning for all who wait, shielded: a waiter cancelled (its
                    # search's deadline) leaves it to the next, and a failure reaches them all.
                    pending = self._pending.get(origin)
                    if pending is None:
                        pending = self._pending[origin] = asyncio.ensure_future(self._learn(origin, request))
                    rules = await asyncio.shield(pending)
        finally:
            self._waiting[origin] -= 1
            if not self._waiting[origin]:
                del self._waiting[origin], self._gates[origin]
                if origin in self._pending and self._pending[origin].done():
                    del self._pending[origin]  # a failed one: the next request tries again
        return rules

    async def _learn(self, origin: str, request: Request) -> RobotsRules:
        """The rules from the shared cache or a fetch, announced (``robots_parsed``) before
        any request waiting for them goes on."""
        rules = self._cached(origin)
        if rules is not None:
            self.crawler.stats.inc_value(CACHE_HITS)
        else:
            rules = await self._single_flight(origin)
        if rules.verdict == "rules":
            await self.crawler.signals.send_catch_log_async(
                signal=signals.robots_parsed, robotparser=rules, request=request,
            )
        self._rules[origin] = rules
        return rules

    async def _single_flight(self, origin: str) -> RobotsRules:
        """Fetch the rules, unless another search (of this process, or of the fleet) is
        fetching them already: then wait for its answer in the shared cache. A fetch that
        ends without a storable answer (a block) releases the claim, and the next waiter
        fetches for itself; so does one that waits longer than a robots fetch may take."""
        cache = self.cache
        if cache is None or not hasattr(cache, "claim"):
            return await self._fetch(origin)
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.timeout * (self.max_redirects + 1)
        claimed = cache.claim(origin, self.timeout + CLAIM_MARGIN_SECS)
        while not claimed:
            await asyncio.sleep(CLAIM_POLL_SECS)
            rules = self._cached(origin)
            if rules is not None:
                self.crawler.stats.inc_value(CACHE_HITS)
                self.crawler.stats.inc_value(WAITED)
                return rules
            if loop.time() >= give_up:
                break  # fetch without the claim; the holder's claim stays its own
            claimed = cache.claim(origin, self.timeout + CLAIM_MARGIN_SECS)
        try:
            rules = self._cached(origin)  # stored by a fetch that ended since this search looked
            if rules is not None:
                self.crawler.stats.inc_value(CACHE_HITS)
                return rules
            return await self._fetch(origin)
        finally:
            if claimed:
                cache.release(origin)

    def _cached(self, origin: str) -> RobotsRules | None:
        """The shared cache's rules for the origin, when they were read for this crawler."""
        rules = self.cache.get(origin) if self.cache is not None else None
        return rules if rules is not None and rules.binds(self.agent) else None

    async def _fetch(self, origin: str) -> RobotsRules:
        url = f"{origin}/robots.txt"
        for _hop in range(self.max_redirects + 1):
            robots_request = Request(
                url,
                priority=self.DOWNLOAD_PRIORITY,
                callback=NO_CALLBACK,
                meta={
                    "dont_obey_robotstxt": True,
                    "dont_redirect": True,
                    "dont_cache": True,
                    "robots_fetch": True,
                    "download_maxsize": self.max_bytes,
                    "download_timeout": self.timeout,
                },
            )
            self.crawler.stats.inc_value(FETCHES)
            try:
                response = await self.crawler.engine.download_async(robots_request)
            except BudgetExceeded:
                raise  # the search's budget, not the origin's fault: nothing is learned
            except Exception as exc:  # timeouts, cuts, oversize, refusals: incomplete
                # A transport fault (TLS, the guard) is the origin's real error: name it.
                failure = classify(exc)
                cause = failure.source_code if failure.source_code in ORIGIN_FAULTS else "robots_unreachable"
                return RobotsRules("block", detail=f"{type(exc).__name__}: {exc}"[:200], cause=cause,
                                   reason=failure.reason)
            status = response.status
            if 300 <= status < 400 and response.headers.get(b"Location"):
                url = response.urljoin(response.headers[b"Location"].decode("latin-1"))
                continue
            return await self._verdict(origin, response)
        rules = RobotsRules("allow", detail=f"more than {self.max_redirects} redirects")
        self._store(origin, rules, None)
        return rules

    async def _verdict(self, origin: str, response: Response) -> RobotsRules:
        status = response.status
        if 200 <= status < 300:
            if "download_stopped" in response.flags or "dataloss" in response.flags \
                    or len(response.body) > self.max_bytes:
                return RobotsRules("block", detail="incomplete robots.txt body")
            rules = await self._read(origin, response.body)
            if not rules.storable:  # not read (the pool's limits, the call's deadline), or unparseable
                return rules
        elif 400 <= status < 500:
            rules = RobotsRules("allow", detail=f"HTTP {status}")
        else:
            return RobotsRules("block", detail=f"HTTP {status}")
        self._store(origin, rules, response)
        return rules

    async def _read(self, origin: str, body: bytes) -> RobotsRules:
        """The rules of a complete body: digested here when it is small, in the call's lane
        of the worker pool otherwise (a crawl with no lane gets one for this read). The
        digest is a function of the body and our name alone, so it is kept by the body's
        hash (cache/parsed.py), not the origin: one file served by many origins (a
        platform's sites, or a redirect they share) is read once while it is kept."""
        kind = f"robots-digest:{self.agent}"
        digest = lookup(kind, "", body)
        reading = f"{kind}:{len(body)}:{hash(body)}"
        if digest is None and reading in _READING:
            # Being read for another origin: its digest, once read (a reading that failed,
            # its call's deadline or the pool's limits, leaves this one to read for itself).
            await asyncio.wait([_READING[reading]])
            digest = lookup(kind, "", body)
        if digest is not None:
            self.crawler.stats.inc_value(DIGESTS_KEPT)
            return rules_of(digest)  # type: ignore[arg-type]
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        announced = _READING.setdefault(reading, done) is done  # else another waiter reads it too
        lane = frontier_of(self.crawler).lane
        own = lane is None
        if lane is None:
            lane = Lane(self.crawler.settings, name="robots")
        try:
            digest = await parse_apart(lane, isolated.robots, body, self.user_agent, size=len(body),
                                       what=f"the robots.txt of {origin}")
            remember(kind, "", body, digest)
        except LightSearchError as exc:  # a limit of the pool, or the call's deadline
            reason = exc.details.get("reason")
            return RobotsRules("block", detail=f"robots.txt not read: {exc.message}"[:200],
                               reason=reason if isinstance(reason, str) else "")
        finally:
            if own:
                lane.close()
            if announced:
                del _READING[reading]
                done.set_result(None)
        return rules_of(digest)

    def _store(self, origin: str, rules: RobotsRules, response: Response | None) -> None:
        if self.cache is None:
            return
        fresh = freshness(response.headers if response is not None else None, self.max_age)
        if fresh.storable:
            self.cache.put(origin, rules, fresh.expires_at)
