"""Hacker News through Algolia: ``search`` by relevance, ``search_by_date`` with
``numericFilters=created_at_i>T`` when recency is asked; a call's ``after``/``before`` days
are ``created_at_i`` bounds too. Its hits link anywhere, so a call's domains are applied to
them afterwards (engines/modes.py)."""

from __future__ import annotations

import time
from datetime import date, datetime, timedelta, timezone

from lightsearch.providers.engines.base import (
    RECENCY_DAYS,
    Engine,
    EngineHit,
    EngineQuery,
    clean,
    iso,
    web_url,
)


class HackerNews(Engine):
    name = "hn"
    endpoint_settings = ("WEB_SEARCH_HN_URL",)

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        base = self.settings.get("WEB_SEARCH_HN_URL").rstrip("/")
        params = {"query": query.text, "tags": "story", "hitsPerPage": str(query.max_results)}
        endpoint = "search"
        numeric = []
        if query.recency:
            endpoint = "search_by_date"
            since = int(time.time() - RECENCY_DAYS[query.recency] * 86400)
            numeric.append(f"created_at_i>{since}")
        filters = query.filters
        if filters.after:  # the call's days are inclusive, in UTC
            numeric.append(f"created_at_i>={_epoch(filters.after)}")
        if filters.before:
            numeric.append(f"created_at_i<{_epoch(filters.before + timedelta(days=1))}")
        if numeric:
            params["numericFilters"] = ",".join(numeric)
        data = await self.json(await self.fetch("GET", f"{base}/{endpoint}", params=params, deadline=deadline), deadline)
        return self.parse(data)[: query.max_results]

    def parse(self, data: object) -> list[EngineHit]:
        if not isinstance(data, dict) or not isinstance(data.get("hits"), list):
            raise self.unrecognised("JSON without hits")
        hits = []
        for item in data["hits"]:
            if not isinstance(item, dict):
                continue
            title = clean(item.get("title") or item.get("story_title"))
            item_page = f"https://news.ycombinator.com/item?id={item.get('objectID')}" if item.get("objectID") else None
            url = web_url(item.get("url")) or item_page
            if not title or url is None:
                continue
            points = item.get("points") if isinstance(item.get("points"), int) else None
            snippet = clean(item.get("story_text"))[:300] or (f"{points} points on Hacker News" if points else "")
            hits.append(EngineHit(title=title, url=url, snippet=snippet, published_at=iso(item.get("created_at")),
                                  source_name="Hacker News" if url == item_page else None,
                                  extra={"points": points, "discussionUrl": item_page}))
        return hits


def _epoch(day: date) -> int:
    """The first second of ``day`` (UTC)."""
    return int(datetime(day.year, day.month, day.day, tzinfo=timezone.utc).timestamp())
