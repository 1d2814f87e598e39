"""Calls per client on the served surfaces (MCP over HTTP, invoke): per minute
(``rate_limited`` beyond ``WEB_TOOLS_SEARCHES_PER_MINUTE`` / ``WEB_TOOLS_FETCHES_PER_MINUTE``)
and at once (``WEB_TOOLS_CALLS_IN_FLIGHT``, shared among the clients present: the rest wait
their turn).

Both count the one name of a client (``request_checks.client_of``), the name its calls take
their turns under in the worker pool and for transfers (lightsearch/clients.py)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable, Mapping

from lightsearch.errors import LightSearchError

# How long a client stays present, and shares the calls at once with others, after its last
# call ended: longer than an agent's usual turn between two calls (a model's answer, a tool
# of its own), so an agent in the middle of its work keeps its place.
PRESENT_SECS = 10.0
REMEMBERED_CLIENTS = 4096  # clients kept present after their last call, at most


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
    """A client's calls running at once: at most ``limit`` while it is the only client
    present, and its share of ``limit`` when others are (``limit`` divided by the clients
    present, at least 1); 0: no limit. The others wait their turn, in the order they came,
    before any of their work starts.

    Everything a call does on the event loop (a crawl's start, its hops, its responses, its
    results) is work for the one loop, and the cores, every client shares; once a call runs,
    nothing gives its client's work a smaller turn than another's. So the turns are taken at
    the door: a client with thirty calls runs its share of them, never more, and another
    client's one call starts at once, beside as few of the first client's calls as that
    share allows. A client is present while it has calls running or waiting, and for
    ``present_secs`` after its last call ended: an agent's calls come one after another,
    with its model's turn between them, and a client between two calls still shares the
    server. A client's calls beyond its share cost nothing but their place in line; the rate
    limits bound how many there can be. A share that shrinks stops no call already running:
    the client's next calls wait until it is under its share again."""

    def __init__(self, limit: int, *, present_secs: float = PRESENT_SECS,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limit = max(0, limit)
        self.present_secs = present_secs
        self.clock = clock
        self.running: dict[str, int] = {}
        self._waiting: dict[str, deque[asyncio.Future[None]]] = {}
        self._left: OrderedDict[str, float] = OrderedDict()  # clients with no call now: when their last ended

    def waiting(self, client: str) -> int:
        """Calls of ``client`` waiting for their turn."""
        return sum(1 for turn in self._waiting.get(client, ()) if not turn.done())

    def present(self) -> set[str]:
        """The clients with calls running or waiting, or whose last call ended within
        ``present_secs``."""
        horizon = self.clock() - self.present_secs
        while self._left and (next(iter(self._left.values())) <= horizon or len(self._left) > REMEMBERED_CLIENTS):
            self._left.popitem(last=False)
        return {*self.running, *self._waiting, *self._left}

    def share(self, client: str) -> int | None:
        """How many calls of ``client`` may run at once now (None: no limit)."""
        if not self.limit:
            return None
        others = len(self.present() - {client})
        return max(1, self.limit // (1 + others))

    @contextlib.asynccontextmanager
    async def turn(self, client: str) -> AsyncIterator[None]:
        if not self.limit:
            yield
            return
        self._left.pop(client, None)
        queue = self._waiting.get(client)
        if queue or self.running.get(client, 0) >= (self.share(client) or 0):
            turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._waiting.setdefault(client, deque()).append(turn)
            try:
                await turn
            except BaseException:
                if turn.done() and not turn.cancelled():  # its turn came as it gave up: pass it on
                    self._ended(client)
                else:
                    turn.cancel()
                    self._drop_waiter(client, turn)
                raise
        else:
            self.running[client] = self.running.get(client, 0) + 1
        try:
            yield
        finally:
            self._ended(client)

    def _drop_waiter(self, client: str, turn: asyncio.Future[None]) -> None:
        queue = self._waiting.get(client)
        if queue is not None:
            with contextlib.suppress(ValueError):
                queue.remove(turn)
            if not queue:
                del self._waiting[client]
        self._note_idle(client)

    def _ended(self, client: str) -> None:
        left = self.running.get(client, 0) - 1
        if left > 0:
            self.running[client] = left
        else:
            self.running.pop(client, None)
        self._note_idle(client)
        self._admit()

    def _note_idle(self, client: str) -> None:
        """A client with nothing running or waiting stays present for a while (its turns
        are forgotten: only when it left is kept)."""
        if client not in self.running and client not in self._waiting:
            self._left[client] = self.clock()
            self._left.move_to_end(client)

    def _admit(self) -> None:
        """Start the waiting calls whose client is under its share, each client's in order."""
        for client in list(self._waiting):
            queue = self._waiting[client]
            while queue and self.running.get(client, 0) < (self.share(client) or 0):
                turn = queue.popleft()
                if turn.done():  # given up while it waited
                    continue
                self.running[client] = self.running.get(client, 0) + 1
                turn.set_result(None)
            if not queue:
                del self._waiting[client]
