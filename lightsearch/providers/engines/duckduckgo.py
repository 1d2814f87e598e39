"""DuckDuckGo without a key: the html endpoint, its lite sibling, and the two in a row.

What users of every keyless DuckDuckGo tool complain about is a silent empty answer when
DDG served a challenge. Here a challenge or anomaly page, HTTP 202/403/418, a JS shell
(the wrong endpoint) or markup with neither results nor a "no results" marker is a typed
error; only a page that says "no results" is an empty success.

A page is read in one pass (documents/serp.py: linear in the page, at most 100 results),
here when it is small and in a worker of the pool otherwise (:meth:`Engine.read`); what
comes back is bounded, and unwrapping and vetting its links is all that runs here.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import parse_qs, urljoin, urlsplit

from lightsearch.documents.serp import SerpPage
from lightsearch.isolation import tasks as isolated
from lightsearch.providers.apiclient import ApiResponse, ProviderError
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, web_url

DF = {"hour": "d", "day": "d", "week": "w", "month": "m", "year": "y"}
QUERY_MAX_CHARS = 500  # the longest q the html endpoint is known to take whole


def unwrap(href: str | None) -> str | None:
    """A result link as the page it points to: ``//duckduckgo.com/l/?uddg=`` unwrapped;
    ads (``y.js``) and anything that is not http(s) are None."""
    if not href:
        return None
    href = href.strip()
    absolute = urljoin("https://duckduckgo.com/", href)
    parts = urlsplit(absolute)
    host = (parts.hostname or "").lower()
    if host.endswith("duckduckgo.com"):
        if parts.path.startswith("/l/"):
            target = parse_qs(parts.query).get("uddg", [None])[0]
            return web_url(target)
        return None  # y.js ads and DDG's own pages
    return web_url(absolute)


def page_problem(engine: str, response: ApiResponse, page: SerpPage) -> ProviderError | None:
    """A challenge, an anomaly status or a shell, as the error it is; None for a real page."""
    body = response.body[:200_000]
    if "challenge" in page.markers or b"anomaly-modal" in body or b"anomaly.js" in body:
        return ProviderError("provider_blocked", f"{engine} served a bot challenge (captcha)", engine,
                             reason="captcha", status=response.status)
    if response.status == 429:
        from lightsearch.providers.apiclient import retry_after_secs

        return ProviderError("provider_rate_limited", f"{engine} is rate limiting us (HTTP 429)", engine,
                             reason="too_many_requests", status=429,
                             resetSecs=retry_after_secs(response.header("retry-after")))
    if response.status in (202, 403, 418):
        return ProviderError("provider_blocked", f"{engine} refused the search (HTTP {response.status})",
                             engine, reason="access_denied", status=response.status)
    if response.status >= 500:
        return ProviderError("provider_unavailable", f"{engine} answered HTTP {response.status}", engine,
                             status=response.status)
    if response.status != 200:
        return ProviderError("provider_bad_response", f"{engine} answered HTTP {response.status}", engine,
                             status=response.status)
    if "shell" in page.markers:
        return ProviderError("provider_bad_response", f"{engine} sent the JavaScript page, not results",
                             engine, reason="js_shell")
    return None


class DuckDuckGoHtml(Engine):
    name = "ddg_html"
    url_setting: ClassVar[str] = "WEB_SEARCH_DDG_HTML_URL"
    endpoint_settings = ("WEB_SEARCH_DDG_HTML_URL",)
    lite: ClassVar[bool] = False

    def user_agent(self) -> str:
        return self.settings.get("WEB_SEARCH_USER_AGENT")

    def form(self, query: EngineQuery, notes: list[str] | None = None) -> dict[str, str]:
        """The search form: the call's domains as ``site:``/``-site:`` in ``q``, the region
        as ``kl``, a recency window as ``df``."""
        data = {"q": query.with_sites(notes, self.name, max_chars=QUERY_MAX_CHARS), "kl": query.region or "wt-wt",
                "b": ""}
        if query.recency:
            data["df"] = DF[query.recency]
        return data

    def headers(self) -> dict[str, str]:
        url = self.settings.get(self.url_setting)
        origin = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}"
        return {
            "Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
            "Accept-Language": "en-US,en;q=0.9",
            "Origin": origin, "Referer": f"{origin}/",
            "Sec-Fetch-Dest": "document", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Site": "same-origin",
            "Sec-Fetch-User": "?1", "Upgrade-Insecure-Requests": "1",
        }

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        response = await self.fetch("POST", self.settings.get(self.url_setting), data=self.form(query, notes),
                                    headers=self.headers(), deadline=deadline)
        page = await self.read(response, isolated.ddg_page, response.text(), self.lite, deadline=deadline)
        return self.parse(response, page)[: query.max_results]

    def parse(self, response: ApiResponse, page: SerpPage) -> list[EngineHit]:
        problem = page_problem(self.name, response, page)
        if problem is not None:
            raise problem
        return self.results(page)

    def results(self, page: SerpPage) -> list[EngineHit]:
        if not page.blocks and "results_list" not in page.markers:
            raise self.unrecognised("a page without a results list")
        hits: list[EngineHit] = []
        for result in page.results:
            if "result--ad" in result.classes or "result--no-result" in result.classes:
                continue
            url = unwrap(result.href)
            if url is None:
                continue  # per-entry failure: the entry is dropped
            hits.append(EngineHit(title=result.title or url, url=url, snippet=result.snippet))
        if not hits and not page.blocks and "no_results" not in page.markers:
            raise self.unrecognised("a results list with nothing recognisable in it")
        return hits


class DuckDuckGoLite(DuckDuckGoHtml):
    name = "ddg_lite"
    url_setting = "WEB_SEARCH_DDG_LITE_URL"
    endpoint_settings = ("WEB_SEARCH_DDG_LITE_URL",)
    lite = True

    def results(self, page: SerpPage) -> list[EngineHit]:
        if not page.blocks:
            if "No results" in page.text or "No more results" in page.text:
                return []
            if "search_form" not in page.markers:
                raise self.unrecognised("a page that is not DuckDuckGo lite")
            raise self.unrecognised("a lite page without result links")
        hits: list[EngineHit] = []
        for result in page.results:
            url = unwrap(result.href)
            if url is None:
                continue
            hits.append(EngineHit(title=result.title or url, url=url, snippet=result.snippet))
        return hits


class DuckDuckGo(Engine):
    """html first; lite when html gave nothing or was blocked (the lite page is served by
    other machinery and often still answers)."""

    name = "duckduckgo"
    endpoint_settings = ("WEB_SEARCH_DDG_HTML_URL", "WEB_SEARCH_DDG_LITE_URL")

    def __init__(self, settings: Any, environ: dict[str, str] | None = None) -> None:
        super().__init__(settings, environ)
        self.html = DuckDuckGoHtml(settings, environ)
        self.lite = DuckDuckGoLite(settings, environ)

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        try:
            hits = await self.html.search(query, deadline, notes)
        except ProviderError as exc:
            if exc.code == "provider_timeout":
                raise
            first: ProviderError | None = exc
        else:
            if hits:
                return hits
            first = None
        try:
            hits = await self.lite.search(query, deadline)
        except ProviderError:
            if first is not None:
                raise first from None
            raise
        if first is not None and notes is not None:
            notes.append(f"ddg_html failed ({first.code}: {first.message}); answered by ddg_lite")
        return hits
