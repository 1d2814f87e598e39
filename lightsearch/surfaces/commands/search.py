"""``scrapy search "query"``: one search from the command line (Light, Brave with a key, or
the engines: ``--provider auto|fallback|duckduckgo|...``; the table lists each hit's engines).

``--offline`` starts the offline origins in-process and maps the catalog's hosts to
them, so a new user sees the whole pipeline work on a machine with no network.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import textwrap
import time
from collections import Counter
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError
from lightsearch.evidence.receipts import PRESENTATION
from lightsearch.evidence.render import clean_untrusted
from lightsearch.isolation.lanes import warm_pool
from lightsearch.plan.request import RECENCY_WINDOWS
from lightsearch.surfaces.commands import engine_overrides, for_command_line, offline_world

WHEN = ("1h", "12h", "1d", "7d", "30d", "1y")
WHEN_RECENCY = {"1h": "hour", "12h": "day", "1d": "day", "7d": "week", "30d": "month", "1y": "year"}


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "ERROR"}

    def syntax(self) -> str:
        return "[options] <query> [<query> ...]"

    def short_desc(self) -> str:
        return "Search the web (Light, keyless; Brave with a key) and print ranked, cited hits"

    def long_desc(self) -> str:
        return (
            "Run one bounded Light search over the bundled catalog. Several quoted queries "
            "are searched together (up to 5) and their rankings fused."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--max-results", type=int, default=8, metavar="N",
                            help="hits to return, 1-20 (default: 8)")
        parser.add_argument("--recency", default=None, metavar="WINDOW",
                            help=f"prefer recent sources: {', '.join(RECENCY_WINDOWS)}")
        parser.add_argument("-o", "--output", choices=("table", "json", "text"), default="table",
                            help="output format: a table for people, the JSON result, or the "
                                 "bounded text a model reads (default: table)")
        parser.add_argument("--offline", action="store_true",
                            help="serve the catalog from the bundled offline origins on loopback")
        parser.add_argument("--provider", default=None, metavar="NAME",
                            help="auto (fused), fallback, duckduckgo, wikipedia, hn, reddit, news, "
                                 "searxng, tavily, openrouter, light or brave (default: Brave with "
                                 "a key, else Light)")
        parser.add_argument("--region", default=None, metavar="CC-LL",
                            help="region-language for the engines, e.g. us-en or il-he")
        parser.add_argument("--when", default=None, metavar="WINDOW",
                            help="news window for the engines: 1h, 12h, 1d, 7d, 30d, 1y")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if not args:
            raise UsageError("a query is required", print_help=False)
        if opts.when is not None and opts.when not in WHEN:
            raise UsageError(f"--when must be one of: {', '.join(WHEN)} (got {opts.when!r})",
                             print_help=False)
        if opts.recency is not None and opts.recency not in RECENCY_WINDOWS:
            raise UsageError(
                f"--recency must be one of: {', '.join(RECENCY_WINDOWS)} (got {opts.recency!r})",
                print_help=False,
            )

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        started = time.monotonic()
        warm_pool(self.settings)  # the extraction workers start while the engine loads
        result = for_command_line(asyncio.run(self._search(args, opts)))
        wall = time.monotonic() - started
        if "error" in result:
            if opts.output == "json":
                print(json.dumps(result, ensure_ascii=False, indent=2))
            else:
                # The renderer's error line: capped, ASCII-escaped, values quoted.
                from lightsearch.evidence.render import render_result

                limit = self.settings.getint("RESULT_TEXT_MAX_BYTES", 16 * 1024)
                print(render_result(result, limit), file=sys.stderr)
            self.exitcode = 1
            return
        if opts.output == "json":
            print(json.dumps(result, ensure_ascii=False, indent=2))
        elif opts.output == "text":
            print(result["text"])
        else:
            print(format_table(result, wall_secs=wall))

    async def _search(self, args: list[str], opts: argparse.Namespace) -> dict[str, Any]:
        from lightsearch.providers import SETTING_PREFIXES, load_provider

        overrides = engine_overrides(self.settings, SETTING_PREFIXES)
        if opts.provider:
            overrides["WEB_SEARCH_PROVIDER"] = opts.provider
        if opts.region:
            overrides["WEB_SEARCH_REGION"] = opts.region
        recency = opts.recency or (WHEN_RECENCY[opts.when] if opts.when else None)
        with offline_world(opts.offline, overrides):
            try:
                # Light, or Brave when a key is configured: chosen once, here (issue 8).
                engine = load_provider(overrides)
                # The result is returned as assembled: its receipts were sized for it.
                if opts.when and hasattr(engine, "mode"):
                    return await engine.search(queries=args, max_results=opts.max_results,
                                               recency=recency, when=opts.when)
                return await engine.search(queries=args, max_results=opts.max_results,
                                           recency=recency)
            except LightSearchError as exc:
                return exc.to_dict()


def format_table(result: dict[str, Any], wall_secs: float | None = None) -> str:
    """A readable table: title, source, date, URL and snippet, then a one-line summary.

    For people at a terminal; the model reads ``result["text"]`` (``-o text``) instead.
    Page-supplied fields are cleaned as for the model, so no control sequence or bidi
    override from a page reaches the terminal.
    """
    out: list[str] = []
    hits = result["hits"]
    if not hits:
        out.append(f"No results for {result['query']!r}.")
    for i, h in enumerate(hits, 1):
        date = clean_untrusted(h.get("publishedAt") or h.get("modifiedAt") or "")[:10] or "-"
        out.append(f"{i:>2}. {clean_untrusted(h['title'])}")
        engines = f" | {'+'.join(map(clean_untrusted, h['engines']))}" if h.get("engines") else ""
        out.append(f"    {clean_untrusted(h.get('sourceName', h['source']))} | {date} | "
                   f"{clean_untrusted(h['url'])}{engines}")
        if h.get("snippet"):
            out.extend(textwrap.wrap(clean_untrusted(h["snippet"]), width=96, initial_indent="    ",
                                     subsequent_indent="    "))
        out.append("")
    meta = result["meta"].get("lightSearch") or {}
    wall = meta.get("elapsedMs", 0) / 1000 if wall_secs is None else wall_secs
    receipts = result["meta"].get("webSources")
    shown = "-"
    if receipts:
        tally = Counter(e["presentation"] for e in receipts["entries"])
        shown = ", ".join(f"{tally[k]} {k}" for k in PRESENTATION if tally[k]) or "none"
    if "lightSearch" not in result["meta"]:  # an API provider: no crawl to summarise
        cached = " (cached)" if result.get("cached") else ""
        out.append(f"{len(hits)} hits | provider {result['provider']}{cached} | {wall:.2f} s | "
                   f"coverage {result['coverage']['level']} | shown {shown} | "
                   f"stop {result['stopReason']}")
        return "\n".join(out)
    counts = meta["counts"]
    consulted = meta["sources"]["consulted"]
    selected = meta["sources"]["selected"]
    out.append(
        f"{len(hits)} hits | sources consulted {len(consulted)}/{len(selected)} "
        f"({', '.join(consulted) or 'none'}) | hops {counts['requests']} | "
        f"{counts['encodedBytes'] / 1024:.0f} KiB encoded, {counts['decodedBytes'] / 1024:.0f} KiB decoded | "
        f"{wall:.2f} s | coverage {result['coverage']['level']} | shown {shown} | "
        f"stop {result['stopReason']}"
    )
    return "\n".join(out)
