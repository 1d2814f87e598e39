"""What a discovery body parses to, kept so that a cached body is not parsed again.

Home pages, listings and sitemaps are served from the discovery cache to every search
within their lifetime; each search then parsed the same bytes again: on the
Cranfield stream 16 sitemap parses and 38 link extractions per search, 0.4 and ~22 of
them of new bytes. The parse is a pure function of the URL and the body, so its result
is memoised by the URL, the body's length and its hash, process-wide, bounded like every
cache here. The hash is Python's keyed SipHash (a page cannot choose a collision without
the process's key), and a bytes object keeps it once computed: a cached body served to
every search is hashed once, where a digest read all its bytes every time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TypeVar

from lightsearch.cache.lru import BoundedLRU

T = TypeVar("T")
MAX_ENTRIES = 1024  # a discovery body may hold five results: links, feed or sitemap, meta, next page, description
MAX_BODY_BYTES = 64 * 1024 * 1024  # of the bodies parsed, the stand-in for the results' size
LIFETIME_SECS = 300.0  # the discovery documents' own lifetime (at most 5 minutes)

_parsed: BoundedLRU[object] = BoundedLRU(MAX_ENTRIES, MAX_BODY_BYTES)


def _key(kind: str, url: str, body: bytes) -> str:
    return f"{kind}:{len(body)}:{hash(body)}:{url}"


def parsed(kind: str, url: str, body: bytes, parse: Callable[[], T], weight: int | None = None) -> T:
    """``parse()``, or what it returned for the same ``kind``, URL and body before.
    ``weight`` is what the result counts against the bound (the body's length unless the
    result is known to be far smaller)."""
    key = _key(kind, url, body)
    hit = _parsed.get(key)
    if hit is not None:
        return hit  # type: ignore[return-value]
    value = parse()
    _parsed.put(key, value, len(body) if weight is None else weight, time.time() + LIFETIME_SECS)
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
        _parsed.put(_key(kind, url, body), value, len(body), time.time() + LIFETIME_SECS)


def clear() -> None:
    _parsed.clear()
