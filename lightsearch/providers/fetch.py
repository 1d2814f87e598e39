"""web_fetch: one public URL to clean, bounded text, behind the transport guard.

``await WebFetch.from_settings(...).fetch(url, max_chars=8000, start_index=0)`` runs a
one-page crawl (:class:`lightsearch.spiders.fetch.FetchSpider`) through ``AsyncCrawlerRunner`` in
the caller's asyncio loop, with the same settings module as Light searches, so the
guarded download handler, robots and budget middlewares apply to every hop. Expected
failures raise :class:`~lightsearch.errors.LightSearchError` with one of the codes
DESIGN.md lists; a success always carries text. Everything returned is untrusted web
content and says so (``trust``/``carryPolicy``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from datetime import datetime, timezone
from typing import Any

from scrapy import Request
from scrapy.http import Response, TextResponse
from scrapy.settings import Settings

from lightsearch.crawl.failures import BOUND_REASONS, classify
from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import check_url
from lightsearch.crawl.middlewares.robots import RobotsDenied
from lightsearch.crawl.run import CrawlCancelled, CrawlDeadline, run_crawl
from lightsearch.crawl.runtime import preload_components, release_threads
from lightsearch.errors import LightSearchError, invalid_input, quote_untrusted
from lightsearch.evidence.envelope import finish_fetch
from lightsearch.evidence.model import ResultLimits
from lightsearch.evidence.render import render_result, strip_invisible, utf8_len
from lightsearch.providers.light import make_settings
from lightsearch.schema import validate
from lightsearch.spiders.fetch import FetchedPage, FetchRefused, FetchSpider

TRUST = {"trust": "volatile_external", "carryPolicy": "never"}
MAX_URL_CHARS = 2048
MAX_CHARS_LIMIT = 100_000
FEED_ENTRIES = 50


def fetch_error(code: str, message: str, **details: Any) -> LightSearchError:
    return LightSearchError(code, message, details)


class WebFetch:
    """Read one page. Several fetches may run at once in one process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._validated = False
        preload_components(settings)

    @classmethod
    def from_settings(cls, overrides: dict[str, Any] | Settings | None = None) -> WebFetch:
        return cls(make_settings(overrides))

    async def __aenter__(self) -> WebFetch:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release what the process holds for crawls once none is running (the reactor's
        threads), so a script that searched can exit; the engine stays usable."""
        release_threads()

    async def fetch(
        self,
        url: str,
        max_chars: int | None = None,
        start_index: int = 0,
        *,
        markdown: bool = False,
        head_tail: bool = False,
        robots: bool | None = None,
    ) -> dict[str, Any]:
        """The page at ``url`` as clean text from ``start_index``, at most ``max_chars``.

        ``head_tail`` returns the start and the end of a long page in one read instead
        of the first ``max_chars``. ``robots`` overrides ``WEB_FETCH_ROBOTSTXT_OBEY``
        for this fetch. Raises LightSearchError with a code on every expected failure.
        """
        s = self.settings
        if not self._validated:
            validate(s, ("WEB_FETCH_", "RESULT_"))
            self._validated = True
        if not s.getbool("WEB_FETCH_ENABLED"):
            raise fetch_error("disabled", "web_fetch is disabled by configuration (WEB_FETCH_ENABLED)")
        max_chars = s.getint("WEB_FETCH_MAX_CHARS") if max_chars is None else max_chars
        if isinstance(max_chars, bool) or not isinstance(max_chars, int) or not 1 <= max_chars <= MAX_CHARS_LIMIT:
            raise invalid_input(f"maxChars must be an integer from 1 to {MAX_CHARS_LIMIT}", parameter="maxChars",
                                maxChars=max_chars)
        if isinstance(start_index, bool) or not isinstance(start_index, int) or start_index < 0:
            raise invalid_input("startIndex must be a non-negative integer", parameter="startIndex",
                                startIndex=start_index)
        request_url = self._checked_url(url)
        started = time.monotonic()
        fetched = await self._crawl(request_url, robots)
        response = self._response_or_raise(fetched, request_url)
        page = await asyncio.to_thread(self._read, response, markdown)
        text = strip_invisible(page.pop("text"))
        window = window_text(text, max_chars, start_index, head_tail=head_tail)
        # A body cut short by the origin (connection closed before Content-Length) is
        # still evidence: it is returned and marked partial, as seed 000 prescribes.
        partial = "dataloss" in response.flags
        result: dict[str, Any] = {
            "url": response.url,
            "originalUrl": url,
            "status": response.status,
            "contentType": page.pop("contentType"),
            **page,
            "retrievedAt": datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z"),
            **window,
            "partial": partial,
            "redirects": fetched.hops[1:],
            "elapsedMs": int((time.monotonic() - started) * 1000),
            **TRUST,
        }
        # Adds ``text``: the bounded, fenced model text, the same field a search returns.
        finish_fetch(result, ResultLimits.from_settings(s), extraction_clipped=partial)
        return result

    # ------------------------------------------------------------------ internals
    def _checked_url(self, url: Any) -> str:
        if not isinstance(url, str) or not url.strip():
            raise fetch_error("invalid_url", "url must be a non-empty string")
        if len(url) > MAX_URL_CHARS:
            raise fetch_error("invalid_url", f"url is longer than {MAX_URL_CHARS} characters")
        try:
            request_url = Request(url.strip()).url
        except (ValueError, TypeError) as exc:
            raise fetch_error("invalid_url", f"malformed URL: {exc}") from None
        try:
            check_url(request_url, allowed_ports=self._allowed_ports(), trusted_hosts=self._mapped())
        except GuardRefusal as exc:
            raise fetch_error(exc.code, str(exc), **exc.details()) from None
        return request_url

    def _allowed_ports(self) -> frozenset[int]:
        return frozenset(int(p) for p in self.settings.getlist("LIGHT_ALLOWED_PORTS"))

    def _mapped(self) -> set[str]:
        return {h.lower().rstrip(".") for h in self.settings.getdict("LIGHT_HOST_MAP")}

    def _crawl_settings(self, robots: bool | None) -> Settings:
        s = self.settings.copy()
        deadline = s.getfloat("WEB_FETCH_DEADLINE_SECS")
        redirects = s.getint("WEB_FETCH_MAX_REDIRECTS")
        obey = s.getbool("WEB_FETCH_ROBOTSTXT_OBEY") if robots is None else bool(robots)
        s.update({
            "ROBOTSTXT_OBEY": obey,
            "LIGHT_DEADLINE_SECS": deadline,
            "LIGHT_SOFT_DEADLINE_SECS": deadline,
            # every hop may be a new origin with its own robots.txt
            "LIGHT_MAX_HOPS": 2 * (redirects + 1),
            "LIGHT_RESPONSE_MAX_BYTES": s.getint("WEB_FETCH_MAX_BYTES"),
            "DOWNLOAD_MAXSIZE": s.getint("WEB_FETCH_MAX_BYTES"),
            "REDIRECT_ENABLED": False,
            "DOWNLOAD_FAIL_ON_DATALOSS": False,  # a cut body is returned marked partial
            "ITEM_PIPELINES": {},
        }, priority="cmdline")
        return s

    async def _crawl(self, url: str, robots: bool | None) -> FetchedPage | FetchRefused:
        settings = self._crawl_settings(robots)
        deadline = settings.getfloat("WEB_FETCH_DEADLINE_SECS")
        try:
            outcome = await run_crawl(
                settings, FetchSpider, deadline, url=url,
                max_redirects=settings.getint("WEB_FETCH_MAX_REDIRECTS"),
                allowed_ports=self._allowed_ports(), trusted_hosts=self._mapped(),
                meta_refresh_max_delay=settings.getfloat("WEB_FETCH_META_REFRESH_MAX_DELAY"),
            )
        except CrawlDeadline:
            raise fetch_error("timeout", f"the page did not arrive within {deadline:g} s",
                              deadlineSecs=deadline) from None
        except CrawlCancelled:
            raise asyncio.CancelledError from None
        found = [i for i in outcome.items if isinstance(i, (FetchedPage, FetchRefused))]
        return found[-1] if found else FetchedPage(hops=[url])

    @staticmethod
    def _response_or_raise(page: FetchedPage | FetchRefused, url: str) -> Response:
        if isinstance(page, FetchRefused):
            raise fetch_error(page.code, page.message, **page.details)
        if page.failure is not None:
            raise error_for_exception(page.failure, url)
        response = page.response
        if response is None:
            raise fetch_error("network_error", "the fetch ended without a response", url=url)
        if response.status >= 300:
            raise fetch_error("http_status", f"the server answered HTTP {response.status}",
                              status=response.status, url=response.url)
        return response

    @staticmethod
    def _read(response: Response, markdown: bool) -> dict[str, Any]:
        """The body as text (see :meth:`_read_kind`), or a LightSearchError.

        The parsers behind it turn what they know of hostile input into structured
        errors; anything else they raise still ends as ``extraction_failed`` here, so
        no raw exception leaves ``fetch`` for a crafted body.
        """
        try:
            return WebFetch._read_kind(response, markdown)
        except LightSearchError as exc:
            exc.details.setdefault("url", response.url)
            raise
        except Exception as exc:  # see the docstring
            raise fetch_error("extraction_failed", f"the response could not be read ({type(exc).__name__})",
                              url=response.url) from None

    @staticmethod
    def _read_kind(response: Response, markdown: bool) -> dict[str, Any]:
        kind, ctype = content_kind(response)
        base: dict[str, Any] = {"contentType": ctype, "title": None, "byline": None,
                                "language": None, "publishedAt": None, "modifiedAt": None}
        if kind == "html":
            from lightsearch.documents.readable import extract_readable
            from lightsearch.documents.walls import detect_wall

            html = response.text if isinstance(response, TextResponse) else response.body.decode("utf-8", "replace")
            page = extract_readable(html, response.url, markdown=markdown)
            wall = detect_wall(html, page.text)
            if wall == "paywall_or_cookie_wall":
                raise fetch_error(wall, "the page shows a cookie, consent or subscription wall "
                                  "instead of its content", url=response.url)
            if wall == "javascript_required":
                raise fetch_error(wall, "the page is a JavaScript application shell with no "
                                  "readable text", url=response.url)
            if not page.text.strip():
                raise fetch_error("extraction_failed", "no readable text was found on the page",
                                  url=response.url)
            return {**base, "title": page.title, "byline": page.byline, "language": page.language,
                    "publishedAt": page.published_at, "modifiedAt": page.modified_at,
                    "format": "markdown" if markdown else "text", "text": page.text}
        if kind == "feed":
            return {**base, **summarise_feed(response.body), "format": "text"}
        if kind in ("json", "text"):
            text = response.text if isinstance(response, TextResponse) else response.body.decode("utf-8", "replace")
            if kind == "json":
                with contextlib.suppress(ValueError, RecursionError):  # deep nesting raises RecursionError
                    json.loads(text)
            if not text.strip():
                raise fetch_error("extraction_failed", "the response body is empty", url=response.url)
            return {**base, "format": kind, "text": text}
        # The header is the origin's to write (14,579 bytes of it in issue 13): quoted, capped
        # at its first word, in the message; its first 200 characters in the details.
        shown = quote_untrusted(ctype, min(40, len(ctype.split()[0]))) if ctype.strip() else "unknown"
        raise fetch_error("unsupported_content_type", f"content type {shown} is not read by web_fetch",
                          contentType=ctype[:200], url=response.url)


def content_kind(response: Response) -> tuple[str, str]:
    """(``html`` | ``feed`` | ``json`` | ``text`` | ``unsupported``, MIME type)."""
    raw = response.headers.get(b"Content-Type", b"").decode("latin-1")
    ctype = raw.split(";")[0].strip().lower()
    head = response.body[:1024].lstrip().lower()
    if ctype in ("application/rss+xml", "application/atom+xml", "application/feed+json"):
        return "feed", ctype
    if ctype in ("text/xml", "application/xml") or (not ctype and head.startswith(b"<?xml")):
        if any(tag in head for tag in (b"<rss", b"<feed", b"<rdf:rdf")):
            return "feed", ctype
        return "unsupported", ctype
    if ctype in ("text/html", "application/xhtml+xml"):
        return "html", ctype
    if ctype == "application/json" or ctype.endswith("+json"):
        return "json", ctype
    if ctype in ("text/plain", "text/markdown", "text/csv"):
        return "text", ctype
    if ctype in ("", "application/octet-stream") and head.startswith((b"<!doctype html", b"<html")):
        return "html", ctype or "text/html"
    return "unsupported", ctype


def summarise_feed(body: bytes) -> dict[str, Any]:
    """An RSS/Atom/JSON feed as a short readable list of its entries.

    Raises ``extraction_failed`` when no entry can be read; entries without a usable
    link are left out and counted in ``feedEntriesDropped``.
    """
    from lightsearch.documents.feeds import FeedError, read_feed

    try:
        feed = read_feed(body, limit=FEED_ENTRIES)
    except FeedError as exc:
        raise fetch_error("extraction_failed", f"the feed could not be read: {exc.message}") from None
    title = feed.title
    lines = [f"# {title}", ""] if title else []
    for entry in feed.entries:
        date = f" ({entry.date})" if entry.date else ""
        lines.append(f"- {entry.title or entry.link}{date}")
        lines.append(f"  {entry.link}")
        if entry.summary:
            lines.append(f"  {entry.summary}")
    if not feed.entries:
        raise fetch_error("extraction_failed", "the feed has no entries with a usable link"
                          if feed.dropped else "the feed has no entries", feedEntriesDropped=feed.dropped)
    return {"title": title, "text": "\n".join(lines), "feedEntries": len(feed.entries),
            "feedEntriesDropped": feed.dropped}


def window_text(text: str, max_chars: int, start_index: int, *, head_tail: bool = False) -> dict[str, Any]:
    """The part of ``text`` to return as ``content``, and where the next read should start.

    The window is page text as extracted (``content``, like a search hit's); the model
    text built from it is the result's ``text``. ``content`` never holds more than
    ``max_chars`` characters, the head+tail marker included. A ``start_index`` past the
    end is an empty window that says how long the text is (the MCP fetch server's
    callers page with it), not an error.
    """
    total = len(text)
    if start_index >= total:
        return {"content": "", "totalChars": total, "totalLength": total, "startIndex": start_index,
                "truncated": False, "nextStartIndex": None, **({"pastEnd": True} if start_index > total else {})}
    if head_tail and start_index == 0 and total > max_chars:
        marker = f"\n\n[... {total} characters omitted ...]\n\n"  # the widest the count can be
        room = max_chars - len(marker)
        if room >= 2:
            head = int(room * 0.8)
            tail = room - head
            omitted = total - head - tail
            body = f"{text[:head]}\n\n[... {omitted} characters omitted ...]\n\n{text[total - tail:]}"
            return {"content": body, "totalChars": total, "totalLength": total, "startIndex": 0,
                    "truncated": True, "nextStartIndex": head, "headTail": True}
        # Too small a window for a head, a marker and a tail: a plain window instead.
    end = min(total, start_index + max_chars)
    truncated = end < total
    return {"content": text[start_index:end], "totalChars": total, "totalLength": total,
            "startIndex": start_index, "truncated": truncated, "nextStartIndex": end if truncated else None}


def error_for_exception(exc: BaseException, url: str) -> LightSearchError:
    """The web_fetch error for what a hop raised, named by the crawl's one taxonomy."""
    if isinstance(exc, RobotsDenied):
        return _robots_error(exc, url)
    failure = classify(exc)
    details = failure.as_details()
    if not isinstance(exc, GuardRefusal):  # the guard's refusal names its own URL
        details["url"] = url
    return fetch_error(failure.code, failure.message, **details)


def _robots_error(exc: RobotsDenied, url: str) -> LightSearchError:
    """robots.txt said no, or could not be read, which blocks the origin (seed 000).

    When the robots.txt fetch itself failed at the transport (refused by the guard, TLS,
    DNS, a timeout), that failure is the site's real problem and is reported as such.
    """
    cause, detail, reason = exc.code, exc.detail, exc.reason
    if cause == "robots_disallowed":
        return fetch_error("robots_disallowed", "robots.txt of the site disallows this URL", url=url)
    if cause in ("blocked_address", "invalid_url"):
        return fetch_error(cause, f"robots.txt refused by the transport guard: {detail}",
                           **({"reason": reason} if reason else {}), url=url)
    if cause == "tls_error":
        return fetch_error("network_error", f"robots.txt: {detail}", reason="tls", url=url)
    if reason in BOUND_REASONS:  # over a size or head bound: incomplete, not unreachable
        return fetch_error("robots_disallowed", "robots.txt of the site could not be read completely "
                           f"({detail}), so the site is not fetched", reason=cause, bound=reason,
                           url=url)
    if reason in ("timeout", "dns_timeout"):
        return fetch_error("timeout", f"robots.txt did not arrive: {detail}", url=url)
    if reason in ("dns", "connect", "connection_lost"):
        return fetch_error("network_error", f"robots.txt could not be fetched: {detail}",
                           reason="robots_unreachable", cause=reason, url=url)
    return fetch_error("robots_disallowed", "robots.txt of the site could not be read completely "
                       f"({detail}), so the site is not fetched", reason=cause, url=url)


def format_fetch_text(result: dict[str, Any], max_bytes: int | None = None) -> str:
    """The bounded, fenced text a model reads for a web_fetch result or error.

    A success already carries it as ``text`` (rendered once, by :func:`finish_fetch`,
    so its receipt describes it); that text is returned as it is unless ``max_bytes``
    is smaller, in which case the page is rendered again within ``max_bytes``. An error
    is one line starting with ``ERROR:``.
    """
    limit = 16 * 1024 if max_bytes is None else max_bytes
    text = result.get("text") if "error" not in result else None
    if isinstance(text, str) and (max_bytes is None or utf8_len(text) <= max_bytes):
        return text
    return render_result(result, limit)

