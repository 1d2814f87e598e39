"""Reddit search, best effort: an honest User-Agent, cached like every engine. A 403, a
login wall or an HTML page is a provider limitation (``provider_blocked``), never an
empty success."""

from __future__ import annotations

from lightsearch.providers.apiclient import ApiResponse
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, clean, iso, web_url


class Reddit(Engine):
    name = "reddit"
    endpoint_settings = ("WEB_SEARCH_REDDIT_URL",)

    def user_agent(self) -> str:
        return self.settings.get("WEB_SEARCH_REDDIT_USER_AGENT")

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        params = {"q": query.text, "sort": "relevance", "limit": str(query.max_results), "raw_json": "1",
                  "t": query.recency or "all"}
        response = await self.fetch("GET", self.settings.get("WEB_SEARCH_REDDIT_URL"), params=params,
                                    deadline=deadline)
        self.blocked(response)
        return self.parse(await self.json(response, deadline))[: query.max_results]

    def blocked(self, response: ApiResponse) -> None:
        kind = (response.header("content-type") or "").lower()
        if response.status == 403 or (response.status == 200 and "html" in kind):
            raise self.error("provider_blocked", "reddit refused anonymous search (403 or a login wall); "
                             "a provider limitation, not an empty result", reason="access_denied",
                             status=response.status)

    def parse(self, data: object) -> list[EngineHit]:
        listing = data.get("data") if isinstance(data, dict) and data.get("kind") == "Listing" else None
        if not isinstance(listing, dict) or not isinstance(listing.get("children"), list):
            raise self.unrecognised("JSON that is not a Listing")
        hits = []
        for child in listing["children"]:
            post = child.get("data") if isinstance(child, dict) and child.get("kind") == "t3" else None
            if not isinstance(post, dict):
                continue
            permalink = post.get("permalink")
            thread = f"https://www.reddit.com{permalink}" if isinstance(permalink, str) and permalink.startswith("/") else None
            url = web_url(post.get("url")) or thread
            title = clean(post.get("title"))
            if not title or url is None:
                continue
            sub = post.get("subreddit")
            hits.append(EngineHit(title=title, url=url, snippet=clean(post.get("selftext"))[:300],
                                  published_at=iso(post.get("created_utc")),
                                  source_name=f"r/{sub}" if isinstance(sub, str) else "Reddit",
                                  extra={"discussionUrl": thread, "points": post.get("score")}))
        return hits
