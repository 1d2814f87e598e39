"""Scrapy commands: ``scrapy search``, ``scrapy news``, ``scrapy read``, ``scrapy evaluate``.

What they share: how a command line spells the API's parameters (an error names the flag,
the read-on hint says ``--start-index N``), which ``-s KEY=VALUE`` settings reach the
engines (each checked against the settings table, as the ``lightsearch`` command checks
its own), the refusal of an option the command does not know, and the way they end
(:mod:`lightsearch.surfaces.exits`, :mod:`lightsearch.surfaces.present`). Scrapy hands a
command the arguments its parser did not recognise as positional ones, so without that
refusal ``scrapy search --bogus-flag europa`` would search for "--bogus-flag".

They make no ``CrawlerProcess`` (``requires_crawler_process = False``): a search runs in
the one reactor lightsearch starts on its own event loop, without Scrapy's shutdown
handlers; Ctrl-C is :mod:`~lightsearch.surfaces.exits`'.
"""

from __future__ import annotations

from typing import Any

from scrapy.commands import ScrapyHelpFormatter
from scrapy.exceptions import UsageError
from scrapy.settings import BaseSettings

# Settings a command line (-s KEY=VALUE) may pass on to the engines; the rest of a Scrapy
# settings object holds Scrapy's own defaults, which must not override ours.
ENGINE_PREFIXES = ("LIGHT_", "BRAVE_", "WEB_", "RESULT_", "FLEET_")


def engine_overrides(settings: BaseSettings) -> dict[str, Any]:
    """The command-line settings (``-s KEY=VALUE``) an engine takes, and the log level.

    Each ``-s`` is read and checked as the ``lightsearch`` command reads it
    (:func:`lightsearch.surfaces.environment.command_line`): a bad value is
    ``invalid_settings`` naming the key, an unknown key is refused with the closest one."""
    from scrapy.settings import SETTINGS_PRIORITIES

    from lightsearch.surfaces.environment import command_line

    given = settings.copy_to_dict()
    cmdline = [(k, v) for k, v in given.items()
               if settings.getpriority(k) == SETTINGS_PRIORITIES["cmdline"] and isinstance(v, str)]
    checked = command_line(cmdline)
    out = {k: checked.get(k, v) for k, v in given.items() if k.startswith(ENGINE_PREFIXES)}
    out["LOG_LEVEL"] = settings.get("LOG_LEVEL")
    return out


class HelpFormatter(ScrapyHelpFormatter):
    """Scrapy's help layout, whose section headings are underlined and title-cased, but
    only the real ones: Scrapy takes any line ending in a colon for a heading, so an
    option's help wrapped just after "default:" would become "Default" and a rule. The
    sections' own headings are known: argparse opens each with :meth:`start_section`."""

    def __init__(self, prog: str, *args: Any, **kwargs: Any) -> None:
        super().__init__(prog, *args, **kwargs)
        self.sections: set[str] = set()

    def start_section(self, heading: str | None) -> None:
        if heading:
            self.sections.add(f"{heading}:\n")
        super().start_section(heading)

    def format_part_strings(self, part_strings: list[str]) -> list[str]:
        if part_strings and part_strings[0].startswith("usage: "):
            part_strings[0] = "Usage\n=====\n  " + part_strings[0].removeprefix("usage: ")
        headings = [i for i, part in enumerate(part_strings) if part.lstrip(" ") in self.sections]
        for index in reversed(headings):
            rule = "-" if "Global Options" in part_strings[index].title() else "="
            part_strings[index] = part_strings[index].removesuffix(":\n").title()
            part_strings.insert(index + 1, "\n" + rule * len(part_strings[index]) + "\n")
        return part_strings


def debug_option(parser: Any) -> None:
    """``--debug``; the command's help laid out by :class:`HelpFormatter` too."""
    parser.formatter_class = HelpFormatter
    parser.add_argument("--debug", action="store_true", help="print the traceback of an unexpected error")


def verbose_option(parser: Any) -> None:
    parser.add_argument("--verbose", action="store_true",
                        help="also name the settings behind a stop reason or a note")


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
