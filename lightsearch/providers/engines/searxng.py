"""A SearXNG instance's JSON API (``WEB_SEARCH_SEARXNG_URL``); its unresponsive engines go
into notes. A 403 almost always means the instance has not enabled ``formats: [json]``.
A call's domains go to it as ``site:``/``-site:`` (which it hands to its engines), its
``after`` day as the narrowest ``time_range`` that holds it; the hits are filtered after."""

from __future__ import annotations

from datetime import date, datetime, timezone

from lightsearch.filters import Filters
from lightsearch.providers.engines.base import (
    RECENCY_DAYS,
    Engine,
    EngineHit,
    EngineQuery,
    clean,
    iso,
    web_url,
)

TIME_RANGE = {"hour": "day", "day": "day", "week": "week", "month": "month", "year": "year"}


def since_window(filters: Filters, today: date | None = None) -> str | None:
    """The narrowest ``time_range`` holding a call's ``after`` day (SearXNG takes no
    dates): when ``before`` leaves out today, or ``after`` is over a year ago, none."""
    if filters.after is None:
        return None
    today = today or datetime.now(timezone.utc).date()
    if filters.before is not None and filters.before < today:
        return None
    days = (today - filters.after).days
    return next((w for w in ("day", "week", "month", "year") if days < RECENCY_DAYS[w]), None)


class SearXNG(Engine):
    name = "searxng"
    endpoint_settings = ("WEB_SEARCH_SEARXNG_URL",)
    https_only = False  # self-hosted instances often sit on a private http address

    def unavailable(self) -> str | None:
        return None if self.settings.get("WEB_SEARCH_SEARXNG_URL") else "no instance (WEB_SEARCH_SEARXNG_URL)"

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        base = self.settings.get("WEB_SEARCH_SEARXNG_URL").rstrip("/")
        params = {"q": query.with_sites(notes, self.name), "format": "json"}
        windows = [w for w in (query.recency, since_window(query.filters)) if w]
        window = min(windows, key=RECENCY_DAYS.__getitem__) if windows else None
        if window:
            params["time_range"] = TIME_RANGE[window]
        if query.language:
            params["language"] = query.language
        response = await self.fetch("GET", f"{base}/search", params=params, deadline=deadline)
        if response.status == 403:
            raise self.error("provider_blocked", "the SearXNG instance refused format=json (HTTP 403): "
                             "enable `formats: [json]` in its settings.yml", reason="access_denied", status=403)
        data = await self.json(response, deadline)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.unrecognised("JSON without results")
        for item in data.get("unresponsive_engines") or []:
            if notes is not None and isinstance(item, list) and item:
                notes.append(f"searxng: engine {str(item[0])[:40]} did not answer ({str(item[-1])[:60]})")
        hits = []
        for item in data["results"]:
            if not isinstance(item, dict) or web_url(item.get("url")) is None:
                continue
            hits.append(EngineHit(title=clean(item.get("title")) or item["url"], url=item["url"],
                                  snippet=clean(item.get("content")),
                                  published_at=iso(item.get("publishedDate"))))
        return hits[: query.max_results]
