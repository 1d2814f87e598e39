"""A bounded LRU map: at most N entries and B bytes of serialized content, each entry
with its own expiry. Expired entries are never returned and are dropped as they are met.

The byte bound is over what the caller says an entry's serialized size is, not heap
usage (seed 000: "the cache bounds describe stored content, not total process heap").
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class BoundedLRU(Generic[V]):
    def __init__(self, max_entries: int, max_bytes: int, clock: Any = time.time) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        self._data: OrderedDict[str, tuple[V, int, float]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.evictions = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: str) -> bool:
        return self.get(key, touch=False) is not None

    def get(self, key: str, *, touch: bool = True) -> V | None:
        with self._lock:
            entry = self._data.get(key)
            if entry is None:
                return None
            value, _size, expires = entry
            if expires <= self.clock():
                self._drop(key)
                return None
            if touch:
                self._data.move_to_end(key)
            return value

    def expires_at(self, key: str) -> float | None:
        entry = self._data.get(key)
        return entry[2] if entry else None

    def put(self, key: str, value: V, size: int, expires: float) -> bool:
        """Store ``value``; False when it can never fit or is already stale."""
        if size > self.max_bytes or self.max_entries <= 0 or expires <= self.clock():
            return False
        with self._lock:
            if key in self._data:
                self._drop(key)
            self._data[key] = (value, size, expires)
            self.bytes += size
            while len(self._data) > self.max_entries or self.bytes > self.max_bytes:
                oldest = next(iter(self._data))
                self._drop(oldest)
                self.evictions += 1
        return True

    def discard(self, key: str) -> None:
        with self._lock:
            if key in self._data:
                self._drop(key)

    def values(self) -> list[V]:
        """Every fresh value, least recently used first, without touching recency."""
        now = self.clock()
        with self._lock:
            for key in [k for k, (_, _, exp) in self._data.items() if exp <= now]:
                self._drop(key)
            return [value for value, _, _ in self._data.values()]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = 0

    def _drop(self, key: str) -> None:
        _value, size, _exp = self._data.pop(key)
        self.bytes -= size
