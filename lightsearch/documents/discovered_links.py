"""Lexical scores for discovered links, before anything is fetched.

A candidate is judged by everything known about it without a hop: the anchor text, a
feed item's title and summary, a sitemap's news title, and the words in its URL slug.
The score is the best fraction of one query's terms that this evidence covers, so a
link that answers any of the invocation's queries well is worth fetching.

Links come from attacker-controlled documents, so they are vetted here too:
:func:`absolute_url` vets one (a bad one is None, never an exception); a page's links
are read, one walk over the page, by documents/pagescan.py.

Scrapy's ``LinkExtractor`` (Scrapy 2.19) survives the same
hostile hrefs, but drops them without a count (a silent loss),
turns ``&#xD800;`` into a link to ``%EF%BF%BD``, and cannot say whether a link sits in
the page's navigation, which the frontier's scores need. So links are read with lxml
and each URL is vetted with w3lib.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from urllib.parse import unquote, urljoin, urlsplit

from w3lib.url import canonicalize_url

from lightsearch.cache.memo import TEXT_CHARS, URL_CHARS, short_memo
from lightsearch.ranking.tokenize import initials_term, title_terms, tokenize

# The sitemaps protocol caps <loc> below 2,048 characters; web_fetch takes no URL longer than that.
MAX_URL_CHARS = 2048
# What a malformed URL or an undecodable attribute raises in urllib, w3lib and lxml.
URL_ERRORS = (ValueError, UnicodeError, TypeError)

_SLUG_SPLIT = re.compile(r"[/_\-.+%,;=]+")
_EXTENSION = re.compile(r"\.[A-Za-z0-9]{1,5}$")
SLUG_CHARS = 256  # a URL's slug terms come from at most the last this many characters of its path
_NOISE_PATH = re.compile(
    r"/(tag|tags|author|authors|login|signin|register|account|search|share|print|feed|rss|"
    r"privacy|terms|cookies?|contact|about|subscribe|newsletter|privacy-policy|privacy-notice|"
    r"your-privacy-choices|terms-of-use|terms-of-service|terms-and-conditions|cookie-policy|"
    r"accessibility|accessibility-statement|legal|disclaimer|imprint|impressum|text-only)(/|$)",
    re.IGNORECASE,
)
# MediaWiki's project, help, talk, user, file and special pages (English and Hebrew names):
# about the wiki, not articles. Portals and categories stay: they are hubs.
_WIKI_META = re.compile(
    r"/wiki/(?:wikipedia|special|help|talk|user|user_talk|file|template|mediawiki|"
    r"ויקיפדיה|מיוחד|עזרה|שיחה|משתמש|קובץ|תבנית|מדיה_ויקי)(?::|%3a)",
    re.IGNORECASE,
)
_ASSET = re.compile(r"\.(css|js|png|jpe?g|gif|svg|webp|ico|pdf|zip|mp[34]|woff2?|xml|json)$", re.I)


def absolute_url(base: str, href: str) -> str | None:
    """``href`` resolved against ``base`` as an http(s) URL a request can be made for,
    or None.

    Discovered links are attacker-controlled (``http://[``, ``h://:x``, a lone surrogate
    from ``&#xD800;``, a port past 65535): urllib and w3lib raise on them at the first
    ``urlsplit``/``.port``/``canonicalize_url`` call, which would end the parse of the
    whole document. Each link is vetted here once, so a bad one costs only itself.
    """
    if not isinstance(href, str):
        return None
    href = href.strip()
    if not href or len(href) > MAX_URL_CHARS:
        return None
    try:
        url = urljoin(base, href)
        url.encode("utf-8")  # lone surrogates cannot be percent-encoded
    except URL_ERRORS:
        return None
    return url if len(url) <= MAX_URL_CHARS and _requestable(url) else None


@short_memo(16384, URL_CHARS)
def _requestable(url: str) -> bool:
    """Cached: a site's navigation links come back on every page of it, and the check
    (w3lib's canonicalisation above all) is a large part of link extraction's time."""
    try:
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
            return False
        parts.port  # noqa: B018 - raises ValueError on a non-numeric or out-of-range port
        canonicalize_url(url)
    except URL_ERRORS:
        return False
    return True


@dataclass(frozen=True)
class Link:
    """One ``<a href>`` of a page, resolved and vetted."""

    url: str
    anchor: str = ""
    title: str = ""
    nofollow: bool = False
    in_nav: bool = False  # inside <nav>, <header> or role=navigation


@dataclass
class PageLinks:
    """The links of one page; ``dropped`` counts hrefs that were unusable."""

    links: list[Link] = field(default_factory=list)
    feeds: list[str] = field(default_factory=list)  # <link rel=alternate> RSS/Atom/JSON feeds
    dropped: int = 0


def slug_terms(url: str) -> tuple[str, ...]:
    """The index terms of the URL's path (cached: every search scores the same site links)."""
    return _slug_terms(url)


@short_memo(16384, URL_CHARS)
def _slug_terms(url: str) -> tuple[str, ...]:
    path = unquote(urlsplit(url).path)
    if len(path) <= SLUG_CHARS:
        words = _SLUG_SPLIT.split(path)
    else:
        # Only the path's last SLUG_CHARS characters are read, less the word the cut falls
        # in: a slug names its page at the end, and the frontier scores up to 2,000 links of
        # a page in the event loop, where a path of 2,000 characters costs several times a
        # short one and is never memoised (cache/memo.py).
        words = _SLUG_SPLIT.split(path[-SLUG_CHARS:])[1:]
    terms = tokenize(" ".join(words))
    # the initials of a Hebrew name the slug spells (tokenize.title_terms): its last part,
    # less the numbers and the file extension sites put around the title's words
    name = _EXTENSION.sub("", path[-SLUG_CHARS:].rstrip("/").rsplit("/", 1)[-1])
    initials = initials_term(" ".join(w for w in _SLUG_SPLIT.split(name) if not w.isdigit()))
    if initials and initials not in terms:
        terms.append(initials)
    return tuple(terms)


@short_memo(16384, URL_CHARS)
def looks_like_page(url: str) -> bool:
    """False for assets and for utility paths (tags, login, search, legal pages); cached,
    as every search of a stream meets the same cached sitemap entries."""
    path = urlsplit(url).path
    if "/wiki/" in path and _WIKI_META.search(unquote(path)):
        return False
    return not _ASSET.search(path) and not _NOISE_PATH.search(path)


def score_text(query_terms: Sequence[set[str]], texts: Iterable[str], url: str | None = None) -> float:
    """Best share (0..1) of one query's terms present in the texts or URL slug."""
    return best_query(query_terms, texts, url)[0]


@short_memo(16384, TEXT_CHARS)
def text_terms(text: str) -> frozenset[str]:
    """A candidate text's terms: a stream of searches scores the same cached feeds' titles
    and anchors again and again."""
    return frozenset(title_terms(text))


def candidate_terms(texts: Iterable[str], url: str | None = None) -> set[str]:
    """The terms of a candidate's texts (title, anchor, summary) and of its URL's slug."""
    out: set[str] = set()
    for text in texts:
        if text:
            out.update(text_terms(text))
    if url:
        out.update(slug_terms(url))
    return out


def best_query(
    query_terms: Sequence[set[str]], texts: Iterable[str], url: str | None = None
) -> tuple[float, int]:
    """The best share of one query's terms covered, and the index of that query."""
    tokens = candidate_terms(texts, url)
    best, index = 0.0, 0
    for i, terms in enumerate(query_terms):
        if terms:
            share = len(terms & tokens) / len(terms)
            if share > best:
                best, index = share, i
    return best, index
