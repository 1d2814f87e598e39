"""Connections kept open from one search to the next.

Every search is a crawl of its own with its own download handler, and Scrapy gives each
handler its own connection pool and closes it when the crawl ends: every search opened a
new TCP and TLS connection to every origin it read (346 of the first 100 Cranfield
stream searches' 1,125 transfers; on the real web each costs the handshakes' round
trips, and a TLS handshake's CPU on both sides). A crawl whose settings say
``LIGHT_KEEP_CONNECTIONS`` (the default) takes its pool from here instead: one pool per
event loop, TLS policy and response-head limits in the process, left open when the crawl
ends.

What keeps this safe and bounded:

* a pooled connection is keyed by the address the transport guard vetted, not by the
  host name alone (the pinned agent adds it to Twisted's key), so a connection made for
  one resolution or one host map never serves another;
* only a verifying TLS policy is shared (one per trust configuration, see
  :mod:`lightsearch.crawl.tls`); a crawl with verification off keeps a pool of its own;
* a web_fetch crawl never keeps them (its spider sets the setting off: any caller's URL
  would leave an idle connection behind); a search reads the catalog's origins only (its
  redirects are confined to them), so the idle connections are at most one per catalog
  origin (``maxPersistentPerHost`` = ``CONCURRENT_REQUESTS_PER_DOMAIN``, 1), each closed
  after ``LIGHT_KEEP_CONNECTIONS_IDLE_SECS`` idle or when its server closes it. Politeness
  is unchanged: the limiter counts transfers, and a kept connection carries one at a time.
"""

from __future__ import annotations

import asyncio
from typing import Any, ClassVar

from twisted.web.client import HTTPConnectionPool


class KeptConnections:
    """The process's shared pools; :meth:`pool` is the one way in."""

    _pools: ClassVar[dict[tuple[Any, ...], HTTPConnectionPool]] = {}

    @classmethod
    def pool(cls, policy: object, limits: object, *, per_host: int, idle_secs: float,
             factory: Any) -> HTTPConnectionPool:
        from twisted.internet import reactor

        key = (id(asyncio.get_event_loop()), id(policy), limits, per_host, idle_secs)
        pool = cls._pools.get(key)
        if pool is None:
            pool = HTTPConnectionPool(reactor, persistent=True)
            pool.maxPersistentPerHost = per_host
            pool.cachedConnectionTimeout = idle_secs
            # the protocol factory Twisted's pool builds connections with (see transport.py)
            pool._factory = factory
            cls._pools[key] = pool
        return pool
