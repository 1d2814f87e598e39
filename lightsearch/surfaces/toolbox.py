"""The front door: every surface reaches the three tools through one :class:`Toolbox`.

The ``scrapy`` and ``lightsearch`` commands, the MCP server, the invoke endpoint, the
synchronous :class:`~lightsearch.surfaces.client.Client` and an app's own agent loop all
come in here, the way httpx's functions and command line all go through its ``Client``.
A toolbox builds its settings once, loads each provider once from them, checks a call's
arguments once (against the tool's schema, :func:`~lightsearch.surfaces.tools.check_arguments`),
and hands back the provider's envelope, whose ``text`` the renderer wrote. A surface only
formats what comes back; it never rewrites it. A surface that spells the parameters its own
way (the command line's ``--max-results``) says so with ``names``, and the renderer writes
the read-on hint of a page in those words.

::

    Toolbox(overrides, offline=...)          settings built once (lightsearch.config)
    ├── search(query | queries, ...)  ─┐
    ├── news(query, when, ...)         ├─ check_arguments ─ provider ─ envelope (+ text)
    ├── fetch(url | urls, ...)         │
    └── call(name, arguments, client) ─┘   (+ per client: the rate limit, the pool's and transfers' turns)
"""

from __future__ import annotations

import asyncio
import contextlib
import difflib
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from lightsearch.clients import calls_for
from lightsearch.config import check_retrieval, make_settings, read_at_door
from lightsearch.errors import LightSearchError, SearchCancelled, quote_untrusted
from lightsearch.schema import validate
from lightsearch.serving.call_limits import CallsInFlight, RateLimiter
from lightsearch.surfaces.repair import Repair, repair_with
from lightsearch.surfaces.tools import (
    INVOKE_NAMES,
    SURFACE_PREFIXES,
    TOOL_NAMES,
    Tool,
    ToolConfig,
    check_arguments,
    check_format,
    tool_specs,
)

PROGRESS_AFTER_SECS = 1.0
LOCAL_CLIENT = "local"  # the rate limits' name for the process's own caller
ProgressFn = Callable[[float, str], Awaitable[None]]


def error_result(exc: LightSearchError, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A tool failure as every surface returns it: the structured error (its strings cleaned
    as every result's are: details may hold a header or a host) plus the one line a model
    reads (the renderer's: ASCII, capped, no fence look-alike), the parameter named as the
    surface spells it."""
    from lightsearch.evidence.hygiene import clean_structured
    from lightsearch.evidence.render import error_line

    error = clean_structured(exc.to_dict(names))
    return {**error, "text": error_line(error["error"])}


class Toolbox:
    """The tools of one deployment: configuration resolved once, providers loaded once.

    ``overrides`` are engine settings already merged (defaults < environment < command
    line, :func:`lightsearch.surfaces.environment.resolve`). ``offline=True`` serves the
    bundled offline origins on loopback for the toolbox's life (tests, demos, ``--offline``).
    All calls must run on one event loop (the engines' reactor belongs to it).
    """

    def __init__(self, overrides: Mapping[str, Any] | None = None, *, offline: bool = False) -> None:
        self.overrides = dict(overrides or {})
        self._origins = None
        if offline:
            from lightsearch.offline_origins.server import OfflineOrigins

            self._origins = OfflineOrigins().start()
            self.overrides.update(self._origins.settings())
            # --offline means the offline origins whatever keys the environment holds.
            self.overrides["WEB_SEARCH_PROVIDER"] = "light"
        try:
            self.settings = make_settings(self.overrides)
            validate(self.settings, SURFACE_PREFIXES)
        except LightSearchError:
            self._stop_origins()
            raise
        self.config = ToolConfig.from_settings(self.settings)
        self.limiter = RateLimiter({"search": self.settings.getint("WEB_TOOLS_SEARCHES_PER_MINUTE"),
                                    "fetch": self.settings.getint("WEB_TOOLS_FETCHES_PER_MINUTE")})
        self.in_flight = CallsInFlight(self.settings.getint("WEB_TOOLS_CALLS_IN_FLIGHT"))
        self._tools = {t.name: t for t in tool_specs(self.config)}
        self._providers: dict[str | None, Any] = {}
        self._fetch: Any = None
        self._news: Any = None

    @classmethod
    def from_environ(cls, cmdline: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None,
                     *, offline: bool = False) -> Toolbox:
        from lightsearch.surfaces.environment import resolve

        return cls(resolve(cmdline, environ), offline=offline)

    # ------------------------------------------------------------------ definitions
    @property
    def enabled(self) -> bool:
        return self.config.enabled

    def tools(self) -> list[Tool]:
        return list(self._tools.values())

    def definitions(self, format: str = "mcp") -> list[dict[str, Any]]:
        return [t.render(format) for t in self.tools()]

    def tool(self, name: Any) -> Tool:
        """The tool called ``name`` (or its invoke name, ``web.search``); ``disabled`` when
        the kill switch is off, ``unknown_tool`` with the closest name otherwise. This is
        the tool surfaces' door: a call that passed it runs :func:`read_at_door`, so the
        switch is read once for the call here (and again by the crawl runner's guard)."""
        canonical = INVOKE_NAMES.get(name, name) if isinstance(name, str) else name
        if canonical in TOOL_NAMES:
            try:
                check_retrieval(self.settings)
            except LightSearchError as exc:
                exc.details["tool"] = canonical
                raise
        if canonical not in self._tools:
            known = list(self._tools)
            hint = difflib.get_close_matches(str(canonical), known, n=1)
            raise LightSearchError(
                "unknown_tool", f"unknown tool {quote_untrusted(name)}"
                + (f" (did you mean {hint[0]}?)" if hint else ""), {"tool": quote_untrusted(name), "known": known})
        return self._tools[canonical]

    # ------------------------------------------------------------------ the three tools
    async def search(self, query: str | None = None, *, queries: Sequence[str] | None = None,
                     max_results: int | None = None, recency: str | None = None,
                     provider: str | None = None, include_domains: Sequence[str] | None = None,
                     exclude_domains: Sequence[str] | None = None, region: str | None = None,
                     after: str | None = None, before: str | None = None) -> dict[str, Any]:
        """web_search: one ``query``, and ``queries`` (or ``queries`` alone) searched together
        and fused; ``include_domains``/``exclude_domains``, ``region``, ``after``/``before``
        filter it (lightsearch/filters.py)."""
        if queries is not None and len(queries) == 1 and query is None:
            query, queries = queries[0], None  # one query is the tool's query
        args = _given(query=query, queries=list(queries) if queries is not None else None,
                      maxResults=max_results, recency=recency, provider=provider,
                      **_filter_arguments(include_domains, exclude_domains, region, after, before))
        tool = self.tool("web_search")
        with read_at_door():
            return await self._web_search(check_arguments(tool, args))

    async def news(self, query: str, *, when: str | None = None, max_results: int | None = None,
                   include_domains: Sequence[str] | None = None, exclude_domains: Sequence[str] | None = None,
                   region: str | None = None, after: str | None = None,
                   before: str | None = None) -> dict[str, Any]:
        """web_news: recent news, newest first within relevance; ``when`` defaults to
        ``WEB_NEWS_WHEN`` (unless ``after``/``before`` give the window); filtered as
        :meth:`search` is."""
        args = _given(query=query, when=when, maxResults=max_results,
                      **_filter_arguments(include_domains, exclude_domains, region, after, before))
        tool = self.tool("web_news")
        with read_at_door():
            return await self._web_news(check_arguments(tool, args))

    async def fetch(self, url: str | Sequence[str], *, max_chars: int | None = None, start_index: int | None = None,
                    raw: bool | None = None, markdown: bool = False, head_tail: bool = False,
                    robots: bool | None = None, names: Mapping[str, str] | None = None,
                    include_comments: bool | None = None) -> dict[str, Any]:
        """web_fetch: one page, or a list of pages read together. ``markdown``, ``head_tail``
        and ``robots`` are the reader's options beyond the tool's arguments; ``names`` spells
        the parameters in the read-on hint of the text (the command line's flags)."""
        many = not isinstance(url, str)
        args = _given(url=None if many else url, urls=list(url) if many else None, maxChars=max_chars,
                      startIndex=start_index, raw=raw, includeComments=include_comments)
        checked = check_arguments(self.tool("web_fetch"), args)
        with read_at_door():
            return await self._web_fetch(checked, markdown=markdown, head_tail=head_tail, robots=robots,
                                         names=names)

    async def call(self, name: str, arguments: Any = None, *, client: str | None = None,
                   on_progress: ProgressFn | None = None) -> dict[str, Any]:
        """One tool call as a model makes it (JSON arguments); raises LightSearchError on
        every expected failure.

        ``client`` is who calls, as the served surfaces name their clients
        (``request_checks.client_of``): the rate limits count per client, at most
        ``WEB_TOOLS_CALLS_IN_FLIGHT`` of a client's calls run at once, divided among the
        clients present (the others wait their turn: ``serving/call_limits.py``), and the
        call takes its turns in the worker pool and for transfers as one of that client's
        calls (lightsearch/clients.py). None: the process's own caller
        (counted as ``local`` by the rate limits), whose calls start at once and take their
        turns each as a call of its own."""
        tool = self.tool(name)
        args = check_arguments(tool, arguments)
        self.limiter.check(client or LOCAL_CLIENT, "fetch" if tool.name == "web_fetch" else "search")
        with read_at_door():
            run = self._run_as(client, getattr(self, f"_{tool.name}"), args)
            if on_progress is None:
                return await run
            return await with_progress(run, on_progress, tool.name)

    async def _run_as(self, client: str | None, run: Callable[[dict[str, Any]], Awaitable[dict[str, Any]]],
                      args: dict[str, Any]) -> dict[str, Any]:
        """``run(args)`` as a call of ``client``, once it is that client's turn."""
        if client is None:
            return await run(args)
        async with self.in_flight.turn(client):
            with calls_for(client):  # the tasks the call starts inherit it
                return await run(args)

    async def invoke(self, name: str, arguments: Any = None, *, client: str | None = None,
                     on_progress: ProgressFn | None = None) -> dict[str, Any]:
        """Like :meth:`call`, but a tool failure is returned as :func:`error_result`."""
        try:
            return await self.call(name, arguments, client=client, on_progress=on_progress)
        except SearchCancelled:
            raise
        except LightSearchError as exc:
            return error_result(exc)

    # ------------------------------------------------------------------ checked calls
    async def _web_search(self, args: dict[str, Any]) -> dict[str, Any]:
        queries = args["queries"] if "queries" in args else [args["query"]]
        provider = self._provider(args.get("provider"))
        filters = _filters_of(args)
        _check_takes(provider, filters)
        return await provider.search(queries=queries, max_results=args["maxResults"], recency=args.get("recency"),
                                     **filters)

    async def _web_news(self, args: dict[str, Any]) -> dict[str, Any]:
        if self._news is None:
            from lightsearch.providers.news import NewsSearch

            self._news = NewsSearch(self.settings)
        return await self._news.news(args["query"], when=args.get("when"), max_results=args["maxResults"],
                                     **_filters_of(args))

    async def _web_fetch(self, args: dict[str, Any], *, markdown: bool = False, head_tail: bool = False,
                         robots: bool | None = None, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        if self._fetch is None:
            from lightsearch.providers.fetch import WebFetch

            self._fetch = WebFetch(self.settings)
        options: dict[str, Any] = {"max_chars": args["maxChars"], "start_index": args["startIndex"],
                                   "raw": bool(args.get("raw")), "markdown": markdown, "head_tail": head_tail,
                                   "robots": robots, "comments": bool(args.get("includeComments"))}
        if names:
            options["names"] = names
        if "urls" in args:
            return await self._fetch.fetch_many(args["urls"], **options)
        return await self._fetch.fetch(args["url"], **options)

    # ------------------------------------------------------------------ providers, loaded once each
    def _provider(self, name: str | None) -> Any:
        if name not in self._providers:
            from lightsearch.providers import load_provider

            settings = self.settings
            if name is not None:  # a per-call provider the configuration allows
                settings = settings.copy()
                settings.set("WEB_SEARCH_PROVIDER", name, priority="cmdline")
            self._providers[name] = load_provider(settings)
        return self._providers[name]

    async def aclose(self) -> None:
        if self._fetch is not None:
            await self._fetch.aclose()
        for provider in self._providers.values():
            close = getattr(provider, "aclose", None)
            if close is not None:
                await close()
        self._stop_origins()

    def _stop_origins(self) -> None:
        if self._origins is not None:
            self._origins.stop()
            self._origins = None

    async def __aenter__(self) -> Toolbox:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# --------------------------------------------------------------------------- module API
_default_toolbox: Toolbox | None = None


def default_toolbox() -> Toolbox:
    """The process's toolbox from the environment, built on first use."""
    global _default_toolbox
    if _default_toolbox is None:
        _default_toolbox = Toolbox.from_environ()
    return _default_toolbox


def definitions(format: str = "mcp", *, toolbox: Toolbox | None = None) -> list[dict[str, Any]]:
    """The tool list in ``openai``, ``openai-strict``, ``anthropic`` or ``mcp`` form (empty
    when disabled)."""
    check_format(format)
    return (toolbox or default_toolbox()).definitions(format)


async def dispatch(name: str, arguments: Any = None, *, toolbox: Toolbox | None = None) -> dict[str, Any]:
    """Run one tool call as the MCP tool would: the envelope, or ``{"error", "text"}``."""
    return await (toolbox or default_toolbox()).invoke(name, arguments)


def repair(text: str, *, toolbox: Toolbox | None = None) -> Repair:
    """Malformed textual calls of the three tools in ``text``, as validated calls (or a
    clear "not a call"), and the text without them (:mod:`lightsearch.surfaces.repair`)."""
    box = toolbox or default_toolbox()

    def check(name: str, args: Any) -> dict[str, Any]:
        return check_arguments(box.tool(name), args)

    return repair_with(text, check)


class DeferredToolbox:
    """A toolbox built on its first call. Its definitions come from the configuration alone
    (:func:`~lightsearch.surfaces.tools.definitions_for`), so an MCP client's ``initialize``
    and ``tools/list`` are answered before anything of the crawler is imported; a bad
    setting still fails at once, when the definitions are first read."""

    def __init__(self, cmdline: Mapping[str, Any] | None = None, *, offline: bool = False,
                 environ: Mapping[str, str] | None = None) -> None:
        from lightsearch.surfaces.tools import definitions_for

        self.cmdline = dict(cmdline or {})
        self.environ = environ
        self.offline = offline
        self._box: Toolbox | None = None
        self._definitions = {"mcp": definitions_for("mcp", self.cmdline, environ)}

    def definitions(self, format: str = "mcp") -> list[dict[str, Any]]:
        if self._box is not None:
            return self._box.definitions(format)
        if format not in self._definitions:
            from lightsearch.surfaces.tools import definitions_for

            self._definitions[format] = definitions_for(format, self.cmdline, self.environ)
        return self._definitions[format]

    def toolbox(self) -> Toolbox:
        if self._box is None:
            self._box = Toolbox.from_environ(self.cmdline, self.environ, offline=self.offline)
        return self._box

    async def invoke(self, name: str, arguments: Any = None, *, client: str | None = None,
                     on_progress: ProgressFn | None = None) -> dict[str, Any]:
        try:
            box = self.toolbox()
        except LightSearchError as exc:
            return error_result(exc)
        return await box.invoke(name, arguments, client=client, on_progress=on_progress)

    async def aclose(self) -> None:
        if self._box is not None:
            await self._box.aclose()


def _given(**arguments: Any) -> dict[str, Any]:
    """A call's arguments in the tool's names, those the caller left out left out."""
    return {key: value for key, value in arguments.items() if value is not None}


# the filter parameters: the tools' names, and the providers' keyword arguments
FILTER_KEYWORDS = {"includeDomains": "include_domains", "excludeDomains": "exclude_domains", "region": "region",
                   "after": "after", "before": "before"}


def _filter_arguments(include_domains: Any, exclude_domains: Any, region: Any, after: Any,
                      before: Any) -> dict[str, Any]:
    """The Python API's filter arguments in the tools' names (a list given as a tuple, a
    day as a ``date``, as the schema takes them)."""
    def listed(value: Any) -> Any:
        return list(value) if isinstance(value, (list, tuple)) else value

    def day(value: Any) -> Any:
        from datetime import date, datetime

        if isinstance(value, datetime):
            value = value.date()
        return value.isoformat() if isinstance(value, date) else value

    return {"includeDomains": listed(include_domains), "excludeDomains": listed(exclude_domains),
            "region": region, "after": day(after), "before": day(before)}


def _check_takes(provider: Any, filters: Mapping[str, Any]) -> None:
    """A provider of one's own (a class path) that does not take a filter the call gives
    is an error naming it, never a filter silently left out."""
    if not filters:
        return
    import inspect

    params = inspect.signature(provider.search).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return
    names = {v: k for k, v in FILTER_KEYWORDS.items()}
    for keyword in filters:
        if keyword not in params:
            name = names[keyword]
            raise LightSearchError("invalid_input", f"{name}: the search provider "
                                   f"{quote_untrusted(str(getattr(provider, 'provider', '?')))} does not take it",
                                   {"parameter": name})


def _filters_of(args: Mapping[str, Any]) -> dict[str, Any]:
    """A checked call's filters as a provider's keyword arguments, only those given (a
    provider of one's own that takes none still serves calls that give none)."""
    return {FILTER_KEYWORDS[k]: v for k, v in args.items() if k in FILTER_KEYWORDS}


async def with_progress(run: Awaitable[dict[str, Any]], on_progress: ProgressFn, name: str) -> dict[str, Any]:
    """Await ``run``; after the first second, report progress once a second."""
    task = asyncio.ensure_future(run)
    started = time.monotonic()
    try:
        while True:
            done, _ = await asyncio.wait({task}, timeout=PROGRESS_AFTER_SECS)
            if done:
                return task.result()
            elapsed = time.monotonic() - started
            with contextlib.suppress(Exception):  # a client that went away must not fail the call
                await on_progress(elapsed, f"{name}: {elapsed:.0f} s")
    finally:
        if not task.done():
            task.cancel()
