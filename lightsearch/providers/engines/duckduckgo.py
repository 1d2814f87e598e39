"""DuckDuckGo without a key: the html endpoint, its lite sibling, and the two in a row.

What users of every keyless DuckDuckGo tool complain about is a silent empty answer when
DDG served a challenge. Here a challenge or anomaly page, HTTP 202/403/418, a JS shell
(the wrong endpoint) or markup with neither results nor a "no results" marker is a typed
error; only a page that says "no results" is an empty success.
"""

from __future__ import annotations

from typing import Any, ClassVar
from urllib.parse import parse_qs, urljoin, urlsplit

from parsel import Selector

from lightsearch.providers.apiclient import ApiResponse, ProviderError
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery, clean, web_url

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


def page_problem(engine: str, response: ApiResponse, sel: Selector) -> ProviderError | None:
    """A challenge, an anomaly status or a shell, as the error it is; None for a real page."""
    body = response.body[:200_000]
    if sel.css("form#challenge-form") or b"anomaly-modal" in body or b"anomaly.js" in body:
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
    if sel.css("#react-root-zci, #deep_preload_script, #react-search-form"):
        return ProviderError("provider_bad_response", f"{engine} sent the JavaScript page, not results",
                             engine, reason="js_shell")
    return None


class DuckDuckGoHtml(Engine):
    name = "ddg_html"
    url_setting: ClassVar[str] = "WEB_SEARCH_DDG_HTML_URL"
    endpoint_settings = ("WEB_SEARCH_DDG_HTML_URL",)

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
        return self.parse(response)[: query.max_results]

    def parse(self, response: ApiResponse) -> list[EngineHit]:
        sel = Selector(text=response.text())
        problem = page_problem(self.name, response, sel)
        if problem is not None:
            raise problem
        return self.results(sel)

    def results(self, sel: Selector) -> list[EngineHit]:
        blocks = sel.css("div.result")
        if not blocks and not sel.css("div.results, div.serp__results, div#links"):
            raise self.unrecognised("a page without a results list")
        hits: list[EngineHit] = []
        for block in blocks:
            classes = block.attrib.get("class", "")
            if "result--ad" in classes or "result--no-result" in classes:
                continue
            link = block.css("a.result__a")
            url = unwrap(link.attrib.get("href") if link else None)
            if url is None:
                continue  # per-entry failure: the entry is dropped
            hits.append(EngineHit(
                title=clean(link.get()) or url,
                url=url,
                snippet=clean(block.css(".result__snippet").get()),
            ))
        if not hits and not blocks and not sel.css(".no-results"):
            raise self.unrecognised("a results list with nothing recognisable in it")
        return hits


class DuckDuckGoLite(DuckDuckGoHtml):
    name = "ddg_lite"
    url_setting = "WEB_SEARCH_DDG_LITE_URL"
    endpoint_settings = ("WEB_SEARCH_DDG_LITE_URL",)

    def results(self, sel: Selector) -> list[EngineHit]:
        links = sel.css("a.result-link")
        if not links:
            text = " ".join(sel.css("body ::text").getall())
            if "No results" in text or "No more results" in text:
                return []
            if not sel.css("form input[name=q]"):
                raise self.unrecognised("a page that is not DuckDuckGo lite")
            raise self.unrecognised("a lite page without result links")
        hits: list[EngineHit] = []
        for link in links:
            url = unwrap(link.attrib.get("href"))
            if url is None:
                continue
            snippet = link.xpath("following::td[contains(concat(' ', normalize-space(@class), ' '),"
                                 " ' result-snippet ')][1]")
            hits.append(EngineHit(title=clean(link.get()) or url, url=url,
                                  snippet=clean(snippet.get()) if snippet else ""))
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
