"""The TTL cache of whole search and news answers, so rapid repeated queries hit memory,
not DuckDuckGo. Chosen by ``WEB_SEARCH_CACHE`` (a class path): a deployment
puts a shared store behind the same two methods; the bundled one is process memory,
bounded by entries and by what its answers hold in memory (cache/sizing.py), least
recently used out first. An answer's JSON says little of that: hits of short fields are
several times larger as dictionaries than as JSON.
"""

from __future__ import annotations

import copy
import time
from typing import Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.lru import BoundedLRU
from lightsearch.cache.sizing import held_bytes


class MemorySearchCache(SharedInstances):
    """``get`` returns ``(answer, age_secs)`` or None; ``put`` stores a copy for ``ttl`` s."""

    def __init__(self, max_entries: int = 256, max_bytes: int = 16 * 1024 * 1024,
                 clock: Any = time.time) -> None:
        self.clock = clock
        self._lru: BoundedLRU[tuple[dict[str, Any], float]] = BoundedLRU(max_entries, max_bytes, clock)

    @classmethod
    def bounds(cls, settings: Any) -> tuple[Any, ...]:
        return (settings.getint("WEB_SEARCH_CACHE_MAX_ENTRIES"),)

    def get(self, key: str) -> tuple[dict[str, Any], float] | None:
        entry = self._lru.get(key)
        if entry is None:
            return None
        answer, stored = entry
        return copy.deepcopy(answer), max(0.0, self.clock() - stored)

    def put(self, key: str, answer: dict[str, Any], ttl: float) -> bool:
        if ttl <= 0:
            return False
        kept = copy.deepcopy(answer)
        now = self.clock()
        return self._lru.put(key, (kept, now), held_bytes(kept) + len(key), now + ttl)

    def clear(self) -> None:
        self._lru.clear()
