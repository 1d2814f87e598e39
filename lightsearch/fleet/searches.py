"""The search TTL cache of the fleet: a repeated query within the TTL costs no engine
request on any worker. Same interface as ``cache.searches.MemorySearchCache``; bounded by
entries and 16 MiB serialized, fleet-wide, least recently used out first.

What it keeps is the caller's record (the engines keep the findings of a search, never its
rendered text), sealed with the fleet's key and framed by
:class:`~lightsearch.fleet.shapes.AnswerEnvelope`; a frame that does not verify or fit, or
whose own expiry has passed, is dropped and counted. The record inside is checked against
its own declared shape by whoever reads it.
"""

from __future__ import annotations

import contextlib
import copy
import json
import time
from typing import Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.searches import MemorySearchCache
from lightsearch.fleet.integrity import Misfit
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.fleet.shapes import AnswerEnvelope, parse
from lightsearch.fleet.store import RedisStore

#: how far a record's storing time may lie ahead of this worker's clock (clock skew)
SKEW_SECS = 60.0


def decode_answer(raw: bytes, now: float) -> tuple[dict[str, Any], float]:
    """(record, stored at) of a cached answer; Misfit when the frame does not fit or expired."""
    data = parse(AnswerEnvelope, raw)
    if data.expires <= now or data.stored > now + SKEW_SECS:
        raise Misfit("expired")
    return data.answer, data.stored

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
            found = self.store.get_decoded(key, decode_answer)
        except SharedStateUnavailable:
            return self.fallback.get(key)
        if found is None:
            return None
        answer, stored = found
        return copy.deepcopy(answer), max(0.0, self.clock() - stored)

    def put(self, key: str, answer: dict[str, Any], ttl: float) -> bool:
        if ttl <= 0:
            return False
        now = self.clock()
        raw = json.dumps({"answer": answer, "stored": now, "expires": now + ttl}, ensure_ascii=False,
                         default=str).encode("utf-8")
        try:
            return self.store.put(key, raw, len(raw), now + ttl)
        except SharedStateUnavailable:
            return self.fallback.put(key, answer, ttl)

    def clear(self) -> None:
        self.fallback.clear()
        with contextlib.suppress(SharedStateUnavailable):
            self.store.clear()
