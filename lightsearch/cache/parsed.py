"""What a discovery body parses to, kept so that a cached body is not parsed again.

Home pages, listings and sitemaps are served from the discovery cache to every search
within their lifetime, and without this memo each search would parse the same bytes
again (how many, on the Cranfield stream: docs/EVALUATION.md, "Figures behind choices in
the code"). The parse is a pure function of the URL and the body, so its result
is memoised by the URL, the body's length and its hash, process-wide, bounded like every
cache here. The hash is Python's keyed SipHash (a page cannot choose a collision without
the process's key), and a bytes object keeps it once computed: a cached body served to
every search is hashed once, where a digest read all its bytes every time.

An entry is weighed by what its result holds in memory (cache/sizing.py), and at least by
its body's length: a page's links can hold a hundred times its bytes (short relative links
resolved against a long URL; docs/UNTRUSTED_WORK.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from lightsearch.cache.lru import BoundedLRU
from lightsearch.cache.sizing import held_bytes

T = TypeVar("T")
MAX_ENTRIES = 1024  # a discovery body may hold five results: links, feed or sitemap, meta, next page, description
MAX_BYTES = 64 * 1024 * 1024  # of the results, as they are held in memory
LIFETIME_SECS = 300.0  # the discovery documents' own lifetime (at most 5 minutes)

_parsed: BoundedLRU[object] = BoundedLRU(MAX_ENTRIES, MAX_BYTES)


def _key(kind: str, url: str, body: bytes) -> str:
    return f"{kind}:{len(body)}:{hash(body)}:{url}"


def _put(key: str, body: bytes, value: object) -> None:
    weight = max(len(body), held_bytes(value)) + len(key)
    _parsed.put(key, value, weight, time.time() + LIFETIME_SECS)


def parsed(kind: str, url: str, body: bytes, parse: Callable[[], T]) -> T:
    """``parse()``, or what it returned for the same ``kind``, URL and body before."""
    key = _key(kind, url, body)
    hit = _parsed.get(key)
    if hit is not None:
        return hit  # type: ignore[return-value]
    value = parse()
    _put(key, body, value)
    return value


def lookup(kind: str, url: str, body: bytes) -> object | None:
    """What :func:`parsed` holds for this ``kind``, URL and body, or None."""
    return _parsed.get(_key(kind, url, body))


def known(kind: str, url: str, body: bytes) -> bool:
    """Whether :func:`parsed` holds a result for this ``kind``, URL and body."""
    return _parsed.get(_key(kind, url, body)) is not None


def remember(kind: str, url: str, body: bytes, value: object) -> None:
    """Keep ``value`` as what ``kind`` parses this body to: the parse was done elsewhere
    (in the worker pool, lightsearch/isolation), and :func:`parsed` returns it."""
    if value is not None:
        _put(_key(kind, url, body), body, value)


def clear() -> None:
    _parsed.clear()
