"""Scrapy commands: ``scrapy search``, ``scrapy read``, ``scrapy evaluate``.

The plumbing they share lives here: which ``-s KEY=VALUE`` settings reach the engine,
and the ``--offline`` world.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from scrapy.settings import BaseSettings

from lightsearch.errors import with_flags
from lightsearch.evidence.render import continuation_for_command_line

# The command-line spelling of each API parameter an error can name (both CLIs).
FLAGS = {"maxResults": "--max-results", "recency": "--recency", "maxChars": "--max-chars",
         "startIndex": "--start-index", "when": "--when", "query": "the query", "queries": "the queries",
         "urls": "the URLs", "url": "the URL"}


def for_command_line(result: dict[str, Any]) -> dict[str, Any]:
    """A result whose error, if any, names the command-line flag instead of the parameter,
    and whose read-on hint (outside the fence, our own words) says ``--start-index N``."""
    if "error" in result:
        return {**result, "error": with_flags(result["error"], FLAGS)}
    if isinstance(result.get("results"), list):  # several pages read together
        text = result.get("text", "")
        pages = []
        for page in result["results"]:
            shown = for_command_line(page)
            if isinstance(page.get("text"), str) and shown.get("text") != page["text"] and isinstance(text, str):
                text = text.replace(page["text"], shown["text"], 1)
            pages.append(shown)
        return {**result, "results": pages, "text": text}
    text = result.get("text")
    if isinstance(text, str) and result.get("truncated"):
        return {**result, "text": continuation_for_command_line(text)}
    return result


def engine_overrides(settings: BaseSettings, prefixes: tuple[str, ...]) -> dict[str, Any]:
    """The command-line settings an engine takes: those whose names start with ``prefixes``."""
    return {k: v for k, v in settings.copy_to_dict().items() if k.startswith(prefixes)}


@contextlib.contextmanager
def offline_world(enabled: bool, overrides: dict[str, Any]) -> Iterator[None]:
    """With ``--offline``, serve the bundled offline origins on loopback for the duration
    and point ``overrides`` at them."""
    if not enabled:
        yield
        return
    from lightsearch.offline_origins.server import OfflineOrigins

    origins = OfflineOrigins().start()
    overrides.update(origins.settings())
    # --offline means the offline origins whatever keys the environment holds: an API
    # provider would leave loopback.
    overrides["WEB_SEARCH_PROVIDER"] = "light"
    try:
        yield
    finally:
        origins.stop()
