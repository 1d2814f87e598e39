"""Calls per client per minute on the served surfaces (MCP, invoke): ``rate_limited``
beyond ``WEB_TOOLS_SEARCHES_PER_MINUTE`` / ``WEB_TOOLS_FETCHES_PER_MINUTE``."""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable, Mapping

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
