"""What a discovery body parses to, kept so that a cached body is not parsed again.

Home pages, listings and sitemaps are served from the discovery cache to every search
within their lifetime (issue 17); each search then parsed the same bytes again: on the
Cranfield stream 16 sitemap parses and 38 link extractions per search, 0.4 and ~22 of
them of new bytes. The parse is a pure function of the URL and the body, so its result
is memoised by a digest of both, process-wide, bounded like every cache here.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import TypeVar

from lightsearch.cache.lru import BoundedLRU

T = TypeVar("T")
MAX_ENTRIES = 1024  # a discovery body may hold four results: links, feed or sitemap, meta, next page
MAX_BODY_BYTES = 64 * 1024 * 1024  # of the bodies parsed, the stand-in for the results' size
LIFETIME_SECS = 300.0  # the discovery documents' own lifetime (at most 5 minutes)

_parsed: BoundedLRU[object] = BoundedLRU(MAX_ENTRIES, MAX_BODY_BYTES)


def parsed(kind: str, url: str, body: bytes, parse: Callable[[], T]) -> T:
    """``parse()``, or what it returned for the same ``kind``, URL and body before."""
    digest = hashlib.blake2b(body, digest_size=16)
    digest.update(url.encode("utf-8", "surrogatepass"))
    key = f"{kind}:{digest.hexdigest()}"
    hit = _parsed.get(key)
    if hit is not None:
        return hit  # type: ignore[return-value]
    value = parse()
    _parsed.put(key, value, len(body), time.time() + LIFETIME_SECS)
    return value


def clear() -> None:
    _parsed.clear()
