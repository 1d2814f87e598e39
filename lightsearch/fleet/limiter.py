"""Per-origin politeness for the whole fleet: at most ``LIGHT_MAX_CONCURRENCY_PER_ORIGIN``
(1) transfers to an origin at once across every worker, and ``LIGHT_MAX_CONCURRENCY`` (3)
per worker, as the in-process limiter keeps them.

A transfer first takes the worker's own slots (``InProcessLimiter``: the per-worker total,
and one waiter per origin per worker, given by turn among the worker's clients), then a
fleet lease on the origin in Redis:

* **Leases expire.** A lease lives ``FLEET_LEASE_SECS`` and the holder renews it every
  third of that while the transfer runs, so a worker killed mid-request frees its origins
  within the lease time, and a slow transfer keeps its origin.
* **Fair.** Waiters queue by ticket in a sorted set; only the first live waiters may take
  a free lease, so a search that waits is not overtaken by later ones from other workers.
  Each worker has at most one waiter per origin there (its own slot for the origin is
  taken first, by turn among its clients), so one client's many calls hold no more
  than one place per worker in an origin's line.
  A waiter proves it is alive by refreshing a short-lived key each time it looks; a dead
  waiter's ticket is dropped by the next one who looks.
* **No hot loop.** A release is published on a Redis channel; each worker listens on one
  thread and wakes its waiter for that origin at once. A waiter also looks again after a
  back-off from 5 to 50 ms, for a lease that expired and a message that was lost.
  (Polling alone leaves an origin idle for half a back-off after each release, and two
  workers no faster than one: docs/EVALUATION.md.)
* **Degrades.** Redis down or slow: the transfer goes ahead under the worker's own limits
  (reported by the link), and the next transfer tries Redis again after the retry time.
* **Untrusted.** The limiter's keys hold tokens compared inside Redis, never decoded
  here; what comes back is a slot number checked against the bound, and a release message
  only wakes a waiter early (a forged one costs one extra look). A Redis writer can make
  workers wait (or, deleting leases, overlap on an origin), never exceed each worker's
  own limits; see docs/SECURITY.md.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import threading
import time
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, ClassVar

from lightsearch.crawl.politeness import InProcessLimiter
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

POLL_FIRST_SECS = 0.005
POLL_MAX_SECS = 0.05
ALIVE_MS = 1000  # a waiter that stopped looking for this long has left the queue

ACQUIRE = """
local q, seq, alive, slotp, token = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5]
local lease, alive_ms, n = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[8])
if not redis.call('ZSCORE', q, token) then redis.call('ZADD', q, redis.call('INCR', seq), token) end
redis.call('SET', alive .. token, '1', 'PX', alive_ms)
redis.call('PEXPIRE', q, alive_ms * 10)
redis.call('PEXPIRE', seq, 86400000)
local free = {}
for i = 0, n - 1 do
  if redis.call('EXISTS', slotp .. i) == 0 then table.insert(free, i) end
end
if #free == 0 then return -1 end
local ahead = 0
for _, m in ipairs(redis.call('ZRANGE', q, 0, -1)) do
  if m == token then break end
  if redis.call('EXISTS', alive .. m) == 1 then ahead = ahead + 1 else redis.call('ZREM', q, m) end
end
if ahead >= #free then return -1 end
redis.call('SET', slotp .. free[1], token, 'PX', lease)
redis.call('ZREM', q, token)
redis.call('DEL', alive .. token)
return free[1]
"""

RELEASE = """
if redis.call('GET', ARGV[1]) == ARGV[2] then
  redis.call('DEL', ARGV[1])
  redis.call('PUBLISH', ARGV[3], ARGV[4])
  return 1
end
return 0
"""

RENEW = """
if redis.call('GET', ARGV[1]) == ARGV[2] then return redis.call('PEXPIRE', ARGV[1], ARGV[3]) end
return 0
"""

LEAVE = """
redis.call('ZREM', ARGV[1], ARGV[2])
redis.call('DEL', ARGV[3])
return 1
"""


class RedisLimiter:
    """``LIGHT_POLITENESS_LIMITER = "lightsearch.fleet.limiter.RedisLimiter"``."""

    _instances: ClassVar[dict[tuple[Any, ...], RedisLimiter]] = {}

    def __init__(self, link: FleetLink, total: int, per_origin: int, lease_secs: float) -> None:
        self.link = link
        self.local = InProcessLimiter(total, per_origin)
        self.per_origin = per_origin
        self.lease_ms = max(1, int(lease_secs * 1000))
        self.worker = f"{link.worker}:{uuid.uuid4().hex[:8]}"
        self._tickets = itertools.count()
        self._wakeups: dict[str, asyncio.Event] = {}
        self.channel = link.key("released")
        self._listener: threading.Thread | None = None
        self.leases = 0  # transfers that held a fleet lease
        self.unshared = 0  # transfers that went ahead on local limits (Redis unavailable)
        self.lost = 0  # leases found taken over at renewal (the worker stalled past the lease)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> RedisLimiter:
        s = crawler.settings
        link = FleetLink.from_settings(s)
        key = (id(asyncio.get_event_loop()), id(link), s.getint("LIGHT_MAX_CONCURRENCY"),
               s.getint("LIGHT_MAX_CONCURRENCY_PER_ORIGIN"), s.getfloat("FLEET_LEASE_SECS"))
        if key not in cls._instances:
            cls._instances[key] = cls(link, key[2], key[3], key[4])
        return cls._instances[key]

    # the in-process limiter's counters, for tests and diagnostics
    @property
    def active(self) -> dict[str, int]:
        return self.local.active

    @property
    def max_active(self) -> dict[str, int]:
        return self.local.max_active

    @contextlib.asynccontextmanager
    async def slot(self, origin: str, *, client: str | None = None,
                   call: Any = None) -> AsyncIterator[None]:
        async with self.local.slot(origin, client=client, call=call):
            held = await self._lease(origin)
            renewing = asyncio.ensure_future(self._renew(*held)) if held else None
            try:
                yield
            finally:
                if renewing is not None:
                    renewing.cancel()
                if held:
                    self._release(*held)
                self._wake(origin)

    # ------------------------------------------------------------------ leases
    def _keys(self, origin: str) -> tuple[str, str, str, str]:
        base = self.link.key("origin", origin, "")
        return base + "q", base + "seq", base + "alive:", base + "slot:"

    async def _lease(self, origin: str) -> tuple[str, str] | None:
        """(slot key, token) once this worker holds a fleet lease; None on local limits."""
        queue, seq, alive, slots = self._keys(origin)
        token = f"{self.worker}:{next(self._tickets)}"
        acquire = self.link.script("limiter-acquire", ACQUIRE)
        args = [queue, seq, alive, slots, token, self.lease_ms, ALIVE_MS, self.per_origin]
        delay = POLL_FIRST_SECS
        try:
            while True:
                try:
                    slot = self.link.call(lambda c: acquire(args=args, client=c))
                except SharedStateUnavailable:
                    self.unshared += 1
                    return None
                if isinstance(slot, int) and 0 <= slot < self.per_origin:
                    self.leases += 1
                    return f"{slots}{slot}", token
                await self._sleep(origin, delay)
                delay = min(POLL_MAX_SECS, delay * 2)
        except BaseException:  # cancelled while waiting: leave the queue at once
            leave = self.link.script("limiter-leave", LEAVE)
            with contextlib.suppress(SharedStateUnavailable):
                self.link.call(lambda c: leave(args=[queue, token, alive + token], client=c))
            raise

    async def _sleep(self, origin: str, delay: float) -> None:
        if self._listener is None:
            self._listen(asyncio.get_running_loop())
        event = self._wakeups.get(origin)
        if event is None:
            event = self._wakeups[origin] = asyncio.Event()
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(event.wait(), delay)

    def _wake(self, origin: str) -> None:
        event = self._wakeups.pop(origin, None)
        if event is not None:
            event.set()

    async def _renew(self, slot: str, token: str) -> None:
        renew = self.link.script("limiter-renew", RENEW)
        while True:
            await asyncio.sleep(self.lease_ms / 3000.0)
            try:
                kept = self.link.call(lambda c: renew(args=[slot, token, self.lease_ms], client=c))
            except SharedStateUnavailable:
                continue
            if not kept:
                self.lost += 1
                return

    def _release(self, slot: str, token: str) -> None:
        release = self.link.script("limiter-release", RELEASE)
        origin = slot[len(self.link.key("origin", "")):].rsplit(":slot:", 1)[0]
        with contextlib.suppress(SharedStateUnavailable):
            self.link.call(lambda c: release(args=[slot, token, self.channel, origin], client=c))

    def _listen(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start the thread that turns the fleet's release messages into wake-ups."""
        self._listener = threading.Thread(target=self._listen_forever, args=(loop,), daemon=True,
                                          name="lightsearch-fleet-releases")
        self._listener.start()

    def _listen_forever(self, loop: asyncio.AbstractEventLoop) -> None:
        # Its own connection without a read timeout: a subscriber waits for messages.
        client = self.link.subscriber()
        while not loop.is_closed():
            try:
                pubsub = client.pubsub(ignore_subscribe_messages=True)
                pubsub.subscribe(self.channel)
                while not loop.is_closed():
                    message = pubsub.get_message(timeout=1.0)
                    data = message.get("data") if message and message.get("type") == "message" else None
                    # only an origin this worker waits for wakes anything; anyone may publish
                    if isinstance(data, bytes) and len(data) <= 2048:
                        loop.call_soon_threadsafe(self._wake, data.decode("utf-8", "replace"))
            except Exception:  # Redis down or restarting: the waiters' back-off still works
                time.sleep(1.0)
