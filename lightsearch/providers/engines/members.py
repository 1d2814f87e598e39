"""Brave and Light as members of a fallback chain or a fused search: the same engine
interface over the existing providers, so the modes never ask which kind they hold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from lightsearch.providers.apiclient import ProviderError
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery


class BraveMember(Engine):
    name = "brave"
    endpoint_settings = ("BRAVE_API_URL",)
    key_setting = "BRAVE_SEARCH_API_KEY"
    key_env = "BRAVE_SEARCH_API_KEY"

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        from lightsearch.plan.request import build_request
        from lightsearch.providers.brave import BraveSearch

        settings = self.settings.copy()
        settings.set("BRAVE_SEARCH_API_KEY", self.key, priority="cmdline")
        brave = BraveSearch(settings)
        request = build_request(query.text, max_results=query.max_results, recency=query.recency)
        # the call's filters, and the region the engines are asked in (the call's, or WEB_SEARCH_REGION)
        request = replace(request, filters=replace(query.filters, region=query.region))
        hits = await brave._query(query.text, request)
        return [EngineHit(title=h.title, url=h.url, snippet=h.snippet, published_at=h.published_at,
                          source_name=h.source_name) for h in hits]


class LightMember(Engine):
    """Light's crawl of the catalog; it brings fetched page text, not only snippets."""

    name = "light"
    endpoint_settings = ("LIGHT_CATALOG",)

    def __init__(self, settings: Any, environ: dict[str, str] | None = None) -> None:
        super().__init__(settings, environ)
        self._light: Any = None

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        from lightsearch.errors import LightSearchError
        from lightsearch.providers.light import LightSearch

        if self._light is None:
            self._light = LightSearch(self.settings)
        try:
            f = query.filters
            result = await self._light.search(query.text, max_results=query.max_results, recency=query.recency,
                                              include_domains=f.include_domains, exclude_domains=f.exclude_domains,
                                              after=f.after, before=f.before)
        except LightSearchError as exc:
            if exc.code == "cancelled":
                raise
            raise ProviderError(exc.code if exc.code.startswith("provider_") else "provider_unavailable",
                                f"light: {exc.message}", "light", lightCode=exc.code) from None
        if notes is not None:  # a domain Light's catalog does not hold is said here too
            notes.extend(f"light: {n}" for n in result["meta"]["lightSearch"].get("catalogNotes", ()))
        return [EngineHit(title=h["title"], url=h["url"], snippet=h.get("snippet", ""),
                          published_at=h.get("publishedAt"), source_name=h.get("sourceName"),
                          content=h.get("content") or "") for h in result["hits"]]

