"""Calls per client on the served surfaces (MCP over HTTP, invoke): per minute
(``rate_limited`` beyond ``WEB_TOOLS_SEARCHES_PER_MINUTE`` / ``WEB_TOOLS_FETCHES_PER_MINUTE``)
and at once (``WEB_TOOLS_CALLS_IN_FLIGHT``: the rest wait their turn).

Both count the one name of a client (``request_checks.client_of``), the name its calls take
their turns under in the worker pool and for transfers (lightsearch/clients.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Mapping

from lightsearch.errors import LightSearchError


class RateLimiter:
    """Calls per client per minute, a sliding window per (client, kind).

    ``client`` is whatever identifies one agent loop on the surface: the stdio peer, an
    HTTP client's address (and token). Tracks at most ``max_clients`` clients, forgetting
    the least recently seen.
    """

    def __init__(self, limits: Mapping[str, int], *, window: float = 60.0, max_clients: int = 1024,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = dict(limits)
        self.window = window
        self.max_clients = max_clients
        self.clock = clock
        self._seen: OrderedDict[tuple[str, str], deque[float]] = OrderedDict()

    def _stamps(self, client: str, kind: str, now: float) -> deque[float]:
        key = (client, kind)
        stamps = self._seen.pop(key, None) or deque()
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        self._seen[key] = stamps
        while len(self._seen) > self.max_clients:
            self._seen.popitem(last=False)
        return stamps

    def blocked(self, client: str, kind: str) -> float | None:
        """Seconds until ``client`` may make another ``kind`` call; None when it may now.
        Nothing is counted."""
        limit = self.limits.get(kind, 0)
        if not limit:
            return None
        now = self.clock()
        stamps = self._stamps(client, kind, now)
        return max(0.0, stamps[0] + self.window - now) if len(stamps) >= limit else None

    def record(self, client: str, kind: str) -> None:
        if self.limits.get(kind, 0):
            now = self.clock()
            self._stamps(client, kind, now).append(now)

    def check(self, client: str, kind: str) -> None:
        """Count one call, or raise ``rate_limited`` (counting nothing) over the limit."""
        retry = self.blocked(client, kind)
        if retry is not None:
            limit = self.limits[kind]
            raise LightSearchError(
                "rate_limited", f"more than {limit} {kind} calls per minute from this client; "
                f"retry in {retry:.0f} s",
                {"kind": kind, "limitPerMinute": limit, "retryAfterSecs": round(retry, 1)})
        self.record(client, kind)


class CallsInFlight:
    """At most ``limit`` calls of one client running at once (0: no limit); the others wait
    their turn, in the order they came, before any of their work starts.

    Everything a call does on the event loop (a crawl's start, its responses, its results)
    is work for the one loop every client shares, and a client's calls would otherwise
    all do it at once: thirty concurrent fetches of one client would keep another client's
    fetch waiting behind their crawls' starts. A client's calls beyond the limit cost nothing but
    their place in line; the rate limits bound how many there can be."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self._gates: dict[str, asyncio.Semaphore] = {}
        self._users: dict[str, int] = {}  # calls of a client running or waiting
        self.running: dict[str, int] = {}

    def waiting(self, client: str) -> int:
        """Calls of ``client`` waiting for their turn."""
        return self._users.get(client, 0) - self.running.get(client, 0)

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        if not self.limit:
            yield
            return
        gate = self._gates.get(client)
        if gate is None:
            gate = self._gates[client] = asyncio.Semaphore(self.limit)
        self._users[client] = self._users.get(client, 0) + 1
        try:
            async with gate:
                self.running[client] = self.running.get(client, 0) + 1
                try:
                    yield
                finally:
                    self.running[client] -= 1
                    if not self.running[client]:
                        del self.running[client]
        finally:
            self._users[client] -= 1
            if not self._users[client]:  # a client with no call left is forgotten
                del self._users[client], self._gates[client]
