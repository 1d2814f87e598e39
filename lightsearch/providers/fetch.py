"""web_fetch: one public URL to clean, bounded text, behind the transport guard.

``await WebFetch.from_settings(...).fetch(url, max_chars=8000, start_index=0)`` runs a
one-page crawl (:class:`lightsearch.spiders.fetch.FetchSpider`), a crawler of its own
(``crawl/run.py``) on the process's one asyncio reactor in the caller's loop, with the
same settings module as Light searches, so the
guarded download handler, robots and budget middlewares apply to every hop. Expected
failures raise :class:`~lightsearch.errors.LightSearchError` with one of the codes
docs/ERRORS.md lists; a success always carries text. Everything returned is untrusted web
content and says so (``trust``/``carryPolicy``).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.http import Response, TextResponse
from scrapy.settings import Settings

from lightsearch.config import check_door
from lightsearch.crawl.crawl_settings import CrawlSettings
from lightsearch.crawl.failures import BOUND_REASONS, classify
from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import check_url
from lightsearch.crawl.middlewares.confine import RedirectConfinementMiddleware
from lightsearch.crawl.middlewares.discovery_cache import DiscoveryCacheMiddleware
from lightsearch.crawl.middlewares.noindex import NoindexMiddleware
from lightsearch.crawl.middlewares.robotstxt import RobotsDenied
from lightsearch.crawl.run import CrawlCancelled, CrawlDeadline, run_crawl
from lightsearch.errors import LightSearchError, invalid_input, quote_untrusted
from lightsearch.evidence.envelope import finish_fetch
from lightsearch.evidence.hygiene import clean_structured, handed_out
from lightsearch.evidence.model import TRUST, ResultLimits
from lightsearch.evidence.outbound_links import LinkJudge, links_end, links_start
from lightsearch.evidence.render import clip_utf8, error_line, strip_invisible, utf8_len
from lightsearch.fleet.link import FleetLink, link_of, shared_state_notes, snapshot
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.lanes import Lane
from lightsearch.isolation.tasks import summarise_feed
from lightsearch.plan.frontier import CrawlFrontier
from lightsearch.providers.lifecycle import Provider
from lightsearch.providers.page_turns import PageTurns, pages_at_once
from lightsearch.schema import MAX_CHARS_LIMIT, validate
from lightsearch.spiders.fetch import FetchedPage, FetchRefused, FetchSpider
from lightsearch.timestamps import utc_stamp

MAX_URL_CHARS = 2048

# What a page read's crawl runs: Scrapy's own scheduler with no dupefilter (the fetch
# spider follows each redirect itself and refuses a loop), no item pipeline (the page is
# read in the call's lane here), and the transport's rules among the downloader
# middlewares (robots, encodings, budgets, decompression). A search's own components are
# left out: the frontier scheduler and its dupefilter, the discovery-document cache, the
# confinement of redirects to a catalog source's origins and the noindex rule (web_fetch
# reads the page it is asked for).
PAGE_READ_COMPONENTS = {
    "SCHEDULER": "scrapy.core.scheduler.Scheduler",
    "DUPEFILTER_CLASS": "scrapy.dupefilters.BaseDupeFilter",
    "ITEM_PIPELINES": {},
}
SEARCH_ONLY_MIDDLEWARES = tuple(f"{cls.__module__}.{cls.__qualname__}"
                                for cls in (DiscoveryCacheMiddleware, RedirectConfinementMiddleware))
SEARCH_ONLY_SPIDER_MIDDLEWARES = (f"{NoindexMiddleware.__module__}.{NoindexMiddleware.__qualname__}",)
__all__ = ["WebFetch", "summarise_feed"]  # summarise_feed: read in the worker pool now


def fetch_error(code: str, message: str, **details: Any) -> LightSearchError:
    return LightSearchError(code, message, details)


class WebFetch(Provider):
    """Read one page. Several fetches may run at once in one process."""

    crawls = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._validated = False
        self._page_crawl_settings: dict[bool | None, Settings] = {}  # by robots, for the whole deadline

    async def fetch(
        self,
        url: str,
        max_chars: int | None = None,
        start_index: int = 0,
        *,
        markdown: bool = False,
        head_tail: bool = False,
        robots: bool | None = None,
        raw: bool = False,
        names: Mapping[str, str] | None = None,
        comments: bool = False,
    ) -> dict[str, Any]:
        """The page at ``url`` as clean text from ``start_index``, at most ``max_chars``.

        ``head_tail`` returns the start and the end of a long page in one read instead
        of the first ``max_chars``. ``robots`` overrides ``WEB_FETCH_ROBOTSTXT_OBEY``
        for this fetch. ``raw`` returns the decoded body of a text type without
        extraction. ``comments`` keeps the reader comments under an article, after it (a
        discussion that is the page's content is kept either way). ``names`` spells the
        parameters in the text's read-on hint as the calling surface does. Raises
        LightSearchError with a code on every expected failure.
        """
        max_chars, start_index = self._checked_call(max_chars, start_index)
        request_url = self._checked_url(url)
        link = link_of(self.settings)
        before = snapshot(link)
        lane = self._lane()
        try:
            result = await self._fetch(url, request_url, max_chars, start_index, markdown=markdown,
                                       head_tail=head_tail, robots=robots, raw=raw, lane=lane, names=names,
                                       comments=comments)
        finally:
            lane.close()
        return with_shared_state(result, before, link)

    async def fetch_many(
        self,
        urls: list[str],
        max_chars: int | None = None,
        start_index: int = 0,
        *,
        markdown: bool = False,
        head_tail: bool = False,
        robots: bool | None = None,
        raw: bool = False,
        names: Mapping[str, str] | None = None,
        comments: bool = False,
    ) -> dict[str, Any]:
        """Several pages at once: each its own result or error.

        The pages are fetched concurrently within one deadline (``WEB_FETCH_DEADLINE_SECS``
        for the whole call) and the process's per-origin limit, so two URLs of one site
        are read one after the other. ``max_chars`` bounds each page's window; the model
        text of all of them (``text``) is one bounded text, ``RESULT_TEXT_MAX_BYTES`` in
        all, each page given an equal share it is rendered in once (so each page's receipt
        describes exactly the text returned). One page's failure costs that page.
        """
        s = self.settings
        limit = s.getint("WEB_FETCH_MAX_URLS")
        if isinstance(urls, str) or not isinstance(urls, (list, tuple)) or not urls:
            raise invalid_input("urls must be a non-empty list of URLs", parameter="urls")
        if len(urls) > limit:
            raise invalid_input(f"urls: give at most {limit} URLs to read in one call, not {len(urls)}",
                                parameter="urls", count=len(urls), limit=limit)
        max_chars, start_index = self._checked_call(max_chars, start_index)
        started = time.monotonic()
        unique = list(dict.fromkeys(urls))
        link = link_of(s)
        before = snapshot(link)
        share = page_share(len(urls), s.getint("RESULT_TEXT_MAX_BYTES"))

        # One lane for the call: its pages queue behind one another in the worker pool and
        # take at most the call's share of it, within the call's one deadline.
        lane = self._lane(started)
        # As many pages are crawled at once as the call's share of the pool can read (half
        # the workers), one of an origin at a time: a crawl is event-loop work every caller
        # shares (its start, its hops, its robots.txt and redirects), and pages past that
        # share would only have done theirs up front to wait for a worker or for their
        # origin. A page that waits for its turn here has what is left of the call's deadline.
        turns = PageTurns(pages_at_once(s))

        async def one(url: str) -> dict[str, Any]:
            try:
                async with turns.turn(url) as waited:
                    return await self._fetch(url, self._checked_url(url), max_chars, start_index,
                                             markdown=markdown, head_tail=head_tail, robots=robots, raw=raw,
                                             lane=lane, names=names, text_max_bytes=share, comments=comments,
                                             within_call=waited)
            except LightSearchError as exc:
                if isinstance(exc, asyncio.CancelledError):
                    raise
                # a result like the pages beside it: every string cleaned (details may hold a header)
                return clean_structured({"url": url if isinstance(url, str) else repr(url)[:200], **exc.to_dict()})

        tasks: list[asyncio.Task[dict[str, Any]]] = []
        try:
            for url in unique:
                tasks.append(asyncio.ensure_future(one(url)))
                # Each page's crawl starts in a turn of the event loop of its own: setting a
                # crawl up is tens of milliseconds of the loop, and the pages' crawls started
                # together held every other caller's events for all of them at once.
                await asyncio.sleep(0)
            pages = await asyncio.gather(*tasks)
        except BaseException:
            for task in tasks:  # cancelled while the crawls were starting: none is left running
                task.cancel()
            raise
        finally:
            lane.close()
        by_url = dict(zip(unique, pages, strict=True))
        results = [by_url[u] for u in urls]
        ok = sum(1 for r in results if "error" not in r)
        envelope: dict[str, Any] = {
            "results": results,
            "count": len(results),
            "fetched": ok,
            "failed": len(results) - ok,
            "elapsedMs": int((time.monotonic() - started) * 1000),
            **TRUST,
        }
        envelope["text"] = combined_text(results, share)
        return with_shared_state(envelope, before, link)

    def _checked_call(self, max_chars: Any, start_index: Any) -> tuple[int, int]:
        s = self.settings
        check_door(s)  # fetch and fetch_many both start here
        if not self._validated:
            validate(s, ("WEB_FETCH_", "RESULT_", "LIGHT_POOL_"))  # the pool reads web_fetch's pages
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
        return max_chars, start_index

    def _lane(self, started: float | None = None) -> Lane:
        """A call's lane in the worker pool, ending at the call's deadline
        (``WEB_FETCH_DEADLINE_SECS`` covers the download and the reading alike)."""
        deadline = self.settings.getfloat("WEB_FETCH_DEADLINE_SECS")

        def late(what: str) -> LightSearchError:
            return fetch_error("timeout", f"the page was not read within {deadline:g} s", deadlineSecs=deadline,
                               reason="deadline")

        return Lane(self.settings, name="fetch", deadline_at=(started or time.monotonic()) + deadline, late=late)

    async def _fetch(self, url: str, request_url: str, max_chars: int, start_index: int, *,
                     markdown: bool, head_tail: bool, robots: bool | None, raw: bool, lane: Lane,
                     names: Mapping[str, str] | None = None, text_max_bytes: int | None = None,
                     comments: bool = False, within_call: bool = False) -> dict[str, Any]:
        started = time.monotonic()
        # The download has the whole deadline of its own (the lane's began with the call,
        # moments ago); reading what arrived gets what the download left of it. A page that
        # waited for its turn in its call (``within_call``) has what is left of the call's.
        deadline = None
        if within_call and lane.deadline_at is not None:
            deadline = lane.deadline_at - started
            if deadline <= 0:
                raise lane.late("the page")
        fetched = await self._crawl(request_url, robots, lane=lane, deadline=deadline)
        response = self._response_or_raise(fetched, request_url)
        local_error: LightSearchError | None = None
        page: dict[str, Any] | None = None
        try:
            page = await self._read(response, markdown, raw, lane, comments)
        except LightSearchError as exc:
            if exc.details.get("reason") == "deadline":
                raise  # the call's own deadline: nothing is left for a reader either
            local_error = exc
        if self._reader_may_help(content_kind(response)[0], page, local_error, raw):
            page = await self._ask_reader(response.url, page, local_error, markdown, lane.deadline_at or started)
        if page is None:
            assert local_error is not None
            raise local_error
        notes = page.pop("notes", [])
        text = strip_invisible(page.pop("text"))
        # What is handed out of the page's text carries no fence look-alike and no link the
        # guard would refuse. Only the window is cleaned, on this process's loop, and a
        # window holds at most MAX_LINKS links: the work is bounded whatever the page is.
        judge = LinkJudge(self._allowed_ports(), base=response.url)
        window = window_text(text, max_chars, start_index, head_tail=head_tail,
                             clean=lambda part: handed_out(part, judge.for_page(response.url)),
                             bounds=(links_end, links_start))
        # A body cut short by the origin (connection closed before Content-Length) is
        # still evidence: it is returned and marked partial, as the bounds prescribe.
        partial = "dataloss" in response.flags or bool(page.pop("incomplete", False))
        result: dict[str, Any] = {
            "url": response.url,
            "originalUrl": url,
            "status": response.status,
            "contentType": page.pop("contentType"),
            **page,
            "retrievedAt": utc_stamp(),
            **window,
            "partial": partial,
            "redirects": fetched.hops[1:],
            "elapsedMs": int((time.monotonic() - started) * 1000),
            **({"notes": notes} if notes else {}),
            **TRUST,
        }
        # Adds ``text``: the bounded, fenced model text, the same field a search returns.
        limits = ResultLimits.from_settings(self.settings)
        if text_max_bytes is not None:  # one page of several: its share of the text
            limits = replace(limits, text_max_bytes=text_max_bytes)
        finish_fetch(result, limits, extraction_clipped=partial, names=names)
        return result

    # ------------------------------------------------------------------ the reader fallback
    def _reader_may_help(self, kind: str, page: dict[str, Any] | None, error: LightSearchError | None,
                         raw: bool) -> bool:
        """Only an HTML page whose local extraction found (almost) nothing is sent to the
        reader: never a raw read, a PDF, a feed, or a page the site refused (a reader
        must not become a way around robots.txt, a wall or an HTTP error)."""
        if raw or kind != "html" or not self.settings.get("WEB_FETCH_READER_URL"):
            return False
        if error is not None:
            return error.code in ("extraction_failed", "javascript_required")
        assert page is not None
        return len(page["text"].strip()) < self.settings.getint("WEB_FETCH_READER_MIN_CHARS")

    async def _ask_reader(self, url: str, page: dict[str, Any] | None, error: LightSearchError | None,
                          markdown: bool, deadline_at: float) -> dict[str, Any] | None:
        """The reader's text for ``url`` when it has more than the local extraction;
        otherwise the local result, with a note of why the reader did not help."""
        endpoint = str(self.settings.get("WEB_FETCH_READER_URL"))
        reader_host = urlsplit(endpoint).hostname or "?"
        remaining = deadline_at - time.monotonic()
        why: str | None = None
        reader_page: dict[str, Any] | None = None
        if remaining < 0.5:
            why = "no time was left for the reader"
        else:
            try:
                reader_url = self._checked_url(endpoint + url)
                fetched = await self._crawl(reader_url, False, deadline=remaining)
                response = self._response_or_raise(fetched, reader_url)
                reader_page = read_reader_answer(response, url)
            except LightSearchError as exc:
                if isinstance(exc, asyncio.CancelledError):
                    raise
                why = f"the reader failed ({exc.code})"
        local_chars = len(page["text"].strip()) if page else 0
        if reader_page is not None and len(reader_page["text"].strip()) > local_chars:
            note = f"local extraction was thin; text from the reader service {reader_host}"
            reader_page["notes"] = [note]
            if page:  # what the page itself declares beats what the reader guessed
                for key in ("title", "language", "publishedAt", "modifiedAt", "byline"):
                    if page.get(key):
                        reader_page[key] = page[key]
            return reader_page
        why = why or "the reader found no more text"
        if page is not None:
            page.setdefault("notes", []).append(f"local extraction was thin; {why}")
            return page
        assert error is not None
        error.details["reader"] = why
        return None
    # ------------------------------------------------------------------ internals
    def _checked_url(self, url: Any) -> str:
        """The URL as it will be requested, or ``invalid_url`` in our own words (never a
        library's message quoting the URL back)."""
        if not isinstance(url, str) or not url.strip():
            raise fetch_error("invalid_url", "url must be a non-empty string", parameter="url")
        if len(url) > MAX_URL_CHARS:
            raise fetch_error("invalid_url", f"url is longer than {MAX_URL_CHARS} characters", parameter="url")
        text = url.strip()
        try:
            scheme = urlsplit(text).scheme.lower()
        except ValueError:
            scheme = None
        if scheme == "":
            raise fetch_error("invalid_url", "url must be a whole http(s) URL such as https://example.org/page "
                              "(it has no scheme)", parameter="url", reason="scheme")
        if scheme is not None and scheme not in ("http", "https"):
            raise fetch_error("invalid_url", f"url must be an http or https URL, not {quote_untrusted(scheme)}",
                              parameter="url", reason="scheme")
        try:
            request_url = Request(text).url
        except (ValueError, TypeError):
            raise fetch_error("invalid_url", "url is not a well-formed http(s) URL", parameter="url",
                              reason="malformed") from None
        try:
            check_url(request_url, allowed_ports=self._allowed_ports(), trusted_hosts=self._mapped())
        except GuardRefusal as exc:
            raise fetch_error(exc.code, str(exc), **exc.details()) from None
        return request_url

    def _allowed_ports(self) -> frozenset[int]:
        return frozenset(int(p) for p in self.settings.getlist("LIGHT_ALLOWED_PORTS"))

    def _mapped(self) -> set[str]:
        return {h.lower().rstrip(".") for h in self.settings.getdict("LIGHT_HOST_MAP")}

    def _crawl_settings(self, robots: bool | None, deadline: float | None = None) -> Settings:
        """The settings of one page's crawl. Scrapy's ``Crawler`` works on a copy of what it
        is given, so the settings of a crawl with the call's whole deadline (nearly every
        crawl) are built once for each ``robots`` and given to each crawl as they are. They
        are :class:`CrawlSettings`, which the crawl copies value by value, not by deepcopy."""
        whole = deadline is None
        if whole and robots in self._page_crawl_settings:
            return self._page_crawl_settings[robots]
        s = CrawlSettings.of(self.settings)
        deadline = s.getfloat("WEB_FETCH_DEADLINE_SECS") if whole else deadline
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
            "WEB_FETCH_DEADLINE_SECS": deadline,
            **PAGE_READ_COMPONENTS,
            "DOWNLOADER_MIDDLEWARES": {**s.getdict("DOWNLOADER_MIDDLEWARES"),
                                       **dict.fromkeys(SEARCH_ONLY_MIDDLEWARES)},
            "SPIDER_MIDDLEWARES": {**s.getdict("SPIDER_MIDDLEWARES"), **dict.fromkeys(SEARCH_ONLY_SPIDER_MIDDLEWARES)},
        }, priority="cmdline")
        if whole:
            self._page_crawl_settings[robots] = s
        return s

    async def _crawl(self, url: str, robots: bool | None, *, deadline: float | None = None,
                     lane: Lane | None = None) -> FetchedPage | FetchRefused:
        """The crawl of ``url``; its robots.txt is read in the call's ``lane``."""
        settings = self._crawl_settings(robots, deadline)
        deadline = settings.getfloat("WEB_FETCH_DEADLINE_SECS")
        ended: str | None = None
        try:
            outcome = await run_crawl(
                settings, FetchSpider, deadline, frontier=CrawlFrontier(lane=lane) if lane is not None else None,
                url=url,
                max_redirects=settings.getint("WEB_FETCH_MAX_REDIRECTS"),
                allowed_ports=self._allowed_ports(), trusted_hosts=self._mapped(),
                meta_refresh_max_delay=settings.getfloat("WEB_FETCH_META_REFRESH_MAX_DELAY"),
            )
        except CrawlDeadline:
            ended = "deadline"
        except CrawlCancelled:
            ended = "cancelled"
        # Raised outside the handlers: an error raised inside one keeps the crawl's exception
        # as its context, and with it the outcome's response, request, spider and crawler.
        if ended == "deadline":
            raise fetch_error("timeout", f"the page did not arrive within {deadline:g} s", deadlineSecs=deadline)
        if ended == "cancelled":
            raise asyncio.CancelledError
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

    async def _read(self, response: Response, markdown: bool, raw: bool, lane: Lane,
                    comments: bool = False) -> dict[str, Any]:
        """The body as text, or a LightSearchError.

        HTML, PDF and feeds are read in the worker pool, in the call's lane
        (lightsearch/isolation: a time and a memory limit per document, and the call's
        deadline). The parsers behind it turn what they know of hostile input into
        structured errors; anything else they raise still ends as ``extraction_failed``,
        so no raw exception leaves ``fetch`` for a crafted body.
        """
        try:
            kind, ctype = content_kind(response)
            base: dict[str, Any] = {"contentType": ctype, "title": None, "byline": None,
                                    "language": None, "publishedAt": None, "modifiedAt": None}
            if not raw and kind in ("html", "pdf", "feed"):
                content: str | bytes = response.body
                if kind == "html":
                    content = response.text if isinstance(response, TextResponse) \
                        else response.body.decode("utf-8", "replace")
                fields = await lane.run(isolated.read_body, kind, response.url, content, markdown,
                                        self.settings.getint("WEB_FETCH_PDF_MAX_PAGES"), lane.deadline_at, comments,
                                        what=f"the page {response.url}")
                return {**base, **fields}
            return self._read_kind(response, kind, ctype, base, raw)
        except LightSearchError as exc:
            exc.details.setdefault("url", response.url)
            raise
        except Exception as exc:  # see the docstring
            raise fetch_error("extraction_failed", f"the response could not be read ({type(exc).__name__})",
                              url=response.url) from None

    def _read_kind(self, response: Response, kind: str, ctype: str, base: dict[str, Any],
                   raw: bool) -> dict[str, Any]:
        """What is read in this process: a raw body, JSON and plain text, decoded and
        returned as text, never parsed."""
        if raw:
            return read_raw(response, kind, ctype, base)
        if kind in ("json", "text"):
            text = response.text if isinstance(response, TextResponse) else response.body.decode("utf-8", "replace")
            if not text.strip():
                raise fetch_error("extraction_failed", "the response body is empty", url=response.url)
            return {**base, "format": kind, "text": text}
        # The header is the origin's to write, of any length: quoted, capped at its first
        # word, in the message; its first 200 characters in the details.
        shown = quote_untrusted(ctype) if ctype.strip() else "unknown"
        raise fetch_error("unsupported_content_type", f"content type {shown} is not read by web_fetch",
                          contentType=ctype[:200], url=response.url)


PDF_TYPES = ("application/pdf", "application/x-pdf", "application/acrobat")


def content_kind(response: Response) -> tuple[str, str]:
    """(``html`` | ``feed`` | ``json`` | ``text`` | ``pdf`` | ``unsupported``, MIME type).

    A PDF is taken by its type, or by its ``%PDF-`` signature when the type says nothing
    (none, ``application/octet-stream``, or ``binary/octet-stream`` as some storage
    buckets serve a ``.pdf`` URL)."""
    from lightsearch.documents.pdf import is_pdf

    raw = response.headers.get(b"Content-Type", b"").decode("latin-1")
    ctype = raw.split(";")[0].strip().lower()
    head = response.body[:1024].lstrip().lower()
    if ctype in PDF_TYPES or (ctype in ("", "application/octet-stream", "binary/octet-stream")
                              and is_pdf(response.body)):
        return "pdf", ctype or "application/pdf"
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


def read_raw(response: Response, kind: str, ctype: str, base: dict[str, Any]) -> dict[str, Any]:
    """``raw``: the decoded body of a text type as it is (the MCP fetch server's ``raw``);
    a PDF or an unknown type is not text and is refused, not decoded into noise."""
    if kind in ("unsupported", "pdf"):
        shown = quote_untrusted(ctype) if ctype.strip() else "unknown"
        raise fetch_error("unsupported_content_type", f"content type {shown} is not a text type; "
                          "read it without raw", contentType=ctype[:200], url=response.url)
    text = response.text if isinstance(response, TextResponse) else response.body.decode("utf-8", "replace")
    if not text.strip():
        raise fetch_error("extraction_failed", "the response body is empty", url=response.url)
    return {**base, "format": "raw", "text": text}


_READER_FIELD = re.compile(r"^(Title|URL Source|Published Time|Markdown Content):[ \t]*(.*)$", re.MULTILINE)


def read_reader_answer(response: Response, url: str) -> dict[str, Any]:
    """A hosted reader's answer as a page: plain text or Markdown, optionally in the
    ``Title: / URL Source: / Markdown Content:`` layout r.jina.ai uses (its header lines
    become metadata, not text). Anything that is not text is refused."""
    kind, ctype = content_kind(response)
    if kind not in ("text", "html", "json"):
        raise fetch_error("unsupported_content_type", "the reader did not answer with text",
                          contentType=ctype[:200])
    text = response.text if isinstance(response, TextResponse) else response.body.decode("utf-8", "replace")
    title = published = None
    fields = {m.group(1): m for m in _READER_FIELD.finditer(text[:4096])}
    if "Markdown Content" in fields:
        title = fields["Title"].group(2).strip()[:300] or None if "Title" in fields else None
        published = fields["Published Time"].group(2).strip()[:40] or None if "Published Time" in fields else None
        text = text[fields["Markdown Content"].end():]
    text = text.strip()
    if not text:
        raise fetch_error("extraction_failed", "the reader's answer is empty")
    return {"contentType": "text/html", "title": title, "byline": None, "language": None,
            "publishedAt": published if published and _ISO_DAY.match(published) else None,
            "modifiedAt": None, "format": "markdown", "text": text, "extractedBy": "reader"}


_ISO_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}")


_SEPARATOR = "\n\n"


def _header(n: int) -> str:
    return f"web_fetch read {n} URLs"


def page_share(n: int, max_bytes: int) -> int:
    """The bytes of model text each of ``n`` pages read together is rendered in: an equal
    share of ``max_bytes`` after the header, the separators and each page's label."""
    n = max(1, n)
    return max(0, (max_bytes - utf8_len(_header(n)) - len(_SEPARATOR) * n) // n - len(f"[{n}/{n}] "))


def combined_text(results: list[dict[str, Any]], share: int) -> str:
    """The model text of several fetches: each page's own fenced text as it was rendered,
    in its ``share`` (:func:`page_share`), in the caller's order; an error is its one line."""
    n = max(1, len(results))
    parts = [_header(n)]
    for index, result in enumerate(results, 1):
        label = f"[{index}/{n}] "
        if "error" in result:
            line = f"{quote_untrusted(result.get('url'), 200)} {error_line(result['error'])}"
            parts.append(label + clip_utf8(line, share))
        elif isinstance(result.get("text"), str):
            parts.append(label + result["text"])
    return _SEPARATOR.join(parts)


#: Rounds of shortening a window whose cleaning made it longer than ``maxChars``.
_WINDOW_ROUNDS = 8


def window_text(text: str, max_chars: int, start_index: int, *, head_tail: bool = False,
                clean: Callable[[str], str] | None = None,
                bounds: tuple[Callable[[str, int, int], int], Callable[[str, int, int], int]] | None = None,
                ) -> dict[str, Any]:
    """The part of ``text`` to return as ``content``, and where the next read should start.

    The window is page text as extracted (``content``, like a search hit's); the model
    text built from it is the result's ``text``. ``content`` never holds more than
    ``max_chars`` characters, the head+tail marker included. A ``start_index`` past the
    end is an empty window that says how long the text is (the MCP fetch server's
    callers page with it), not an error. Offsets are into ``text``; ``clean`` (web_fetch:
    :func:`~lightsearch.evidence.hygiene.handed_out`) is applied to what is returned, and
    a window it would make longer than ``max_chars`` ends earlier instead. ``bounds``
    (where a part must end, where a tail must start: web_fetch's
    :func:`~lightsearch.evidence.outbound_links.links_end` and ``links_start``) may end a window
    before ``max_chars``, to bound the cleaning's work; the reader pages on from there.
    """
    clean = clean or _as_is
    end_at, start_at = bounds or (_whole_end, _whole_start)
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
            head = end_at(text, 0, head)
            tail = total - start_at(text, total - tail, total)
            head_text, tail_text = clean(text[:head]), clean(text[total - tail:])
            for _ in range(_WINDOW_ROUNDS):
                if len(head_text) + len(tail_text) <= room or head == 0:
                    break
                head = max(0, head - (len(head_text) + len(tail_text) - room))
                head_text = clean(text[:head])
            head_text = head_text[:room]
            tail_text = tail_text[max(0, len(head_text) + len(tail_text) - room):]
            omitted = total - head - tail
            body = f"{head_text}\n\n[... {omitted} characters omitted ...]\n\n{tail_text}"
            return {"content": body, "totalChars": total, "totalLength": total, "startIndex": 0,
                    "truncated": True, "nextStartIndex": head, "headTail": True}
        # Too small a window for a head, a marker and a tail: a plain window instead.
    end = end_at(text, start_index, min(total, start_index + max_chars))
    content = clean(text[start_index:end])
    for _ in range(_WINDOW_ROUNDS):
        if len(content) <= max_chars:
            break
        end = max(start_index + 1, end - (len(content) - max_chars))
        content = clean(text[start_index:end])
    content = content[:max_chars]
    truncated = end < total
    return {"content": content, "totalChars": total, "totalLength": total,
            "startIndex": start_index, "truncated": truncated, "nextStartIndex": end if truncated else None}


def _as_is(text: str) -> str:
    return text


def _whole_end(text: str, start: int, end: int) -> int:
    return end


def _whole_start(text: str, start: int, end: int) -> int:
    return start


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
    """robots.txt said no, or could not be read, which blocks the origin.

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


def with_shared_state(result: dict[str, Any], before: tuple[int, int], link: FleetLink | None) -> dict[str, Any]:
    """A fleet worker says whether its shared state answered (``meta.sharedState``), and
    notes a call served by in-process state because Redis did not."""
    if link is None:
        return result
    notes = shared_state_notes(before, link)
    if notes:
        result.setdefault("notes", []).extend(notes)
    result.setdefault("meta", {})["sharedState"] = link.status()
    return result
