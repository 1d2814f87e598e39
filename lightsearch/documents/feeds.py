"""Feed entries from RSS, Atom (feedparser) and JSON Feed (which feedparser does not read).

Feed dates are discovery hints only; a page's own declared dates win once it is fetched.

A feed is attacker-controlled bytes. :func:`read_feed` returns what can be read of it or
raises :class:`FeedError` (a :class:`~lightsearch.errors.LightSearchError`), never
another exception: the body goes to feedparser as a stream (given ``bytes`` it tries
them as a local file name first), declarations and character references that make
feedparser raise are repaired first, the DOCTYPE's internal subset is removed (no entity
is ever expanded: :mod:`lightsearch.documents.xmlsafe`), and an entry without a usable
link is dropped and counted, not fatal.

feedparser's work has no cap of its own (it calls back into Python for every element,
and a small feed can hold thousands), so feeds are read in a worker of the pool, never in
the event loop's process (lightsearch/isolation/apart.py).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import feedparser
from w3lib.html import remove_tags

from lightsearch.documents.discovered_links import MAX_URL_CHARS
from lightsearch.documents.xmlsafe import (
    clean_char_refs,
    clean_declaration,
    without_internal_subset,
)
from lightsearch.errors import LightSearchError, quote_untrusted

_SUMMARY_CHARS = 500
_FIELD_CHARS = 2000  # a title or date longer than this is not one


@dataclass(frozen=True)
class FeedEntry:
    link: str
    title: str
    summary: str
    date: str | None


@dataclass
class Feed:
    """One read feed: its title, its usable entries, and how many entries were dropped."""

    title: str | None = None
    entries: list[FeedEntry] = field(default_factory=list)
    dropped: int = 0  # entries without a usable link (missing, not a URL, unparseable)


class FeedError(LightSearchError, ValueError):
    """A feed that cannot be read at all; ``code`` is ``parse_error``.

    It stays a ValueError for callers that caught the old type.
    """

    def __init__(self, message: str, code: str = "parse_error", **details: Any) -> None:
        super().__init__(code, message, details)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _clean(text: Any) -> str:
    return " ".join(remove_tags(_text(text)[:20 * _FIELD_CHARS]).split())


def _usable_link(link: Any) -> str | None:
    """The entry's link when a request could be made for it (absolute http(s), or a
    relative reference the spider resolves against the feed's URL), else None."""
    if not isinstance(link, str):
        return None
    link = link.strip()
    if not link or len(link) > MAX_URL_CHARS:
        return None
    try:
        link.encode("utf-8")
        parts = urlsplit(link)
        parts.port  # noqa: B018 - raises ValueError on a bad port
    except (ValueError, UnicodeError):
        return None
    if parts.scheme.lower() in ("http", "https"):
        return link if parts.hostname else None
    return link if not parts.scheme else None


def _date(value: Any) -> str | None:
    text = _text(value).strip()
    return text[:_FIELD_CHARS] or None


def _json_feed(body: bytes, limit: int) -> Feed:
    try:
        data = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        # RecursionError: json raises it, not ValueError, on a deeply nested document.
        raise FeedError(f"invalid JSON Feed: {quote_untrusted(str(exc), 40, sentence=True)}") from None
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise FeedError("JSON Feed without an items list")
    feed = Feed(title=_clean(data.get("title")) or None)
    for item in items[:limit]:
        if not isinstance(item, dict):
            feed.dropped += 1
            continue
        link = _usable_link(item.get("url") or item.get("external_url") or item.get("id"))
        # A JSON Feed id is often no URL at all ("1234"): only absolute or rooted links.
        if link is None or not link.startswith(("http://", "https://", "/")):
            feed.dropped += 1
            continue
        summary = _text(item.get("summary")) or _text(item.get("content_text")) or _clean(item.get("content_html"))
        feed.entries.append(FeedEntry(
            link=link,
            title=_clean(item.get("title"))[:_FIELD_CHARS],
            summary=_clean(summary)[:_SUMMARY_CHARS],
            date=_date(item.get("date_published")) or _date(item.get("date_modified")),
        ))
    return feed


def _feedparser(body: bytes) -> Any:
    """feedparser's result for ``body``, parsed as data and never opened as a path, with
    no entity declared.

    The body is converted to UTF-8 as feedparser itself would (its ``convert_to_utf8``,
    so a UTF-16 feed's DOCTYPE is found too) and loses its DOCTYPE's internal subset.
    feedparser's strict (SAX) parser falls back to its loose parser only on a
    SAXException; crafted namespaces make it raise ValueError mid-document instead, so
    that fallback is done here, with feedparser 6.0's own loose parser (checked against
    feedparser 6.0.11-6.0.14; ``feedparser.api`` has no public switch to force it).
    """
    from feedparser.api import FeedParserDict, LooseFeedParser, convert_to_utf8, replace_doctype

    result = FeedParserDict(bozo=True, entries=[], feed=FeedParserDict(), headers={})
    data = without_internal_subset(convert_to_utf8({}, body, result))
    try:
        return feedparser.parse(io.BytesIO(data))
    except Exception:  # the SAX path's failures on hostile XML are undocumented
        pass
    version, data, entities = replace_doctype(data)
    parser = LooseFeedParser("", None, "utf-8", entities)
    parser.resolve_relative_uris = True
    parser.sanitize_html = True
    parser.feed(data.decode("utf-8", "replace"))
    result["feed"] = parser.feeddata
    result["entries"] = parser.entries
    result["version"] = version or parser.version
    return result


def read_feed(body: bytes, limit: int = 200) -> Feed:
    """The title and at most ``limit`` entries of an RSS, Atom or JSON feed.

    Raises FeedError when nothing of it can be read; an entry without a usable link is
    dropped and counted in :attr:`Feed.dropped`.
    """
    if body.lstrip()[:1] == b"{":
        return _json_feed(body, limit)
    repaired = clean_char_refs(clean_declaration(body))
    try:
        parsed = _feedparser(repaired)
    except Exception as exc:  # see _feedparser; the loose parser failed too
        raise FeedError(f"unreadable feed ({type(exc).__name__}: {quote_untrusted(str(exc), 40, sentence=True)})") from None
    entries = parsed.get("entries") or []
    if not entries and (parsed.get("bozo") or not parsed.get("version")):
        reason = str(parsed.get("bozo_exception", "")) or "no RSS or Atom content"
        raise FeedError(f"unreadable feed: {quote_untrusted(reason, 40, sentence=True)}")
    title = _clean(parsed.get("feed", {}).get("title")) or None
    feed = Feed(title=title[:_FIELD_CHARS] if title else None)
    for entry in entries[:limit]:
        link = _usable_link(entry.get("link"))
        if link is None:
            feed.dropped += 1
            continue
        feed.entries.append(FeedEntry(
            link=link,
            title=_clean(entry.get("title"))[:_FIELD_CHARS],
            summary=_clean(entry.get("summary"))[:_SUMMARY_CHARS],
            date=_date(entry.get("published")) or _date(entry.get("updated")),
        ))
    return feed


def parse_feed(body: bytes, limit: int = 200) -> list[FeedEntry]:
    """Entries of an RSS, Atom or JSON feed, at most ``limit``; FeedError when unreadable."""
    return read_feed(body, limit).entries


# ---------------------------------------------------------------------- a news engine's feed
MAX_NEWS_ENTRIES = 100  # entries read of a search engine's news feed (it answers 100 at most)


@dataclass(frozen=True)
class NewsEntry:
    """An entry of a news search feed (Google News RSS): its link, title and date as
    written, and the publisher its ``<source>`` names."""

    link: str
    title: str
    published: str | None
    publisher: str
    publisher_url: str | None


@dataclass
class NewsFeed:
    version: str | None = None
    entries: list[NewsEntry] = field(default_factory=list)


def _field(value: Any) -> str:
    return _text(value)[:_FIELD_CHARS]


def read_news(body: bytes, limit: int = MAX_NEWS_ENTRIES) -> NewsFeed:
    """The first ``limit`` entries of a news search feed, as written (the engine cleans
    and vets them); FeedError when feedparser cannot read it at all."""
    try:
        parsed = _feedparser(clean_char_refs(clean_declaration(body)))
    except Exception as exc:  # see _feedparser; the loose parser failed too
        raise FeedError(f"unreadable feed ({type(exc).__name__}: {quote_untrusted(str(exc), 40, sentence=True)})") from None
    out = NewsFeed(version=_text(parsed.get("version")) or None)
    for entry in (parsed.get("entries") or [])[:limit]:
        source = entry.get("source") or {}
        get = source.get if hasattr(source, "get") else (lambda _key: None)
        out.entries.append(NewsEntry(link=_field(entry.get("link")), title=_field(entry.get("title")),
                                     published=_date(entry.get("published")), publisher=_field(get("title")),
                                     publisher_url=_field(get("href")) or None))
    return out
