"""Robots rules shared by the fleet: 24 hours, 64 origins, 4 MiB, fleet-wide.

The rules travel as their digest (the group that binds the crawler and the sitemaps,
documents/robots_digest.py; none for a file whose rules are past their bounds, kept as
its block), verdict and crawler (JSON, sealed with the fleet's key, read back
against :class:`~lightsearch.fleet.shapes.RulesRecord`) and are parsed again by protego
where they are read; a worker keeps what it parsed, keyed by origin and expiry. A record
that does not verify or fit (a text past a digest's bounds included), or says it
expired, is dropped and counted: the origin's robots.txt is fetched again.
``claim`` makes the fetch single-flight across the fleet: the first worker to miss an
origin's rules fetches them, the others wait for its answer (see the robots middleware).
"""

from __future__ import annotations

import contextlib
import json
from typing import TYPE_CHECKING, Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.robots import OVER_BOUNDS, MemoryRobotsCache, RobotsRules
from lightsearch.documents.robots_digest import MAX_RULES, MAX_SITEMAPS
from lightsearch.fleet.integrity import Misfit
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.fleet.shapes import RulesRecord, parse
from lightsearch.fleet.store import RedisStore

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


# A digest's lines: its user-agent line, its rules and its sitemaps.
MAX_LINES = 1 + MAX_RULES + MAX_SITEMAPS


def encode_rules(rules: RobotsRules, expires_at: float) -> bytes:
    return json.dumps({"verdict": rules.verdict, "text": rules.text, "detail": rules.detail,
                       "cause": rules.cause, "reason": rules.reason, "expires_at": expires_at,
                       "agent": rules.agent}).encode("utf-8")


def decode_rules(raw: bytes, now: float) -> RobotsRules:
    """Rules read back from Redis; Misfit when they do not fit (protego parses them in the
    event loop's process: no more lines than a digest has) or expired."""
    data = parse(RulesRecord, raw)
    if data.expires_at <= now:
        raise Misfit("expired")
    if len(data.text.splitlines()) > MAX_LINES:
        raise Misfit("shape")
    if data.verdict == "block" and (data.reason != OVER_BOUNDS or data.text):
        raise Misfit("shape")  # the one block stored: rules past their bounds, with no rules
    return RobotsRules(data.verdict, text=data.text, detail=data.detail, cause=data.cause, reason=data.reason,
                       agent=data.agent)


class RedisRobotsCache(SharedInstances):
    """``LIGHT_ROBOTS_CACHE = "lightsearch.fleet.robots.RedisRobotsCache"``."""

    def __init__(self, link: FleetLink, max_origins: int, max_bytes: int, max_age: float) -> None:
        self.link = link
        self.max_age = max_age
        self.store = RedisStore(link, "robots", max_origins, max_bytes)
        self.fallback = MemoryRobotsCache(max_origins, max_bytes, max_age)

    @classmethod
    def bounds(cls, settings: BaseSettings) -> tuple[Any, ...]:
        return (FleetLink.from_settings(settings), *MemoryRobotsCache.bounds(settings))

    def get(self, origin: str) -> RobotsRules | None:
        try:
            return self.store.get_decoded(origin, decode_rules)
        except SharedStateUnavailable:
            return self.fallback.get(origin)

    def put(self, origin: str, rules: RobotsRules, expires_at: float) -> bool:
        if not rules.storable:
            return False
        try:
            return self.store.put(origin, encode_rules(rules, expires_at), rules.size, expires_at)
        except SharedStateUnavailable:
            return self.fallback.put(origin, rules, expires_at)

    def claim(self, origin: str, secs: float) -> bool:
        """True when this caller should fetch the origin's rules now (nobody else is)."""
        key = self.link.key("robots", "claim", origin)
        try:
            return bool(self.link.call(lambda c: c.set(key, b"1", nx=True, px=max(1, int(secs * 1000)))))
        except SharedStateUnavailable:
            return self.fallback.claim(origin, secs)

    def release(self, origin: str) -> None:
        try:
            self.link.call(lambda c: c.delete(self.link.key("robots", "claim", origin)))
        except SharedStateUnavailable:
            self.fallback.release(origin)

    def __len__(self) -> int:
        try:
            return self.store.stats()[0]
        except SharedStateUnavailable:
            return len(self.fallback)

    def clear(self) -> None:
        self.fallback.clear()
        with contextlib.suppress(SharedStateUnavailable):
            self.store.clear()
