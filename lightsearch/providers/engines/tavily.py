"""Tavily (key): POST /search; results with their extracted content. A call's domains and
days go to it natively (``include_domains``, ``exclude_domains``, ``start_date``,
``end_date``: inclusive days, as ours)."""

from __future__ import annotations

from typing import Any

from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, clean, iso, web_url


class Tavily(Engine):
    name = "tavily"
    endpoint_settings = ("WEB_SEARCH_TAVILY_URL",)
    key_setting = "WEB_SEARCH_TAVILY_API_KEY"
    key_env = "TAVILY_API_KEY"

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        body: dict[str, Any] = {"query": query.text, "max_results": query.max_results, "search_depth": "basic"}
        if query.recency:
            body["time_range"] = {"hour": "day"}.get(query.recency, query.recency)
        filters = query.filters
        if filters.include_domains:
            body["include_domains"] = list(filters.include_domains)
        if filters.exclude_domains:
            body["exclude_domains"] = list(filters.exclude_domains)
        if filters.after:
            body["start_date"] = filters.after.isoformat()
        if filters.before:
            body["end_date"] = filters.before.isoformat()
        if filters.region and notes is not None:
            notes.append(f"tavily: region {filters.region} was not passed (Tavily takes a country's name, "
                         "not a region code); its results are worldwide")
        response = await self.fetch("POST", self.settings.get("WEB_SEARCH_TAVILY_URL"), json=body,
                                    headers={"Authorization": f"Bearer {self.key}",
                                             "Content-Type": "application/json"}, deadline=deadline)
        data = await self.json(response, deadline)
        if not isinstance(data, dict) or not isinstance(data.get("results"), list):
            raise self.unrecognised("JSON without results")
        hits = []
        for item in data["results"]:
            if not isinstance(item, dict) or web_url(item.get("url")) is None:
                continue
            hits.append(EngineHit(title=clean(item.get("title")) or item["url"], url=item["url"],
                                  snippet=clean(item.get("content"))[:600],
                                  published_at=iso(item.get("published_date"))))
        return hits[: query.max_results]
