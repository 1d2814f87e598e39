"""``scrapy news "query" [--when 1d]``: realtime news (Google News RSS fused with the
catalog's news sources), newest first within relevance; ``-o json`` prints the envelope."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.commands import engine_overrides, for_command_line
from lightsearch.surfaces.commands.search import format_table
from lightsearch.windows import NEWS_WINDOWS


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "ERROR"}

    def syntax(self) -> str:
        return "[options] <query>"

    def short_desc(self) -> str:
        return "Realtime news for a query: title, publisher, date, link (Google News + catalog news)"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--when", default=None, metavar="WINDOW",
                            help=f"how far back: {', '.join(NEWS_WINDOWS)} (default: WEB_NEWS_WHEN, 1d)")
        parser.add_argument("--max-results", type=int, default=8, metavar="N", help="hits, 1-20 (default: 8)")
        parser.add_argument("--region", default=None, metavar="CC-LL", help="e.g. us-en or il-he")
        parser.add_argument("-o", "--output", choices=("table", "json", "text"), default="table")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if not args:
            raise UsageError("a query is required", print_help=False)
        if opts.when is not None and opts.when not in NEWS_WINDOWS:
            raise UsageError(f"--when must be one of: {', '.join(NEWS_WINDOWS)} (got {opts.when!r})",
                             print_help=False)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        started = time.monotonic()
        result = for_command_line(asyncio.run(self._news(" ".join(args), opts)))
        if "error" in result:
            if opts.output == "json":
                print(json.dumps(result, ensure_ascii=False, indent=2))
            else:
                print(f"ERROR: {result['error']['code']}: {result['error']['message']}", file=sys.stderr)
            self.exitcode = 1
            return
        if opts.output == "json":
            print(json.dumps(result, ensure_ascii=False, indent=2))
        elif opts.output == "text":
            print(result["text"])
        else:
            print(format_table(result, wall_secs=time.monotonic() - started))

    async def _news(self, query: str, opts: argparse.Namespace) -> dict[str, Any]:
        from lightsearch.config import make_settings
        from lightsearch.providers import SETTING_PREFIXES
        from lightsearch.providers.news import NewsSearch

        assert self.settings is not None
        try:
            engine = NewsSearch(make_settings(engine_overrides(self.settings, SETTING_PREFIXES)))
            return await engine.news(query, when=opts.when, max_results=opts.max_results, region=opts.region)
        except LightSearchError as exc:
            return exc.to_dict()
