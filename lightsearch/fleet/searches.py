"""The search TTL cache of the fleet: a repeated query within the TTL costs no engine
request on any worker. Same interface as ``cache.searches.MemorySearchCache``; bounded by
entries and 16 MiB serialized, fleet-wide, least recently used out first.
"""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.searches import MemorySearchCache
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.fleet.store import RedisStore

MAX_BYTES = 16 * 1024 * 1024


class RedisSearchCache(SharedInstances):
    """``WEB_SEARCH_CACHE = "lightsearch.fleet.searches.RedisSearchCache"``."""

    def __init__(self, link: FleetLink, max_entries: int, clock: Any = time.time) -> None:
        self.clock = clock
        self.store = RedisStore(link, "searches", max_entries, MAX_BYTES, clock)
        self.fallback = MemorySearchCache(max_entries, MAX_BYTES, clock)

    @classmethod
    def bounds(cls, settings: Any) -> tuple[Any, ...]:
        return (FleetLink.from_settings(settings), settings.getint("WEB_SEARCH_CACHE_MAX_ENTRIES"))

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        try:
            found = self.store.get(key)
        except SharedStateUnavailable:
            return self.fallback.get(key)
        if found is None:
            return None
        try:
            data = json.loads(found[0])
            return data["answer"], max(0.0, self.clock() - float(data["stored"]))
        except (ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, answer: dict[str, Any], ttl: float) -> bool:
        if ttl <= 0:
            return False
        now = self.clock()
        raw = json.dumps({"answer": answer, "stored": now}, ensure_ascii=False, default=str).encode("utf-8")
        try:
            return self.store.put(key, raw, len(raw), now + ttl)
        except SharedStateUnavailable:
            return self.fallback.put(key, answer, ttl)

    def clear(self) -> None:
        self.fallback.clear()
        with contextlib.suppress(SharedStateUnavailable):
            self.store.clear()
