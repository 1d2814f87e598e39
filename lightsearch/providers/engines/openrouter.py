"""OpenRouter ``:online`` (key): a cheap model with web search. The model's JSON array
carries the better snippets, its ``url_citation`` annotations are authoritative for URLs:
a URL only the model's text names (never cited) is dropped, since it may be invented."""

from __future__ import annotations

from lightsearch.documents.boundedjson import load_bounded
from lightsearch.errors import LightSearchError
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, clean, iso, web_url
from lightsearch.ranking.normalize import dedupe_key

PROMPT = ("Search the web and answer with only a JSON array of up to {n} results for the query, "
          'each {{"title": ..., "url": ..., "snippet": ..., "publishedAt": ISO date or null}}.')


class OpenRouter(Engine):
    name = "openrouter"
    endpoint_settings = ("WEB_SEARCH_OPENROUTER_URL", "WEB_SEARCH_OPENROUTER_MODEL")
    key_setting = "WEB_SEARCH_OPENROUTER_API_KEY"
    key_env = "OPENROUTER_API_KEY"

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        body = {"model": self.settings.get("WEB_SEARCH_OPENROUTER_MODEL"), "temperature": 0,
                "messages": [{"role": "system", "content": PROMPT.format(n=query.max_results)},
                             {"role": "user", "content": query.text}]}
        response = await self.fetch("POST", self.settings.get("WEB_SEARCH_OPENROUTER_URL"), json=body,
                                    headers={"Authorization": f"Bearer {self.key}"}, deadline=deadline)
        return self.parse(await self.json(response, deadline))[: query.max_results]

    def parse(self, data: object) -> list[EngineHit]:
        try:
            message = data["choices"][0]["message"]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            raise self.unrecognised("JSON without choices[0].message") from None
        items = model_items(message.get("content"))
        by_key = {dedupe_key(i["url"]): i for i in items}
        hits: list[EngineHit] = []
        seen: set[str] = set()
        for note in message.get("annotations") or []:
            cite = note.get("url_citation") if isinstance(note, dict) and note.get("type") == "url_citation" else None
            url = web_url(cite.get("url")) if isinstance(cite, dict) else None
            if url is None or dedupe_key(url) in seen:
                continue
            seen.add(dedupe_key(url))
            item = by_key.get(dedupe_key(url), {})
            hits.append(EngineHit(title=clean(item.get("title")) or clean(cite.get("title")) or url, url=url,
                                  snippet=clean(item.get("snippet")) or clean(cite.get("content"))[:400],
                                  published_at=iso(item.get("publishedAt"))))
        return hits


def model_items(content: object) -> list[dict]:
    """The JSON array in the model's text (fenced or not), from its first ``[`` to its last
    ``]``, cut to a bounded shape; [] when there is none. The text is at most
    ``MAX_STRING`` characters (the answer was cut so), so loading it here is bounded."""
    if not isinstance(content, str):
        return []
    start, end = content.find("["), content.rfind("]")
    if start < 0 or end < start:
        return []
    try:
        items = load_bounded(content[start:end + 1]).value
    except LightSearchError:
        return []
    return [i for i in items if isinstance(i, dict) and web_url(i.get("url"))] if isinstance(items, list) else []
