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


# Light's source errors that mean its sites could not be reached at all.
UNREACHABLE = frozenset({"network_error", "robots_unreachable"})


class LightMember(Engine):
    """Light's crawl of the catalog; it brings fetched page text, not only snippets."""

    name = "light"
    endpoint_settings = ("LIGHT_CATALOG",)

    def __init__(self, settings: Any, environ: dict[str, str] | None = None) -> None:
        super().__init__(settings, environ)
        self._light: Any = None

    def _engine(self) -> Any:
        from lightsearch.providers.light import LightSearch

        if self._light is None:
            self._light = LightSearch(self.settings)
        return self._light

    def out_of_scope(self, query: EngineQuery) -> str | None:
        """A call whose domains leave none of Light's catalog, and name no site Light would
        search on the spot, is not sent: Light would search nothing, which is not an answer."""
        from lightsearch.errors import LightSearchError
        from lightsearch.plan.adhoc import outside_catalog
        from lightsearch.plan.domains import restrict_catalog
        from lightsearch.providers.light_sites import probeable

        if not query.filters.domains:
            return None
        light = self._engine()
        try:
            catalog = light._reachable(light._first_search_checks())
        except LightSearchError:
            return None  # a bad catalog or setting: the search says so
        if restrict_catalog(catalog, query.filters)[0].sources:
            return None
        if light.settings.getbool("LIGHT_ADHOC_SOURCES") and probeable(light.settings,
                                                                      outside_catalog(catalog, query.filters)):
            return None
        return "no source of its catalog is on the call's includeDomains/excludeDomains"

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        from lightsearch.errors import LightSearchError

        light = self._engine()
        try:
            f = query.filters
            # the engines' call checked the kill switch at its door: Light's request is
            # searched without passing its own
            request = light.request(query.text, max_results=query.max_results, recency=query.recency,
                                    include_domains=f.include_domains, exclude_domains=f.exclude_domains,
                                    after=f.after, before=f.before)
            result = await light.search_request(request)
        except LightSearchError as exc:
            if exc.code == "cancelled":
                raise
            errors = exc.details.get("sourceErrors") or []
            unreachable = bool(errors) and all(isinstance(e, dict) and e.get("code") in UNREACHABLE for e in errors)
            raise ProviderError(exc.code if exc.code.startswith("provider_") else "provider_unavailable",
                                f"light: {exc.message}", "light", lightCode=exc.code,
                                **({"reason": "unreachable"} if unreachable else {})) from None
        if notes is not None:  # a domain Light's catalog does not hold is said here too
            notes.extend(f"light: {n}" for n in result["meta"]["lightSearch"].get("catalogNotes", ()))
        return [EngineHit(title=h["title"], url=h["url"], snippet=h.get("snippet", ""),
                          published_at=h.get("publishedAt"), source_name=h.get("sourceName"),
                          content=h.get("content") or "") for h in result["hits"]]

