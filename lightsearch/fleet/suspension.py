"""Engine suspensions shared by the fleet: one worker's captcha rests the engine for all.

Same durations and interface as ``cache.suspension.MemorySuspensions``; the state is a
small JSON record per engine whose TTL outlives the rest (so consecutive failures keep
counting) and which a success deletes. Times are wall-clock, shared between machines.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.suspension import (
    ERROR_MAX_SECS,
    MemorySuspensions,
    Suspension,
    suspension_secs,
)
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable

KEEP_COUNT_SECS = 3600.0  # how long after a suspension ends its failure count is remembered


class RedisSuspensions(SharedInstances):
    """``WEB_SEARCH_SUSPENSION = "lightsearch.fleet.suspension.RedisSuspensions"``."""

    def __init__(self, link: FleetLink, clock: Any = time.time) -> None:
        self.link = link
        self.clock = clock
        self.fallback = MemorySuspensions(clock=clock)

    @classmethod
    def bounds(cls, settings: Any) -> tuple[Any, ...]:
        return (FleetLink.from_settings(settings),)

    def _key(self, engine: str) -> str:
        return self.link.key("suspended", engine)

    def _read(self, engine: str) -> Suspension | None:
        raw = self.link.call(lambda c: c.get(self._key(engine)))
        if not raw:
            return None
        try:
            data = json.loads(raw)
            return Suspension(str(data["reason"]), float(data["until"]), int(data["failures"]))
        except (ValueError, KeyError, TypeError):
            return None

    def active(self, engine: str) -> Suspension | None:
        try:
            state = self._read(engine)
        except SharedStateUnavailable:
            return self.fallback.active(engine)
        if state is None or state.left(self.clock()) <= 0:
            return None
        return state

    def failed(self, engine: str, kind: str, retry_after: float | None = None) -> Suspension:
        try:
            previous = self._read(engine)
            failures = (previous.failures if previous else 0) + 1
            secs = suspension_secs(kind, failures, retry_after)
            state = Suspension(kind, self.clock() + secs, failures)
            record = json.dumps({"reason": kind, "until": state.until, "failures": failures})
            ttl_ms = int((secs + max(KEEP_COUNT_SECS, ERROR_MAX_SECS)) * 1000)
            self.link.call(lambda c: c.set(self._key(engine), record, px=ttl_ms))
            return state
        except SharedStateUnavailable:
            return self.fallback.failed(engine, kind, retry_after)

    def succeeded(self, engine: str) -> None:
        self.fallback.succeeded(engine)
        with contextlib.suppress(SharedStateUnavailable):
            self.link.call(lambda c: c.delete(self._key(engine)))

    def clear(self) -> None:
        self.fallback.clear()
        with contextlib.suppress(SharedStateUnavailable):
            self.link.call(lambda c: [c.delete(k) for k in c.scan_iter(match=self._key("*"), count=500)])
