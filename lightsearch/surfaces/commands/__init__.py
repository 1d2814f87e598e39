"""Scrapy commands: ``scrapy search``, ``scrapy news``, ``scrapy read``, ``scrapy evaluate``.

What they share: how a command line spells the API's parameters (an error names the flag,
the read-on hint says ``--start-index N``), which ``-s KEY=VALUE`` settings reach the
engines, and the refusal of an option the command does not know. Scrapy hands a command
the arguments its parser did not recognise as positional ones, so without that refusal
``scrapy search --bogus-flag europa`` would search for "--bogus-flag".
"""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

# Settings a command line (-s KEY=VALUE) may pass on to the engines; the rest of a Scrapy
# settings object holds Scrapy's own defaults, which must not override ours.
ENGINE_PREFIXES = ("LIGHT_", "BRAVE_", "WEB_", "RESULT_", "FLEET_")


def engine_overrides(settings: BaseSettings) -> dict[str, Any]:
    """The command-line settings (``-s KEY=VALUE``) an engine takes, and the log level."""
    out = {k: v for k, v in settings.copy_to_dict().items() if k.startswith(ENGINE_PREFIXES)}
    out["LOG_LEVEL"] = settings.get("LOG_LEVEL")
    return out


def positional(args: list[str]) -> list[str]:
    """The command's positional arguments, or a usage error naming an option it does not
    take. Scrapy's parser passes on what it does not recognise, so ``--bogus-flag`` would
    otherwise be searched for. A query that starts with ``-`` goes after ``--``, which is
    dropped."""
    if "--" in args:
        cut = args.index("--")
        before, after = args[:cut], args[cut + 1:]
    else:
        before, after = args, []
    for arg in before:
        if arg.startswith("-") and len(arg) > 1:
            name = arg.split("=", 1)[0]
            raise UsageError(f"unknown option {name} (a query starting with '-' goes after --)",
                             print_help=False)
    return before + after
