"""Lexical scores for discovered links, before anything is fetched.

A candidate is judged by everything known about it without a hop: the anchor text, a
feed item's title and summary, a sitemap's news title, and the words in its URL slug.
The score is the best fraction of one query's terms that this evidence covers, so a
link that answers any of the invocation's queries well is worth fetching.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from urllib.parse import unquote, urlsplit

from lightsearch.ranking.tokenize import tokenize

_SLUG_SPLIT = re.compile(r"[/_\-.+%,;=]+")
_NOISE_PATH = re.compile(
    r"/(tag|tags|author|authors|login|signin|register|account|search|share|print|feed|rss|"
    r"privacy|terms|cookies?|contact|about|subscribe|newsletter)(/|$)",
    re.IGNORECASE,
)
_ASSET = re.compile(r"\.(css|js|png|jpe?g|gif|svg|webp|ico|pdf|zip|mp[34]|woff2?|xml|json)$", re.I)


def slug_terms(url: str) -> list[str]:
    parts = urlsplit(url)
    path = unquote(parts.path)
    return tokenize(" ".join(_SLUG_SPLIT.split(path)))


def looks_like_page(url: str) -> bool:
    """False for assets and for utility paths (tags, login, search, legal pages)."""
    path = urlsplit(url).path
    return not _ASSET.search(path) and not _NOISE_PATH.search(path)


def score_text(query_terms: Sequence[set[str]], texts: Iterable[str], url: str | None = None) -> float:
    """Best share (0..1) of one query's terms present in the texts or URL slug."""
    return best_query(query_terms, texts, url)[0]


def best_query(
    query_terms: Sequence[set[str]], texts: Iterable[str], url: str | None = None
) -> tuple[float, int]:
    """The best share of one query's terms covered, and the index of that query."""
    tokens: set[str] = set()
    for text in texts:
        if text:
            tokens.update(tokenize(text))
    if url:
        tokens.update(slug_terms(url))
    best, index = 0.0, 0
    for i, terms in enumerate(query_terms):
        if terms:
            share = len(terms & tokens) / len(terms)
            if share > best:
                best, index = share, i
    return best, index
