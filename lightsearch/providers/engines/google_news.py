"""Google News RSS: realtime news without a key. Search operators (``when:7d``,
``after:``, ``before:``, ``site:``, ``intitle:``, ``inurl:``, ``-term``, ``"phrase"``) pass
through in ``q`` untouched; a recency window becomes ``when:`` unless the query has one."""

from __future__ import annotations

import feedparser

from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, clean, iso, web_url
from lightsearch.windows import WHEN_OF_RECENCY


def locale(query: EngineQuery) -> dict[str, str]:
    """``hl``, ``gl``, ``ceid`` for the region (``il-he`` -> he-IL, IL, IL:he)."""
    country = (query.country or "us").upper()
    language = query.language or "en"
    return {"hl": f"{language}-{country}", "gl": country, "ceid": f"{country}:{language}"}


class GoogleNews(Engine):
    name = "news"
    endpoint_settings = ("WEB_SEARCH_GOOGLE_NEWS_URL",)

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        text = query.text
        window = query.when or (WHEN_OF_RECENCY.get(query.recency) if query.recency else None)
        if window and "when:" not in text:
            text = f"{text} when:{window}"
        response = await self.fetch("GET", self.settings.get("WEB_SEARCH_GOOGLE_NEWS_URL"),
                                    params={"q": text, **locale(query)}, deadline=deadline)
        error = self.status_error(response)
        if error is not None:
            raise error
        return self.parse(response.body)[: query.max_results]

    def parse(self, body: bytes) -> list[EngineHit]:
        feed = feedparser.parse(body)
        if not feed.get("version") and not feed.entries:
            raise self.unrecognised("something that is not an RSS feed")
        hits = []
        for entry in feed.entries:
            url = web_url((entry.get("link") or "").strip())
            if url is None:
                continue
            title = clean(entry.get("title"))
            source = entry.get("source") or {}
            publisher = clean(source.get("title")) if hasattr(source, "get") else ""
            if " - " in title:
                head, tail = title.rsplit(" - ", 1)
                if not publisher or tail.strip() == publisher:
                    title, publisher = head.strip(), publisher or tail.strip()
            hits.append(EngineHit(
                title=title or url, url=url, snippet=(publisher and f"{publisher}") or "",
                published_at=iso(entry.get("published")), source_name=publisher or None,
                extra={"publisher": publisher} if publisher else {},
            ))
        return hits
