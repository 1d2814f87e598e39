"""``scrapy read URL [URL ...]``: web_fetch from the command line.

The page goes through the same path as the agent tool (transport guard, robots.txt,
size and time limits, extraction, wall detection). ``-o text`` (the default) prints the
result's ``text``, the bounded, fenced text a model reads, and an error as one line
starting with ``ERROR:``; ``-o json`` prints the result dict (``text`` and the raw page
window ``content``), or ``{"error": {"code", "message",
"details"}}``. Either way a failure exits with status 1. ``--offline`` serves the
bundled offline origins on loopback, so ``scrapy read --offline
https://walls.example/article`` works with no network. Several URLs (up to
``WEB_FETCH_MAX_URLS``) are read together, as web_fetch's ``urls``; the exit status is 1
when any of them failed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.commands import engine_overrides, for_command_line, offline_world

# Settings a command line (-s KEY=VALUE) may pass on to web_fetch.
SETTING_PREFIXES = ("LIGHT_", "WEB_FETCH_", "RESULT_", "WEB_RETRIEVAL_")


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
        parser.add_argument("-o", "--output", choices=("text", "json"), default="text",
                            help="output format (default: text)")
        parser.add_argument("--max-chars", type=int, default=None, metavar="N",
                            help="characters of page text to return, WEB_FETCH_MAX_CHARS by default")
        parser.add_argument("--start-index", type=int, default=0, metavar="K",
                            help="character offset to read on from (default: 0)")
        parser.add_argument("--head-tail", action="store_true",
                            help="for a long page, return its start and its end in one read")
        parser.add_argument("--markdown", action="store_true",
                            help="return the main text as Markdown")
        parser.add_argument("--offline", action="store_true",
                            help="serve the bundled offline origins on loopback")

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        if not args:
            raise UsageError("a URL is required", print_help=False)

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        assert self.settings is not None
        result = for_command_line(asyncio.run(self._read(args, opts)))
        if opts.output == "json":
            print(json.dumps(result, ensure_ascii=False, indent=2))
        else:
            from lightsearch.providers.fetch import format_fetch_text

            # A success prints the ``text`` web_fetch rendered (the one its receipt
            # describes), not a second rendering with a new fence token.
            print(format_fetch_text(result))
        if "error" in result or result.get("failed"):
            self.exitcode = 1

    async def _read(self, urls: list[str], opts: argparse.Namespace) -> dict[str, Any]:
        from lightsearch.providers.fetch import WebFetch

        assert self.settings is not None
        overrides = engine_overrides(self.settings, SETTING_PREFIXES)
        overrides["LOG_LEVEL"] = self.settings.get("LOG_LEVEL")
        with offline_world(opts.offline, overrides):
            try:
                fetcher = WebFetch.from_settings(overrides)
                read = fetcher.fetch_many if len(urls) > 1 else fetcher.fetch
                return await read(urls if len(urls) > 1 else urls[0], max_chars=opts.max_chars,
                                  start_index=opts.start_index, markdown=opts.markdown, head_tail=opts.head_tail)
            except LightSearchError as exc:
                return exc.to_dict()

