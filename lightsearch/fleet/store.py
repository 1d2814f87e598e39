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

Whatever comes back is untrusted: every value is sealed (:mod:`lightsearch.fleet.integrity`)
and opened before its decoder reads it, a value longer than the namespace's byte bound is
never fetched, a listing never returns more members than the entry bound, and a listing's
values together never exceed twice the byte bound. A value that does not verify or does
not decode is dropped, counted on the link (``meta.sharedState.dropped``) and remembered,
so each worker pays for it once; no method lets it raise.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from lightsearch.fleet.integrity import Misfit
from lightsearch.fleet.link import FleetLink

#: A listing's values together may hold this many times the namespace's byte bound (the
#: stored forms are larger than the sizes the bound counts: base64 bodies, seals, JSON).
READ_FACTOR = 2
#: The longest key a listing returns (ours are a prefix and a canonical URL).
MAX_KEY_BYTES = 16 * 1024
_DROPPED = object()  # a value that did not verify or decode, remembered as such

_DROP = """
local function drop(ns, m)
  redis.call('DEL', ns .. 'v:' .. m)
  redis.call('ZREM', ns .. 'lru', m)
  local protected = redis.call('ZREM', ns .. 'plru', m)
  redis.call('ZREM', ns .. 'exp', m)
  local size = tonumber(redis.call('HGET', ns .. 'size', m))
  redis.call('HDEL', ns .. 'size', m)
  if size then
    redis.pcall('DECRBY', ns .. 'bytes', size)
    if protected == 1 then redis.pcall('DECRBY', ns .. 'pbytes', size) end
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
if not tonumber(redis.call('GET', ns .. 'bytes') or '0') then redis.call('SET', ns .. 'bytes', '0') end
redis.call('INCRBY', ns .. 'bytes', size)
if protected then
  if not tonumber(redis.call('GET', ns .. 'pbytes') or '0') then redis.call('SET', ns .. 'pbytes', '0') end
  redis.call('INCRBY', ns .. 'pbytes', size)
end
local evicted = 0
local function count() return redis.call('ZCARD', ns .. 'lru') + redis.call('ZCARD', ns .. 'plru') end
local function total(name) return tonumber(redis.call('GET', ns .. name) or '0') or 0 end
while count() > max_entries or total('bytes') > max_bytes do
  local plain = redis.call('ZRANGE', ns .. 'lru', 0, 0, 'WITHSCORES')
  local kept = redis.call('ZRANGE', ns .. 'plru', 0, 0, 'WITHSCORES')
  local victim
  if plain[1] and redis.call('ZCARD', ns .. 'plru') <= reserve_entries and total('pbytes') <= reserve_bytes then
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

# ARGV: ns, key, now_ms, max_bytes -> {value, expires} ({'', expires, 1} when the value is
# not a string of at most max_bytes) or nil; a hit is touched (most recently used)
GET = _DROP + """
local ns, key, now, cap = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local vkey = ns .. 'v:' .. key
local kind = redis.call('TYPE', vkey)['ok']
if kind == 'none' then
  if redis.call('HEXISTS', ns .. 'size', key) == 1 then drop(ns, key) end
  return false
end
local expires = redis.call('ZSCORE', ns .. 'exp', key)
if expires and tonumber(expires) <= now then drop(ns, key) return false end
if kind ~= 'string' or redis.call('STRLEN', vkey) > cap then return {'', expires or '0', 1} end
local seq = redis.call('INCR', ns .. 'seq')
if redis.call('ZSCORE', ns .. 'plru', key) then
  redis.call('ZADD', ns .. 'plru', seq, key)
else
  redis.call('ZADD', ns .. 'lru', seq, key)
end
return {redis.call('GET', vkey), expires or '0', 0}
"""

# ARGV: ns, now_ms, max_entries, max_key_bytes -> flat list of at most max_entries fresh
# members and expiries, members longer than max_key_bytes left out, then how many were
LIST = _DROP + """
local ns, now, n, longest = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
purge(ns, now)
local found = redis.call('ZRANGEBYSCORE', ns .. 'exp', '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, n)
local out, skipped = {}, 0
for i = 1, #found, 2 do
  if #found[i] <= longest then
    table.insert(out, found[i]) table.insert(out, found[i + 1])
  else
    skipped = skipped + 1
  end
end
table.insert(out, skipped)
return out
"""

# ARGV: ns, per-value cap, total cap, keys... -> per key {value, 0} or {'', 1} (not a string, or
# over a cap) or {'', 2} (gone); values together stay within the total cap
VALUES = """
local ns, cap, left = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i = 4, #ARGV do
  local vkey = ns .. 'v:' .. ARGV[i]
  local kind = redis.call('TYPE', vkey)['ok']
  if kind == 'none' then
    table.insert(out, '') table.insert(out, 2)
  else
    local size = kind == 'string' and redis.call('STRLEN', vkey) or -1
    if size < 0 or size > cap or size > left then
      table.insert(out, '') table.insert(out, 1)
    else
      left = left - size
      table.insert(out, redis.call('GET', vkey)) table.insert(out, 0)
    end
  end
end
return out
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
        self.namespace = namespace
        self.ns = link.key(namespace, "")
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.clock = clock
        # keys starting with ``protected_prefix`` are spared while they fit in the reserve
        self.protected_prefix = protected_prefix
        self.reserve_entries = reserve_entries
        self.reserve_bytes = reserve_bytes
        self._decoded: OrderedDict[tuple[str, float], Any] = OrderedDict()
        # listing members that are no key of ours, counted once each
        self._bad_members: OrderedDict[bytes, None] = OrderedDict()
        self._long_members = 0

    def _now_ms(self) -> int:
        return int(self.clock() * 1000)

    @property
    def read_cap(self) -> int:
        """The most bytes one read may bring back: a value, or a listing's values together."""
        return READ_FACTOR * self.max_bytes + 4096

    def put(self, key: str, payload: bytes, size: int, expires_at: float) -> bool:
        """Store ``payload`` (sealed) until ``expires_at`` (epoch seconds); False if it cannot fit."""
        value = self.link.seal.seal(self.namespace, key, payload)
        script = self.link.script("store-put", PUT)
        stored, _evicted = self.link.call(lambda c: script(args=[
            self.ns, key, value, size, int(expires_at * 1000), self._now_ms(), self.max_entries,
            self.max_bytes, self.protected_prefix, self.reserve_entries, self.reserve_bytes], client=c))
        return bool(stored)

    def get(self, key: str) -> tuple[bytes, float] | None:
        """(sealed value, expires_at) of a fresh entry, touched; None when absent, expired or
        not a value this store could have written (counted)."""
        script = self.link.script("store-get", GET)
        found = self.link.call(lambda c: script(args=[self.ns, key, self._now_ms(), self.read_cap], client=c))
        if not found:
            return None
        try:
            value, expires, refused = found
            if refused or not isinstance(value, bytes):
                raise Misfit("size")
            return value, float(expires) / 1000.0
        except (Misfit, ValueError, TypeError) as exc:
            self.link.drop(self.namespace, getattr(exc, "reason", "format"))
            return None

    def get_decoded(self, key: str, decode: Callable[[bytes, float], Any]) -> Any:
        """The fresh entry's value as ``decode`` reads it; None when absent or unreadable."""
        found = self.get(key)
        if found is None:
            return None
        return self._decode((key, found[1]), found[0], decode)

    def fresh_decoded(self, prefix: str, decode: Callable[[bytes, float], Any]) -> list[Any]:
        """Every fresh value whose key starts with ``prefix``, fetching only the ones this
        worker has not decoded yet."""
        fresh = [item for item in self.fresh() if item[0].startswith(prefix)]
        missing = [item for item in fresh if item not in self._decoded]
        for item, raw in zip(missing, self._values([k for k, _ in missing]), strict=True):
            if raw is _DROPPED:
                self.remember(item[0], item[1], _DROPPED)
            elif raw is not None:
                self._decode(item, raw, decode)
        found = (self._decoded.get(item) for item in fresh)
        return [value for value in found if value is not None and value is not _DROPPED]

    def remember(self, key: str, expires_at: float, value: Any) -> None:
        self._decoded[(key, expires_at)] = value
        self._decoded.move_to_end((key, expires_at))
        while len(self._decoded) > 2 * max(1, self.max_entries):
            self._decoded.popitem(last=False)

    def _decode(self, item: tuple[str, float], raw: bytes, decode: Callable[[bytes, float], Any]) -> Any:
        """``decode`` of the opened value, or None (counted, remembered) when the value does not
        verify, does not fit its shape, or raises anything at all."""
        value = self._decoded.get(item)
        if value is not None:
            self._decoded.move_to_end(item)
            return None if value is _DROPPED else value
        try:
            value = decode(self.link.seal.open(self.namespace, item[0], raw), self.clock())
            if value is None:
                raise Misfit("shape")
        except Exception as exc:  # hostile bytes: any failure is a dropped record, never an error
            self.link.drop(self.namespace, exc.reason if isinstance(exc, Misfit) else "shape")
            self.remember(item[0], item[1], _DROPPED)
            return None
        self.remember(item[0], item[1], value)
        return value

    def fresh(self) -> list[tuple[str, float]]:
        """Fresh keys with their expiry (epoch seconds), at most the entry bound of them,
        without touching recency. A member that is no key of ours is left out (counted)."""
        script = self.link.script("store-list", LIST)
        flat = self.link.call(lambda c: script(
            args=[self.ns, self._now_ms(), max(1, self.max_entries), MAX_KEY_BYTES], client=c))
        skipped = flat.pop() if flat and isinstance(flat[-1], int) else 0
        if skipped > self._long_members:
            self.link.drop(self.namespace, "key")
        self._long_members = skipped
        out = []
        for i in range(0, len(flat) - 1, 2):
            try:
                out.append((flat[i].decode("utf-8"), float(flat[i + 1]) / 1000.0))
            except (UnicodeDecodeError, ValueError, AttributeError):
                if flat[i] not in self._bad_members:
                    self.link.drop(self.namespace, "key")
                self._bad_members[flat[i]] = None
                while len(self._bad_members) > max(1, self.max_entries):
                    self._bad_members.popitem(last=False)
        return out

    def _values(self, keys: list[str]) -> list[Any]:
        """The stored values of ``keys``: bytes, None for one gone, or ``_DROPPED`` (counted)
        for one too large or not a string; all of them together within :attr:`read_cap`."""
        if not keys:
            return []
        script = self.link.script("store-values", VALUES)
        flat = self.link.call(lambda c: script(args=[self.ns, self.read_cap, self.read_cap, *keys], client=c))
        out: list[Any] = []
        for i in range(len(keys)):
            value, flag = (flat[2 * i], flat[2 * i + 1]) if 2 * i + 1 < len(flat) else (None, 2)
            if flag == 0 and isinstance(value, bytes):
                out.append(value)
            elif flag == 1:
                self.link.drop(self.namespace, "size")
                out.append(_DROPPED)
            else:
                out.append(None)
        return out

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
            try:
                return int(entries) + int(protected), max(0, int(size or 0))
            except ValueError:  # a total that is no number: not ours
                return int(entries) + int(protected), 0
        return self.link.call(read)

    def clear(self) -> None:
        self._decoded.clear()

        def wipe(c: Any) -> None:
            keys = list(c.scan_iter(match=self.ns.replace("[", "\\[") + "*", count=500))
            for i in range(0, len(keys), 500):
                c.delete(*keys[i : i + 500])
        self.link.call(wipe)
