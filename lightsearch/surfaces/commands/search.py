"""``scrapy search "query"``: one search from the command line (Light, Brave with a key, or
the engines: ``--provider auto|fallback|duckduckgo|...``, as on ``lightsearch search``; the
list names each hit's engines).

``--offline`` starts the offline origins in-process and maps the catalog's hosts to
them, so a new user sees the whole pipeline work on a machine with no network. The search
goes through the same front door as every surface (:class:`~lightsearch.surfaces.toolbox.Toolbox`).
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.surfaces.cli import PROVIDER_HELP, filter_options, filters_of, provider_setting
from lightsearch.surfaces.commands import debug_option, engine_overrides, positional, verbose_option
from lightsearch.surfaces.spelling import FLAGS
from lightsearch.windows import NEWS_WINDOWS, RECENCY_WINDOWS


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
            "Run one bounded search: Light over the bundled catalog by default. Several quoted "
            "queries are searched together (up to 5) and their rankings fused."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--max-results", type=int, default=None, metavar="N",
                            help="hits to return, 1-20 (default: WEB_SEARCH_MAX_RESULTS, 8)")
        parser.add_argument("--recency", default=None, metavar="WINDOW",
                            help=f"prefer recent pages ({', '.join(RECENCY_WINDOWS)})")
        parser.add_argument("--when", default=None, metavar="WINDOW",
                            help=f"the same as a news window ({', '.join(NEWS_WINDOWS)})")
        parser.add_argument("-o", "--output", choices=("table", "json", "jsonl", "text"), default="table",
                            help="table for people, json (the result) or jsonl (a hit a line) for programs, "
                                 "text (the bounded text a model reads); default table")
        parser.add_argument("--offline", action="store_true",
                            help="serve the catalog from the bundled offline origins on loopback")
        parser.add_argument("--provider", default=None, metavar="NAME", help=PROVIDER_HELP)
        filter_options(parser)
        verbose_option(parser)
        debug_option(parser)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        args[:] = positional(args)
        if not args:
            raise UsageError("a query is required", print_help=False)
        if opts.when is not None and opts.when not in NEWS_WINDOWS:
            raise UsageError(f"--when must be one of: {', '.join(NEWS_WINDOWS)} (got {opts.when!r})",
                             print_help=False)
        if opts.recency is not None and opts.recency not in RECENCY_WINDOWS:
            raise UsageError(f"--recency must be one of: {', '.join(RECENCY_WINDOWS)} (got {opts.recency!r})",
                             print_help=False)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from lightsearch.surfaces.exits import run_command

        self.exitcode = run_command(lambda: self._run(args, opts), debug=opts.debug, output=opts.output)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        from lightsearch.isolation.lanes import warm_pool
        from lightsearch.schema import Values
        from lightsearch.surfaces.exits import run_async
        from lightsearch.surfaces.present import show

        started = time.monotonic()
        overrides = engine_overrides(self.settings)
        overrides.update(provider_setting(opts.provider, offline=opts.offline))
        warm_pool(Values(overrides))  # the workers start while the engine loads
        result = run_async(self._search(args, opts, overrides))
        return show("search", result, opts.output, wall_secs=time.monotonic() - started, verbose=opts.verbose)

    async def _search(self, args: list[str], opts: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
        from lightsearch.surfaces.toolbox import Toolbox, error_result

        recency = opts.recency or (NEWS_WINDOWS[opts.when] if opts.when else None)
        try:
            async with Toolbox(overrides, offline=opts.offline) as box:
                return await box.search(queries=args, max_results=opts.max_results, recency=recency,
                                        **filters_of(opts))
        except SearchCancelled:
            raise
        except LightSearchError as exc:
            return error_result(exc, FLAGS)
