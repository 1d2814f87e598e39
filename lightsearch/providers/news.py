"""web_news: realtime news from Google News RSS, fused with the catalog's news sources
(Light) when they answer within the deadline; ordered by recency within relevance.

Same envelope, receipts and errors as web_search (``provider: "news"``, or ``"none"``
when every member failed). Light is asked with the recency the window implies, which is
what makes its source selection prefer the catalog's news-kind sources.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy.settings import Settings

from lightsearch.config import check_door
from lightsearch.errors import invalid_input
from lightsearch.plan.request import SearchRequest
from lightsearch.providers.engines.base import EngineHit
from lightsearch.providers.engines.modes import EngineSearch
from lightsearch.timestamps import parse_stamp
from lightsearch.windows import NEWS_WINDOWS

TIERS = 3  # relevance bands; inside one, newest first


class NewsSearch(EngineSearch):
    def __init__(self, settings: Settings, environ: dict[str, str] | None = None) -> None:
        super().__init__(settings, "web_news", environ)
        self.provider = "news"

    async def news(self, query: str | Sequence[str], *, when: str | None = None,
                   max_results: int | None = None, region: str | None = None,
                   include_domains: Sequence[str] | None = None, exclude_domains: Sequence[str] | None = None,
                   after: str | None = None, before: str | None = None) -> dict[str, Any]:
        """The news envelope for ``query`` within ``when`` (default ``WEB_NEWS_WHEN``, but
        none when ``after`` or ``before`` gives the window instead)."""
        if when is None and after is None and before is None:
            when = self.settings.get("WEB_NEWS_WHEN")
        if when is not None and when not in NEWS_WINDOWS:
            raise invalid_input(f"when must be one of {', '.join(NEWS_WINDOWS)}", parameter="when", bound="when",
                                got=str(when)[:20])
        check_door(self.settings, self.environ)  # web_news's door
        request = self.request(query, max_results=max_results, recency=NEWS_WINDOWS[when] if when else None,
                               region=region, include_domains=include_domains, exclude_domains=exclude_domains,
                               after=after, before=before)
        return await self.search_request(request, when=when)

    def deadline_secs(self) -> float:
        return self.settings.getfloat("WEB_NEWS_DEADLINE_SECS")

    def members(self, request: SearchRequest) -> list[str]:
        return ["news", "light"] if self.settings.getbool("WEB_NEWS_LIGHT") else ["news"]

    def arrange(self, hits: list[EngineHit]) -> list[EngineHit]:
        """Relevance bands by fused score, newest first inside a band, undated last."""
        def key(item: tuple[int, EngineHit]) -> tuple[int, float, int]:
            index, hit = item
            band = min(TIERS - 1, int((1.0 - hit.score) * TIERS))
            return (band, -_epoch(hit.published_at), index)

        return [hit for _, hit in sorted(enumerate(hits), key=key)]


def _epoch(stamp: str | None) -> float:
    """Seconds since the epoch of an ISO timestamp; undated hits sort last in their band."""
    when = parse_stamp(stamp)
    return when.timestamp() if when else float("-inf")
