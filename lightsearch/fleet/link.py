"""One Redis connection per process, and whether it may be used right now.

Every fleet component calls Redis through :meth:`FleetLink.call`. A command that fails or
takes longer than ``FLEET_REDIS_TIMEOUT_MS`` in all marks the link down for
``FLEET_REDIS_RETRY_SECS``: meanwhile every component answers from its in-process
fallback without waiting on the network, then the next call tries Redis again and, if it
answers, the worker rejoins the fleet. The hot path never waits longer than the timeout.

The client is redis-py's synchronous one with blocking sockets: the stores' interfaces
are synchronous (Scrapy middlewares and pipelines call them), a loopback or LAN round trip
is a fraction of a millisecond, and a socket timeout, unlike an asyncio one, measures
Redis rather than how busy this worker's event loop is. The timeout is a deadline for each
whole command (fleet/deadline.py), not for each read of the socket.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from lightsearch.config import fleet_url
from lightsearch.errors import LightSearchError
from lightsearch.fleet.integrity import Seal, fleet_key

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)
T = TypeVar("T")


class SharedStateUnavailable(Exception):
    """Redis is down or slow; the caller uses its in-process fallback."""


def redact(url: str) -> str:
    """The URL without its password, for logs and diagnostics."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


class FleetLink:
    """A Redis client with a circuit breaker; one per (URL, prefix, timeouts) per process."""

    _links: ClassVar[dict[tuple[Any, ...], FleetLink]] = {}
    _lock: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, url: str, prefix: str, timeout: float, retry_after: float,
                 clock: Callable[[], float] = time.monotonic, key: str | None = None) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            from lightsearch.fleet.deadline import connection_class
        except ImportError:  # pragma: no cover - the fleet extra is missing
            raise LightSearchError(
                "invalid_settings", "FLEET_REDIS_URL is set but the redis package is not installed: "
                "pip install 'lightsearch[fleet]'", {"key": "FLEET_REDIS_URL"}) from None
        self.url = url
        self.prefix = prefix
        self.seal = Seal.for_link(url, prefix, key)
        self.timeout = timeout
        self.retry_after = retry_after
        self.clock = clock
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        # Redis answered, with an error about the data (a key of the wrong type, a script
        # that met a value it cannot read): not an outage, a record that does not fit.
        self._answered: tuple[type[BaseException], ...] = (redis.ResponseError,)
        try:
            # No retries inside redis-py: one slow answer must cost one timeout, not four.
            # Its sockets end every command by the command's deadline (fleet/deadline.py).
            self.client = redis.Redis.from_url(
                url, socket_timeout=timeout, socket_connect_timeout=timeout, retry=Retry(NoBackoff(), 0),
                health_check_interval=0, socket_keepalive=True, client_name="lightsearch",
                connection_class=connection_class(url))
        except ValueError as exc:
            raise LightSearchError("invalid_settings", f"FLEET_REDIS_URL is not a Redis URL: {exc}",
                                   {"key": "FLEET_REDIS_URL"}) from None
        self._down_until = 0.0
        self.available = True  # the last call answered (False from a failure to the next answer)
        self.last_error = ""
        self.failures = 0  # calls answered by the fallback because Redis was down or slow
        self.outages = 0
        # records read back from Redis that were dropped: "namespace/reason" -> count
        self.dropped: dict[str, int] = {}
        self._scripts: dict[str, Any] = {}
        self.worker = f"{socket.gethostname()}:{os.getpid()}"

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> FleetLink:
        url = fleet_url(settings)
        if not url:
            raise LightSearchError("invalid_settings", "a fleet component needs FLEET_REDIS_URL "
                                   "(or LIGHTSEARCH_REDIS_URL)", {"key": "FLEET_REDIS_URL"})
        raw = (url, settings.get("FLEET_REDIS_PREFIX"), settings.get("FLEET_REDIS_TIMEOUT_MS"),
               settings.get("FLEET_REDIS_RETRY_SECS"), fleet_key(settings.get("FLEET_KEY")))
        link = cls._links.get(raw)
        if link is not None:  # every search asks; the settings were checked when it was made
            return link
        from lightsearch.schema import validate

        validate(settings, ("FLEET_",))
        with cls._lock:
            link = cls._links.get(raw)
            if link is None:
                link = cls._links[raw] = cls(url, str(raw[1]), float(raw[2]) / 1000.0, float(raw[3]), key=raw[4])
        return link

    # ------------------------------------------------------------------ state
    @property
    def up(self) -> bool:
        """Whether a call may go to Redis now (always, except during a retry pause)."""
        return self.available or self.clock() >= self._down_until

    def status(self) -> dict[str, Any]:
        """What ``meta`` diagnostics say about the shared state."""
        state = {"redis": redact(self.url), "worker": self.worker,
                 "state": "shared" if self.available else "unavailable",
                 "fallbacks": self.failures, "outages": self.outages,
                 "integrity": self.seal.describe(), "dropped": dict(self.dropped)}
        if not self.available:
            state["error"] = self.last_error
            state["retryInSecs"] = round(max(0.0, self._down_until - self.clock()), 2)
        return state

    def call(self, fn: Callable[[Any], T]) -> T:
        """``fn(client)``, or :class:`SharedStateUnavailable` while Redis is down or slow.

        Each command of the call is answered within the timeout all together, not per read
        of the socket (fleet/deadline.py): a Redis that answers a byte at a time costs this
        caller, and the event loop it runs on, one timeout."""
        if not self.up:
            self.failures += 1
            raise SharedStateUnavailable(self.last_error)
        try:
            result = fn(self.client)
        except self._answered:
            self.drop("redis", "error")
            raise SharedStateUnavailable("Redis refused a command on a stored value") from None
        except self._errors as exc:
            self._fail(exc)
            raise SharedStateUnavailable(self.last_error) from None
        if not self.available:
            self.available = True
            logger.warning("shared state available again (Redis %s): the worker rejoins the fleet",
                           redact(self.url))
        return result

    def subscriber(self) -> Any:
        """A client of its own for a subscription: it waits for messages without a read
        timeout (connecting is still bounded)."""
        import redis
        from redis.backoff import NoBackoff
        from redis.retry import Retry

        return redis.Redis.from_url(self.url, socket_timeout=None, socket_connect_timeout=self.timeout,
                                    retry=Retry(NoBackoff(), 0), client_name="lightsearch-subscriber")

    def script(self, name: str, source: str) -> Any:
        """A registered Lua script (EVALSHA, loaded again by redis-py when Redis restarts)."""
        script = self._scripts.get(name)
        if script is None:
            script = self._scripts[name] = self.client.register_script(source)
        return script

    def key(self, *parts: str) -> str:
        return self.prefix + ":".join(parts)

    def drop(self, namespace: str, reason: str) -> None:
        """Count a record read back from Redis that did not verify or fit its shape."""
        name = f"{namespace}/{reason}"
        first = not self.dropped
        self.dropped[name] = self.dropped.get(name, 0) + 1
        if first:
            logger.warning("a record from the fleet's Redis (%s) was dropped: %s; records that do not verify "
                           "or fit their shape are counted in meta.sharedState.dropped", redact(self.url), name)

    @property
    def drops(self) -> int:
        return sum(self.dropped.values())

    def _fail(self, exc: BaseException) -> None:
        first = self.available  # a failed probe during an outage is not news
        self.available = False
        self.failures += 1
        self.last_error = f"{type(exc).__name__}: {exc}"[:200]
        self._down_until = self.clock() + self.retry_after
        if first:
            self.outages += 1
            logger.warning("shared state unavailable (Redis %s: %s): this worker uses its in-process "
                           "limiter and caches for %g s", redact(self.url), self.last_error, self.retry_after)


def link_of(settings: BaseSettings) -> FleetLink | None:
    """The process's link to the fleet's Redis, or None when this worker runs alone."""
    return FleetLink.from_settings(settings) if fleet_url(settings) else None


def snapshot(link: FleetLink | None) -> tuple[int, int]:
    """What :func:`shared_state_notes` compares against: fallbacks and drops so far."""
    return (link.failures, link.drops) if link is not None else (0, 0)


def shared_state_notes(before: tuple[int, int], link: FleetLink | None) -> list[str]:
    """The ``notes`` lines of a search or fetch that ran while Redis was unavailable, or
    that met records from Redis which did not verify or fit their shape (in this worker,
    during the call)."""
    if link is None:
        return []
    notes = []
    if not (link.available and link.failures == before[0]):
        notes.append(f"shared state unavailable (Redis {redact(link.url)}: {link.last_error}); this worker used "
                     "its own in-process limiter and caches for this call")
    dropped = link.drops - before[1]
    if dropped > 0:
        notes.append(f"{dropped} record(s) from the fleet's shared state did not verify or fit their shape and "
                     "were ignored (meta.sharedState.dropped)")
    return notes
