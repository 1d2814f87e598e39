"""Per-origin politeness shared by every search in the process.

Scrapy's downloader limits concurrency per crawl; lightsearch runs one crawl per search,
so two simultaneous searches would each open a connection to the same origin. The
limiter sits in the download handler, around the network transfer, and is shared by
all crawls of one process: at most ``LIGHT_MAX_CONCURRENCY`` transfers at once and one
per origin. It is chosen by the ``LIGHT_POLITENESS_LIMITER`` setting, so a fleet can swap
in a shared backend (Redis, say) without touching lightsearch.spiders or middlewares.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from scrapy.crawler import Crawler


class InProcessLimiter:
    """One instance per (loop, limits) in the process; see :meth:`from_crawler`."""

    _instances: ClassVar[dict[tuple[int, int, int], InProcessLimiter]] = {}

    def __init__(self, total: int, per_origin: int) -> None:
        self.total = total
        self.per_origin = per_origin
        self._total = asyncio.Semaphore(total)
        self._origins: dict[str, asyncio.Semaphore] = {}
        self._users: dict[str, int] = {}
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

    @contextlib.asynccontextmanager
    async def slot(self, origin: str) -> AsyncIterator[None]:
        sem = self._origins.get(origin)
        if sem is None:
            sem = self._origins[origin] = asyncio.Semaphore(self.per_origin)
        self._users[origin] = self._users.get(origin, 0) + 1
        try:
            async with sem, self._total:
                self.active[origin] = self.active.get(origin, 0) + 1
                self.max_active[origin] = max(self.max_active.get(origin, 0), self.active[origin])
                try:
                    yield
                finally:
                    self.active[origin] -= 1
        finally:
            self._users[origin] -= 1
            if not self._users[origin]:
                # Idle origins are forgotten so the table stays as small as the traffic.
                del self._users[origin]
                self._origins.pop(origin, None)
                self.active.pop(origin, None)
