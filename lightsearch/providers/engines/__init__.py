"""The keyless engines (and the keyed ones) behind one small interface, one module each.

Every engine takes an :class:`~.base.EngineQuery` and a deadline and returns
:class:`~.base.EngineHit`s or raises a :class:`~lightsearch.providers.apiclient.ProviderError`;
:mod:`.modes` runs them as a fallback chain, a fused search, or alone.
"""

from __future__ import annotations

from typing import Any

from scrapy.utils.misc import load_object

ENGINES = {
    "duckduckgo": "lightsearch.providers.engines.duckduckgo.DuckDuckGo",
    "ddg_html": "lightsearch.providers.engines.duckduckgo.DuckDuckGoHtml",
    "ddg_lite": "lightsearch.providers.engines.duckduckgo.DuckDuckGoLite",
    "news": "lightsearch.providers.engines.google_news.GoogleNews",
    "wikipedia": "lightsearch.providers.engines.wikipedia.Wikipedia",
    "hn": "lightsearch.providers.engines.hackernews.HackerNews",
    "reddit": "lightsearch.providers.engines.reddit.Reddit",
    "searxng": "lightsearch.providers.engines.searxng.SearXNG",
    "tavily": "lightsearch.providers.engines.tavily.Tavily",
    "openrouter": "lightsearch.providers.engines.openrouter.OpenRouter",
    "brave": "lightsearch.providers.engines.members.BraveMember",
    "light": "lightsearch.providers.engines.members.LightMember",
}
ALIASES = {"ddg": "duckduckgo", "google_news": "news", "hackernews": "hn"}


def engine_name(name: str) -> str:
    name = name.strip().lower()
    return ALIASES.get(name, name)


def build_engine(name: str, settings: Any, environ: dict[str, str] | None = None) -> Any:
    return load_object(ENGINES[engine_name(name)])(settings, environ)
