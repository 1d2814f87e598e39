"""A bounded LRU map: at most N entries and B bytes of serialized content, each entry
with its own expiry. Expired entries are never returned and are dropped as they are met.

The byte bound is over what the caller says an entry's serialized size is, not heap
usage ("the cache bounds describe stored content, not total process heap"). A cache may
also bound what its entries hold in memory (``max_held``): each entry then carries that
weight too (cache/sizing.py), and the least recently used go until both bounds hold, so a
shape whose memory dwarfs its content (a text of four bytes a character, a token list
beside it) cannot hold a multiple of the content bound.

An entry may be put as ``protected``, inside a reserved share of both bounds
(``reserve_entries``, ``reserve_bytes``): while the protected entries fit in that share,
an unprotected entry is never stored at their expense (the least recently used
unprotected entry goes instead); beyond it, every entry competes in plain LRU order.
The completed-record cache protects its discovery records this way, so a stream of
searches reading articles cannot evict the site maps every search reads, and both stay
inside the one bound.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from typing import Any, Generic, TypeVar

V = TypeVar("V")


class BoundedLRU(Generic[V]):
    def __init__(self, max_entries: int, max_bytes: int, clock: Any = time.time, *,
                 reserve_entries: int = 0, reserve_bytes: int = 0, max_held: int | None = None) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_held = max_held
        self.reserve_entries = reserve_entries
        self.reserve_bytes = reserve_bytes
        self.clock = clock
        # key -> (value, size, expires, protected, held)
        self._data: OrderedDict[str, tuple[V, int, float, bool, int]] = OrderedDict()
        self._lock = threading.Lock()
        self.bytes = 0
        self.held = 0  # of the entries put with a ``held`` weight
        self.protected_entries = 0
        self.protected_bytes = 0
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
            value, _size, expires, _protected, _held = entry
            if expires <= self.clock():
                self._drop(key)
                return None
            if touch:
                self._data.move_to_end(key)
            return value

    def expires_at(self, key: str) -> float | None:
        entry = self._data.get(key)
        return entry[2] if entry else None

    def put(self, key: str, value: V, size: int, expires: float, *, protected: bool = False,
            held: int = 0) -> bool:
        """Store ``value`` (``held``: what it holds in memory, against ``max_held``); False
        when it can never fit, is already stale, or lost its place at once (an unprotected
        entry when the protected ones fill the rest)."""
        if size > self.max_bytes or self.max_entries <= 0 or expires <= self.clock() \
                or (self.max_held is not None and held > self.max_held):
            return False
        with self._lock:
            if key in self._data:
                self._drop(key)
            self._data[key] = (value, size, expires, protected, held)
            self.bytes += size
            self.held += held
            if protected:
                self.protected_entries += 1
                self.protected_bytes += size
            while len(self._data) > self.max_entries or self.bytes > self.max_bytes \
                    or (self.max_held is not None and self.held > self.max_held):
                self._drop(self._victim())
                self.evictions += 1
            return key in self._data

    def _victim(self) -> str:
        """The least recently used entry, or the least recently used unprotected one while
        the protected entries are within their reserved share."""
        oldest = next(iter(self._data))
        if not self._data[oldest][3]:
            return oldest
        if self.protected_entries <= self.reserve_entries and self.protected_bytes <= self.reserve_bytes:
            for key, entry in self._data.items():
                if not entry[3]:
                    return key
        return oldest

    def discard(self, key: str) -> None:
        with self._lock:
            if key in self._data:
                self._drop(key)

    def values(self, *, protected: bool | None = None) -> list[V]:
        """Every fresh value (only protected or unprotected ones when asked), least
        recently used first, without touching recency."""
        now = self.clock()
        with self._lock:
            for key in [k for k, entry in self._data.items() if entry[2] <= now]:
                self._drop(key)
            return [entry[0] for entry in self._data.values() if protected is None or entry[3] == protected]

    def clear(self) -> None:
        with self._lock:
            self._data.clear()
            self.bytes = self.held = self.protected_entries = self.protected_bytes = 0

    def _drop(self, key: str) -> None:
        _value, size, _exp, protected, held = self._data.pop(key)
        self.bytes -= size
        self.held -= held
        if protected:
            self.protected_entries -= 1
            self.protected_bytes -= size
