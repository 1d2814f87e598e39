"""Engine suspensions shared by the fleet: one worker's captcha rests the engine for all.

Same durations and interface as ``cache.suspension.MemorySuspensions``; the state is a
small JSON record per engine whose TTL outlives the rest (so consecutive failures keep
counting) and which a success deletes. Times are wall-clock, shared between machines.
Engines are named by their identity (name, endpoints, key digest), so one configuration's
failures rest only its own engines. A record is sealed with the fleet's key and read back
against :class:`~lightsearch.fleet.shapes.SuspensionRecord`: one that does not verify or fit
(an ``until`` of ``1e999``, beyond the longest suspension, not a number) is dropped and
counted, and the engine is asked.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.suspension import (
    ERROR_MAX_SECS,
    MAX_SUSPENSION_SECS,
    MemorySuspensions,
    Suspension,
    suspension_secs,
)
from lightsearch.fleet.integrity import Misfit
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.fleet.shapes import SuspensionRecord, parse

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
            if len(raw) > 4096:
                raise Misfit("size")
            data = parse(SuspensionRecord, self.link.seal.open("suspended", engine, raw))
            if data.until > self.clock() + MAX_SUSPENSION_SECS + 60:
                raise Misfit("shape")
        except Misfit as exc:
            self.link.drop("suspended", exc.reason)
            return None
        return Suspension(data.reason, data.until, data.failures)

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
            record = json.dumps({"reason": kind, "until": state.until, "failures": failures}).encode("utf-8")
            sealed = self.link.seal.seal("suspended", engine, record)
            ttl_ms = int((secs + max(KEEP_COUNT_SECS, ERROR_MAX_SECS)) * 1000)
            self.link.call(lambda c: c.set(self._key(engine), sealed, px=ttl_ms))
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
