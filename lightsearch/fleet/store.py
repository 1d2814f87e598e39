"""A bounded, expiring LRU map in Redis: the fleet-wide twin of ``cache.lru.BoundedLRU``.

Each namespace keeps its values under ``<prefix><ns>:v:<key>`` with the entry's own
lifetime as the key's TTL, and index structures that make the bounds hold for the whole
fleet: sorted sets of last use (``lru``, and ``plru`` for protected entries), a sorted set
of expiry times (``exp``) and a hash of serialized sizes with running totals (``bytes``,
``pbytes`` for the protected ones). Every put runs as one Lua script, so two workers
storing at once can never leave the namespace over its entry or byte bound: expired
entries are dropped first, then the least recently used until both bounds hold, sparing
the protected entries (keys with the namespace's protected prefix) while they fit in
their reserved share, as ``BoundedLRU`` does.

Times are wall-clock milliseconds from the caller (records carry wall-clock expiries), so
the workers' clocks should agree to within a second, as NTP keeps them.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lightsearch.fleet.link import FleetLink

_DROP = """
local function drop(ns, m)
  redis.call('DEL', ns .. 'v:' .. m)
  redis.call('ZREM', ns .. 'lru', m)
  local protected = redis.call('ZREM', ns .. 'plru', m)
  redis.call('ZREM', ns .. 'exp', m)
  local size = redis.call('HGET', ns .. 'size', m)
  if size then
    redis.call('HDEL', ns .. 'size', m)
    redis.call('DECRBY', ns .. 'bytes', size)
    if protected == 1 then redis.call('DECRBY', ns .. 'pbytes', size) end
  end
end
local function purge(ns, now)
  local dead = redis.call('ZRANGEBYSCORE', ns .. 'exp', '-inf', now)
  for _, m in ipairs(dead) do drop(ns, m) end
end
"""

# KEYS: none (one namespace prefix in ARGV; single-instance Redis, not Cluster)
# ARGV: ns, key, value, size, expires_ms, now_ms, max_entries, max_bytes,
#       protected_prefix ('' for none), reserve_entries, reserve_bytes
PUT = _DROP + """
local ns, key, value = ARGV[1], ARGV[2], ARGV[3]
local size, expires, now = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local max_entries, max_bytes = tonumber(ARGV[7]), tonumber(ARGV[8])
local prefix = ARGV[9] or ''
local reserve_entries, reserve_bytes = tonumber(ARGV[10] or '0'), tonumber(ARGV[11] or '0')
purge(ns, now)
if size > max_bytes or max_entries <= 0 or expires <= now then return {0, 0} end
if redis.call('HEXISTS', ns .. 'size', key) == 1 then drop(ns, key) end
local protected = prefix ~= '' and string.sub(key, 1, #prefix) == prefix
redis.call('SET', ns .. 'v:' .. key, value, 'PX', math.floor(expires - now))
redis.call('ZADD', ns .. (protected and 'plru' or 'lru'), redis.call('INCR', ns .. 'seq'), key)
redis.call('ZADD', ns .. 'exp', expires, key)
redis.call('HSET', ns .. 'size', key, size)
redis.call('INCRBY', ns .. 'bytes', size)
if protected then redis.call('INCRBY', ns .. 'pbytes', size) end
local evicted = 0
local function count() return redis.call('ZCARD', ns .. 'lru') + redis.call('ZCARD', ns .. 'plru') end
while count() > max_entries or tonumber(redis.call('GET', ns .. 'bytes') or '0') > max_bytes do
  local plain = redis.call('ZRANGE', ns .. 'lru', 0, 0, 'WITHSCORES')
  local kept = redis.call('ZRANGE', ns .. 'plru', 0, 0, 'WITHSCORES')
  local victim
  if plain[1] and redis.call('ZCARD', ns .. 'plru') <= reserve_entries
      and tonumber(redis.call('GET', ns .. 'pbytes') or '0') <= reserve_bytes then
    victim = plain[1]
  elseif plain[1] and (not kept[1] or tonumber(plain[2]) < tonumber(kept[2])) then
    victim = plain[1]
  else
    victim = kept[1]
  end
  if not victim then break end
  drop(ns, victim)
  evicted = evicted + 1
end
return {redis.call('HEXISTS', ns .. 'size', key), evicted}
"""

# ARGV: ns, key, now_ms -> value or nil; a hit is touched (most recently used)
GET = _DROP + """
local ns, key, now = ARGV[1], ARGV[2], tonumber(ARGV[3])
local value = redis.call('GET', ns .. 'v:' .. key)
if not value then
  if redis.call('HEXISTS', ns .. 'size', key) == 1 then drop(ns, key) end
  return false
end
local expires = redis.call('ZSCORE', ns .. 'exp', key)
if expires and tonumber(expires) <= now then drop(ns, key) return false end
local seq = redis.call('INCR', ns .. 'seq')
if redis.call('ZSCORE', ns .. 'plru', key) then
  redis.call('ZADD', ns .. 'plru', seq, key)
else
  redis.call('ZADD', ns .. 'lru', seq, key)
end
return {value, expires or '0'}
"""

# ARGV: ns, now_ms -> flat list of fresh members and their expiries
LIST = _DROP + """
local ns, now = ARGV[1], tonumber(ARGV[2])
purge(ns, now)
return redis.call('ZRANGEBYSCORE', ns .. 'exp', '(' .. now, '+inf', 'WITHSCORES')
"""

DISCARD = _DROP + """
drop(ARGV[1], ARGV[2])
return 1
"""


class RedisStore:
    """One namespace of bounded records; every method may raise SharedStateUnavailable.

    The worker keeps what it decoded (twice the entry bound, keyed by key and expiry, so a
    record stored again is decoded again): every search reads the same records, and a
    parse of each (JSON, protego) on every read would cost more than the round trip."""

    def __init__(self, link: FleetLink, namespace: str, max_entries: int, max_bytes: int,
                 clock: Any = time.time, *, protected_prefix: str = "", reserve_entries: int = 0,
                 reserve_bytes: int = 0) -> None:
        self.link = link
        self.ns = link.key(namespace, "")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        # keys starting with ``protected_prefix`` are spared while they fit in the reserve
        self.protected_prefix = protected_prefix
        self.reserve_entries = reserve_entries
        self.reserve_bytes = reserve_bytes
        self._decoded: OrderedDict[tuple[str, float], Any] = OrderedDict()

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    def put(self, key: str, value: bytes, size: int, expires_at: float) -> bool:
        """Store ``value`` until ``expires_at`` (epoch seconds); False if it cannot fit."""
        script = self.link.script("store-put", PUT)
        stored, _evicted = self.link.call(lambda c: script(args=[
            self.ns, key, value, size, int(expires_at * 1000), self._now_ms(), self.max_entries,
            self.max_bytes, self.protected_prefix, self.reserve_entries, self.reserve_bytes], client=c))
        return bool(stored)

    def get(self, key: str) -> tuple[bytes, float] | None:
        """(value, expires_at) of a fresh entry, touched; None when absent or expired."""
        script = self.link.script("store-get", GET)
        found = self.link.call(lambda c: script(args=[self.ns, key, self._now_ms()], client=c))
        if not found:
            return None
        return found[0], float(found[1]) / 1000.0

    def get_decoded(self, key: str, decode: Callable[[bytes], Any]) -> Any:
        """The fresh entry's value as ``decode`` reads it; None when absent or unreadable."""
        found = self.get(key)
        if found is None:
            return None
        return self._decode((key, found[1]), found[0], decode)

    def fresh_decoded(self, prefix: str, decode: Callable[[bytes], Any]) -> list[Any]:
        """Every fresh value whose key starts with ``prefix``, fetching only the ones this
        worker has not decoded yet."""
        fresh = [item for item in self.fresh() if item[0].startswith(prefix)]
        missing = [item for item in fresh if item not in self._decoded]
        for item, raw in zip(missing, self.values([k for k, _ in missing]), strict=True):
            if raw is not None:
                self._decode(item, raw, decode)
        return [self._decoded[item] for item in fresh if item in self._decoded]

    def remember(self, key: str, expires_at: float, value: Any) -> None:
        self._decoded[(key, expires_at)] = value
        self._decoded.move_to_end((key, expires_at))
        while len(self._decoded) > 2 * max(1, self.max_entries):
            self._decoded.popitem(last=False)

    def _decode(self, item: tuple[str, float], raw: bytes, decode: Callable[[bytes], Any]) -> Any:
        value = self._decoded.get(item)
        if value is not None:
            self._decoded.move_to_end(item)
            return value
        value = decode(raw)
        if value is not None:
            self.remember(item[0], item[1], value)
        return value

    def fresh(self) -> list[tuple[str, float]]:
        """Every fresh key with its expiry (epoch seconds), without touching recency."""
        script = self.link.script("store-list", LIST)
        flat = self.link.call(lambda c: script(args=[self.ns, self._now_ms()], client=c))
        return [(flat[i].decode("utf-8"), float(flat[i + 1]) / 1000.0) for i in range(0, len(flat), 2)]

    def values(self, keys: list[str]) -> list[bytes | None]:
        if not keys:
            return []
        return self.link.call(lambda c: c.mget([self.ns + "v:" + k for k in keys]))

    def discard(self, key: str) -> None:
        script = self.link.script("store-discard", DISCARD)
        self.link.call(lambda c: script(args=[self.ns, key], client=c))

    def stats(self) -> tuple[int, int]:
        """(entries, serialized bytes) now held by the whole fleet."""
        def read(c: Any) -> tuple[int, int]:
            pipe = c.pipeline(transaction=False)
            pipe.zcard(self.ns + "lru")
            pipe.zcard(self.ns + "plru")
            pipe.get(self.ns + "bytes")
            entries, protected, size = pipe.execute()
            return int(entries) + int(protected), int(size or 0)
        return self.link.call(read)

    def clear(self) -> None:
        self._decoded.clear()

        def wipe(c: Any) -> None:
            keys = list(c.scan_iter(match=self.ns.replace("[", "\\[") + "*", count=500))
            for i in range(0, len(keys), 500):
                c.delete(*keys[i : i + 500])
        self.link.call(wipe)
