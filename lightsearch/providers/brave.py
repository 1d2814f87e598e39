"""The Brave provider: a thin, spider-less client of the Brave Search web API.

One bounded HTTPS request per query (:mod:`lightsearch.providers.apiclient`), mapped onto the
common hit contract; optionally the top pages read through web_fetch
(:mod:`lightsearch.providers.source_pages`). Expected failures are structured
``LightSearchError``s with ``details.provider == "brave"``; nothing is retried and
nothing falls back to Light, because a silent second engine would hand the agent
different evidence than the one it asked for.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from typing import Any
from urllib.parse import urlencode, urlsplit

from scrapy.settings import Settings

from lightsearch.documents.boundedjson import load_bounded
from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.filters import domain_notes, filtered, region_value, with_operators
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.apart import small
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.request import SearchRequest
from lightsearch.providers.apiclient import ApiClient, ApiResponse, ProviderError
from lightsearch.providers.engines.base import clean, iso
from lightsearch.providers.recency import dates_note, within_dates
from lightsearch.providers.search_call import SearchingProvider
from lightsearch.ranking.fusion import reciprocal_rank_fusion
from lightsearch.schema import validate
from lightsearch.timestamps import utc_stamp
from lightsearch.windows import RECENCY_WINDOWS

PROVIDER = "brave"
MAX_COUNT = 20  # the API's own ceiling for ``count``
# Brave's freshness filter has day granularity: "hour" asks for the past day and says so.
FRESHNESS = {"hour": "pd", "day": "pd", "week": "pw", "month": "pm", "year": "py"}
# Brave's own bounds on ``q``: the site: operators of a call's domains fit inside them
QUERY_MAX_CHARS, QUERY_MAX_WORDS = 400, 50
EARLIEST = date(1970, 1, 1)  # a date range's start when the call gives only ``before``
# A count in a header: ASCII digits, a few of them (``str.isdigit`` takes "²", which int() refuses).
_COUNT = re.compile(r"[0-9]{1,12}")


def freshness(request: SearchRequest, today: date | None = None) -> str | None:
    """Brave's ``freshness``: ``pd``/``pw``/... for a recency window, or a date range
    (``2024-01-01to2024-01-31``) for ``after``/``before``, narrowed by the recency window
    when both are given."""
    filters = request.filters
    if not filters.dates:
        return FRESHNESS[request.recency] if request.recency else None
    today = today or datetime.now(timezone.utc).date()
    start, end = filters.after or EARLIEST, filters.before or today
    if request.recency:
        start = max(start, today - timedelta(seconds=RECENCY_WINDOWS[request.recency]))
    return f"{start.isoformat()}to{end.isoformat()}"


def provider_error(code: str, message: str, **details: Any) -> LightSearchError:
    return ProviderError(code, message, PROVIDER, **details)


@dataclass
class BraveHit:
    """One web result as the common contract needs it, plus what a page fetch adds."""

    title: str
    url: str
    snippet: str
    source: str
    source_name: str
    retrieved_at: str
    rank: int
    score: float = 0.0
    published_at: str | None = None
    modified_at: str | None = None
    language: str | None = None
    original_url: str | None = None
    content: str = ""  # page text read by a source fetch, empty when only the snippet came back
    content_truncated: bool = False  # web_fetch returned only a window of the page text
    content_partial: bool = False  # the page body itself was cut short (web_fetch "partial")
    fetch: dict[str, Any] = field(default_factory=dict)  # how the source fetch went, if tried


def map_results(payload: Any, *, retrieved_at: str, snippet_chars: int) -> list[BraveHit]:
    """The ``web.results`` of a Brave response as hits; anything that is not an http(s)
    result with a URL is skipped, since the payload is untrusted data."""
    if not isinstance(payload, dict):
        raise ValueError("the response is not a JSON object")
    web = payload.get("web") or {}
    results = web.get("results") if isinstance(web, dict) else None
    if results is None:
        results = []
    if not isinstance(results, list):
        raise ValueError("web.results is not a list")
    hits: list[BraveHit] = []
    seen: set[str] = set()
    for item in results:
        if not isinstance(item, dict):
            continue
        url = item.get("url")
        if not isinstance(url, str) or urlsplit(url).scheme not in ("http", "https") or url in seen:
            continue
        seen.add(url)
        meta_url = item.get("meta_url") if isinstance(item.get("meta_url"), dict) else {}
        profile = item.get("profile") if isinstance(item.get("profile"), dict) else {}
        host = (meta_url.get("hostname") or urlsplit(url).hostname or "").lower()
        source = host.removeprefix("www.")
        language = item.get("language") if isinstance(item.get("language"), str) else None
        # Brave marks query terms with <strong> and escapes entities: agents get plain text.
        hits.append(BraveHit(
            title=clean(item.get("title")) or url,
            url=url,
            snippet=_snippet(item, snippet_chars),
            source=source,
            source_name=clean(profile.get("name")) or source,
            retrieved_at=retrieved_at,
            rank=len(hits) + 1,
            published_at=iso(item.get("page_age")),  # UTC without an offset: taken as UTC
            language=language if language and language != "unknown" else None,
        ))
    return hits


def _snippet(item: dict[str, Any], limit: int) -> str:
    """The description, then the extra snippets the plan returns, within ``limit`` chars."""
    parts = [clean(item.get("description"))]
    extra = item.get("extra_snippets")
    if isinstance(extra, list):
        parts.extend(clean(x) for x in extra)
    text = ""
    for part in parts:
        if not part or part in text:
            continue
        candidate = f"{text} … {part}" if text else part
        if len(candidate) > limit:
            if not text:
                text = part[: max(0, limit - 1)].rstrip() + "…"
            break
        text = candidate
    return text


def fuse(rankings: Sequence[Sequence[BraveHit]], max_results: int) -> list[BraveHit]:
    """Several queries' hit lists as one, by reciprocal rank, deduplicated by URL."""
    by_url: dict[str, BraveHit] = {}
    for ranking in rankings:
        for h in ranking:
            by_url.setdefault(h.url, h)
    fused = reciprocal_rank_fusion([[h.url for h in r] for r in rankings])
    order = sorted(fused, key=lambda u: (-fused[u], by_url[u].rank, u))[:max_results]
    out = []
    for i, url in enumerate(order, 1):
        hit = by_url[url]
        hit.rank = i
        hit.score = round(fused[url] * 60, 4)  # 1.0 for the top hit of a single query
        out.append(hit)
    return out


def rate_limit(response: ApiResponse) -> dict[str, Any]:
    """What the ``X-RateLimit-*`` headers (and ``Retry-After``) say about when to retry.

    Brave sends comma-separated values, one per window (per second, per month). The
    windows with nothing remaining are the ones that blocked us; the longest of their
    resets is when a retry can succeed.
    """
    def values(name: str) -> list[int | None]:
        raw = response.header(name) or ""
        out: list[int | None] = []
        for part in raw.split(",")[:8]:
            part = part.strip()
            out.append(int(part) if _COUNT.fullmatch(part) else None)
        return out if raw else []

    limits, remaining, resets = (values(f"x-ratelimit-{n}") for n in ("limit", "remaining", "reset"))
    windows = []
    for i, reset in enumerate(resets):
        windows.append({
            "limit": limits[i] if i < len(limits) else None,
            "remaining": remaining[i] if i < len(remaining) else None,
            "resetSecs": reset,
        })
    blocked = [w["resetSecs"] for w in windows if w["remaining"] == 0 and w["resetSecs"] is not None]
    known = [w["resetSecs"] for w in windows if w["resetSecs"] is not None]
    retry_after = response.header("retry-after")
    reset_secs = max(blocked) if blocked else (min(known) if known else None)
    if reset_secs is None and retry_after and _COUNT.fullmatch(retry_after.strip()):
        reset_secs = int(retry_after.strip())
    info: dict[str, Any] = {"windows": windows[:4], "resetSecs": reset_secs, "resetAt": None}
    if reset_secs is not None:
        at = datetime.now(timezone.utc) + timedelta(seconds=reset_secs)
        info["resetAt"] = utc_stamp(at)
    return info


def error_for_response(response: ApiResponse) -> LightSearchError:
    """The structured error for a non-200 API answer."""
    status = response.status
    detail = _error_detail(response.body)
    if status in (401, 403):
        return provider_error(
            "provider_auth", f"Brave rejected the API key (HTTP {status})",
            status=status, detail=detail,
        )
    if status == 429:
        info = rate_limit(response)
        when = f"; retry after {info['resetSecs']} s ({info['resetAt']})" if info["resetSecs"] is not None else ""
        return provider_error(
            "provider_rate_limited", f"Brave rate limit reached (HTTP 429){when}",
            status=status, detail=detail, **info,
        )
    if status >= 500:
        return provider_error(
            "provider_unavailable", f"Brave answered HTTP {status}", status=status, detail=detail,
        )
    return provider_error(
        "provider_bad_response", f"Brave answered HTTP {status}", status=status, detail=detail,
    )


def _error_detail(body: bytes) -> str | None:
    """Brave's own error text, when its JSON error body has one (bounded; untrusted). A
    body too large to be read in this process is not read for it."""
    if not small(len(body)):
        return None
    try:
        data = load_bounded(body).value
    except LightSearchError:
        return None
    err = data.get("error") if isinstance(data, dict) else None
    if isinstance(err, dict):
        text = err.get("detail") or err.get("code")
        return str(text)[:200] if text else None
    return None


async def all_or_nothing(coros: Sequence[Any]) -> list[Any]:
    """Await every coroutine; on the first failure cancel the rest and raise it, so no
    request outlives the search that made it."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    try:
        await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in tasks:
            if task.done() and not task.cancelled() and task.exception() is not None:
                raise task.exception()
        return [task.result() for task in tasks]
    finally:
        for task in tasks:
            if not task.done():
                task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def validate_brave_settings(settings: Settings) -> None:
    """``BRAVE_*`` against the schema when the provider loads, so a bad value is an
    invalid_settings error naming the key rather than a crash in the middle of a search."""
    validate(settings, ("BRAVE_",))


class BraveSearch(SearchingProvider):
    """web_search through the Brave Search API; chosen by :func:`lightsearch.providers.load_provider`."""

    provider = PROVIDER

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        key = settings.get("BRAVE_SEARCH_API_KEY")
        self._key = key.strip() if isinstance(key, str) else ""
        if not self._key:
            raise LightSearchError("invalid_settings", "the Brave provider needs BRAVE_SEARCH_API_KEY",
                                   {"key": "BRAVE_SEARCH_API_KEY"})
        validate_brave_settings(settings)
        url = settings.get("BRAVE_API_URL") or ""
        if urlsplit(url).scheme != "https" or not urlsplit(url).hostname:
            raise LightSearchError("invalid_settings", "BRAVE_API_URL must be an https:// URL",
                                   {"key": "BRAVE_API_URL", "value": str(url)[:120]})

    # ------------------------------------------------------------------ public
    async def search_request(self, request: SearchRequest) -> dict[str, Any]:
        """Search Brave; the result is the common envelope with ``provider == "brave"``.

        The request bounds are the search's (the defaults of ``build_request``), not the
        ``LIGHT_*`` settings, so that invalid Light settings never affect Brave. The
        filters go to Brave natively (:meth:`_params`), and its answer is filtered again.
        """
        deadline = self.settings.getfloat("BRAVE_DEADLINE_SECS")
        started = time.monotonic()
        try:
            return await asyncio.wait_for(self._run(request, started), timeout=deadline)
        except asyncio.TimeoutError:
            raise provider_error("deadline_exceeded",
                                 f"the search did not finish within {deadline:g} s",
                                 deadlineSecs=deadline) from None
        except SearchCancelled:
            raise
        except asyncio.CancelledError:
            raise SearchCancelled(details={"provider": PROVIDER}) from None

    # ------------------------------------------------------------------ internals
    async def _run(self, request: SearchRequest, started: float) -> dict[str, Any]:
        rankings = await all_or_nothing([self._query(q, request) for q in request.queries])
        notes: list[str] = []
        rankings = self._filtered(rankings, request, notes)
        hits = fuse(rankings, request.max_results)
        if request.recency == "hour" and not request.filters.dates:
            notes.append("Brave filters freshness by day at the finest; recency=hour searched the past day")
        fetch_errors: list[dict[str, Any]] = []
        fetch_pages = self.settings.getbool("BRAVE_SOURCE_FETCH")
        if fetch_pages and not self.settings.getbool("WEB_FETCH_ENABLED"):
            # web_fetch switched off means no page is read on the agent's behalf.
            fetch_pages = False
            notes.append("source pages were not read: web_fetch is disabled (WEB_FETCH_ENABLED)")
        if fetch_pages and hits:
            from lightsearch.providers.source_pages import fetch_sources

            remaining = self.settings.getfloat("BRAVE_DEADLINE_SECS") - (time.monotonic() - started)
            fetch_errors = await fetch_sources(hits, self.settings, remaining_secs=remaining)
        from lightsearch.providers.hit_result import brave_result

        return brave_result(
            request=request, hits=hits, notes=notes, source_fetch_errors=fetch_errors,
            api_requests=len(request.queries), settings=self.settings,
            elapsed_ms=int((time.monotonic() - started) * 1000),
        )

    def _filtered(self, rankings: list[list[BraveHit]], request: SearchRequest,
                  notes: list[str]) -> list[list[BraveHit]]:
        """Each query's hits the call's filters admit, before any page is read for them:
        what Brave was asked natively, made sure of (domains, then the dates)."""
        filters = request.filters
        if not filters.domains and not filters.dates:
            return rankings
        off = {"excluded": 0, "not_included": 0}
        dropped = undated = 0
        out = []
        for ranking in rankings:
            kept, gone = filtered(ranking, filters, lambda h: h.url)
            off = {k: off[k] + gone[k] for k in off}
            kept, late, no_date = within_dates(kept, filters, lambda h: (h.published_at, h.modified_at),
                                               lambda h: h.url)
            dropped, undated = dropped + late, undated + len(no_date)
            out.append(kept)
        if not all(with_operators(q, filters)[1] for q in request.queries):
            notes.append(f"includeDomains: {len(filters.include_domains)} domains do not fit in Brave's query as "
                         "site: operators; its results were filtered instead")
        notes.extend(domain_notes(off, filters))
        if filters.dates:
            notes.append(dates_note(filters, dropped, undated))
        return out

    def _params(self, query: str, request: SearchRequest) -> dict[str, str]:
        s = self.settings
        filters = request.filters
        q, _ = with_operators(query, filters, max_chars=QUERY_MAX_CHARS, max_words=QUERY_MAX_WORDS)
        params = {"q": q, "count": str(min(request.max_results, MAX_COUNT))}
        window = freshness(request)
        if window:
            params["freshness"] = window
        if s.getbool("BRAVE_EXTRA_SNIPPETS"):
            params["extra_snippets"] = "true"
        for key, name in (("BRAVE_COUNTRY", "country"), ("BRAVE_SEARCH_LANG", "search_lang")):
            if s.get(key):
                params[name] = str(s.get(key))
        region = region_value(filters.region)
        if region:  # the call's region wins over the deployment's
            country, language = region.split("-")
            if country == "wt":  # DuckDuckGo's "no region": Brave's is ALL
                params["country"] = "ALL"
                params.pop("search_lang", None)
            else:
                params["country"], params["search_lang"] = country, language
        return params

    async def _query(self, query: str, request: SearchRequest) -> list[BraveHit]:
        s = self.settings
        base = s.get("BRAVE_API_URL")
        url = f"{base}{'&' if '?' in base else '?'}{urlencode(self._params(query, request))}"
        headers = {
            "Accept": "application/json",
            "X-Subscription-Token": self._key,
            "User-Agent": s.get("USER_AGENT") or "lightsearch",
        }
        timeout = s.getfloat("BRAVE_TIMEOUT_SECS")
        client = ApiClient(s, provider=PROVIDER, max_bytes=s.getint("BRAVE_RESPONSE_MAX_BYTES"),
                           ca_file=s.get("BRAVE_TLS_CA_FILE"), user_agent=headers["User-Agent"])
        try:
            response = await client.request("GET", url, headers=headers, timeout=timeout)
        except ProviderError as exc:
            if exc.code == "provider_timeout":
                raise provider_error("provider_timeout", f"Brave did not answer within {timeout:g} s",
                                     timeoutSecs=timeout) from None
            raise
        if response.status != 200:
            raise error_for_response(response)
        payload = await self._payload(response, timeout)
        try:
            return map_results(payload, retrieved_at=utc_stamp(),
                               snippet_chars=s.getint("BRAVE_SNIPPET_CHARS"))
        except (ValueError, UnicodeDecodeError, TypeError, AttributeError) as exc:
            raise provider_error("provider_bad_response", f"Brave's response could not be read: {exc}",
                                 reason="unparseable", status=response.status) from None

    async def _payload(self, response: ApiResponse, timeout: float) -> Any:
        """The answer's JSON, cut to a bounded shape (documents/boundedjson.py): loaded here
        when it is small, in a worker of the pool otherwise, within ``timeout``."""
        try:
            if small(len(response.body)):
                return load_bounded(response.body).value
            lane = Lane(self.settings, name=PROVIDER, deadline_at=time.monotonic() + timeout)
            try:
                return (await lane.run(isolated.json_answer, response.body, what="the Brave answer")).value
            finally:
                lane.close()
        except LightSearchError as exc:
            reason = exc.details.get("reason")
            raise provider_error("provider_bad_response", f"Brave's response could not be read: {exc.message}",
                                 reason=reason if isinstance(reason, str) else exc.code,
                                 status=response.status) from None
