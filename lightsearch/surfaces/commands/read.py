"""``scrapy read URL [URL ...]``: web_fetch from the command line.

The page goes through the same path as the agent tool (transport guard, robots.txt,
size and time limits, extraction, wall detection). For people (``-o table``, the
default) it prints the page's facts and its plain text; ``-o text`` prints the result's
``text``, the bounded, fenced text a model reads (an error as its one ``ERROR:`` line);
``-o json`` the result dict (``text`` and the plain page window ``content`` both), or
``{"error": {"code", "message", "details"}}``. ``--offline`` serves the bundled offline
origins on loopback, so ``scrapy read --offline https://walls.example/article`` works
with no network. Several URLs (up to ``WEB_FETCH_MAX_URLS``) are read together, as
web_fetch's ``urls``; the exit status is 1 when any of them failed.
"""

from __future__ import annotations

import argparse
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.surfaces.commands import debug_option, engine_overrides, positional, verbose_option
from lightsearch.surfaces.spelling import FLAGS


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "ERROR"}

    def syntax(self) -> str:
        return "[options] <url> [<url> ...]"

    def short_desc(self) -> str:
        return "Fetch public web pages and print their clean, bounded text (web_fetch)"

    def long_desc(self) -> str:
        return (
            "Read one http(s) page the way the web_fetch tool does: private and internal "
            "addresses are refused, robots.txt is honoured, time and size are bounded, and "
            "the main text is extracted. Long pages are read on with --start-index."
        )

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("-o", "--output", choices=("table", "json", "jsonl", "text"), default="table",
                            help="table for people (the page's plain text), json (the result) or jsonl (a page "
                                 "a line) for programs, text (the fenced text a model reads); default table")
        parser.add_argument("--max-chars", type=int, default=None, metavar="N",
                            help="characters of page text to return (default: WEB_FETCH_MAX_CHARS, 8000)")
        parser.add_argument("--start-index", type=int, default=None, metavar="K",
                            help="character offset to read on from (default: 0)")
        parser.add_argument("--head-tail", action="store_true",
                            help="for a long page, return its start and its end in one read")
        parser.add_argument("--markdown", action="store_true",
                            help="return the main text as Markdown")
        parser.add_argument("--raw", action="store_true",
                            help="the decoded body of a text type, without extraction")
        parser.add_argument("--comments", action="store_true",
                            help="also print the reader comments under an article, after it")
        parser.add_argument("--offline", action="store_true",
                            help="serve the bundled offline origins on loopback")
        verbose_option(parser)
        debug_option(parser)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        args[:] = positional(args)
        if not args:
            raise UsageError("a URL is required", print_help=False)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from lightsearch.surfaces.exits import run_command

        self.exitcode = run_command(lambda: self._run(args, opts), debug=opts.debug, output=opts.output)

    def _run(self, args: list[str], opts: argparse.Namespace) -> int:
        from lightsearch.isolation.lanes import warm_pool
        from lightsearch.schema import Values
        from lightsearch.surfaces.exits import run_async
        from lightsearch.surfaces.present import show

        overrides = engine_overrides(self.settings)
        warm_pool(Values(overrides))  # the workers start while the engine loads
        result = run_async(self._read(args, opts, overrides))
        return show("fetch", result, opts.output, verbose=opts.verbose)

    async def _read(self, urls: list[str], opts: argparse.Namespace, overrides: dict[str, Any]) -> dict[str, Any]:
        from lightsearch.surfaces.toolbox import Toolbox, error_result

        try:
            async with Toolbox(overrides, offline=opts.offline) as box:
                return await box.fetch(urls[0] if len(urls) == 1 else urls, max_chars=opts.max_chars,
                                       start_index=opts.start_index, raw=opts.raw or None,
                                       markdown=opts.markdown, head_tail=opts.head_tail, names=FLAGS,
                                       include_comments=opts.comments or None)
        except SearchCancelled:
            raise
        except LightSearchError as exc:
            return error_result(exc, FLAGS)
