"""``scrapy news "query" [--when 1d]``: recent news (Google News RSS fused with the
catalog's news sources), newest first within relevance; ``-o json`` prints the envelope.
``--offline`` reads the catalog's news sources on the bundled offline origins only."""

from __future__ import annotations

import argparse
import time
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.surfaces.cli import filter_options, filters_of
from lightsearch.surfaces.commands import debug_option, engine_overrides, positional, verbose_option
from lightsearch.surfaces.spelling import FLAGS
from lightsearch.windows import NEWS_WINDOWS


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "ERROR"}

    def syntax(self) -> str:
        return "[options] <query>"

    def short_desc(self) -> str:
        return "Recent news for a query: title, publisher, date, link (Google News + catalog news)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--when", default=None, metavar="WINDOW",
                            help=f"how far back ({', '.join(NEWS_WINDOWS)}; default WEB_NEWS_WHEN, 1d)")
        parser.add_argument("--max-results", type=int, default=None, metavar="N",
                            help="hits, 1-20 (default: WEB_SEARCH_MAX_RESULTS, 8)")
        filter_options(parser)
        parser.add_argument("-o", "--output", choices=("table", "json", "jsonl", "text"), default="table",
                            help="table for people, json (the result) or jsonl (a hit a line) for programs, "
                                 "text (the bounded text a model reads); default table")
        parser.add_argument("--offline", action="store_true",
                            help="the catalog's news sources on the bundled offline origins only")
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
        warm_pool(Values(overrides))  # the workers start while the engine loads
        result = run_async(self._news(" ".join(args), opts, overrides))
        return show("news", result, opts.output, wall_secs=time.monotonic() - started, verbose=opts.verbose)

    async def _news(self, query: str, opts: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
        from lightsearch.surfaces.toolbox import Toolbox, error_result

        try:
            async with Toolbox(overrides, offline=opts.offline) as box:
                return await box.news(query, when=opts.when, max_results=opts.max_results, **filters_of(opts))
        except SearchCancelled:
            raise
        except LightSearchError as exc:
            return error_result(exc, FLAGS)
