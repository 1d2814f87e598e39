"""Feed entries from RSS, Atom (feedparser) and JSON Feed (which feedparser does not read).

Feed dates are discovery hints only; a page's own declared dates win once it is fetched.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import feedparser
from w3lib.html import remove_tags


@dataclass(frozen=True)
class FeedEntry:
    link: str
    title: str
    summary: str
    date: str | None


class FeedError(ValueError):
    pass


def _clean(text: str | None) -> str:
    return " ".join(remove_tags(text or "").split())


def _json_feed(body: bytes, limit: int) -> list[FeedEntry]:
    try:
        data = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise FeedError(f"invalid JSON Feed: {exc}") from None
    items = data.get("items") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise FeedError("JSON Feed without an items list")
    out = []
    for item in items[:limit]:
        if not isinstance(item, dict):
            continue
        link = item.get("url") or item.get("external_url") or item.get("id")
        if not isinstance(link, str) or not link.startswith(("http://", "https://", "/")):
            continue
        summary = item.get("summary") or item.get("content_text") or _clean(item.get("content_html"))
        out.append(FeedEntry(
            link=link,
            title=_clean(item.get("title")),
            summary=_clean(summary)[:500],
            date=item.get("date_published") or item.get("date_modified"),
        ))
    return out


def parse_feed(body: bytes, limit: int = 200) -> list[FeedEntry]:
    """Entries of an RSS, Atom or JSON feed, at most ``limit``; FeedError when unreadable."""
    if body.lstrip()[:1] == b"{":
        return _json_feed(body, limit)
    parsed = feedparser.parse(body)
    if not parsed.entries and (parsed.bozo or not parsed.get("version")):
        reason = str(parsed.get("bozo_exception", "")) or "no RSS or Atom content"
        raise FeedError(f"unreadable feed: {reason[:200]}")
    out = []
    for entry in parsed.entries[:limit]:
        link = entry.get("link")
        if not link:
            continue
        out.append(FeedEntry(
            link=link,
            title=_clean(entry.get("title")),
            summary=_clean(entry.get("summary"))[:500],
            date=entry.get("published") or entry.get("updated"),
        ))
    return out
