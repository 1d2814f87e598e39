"""Per-origin politeness shared by every search in the process, and whose transfer goes next.

Scrapy's downloader limits concurrency per crawl; lightsearch runs one crawl per search,
so two simultaneous searches would each open a connection to the same origin. The
limiter sits in the download handler, around the network transfer, and is shared by
all crawls of one process: at most ``LIGHT_MAX_CONCURRENCY`` transfers at once and one
per origin. It is chosen by the ``LIGHT_POLITENESS_LIMITER`` setting, so a fleet can swap
in a shared backend (Redis, say) without touching lightsearch.spiders or middlewares; a
limiter is a class with ``from_crawler(crawler)`` and an async context manager
``slot(origin, *, client=None, call=None)`` held for the transfer.

A free slot goes by turn (:mod:`lightsearch.isolation.fairness`): the clients whose
transfers wait (:mod:`lightsearch.clients`, the crawl's frontier says whose call it is) in
turn, then that client's calls (crawls) in turn, then a call's transfers in the order they
came, passing over one whose origin is busy. A client holds at most all the slots but one,
so a client with many calls, or with slow ones (an origin that answers slowly, a body that
trickles), always leaves a slot for the next client's transfer. Transfers of calls made
for no client (one process serving itself: the Python API, the commands, MCP over stdio)
wait in one line in the order they came, with no limit but the total.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from lightsearch.isolation.fairness import FairQueue

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class _Local:
    """The one line of the transfers of calls made for no client."""

    def __repr__(self) -> str:
        return "<calls made for no client>"


LOCAL = _Local()


@dataclass(eq=False)
class _Waiter:
    origin: str
    granted: asyncio.Future[None]


class InProcessLimiter:
    """One instance per (loop, limits) in the process; see :meth:`from_crawler`."""

    _instances: ClassVar[dict[tuple[int, int, int], InProcessLimiter]] = {}

    def __init__(self, total: int, per_origin: int) -> None:
        self.total = max(1, total)
        self.per_origin = max(1, per_origin)
        self.client_share = max(1, self.total - 1)
        self._line: FairQueue[_Waiter] = FairQueue(self._share)
        self.in_flight = 0
        self.active: dict[str, int] = {}
        self.max_active: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> InProcessLimiter:
        total = crawler.settings.getint("LIGHT_MAX_CONCURRENCY")
        per_origin = crawler.settings.getint("LIGHT_MAX_CONCURRENCY_PER_ORIGIN")
        key = (id(asyncio.get_event_loop()), total, per_origin)
        if key not in cls._instances:
            cls._instances[key] = cls(total, per_origin)
        return cls._instances[key]

    def _share(self, client: Hashable) -> int | None:
        return None if client is LOCAL else self.client_share

    def waiting(self) -> int:
        return len(self._line)

    @contextlib.asynccontextmanager
    async def slot(self, origin: str, *, client: str | None = None,
                   call: Hashable | None = None) -> AsyncIterator[None]:
        """Hold one of the process's transfer slots, and the origin's, for a transfer of
        ``call`` (a crawl) made for ``client``."""
        if client is None:
            lane: Hashable = LOCAL
            key: Hashable = LOCAL
        else:
            lane, key = (call if call is not None else object()), client
        waiter = _Waiter(origin, asyncio.get_running_loop().create_future())
        self._line.push(lane, waiter, key)
        self._grant()
        try:
            await waiter.granted
        except BaseException:  # cancelled (the crawl's deadline, an abort) while it waited
            if waiter.granted.done() and not waiter.granted.cancelled():
                self._release(lane, origin)  # granted in the same moment: give it back
            else:
                waiter.granted.cancel()
                self._line.remove(lambda _lane, w: w is not waiter)
            raise
        try:
            yield
        finally:
            self._release(lane, origin)

    def _origin_free(self, waiter: _Waiter) -> bool:
        return self.active.get(waiter.origin, 0) < self.per_origin

    def _grant(self) -> None:
        while self.in_flight < self.total:
            picked = self._line.pop(self._origin_free)
            if picked is None:
                return
            lane, waiter = picked
            if waiter.granted.done():  # its task was cancelled and has not yet left the line
                self._line.done(lane)
                continue
            self.in_flight += 1
            active = self.active[waiter.origin] = self.active.get(waiter.origin, 0) + 1
            self.max_active[waiter.origin] = max(self.max_active.get(waiter.origin, 0), active)
            waiter.granted.set_result(None)

    def _release(self, lane: Hashable, origin: str) -> None:
        self.in_flight -= 1
        left = self.active.get(origin, 0) - 1
        if left > 0:
            self.active[origin] = left
        else:
            # Idle origins are forgotten so the table stays as small as the traffic.
            self.active.pop(origin, None)
        self._line.done(lane)
        self._grant()
