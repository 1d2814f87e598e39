"""Google News RSS: realtime news without a key. Search operators (``when:7d``,
``after:``, ``before:``, ``site:``, ``intitle:``, ``inurl:``, ``-term``, ``"phrase"``) pass
through in ``q`` untouched; a recency window becomes ``when:`` unless the query has one. A
call's domains become ``site:``/``-site:``, its ``after``/``before`` days ``after:``/``before:``
(then in place of ``when:``, whose window narrows them), its region
``hl``/``gl``/``ceid``.

The answer is read by feedparser, with no entity expanded and in a worker of the pool
(feedparser's work has no cap: documents/feeds.py ``read_news``); its first 100 entries
come back, as written, and are vetted here."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from lightsearch.documents.feeds import NewsFeed
from lightsearch.isolation import tasks as isolated
from lightsearch.providers.engines.base import (
    RECENCY_DAYS,
    Engine,
    EngineHit,
    EngineQuery,
    clean,
    iso,
    web_url,
)
from lightsearch.windows import WHEN_OF_RECENCY

QUERY_MAX_CHARS = 500


def without_publisher(title: str, publisher: str) -> str:
    """A Google News title without the " - Publisher" it ends with: only that exact suffix
    is cut (a publisher's name may hold " - " itself, and so may a headline)."""
    suffix = f" - {publisher}" if publisher else ""
    if suffix and title.endswith(suffix) and len(title) > len(suffix):
        return title[: -len(suffix)].strip()
    return title


def locale(query: EngineQuery) -> dict[str, str]:
    """``hl``, ``gl``, ``ceid`` for the region (``il-he`` -> he-IL, IL, IL:he)."""
    worldwide = query.country in (None, "wt")  # wt-wt: DuckDuckGo's "no region"
    country = "US" if worldwide else str(query.country).upper()
    language = "en" if worldwide else query.language or "en"
    return {"hl": f"{language}-{country}", "gl": country, "ceid": f"{country}:{language}"}


class GoogleNews(Engine):
    name = "news"
    endpoint_settings = ("WEB_SEARCH_GOOGLE_NEWS_URL",)

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        text = query.with_sites(notes, self.name, max_chars=QUERY_MAX_CHARS)
        filters = query.filters
        window = query.when or (WHEN_OF_RECENCY.get(query.recency) if query.recency else None)
        if filters.dates and not re.search(r"\b(after|before):", query.text):
            # Google reads after:/before: as exclusive days; the call's days are inclusive,
            # so the range is widened by a day on each side (the hits are filtered to it).
            # A recency window given too narrows the start.
            after = filters.after
            if query.recency:
                since = datetime.now(timezone.utc).date() - timedelta(days=math.ceil(RECENCY_DAYS[query.recency]))
                after = max(after, since) if after else since
            if after:
                text = f"{text} after:{(after - timedelta(days=1)).isoformat()}"
            if filters.before:
                text = f"{text} before:{(filters.before + timedelta(days=1)).isoformat()}"
        elif window and "when:" not in text:
            text = f"{text} when:{window}"
        response = await self.fetch("GET", self.settings.get("WEB_SEARCH_GOOGLE_NEWS_URL"),
                                    params={"q": text, **locale(query)}, deadline=deadline)
        error = self.status_error(response)
        if error is not None:
            raise error
        feed = await self.read(response, isolated.news_feed, response.body, deadline=deadline, here=False)
        return self.parse(feed)[: query.max_results]

    def parse(self, feed: NewsFeed) -> list[EngineHit]:
        if not feed.version and not feed.entries:
            raise self.unrecognised("something that is not an RSS feed")
        hits = []
        for entry in feed.entries:
            url = web_url(entry.link.strip())
            if url is None:
                continue
            publisher = clean(entry.publisher)
            title = without_publisher(clean(entry.title), publisher)
            extra = {"publisher": publisher} if publisher else {}
            site = web_url(entry.publisher_url)
            if site:  # the link is Google's: the publisher's site is what domain filters see
                extra["publisherUrl"] = site
            hits.append(EngineHit(
                title=title or url, url=url, snippet=(publisher and f"{publisher}") or "",
                published_at=iso(entry.published), source_name=publisher or None, extra=extra,
            ))
        return hits
