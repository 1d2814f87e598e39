"""Wikipedia's search API: titles, page URLs and plain snippets in the query's language
(from the query's script, the region, or ``WEB_SEARCH_WIKIPEDIA_LANG``)."""

from __future__ import annotations

from urllib.parse import quote

from lightsearch.providers.engines.base import (
    Engine,
    EngineHit,
    EngineQuery,
    clean,
    iso,
    script_language,
)


class Wikipedia(Engine):
    name = "wikipedia"
    endpoint_settings = ("WEB_SEARCH_WIKIPEDIA_URL",)

    def language(self, query: EngineQuery) -> str:
        return (self.settings.get("WEB_SEARCH_WIKIPEDIA_LANG") or script_language(query.text)
                or query.language or "en")

    def out_of_scope(self, query: EngineQuery) -> str | None:
        """Wikipedia answers only with its own pages: a call whose domains leave out the
        language's wikipedia.org is not sent."""
        host = f"{self.language(query)}.wikipedia.org"
        if not query.filters.admits(host):
            return f"its pages ({host}) are outside the call's includeDomains/excludeDomains"
        return None

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        lang = self.language(query)
        url = self.settings.get("WEB_SEARCH_WIKIPEDIA_URL").replace("{lang}", lang)
        params = {"action": "query", "list": "search", "srsearch": query.text, "format": "json",
                  "srlimit": str(query.max_results), "srprop": "snippet|timestamp", "utf8": "1"}
        data = await self.json(await self.fetch("GET", url, params=params, deadline=deadline), deadline)
        return self.parse(data, lang)[: query.max_results]

    def parse(self, data: object, lang: str) -> list[EngineHit]:
        if not isinstance(data, dict):
            raise self.unrecognised("JSON that is not an object")
        if isinstance(data.get("error"), dict):
            raise self.error("provider_bad_response", f"wikipedia refused the query: "
                             f"{str(data['error'].get('code'))[:60]}", reason="api_error")
        results = (data.get("query") or {}).get("search") if isinstance(data.get("query"), dict) else None
        if not isinstance(results, list):
            raise self.unrecognised("JSON without query.search")
        hits = []
        for item in results:
            if not isinstance(item, dict) or not isinstance(item.get("title"), str):
                continue
            title = item["title"]
            url = f"https://{lang}.wikipedia.org/wiki/{quote(title.replace(' ', '_'), safe='/:()_,')}"
            hits.append(EngineHit(title=title, url=url, snippet=clean(item.get("snippet")),
                                  extra={"modifiedAt": iso(item.get("timestamp"))} if item.get("timestamp") else {},
                                  source_name="Wikipedia", published_at=None))
        return hits
