"""The pages of one ``fetch_many`` in turn: how many are crawled at once, and which next.

A crawl is event-loop work every caller of the process shares (its start, its hops, its
robots.txt and redirects), and one call's pages are read by at most its share of the
worker pool (half the workers, :class:`~lightsearch.isolation.pool.WorkerPool`) and
fetched one of an origin at a time (the politeness limit). Pages past those would only do
their loop work up front, beside every other caller's, to wait for a worker or for their
origin: so a call crawls at most its share of the pool's pages at once, one of an origin
at a time, the others waiting in the order they came.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import urlsplit


def pages_at_once(settings: Any) -> int:
    """How many pages of one call are crawled at once: the call's share of the pool."""
    return max(1, settings.getint("LIGHT_POOL_WORKERS") // 2)


class PageTurns:
    """At most ``limit`` pages at once, and one of an origin (the host of the URL given) at
    a time; the others start in the order they came, as they can."""

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.running: list[str | None] = []
        self._waiters: list[asyncio.Future[None]] = []

    def _may_start(self, host: str | None) -> bool:
        return len(self.running) < self.limit and (host is None or host not in self.running)

    @contextlib.asynccontextmanager
    async def turn(self, url: Any) -> AsyncIterator[bool]:
        """Hold a page's turn; yields whether it had to wait for it."""
        try:
            host = urlsplit(url).hostname if isinstance(url, str) else None
        except ValueError:
            host = None  # the page fails its own checks; it takes a turn like any other
        waited = False
        while not self._may_start(host):
            waited = True
            wake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiters.append(wake)
            try:
                await wake
            finally:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(wake)
        self.running.append(host)
        try:
            yield waited
        finally:
            self.running.remove(host)
            waiters, self._waiters = self._waiters, []
            for wake in waiters:  # each looks again, in the order they came
                if not wake.done():
                    wake.set_result(None)
