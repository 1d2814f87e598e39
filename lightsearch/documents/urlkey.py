"""One canonical form of a URL, remembered: a page's identity for fetching and caching.

:func:`canonical_url` is the key the crawl asks for a URL once by, and the record,
response and discovery caches store and find a page by (locally and in a fleet's Redis):
two spellings with the same canonical form are one request and one cache entry. It keeps
the scheme, a trailing slash and every query argument (tracking ones too), since any of
them may name another resource. Ranking's looser near-duplicate key, which folds them away
to merge one page two engines found, is another thing:
:func:`lightsearch.ranking.normalize.dedupe_key`.

Every search admits the links of the same cached sitemaps, feeds and listings, and looks
each one up in the record cache: thousands of canonicalisations a search of the same few
thousand URLs (docs/EVALUATION.md gives its share of the CPU). ``canonicalize_url`` is a
pure function of the string, so its answers are kept (bounded, least recently used out).
"""

from __future__ import annotations

from w3lib.url import canonicalize_url

from lightsearch.cache.memo import URL_CHARS, short_memo


@short_memo(65536, URL_CHARS)
def canonical_url(url: str) -> str:
    """``w3lib.url.canonicalize_url(url)``, cached; raises what it raises."""
    return canonicalize_url(url)
