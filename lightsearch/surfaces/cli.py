"""The ``lightsearch`` command: search, news, fetch, tools, mcp, serve, evaluate, sources.

The same tools and options as the ``scrapy search|news|read|evaluate`` commands (which
stay), through the same front door (:class:`~lightsearch.surfaces.toolbox.Toolbox`),
configured the same way (defaults < environment < ``-s KEY=VALUE`` and options < the
call; every ``-s`` checked against the settings table first). Output for people by
default, ``-o json`` / ``-o jsonl`` for programs, ``-o text`` for the bounded text a model
reads (:mod:`lightsearch.surfaces.present`); every command ends by the one exit and error
discipline (:mod:`lightsearch.surfaces.exits`). Progress goes to stderr, only when both
stdout and stderr are terminals, and only for work that takes longer than a second.

The command starts fast: parsing and ``--help`` import nothing of Scrapy, Twisted, the MCP
SDK or rich; a command imports what it needs when it runs.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from lightsearch.surfaces.spelling import FLAGS

# Exit statuses (lightsearch/surfaces/exits.py): an answer, a failed call, a usage error.
OK, FAILED, USAGE = 0, 1, 2

EXAMPLES = {
    None: """examples:
  lightsearch search --offline "europa clipper"
  lightsearch news "heatwave power grid" --when 7d
  lightsearch fetch https://www.nasa.gov/ --max-chars 2000
  lightsearch tools --format openai
  lightsearch mcp                      # MCP over stdio, for a desktop agent
  lightsearch serve --port 8765        # MCP over HTTP (/mcp) + POST /api/skills/invoke
""",
    "search": """examples:
  lightsearch search --offline "europa clipper"
  lightsearch search --offline -o json --max-results 5 "sodium-ion batteries"
  lightsearch search --recency week "heatwave power grid" "grid storage"   # fused
  lightsearch search -o jsonl "tidal power severn" | jq .url
  lightsearch search --include-domain nasa.gov,esa.int --after 2026-01-01 "europa clipper"
  lightsearch search --provider auto --exclude-domain pinterest.com --region gb-en "tidal power"
  lightsearch search --offline "solar maximum auroras" | cat       # whole URLs when piped
""",
    "news": """examples:
  lightsearch news "election results"              # the last day
  lightsearch news --when 7d -o json "solar maximum"
""",
    "fetch": """examples:
  lightsearch fetch --offline https://www.nasa.gov/                 # the page's text, for people
  lightsearch fetch --offline -o text https://www.nasa.gov/         # the fenced text a model reads
  lightsearch fetch https://example.org/long --start-index 8000     # read on
  lightsearch fetch https://example.org/data.json --raw -o json
""",
    "tools": """examples:
  lightsearch tools                    # MCP form
  lightsearch tools --format anthropic > tools.json
""",
    "mcp": """examples:
  lightsearch mcp
  WEB_FETCH_MAX_CHARS=4000 lightsearch mcp --offline
""",
    "serve": """examples:
  lightsearch serve                                  # 127.0.0.1:8765
  LIGHTSEARCH_API_TOKEN=$(python -c 'import secrets; print(secrets.token_urlsafe(32))') \\
       lightsearch serve --host 0.0.0.0 --allowed-hosts search.example.org
  lightsearch serve --forwarded-allow-ips 10.0.0.5       # behind a proxy at 10.0.0.5
  curl -s -X POST localhost:8765/api/skills/invoke -H 'content-type: application/json' \\
       -d '{"name": "web.search", "input": {"query": "europa clipper", "maxResults": 3}}'
""",
    "evaluate": """examples:
  lightsearch evaluate --world cranfield --max-queries 20
  lightsearch evaluate --world heq --max-queries 100 --runs light,oracle
  lightsearch evaluate --queries q.jsonl --qrels q.trec --runs light
  (the options of `scrapy evaluate`: lightsearch evaluate --help)
""",
    "sources": """examples:
  lightsearch sources add https://blog.example.org/ --language en
  lightsearch sources add --allow-private http://127.0.0.1:8080/    # a site on your own machine
  lightsearch sources list
  lightsearch sources check
  lightsearch sources remove user-blog-example-org
  lightsearch sources describe                                # needs a network
  lightsearch sources describe --recorded catalog/recorded.json --data ../shared/data --out my.summary.json
""",
}



def _setting(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value


def _defaults() -> dict[str, Any]:
    """The defaults help shows, from the one settings table (no Scrapy import)."""
    from lightsearch.schema import BY_KEY

    return {key: BY_KEY[key].default for key in ("WEB_SEARCH_MAX_RESULTS", "WEB_FETCH_MAX_CHARS", "WEB_NEWS_WHEN")}


def filter_options(p: argparse.ArgumentParser) -> None:
    """The per-call filters of search and news (the same on ``scrapy search|news``)."""
    p.add_argument("--include-domain", action="append", default=None, metavar="DOMAIN",
                   help="only hits on this domain and its subdomains; repeat it or give a comma list "
                        "(at most 20)")
    p.add_argument("--exclude-domain", action="append", default=None, metavar="DOMAIN",
                   help="never a hit on this domain or its subdomains; repeat it or give a comma list "
                        "(at most 20)")
    p.add_argument("--region", default=None, metavar="CC-LL",
                   help="country-language of the results for this search, e.g. us-en or il-he "
                        "(default: WEB_SEARCH_REGION)")
    p.add_argument("--after", default=None, metavar="YYYY-MM-DD",
                   help="only pages dated on or after this day (undated pages are kept and counted)")
    p.add_argument("--before", default=None, metavar="YYYY-MM-DD",
                   help="only pages dated on or before this day (undated pages are kept and counted)")


def filters_of(opts: argparse.Namespace) -> dict[str, Any]:
    """The filter flags as the front door's keyword arguments."""
    from lightsearch.surfaces.spelling import domain_list

    return {"include_domains": domain_list(opts.include_domain), "exclude_domains": domain_list(opts.exclude_domain),
            "region": opts.region, "after": opts.after, "before": opts.before}


PROVIDER_HELP = ("who answers this command, as WEB_SEARCH_PROVIDER would: light, brave, auto (the keyless "
                 "engines fused), fallback, or one engine (duckduckgo, wikipedia, hn, reddit, news, searxng, "
                 "tavily, openrouter); default WEB_SEARCH_PROVIDER, else Brave with a key, else Light")


def provider_setting(provider: str | None, *, offline: bool) -> dict[str, Any]:
    """``--provider``: the provider of this command, as ``WEB_SEARCH_PROVIDER`` (the same
    meaning on ``lightsearch search`` and ``scrapy search``; the tool argument
    ``provider`` is the model's per-call choice, which a deployment must allow)."""
    if provider is None:
        return {}
    name = provider.strip()
    if offline and name.lower() != "light":
        from lightsearch.errors import invalid_input, quote_untrusted

        raise invalid_input(f"provider {quote_untrusted(name)}: --offline searches the bundled offline origins "
                            "with Light only (the engines need the network)", parameter="provider")
    return {"WEB_SEARCH_PROVIDER": name}


def parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser and each subcommand's own (which reports its own usage)."""
    from lightsearch import __version__
    from lightsearch.surfaces.tools import FORMATS
    from lightsearch.windows import NEWS_WINDOWS, RECENCY_WINDOWS

    d = _defaults()
    top = argparse.ArgumentParser(prog="lightsearch", description="Keyless web search and page reading for AI "
                                  "agents.", epilog=EXAMPLES[None], formatter_class=argparse.RawDescriptionHelpFormatter)
    top.add_argument("--version", action="version", version=f"lightsearch {__version__}")
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")
    parsers: dict[str, argparse.ArgumentParser] = {}

    def command(name: str, help: str, **kwargs: Any) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help, epilog=EXAMPLES[name],
                           formatter_class=argparse.RawDescriptionHelpFormatter, **kwargs)
        parsers[name] = p
        if name not in ("evaluate", "sources"):
            common(p, offline=name != "tools")
        return p

    def common(p: argparse.ArgumentParser, default: Any = None, *, offline: bool = True) -> None:
        """``-s``, ``--offline`` and ``--debug``; ``default`` SUPPRESS on the actions of
        ``sources``, so that either position (``sources --offline add`` or ``sources add
        --offline``) counts."""
        # an action's own -s go apart: argparse would replace the command's list with them
        p.add_argument("-s", "--set", dest="settings" if default is None else "action_settings", action="append",
                       type=_setting, default=[] if default is None else default, metavar="KEY=VALUE",
                       help="a setting (docs/SETTINGS.md), beating the environment; may be given again")
        if offline:
            p.add_argument("--offline", action="store_true", default=False if default is None else default,
                           help="serve the bundled offline origins on loopback")
        p.add_argument("--debug", action="store_true", default=False if default is None else default,
                       help="print the traceback of an unexpected error")

    def output(p: argparse.ArgumentParser, choices: Sequence[str] = ("table", "json", "jsonl", "text")) -> None:
        p.add_argument("-o", "--output", choices=choices, default=choices[0],
                       help=f"table: for people; json / jsonl: for programs; text: the bounded text a model "
                            f"reads (default: {choices[0]})")

    def verbose(p: argparse.ArgumentParser) -> None:
        p.add_argument("--verbose", action="store_true", help="also name the settings behind a stop reason or a note")

    p = command("search", "search the web and print ranked, cited hits")
    p.add_argument("queries", nargs="+", metavar="QUERY", help="one or more queries (up to 5, fused)")
    p.add_argument("--max-results", type=int, default=None, metavar="N",
                   help=f"hits, 1-20 (default: WEB_SEARCH_MAX_RESULTS, {d['WEB_SEARCH_MAX_RESULTS']})")
    p.add_argument("--recency", choices=list(RECENCY_WINDOWS), default=None,
                   help="prefer pages from the last hour, day, week, month or year")
    p.add_argument("--provider", default=None, metavar="NAME", help=PROVIDER_HELP)
    filter_options(p)
    output(p)
    verbose(p)

    p = command("news", "search recent news (web_news)")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--when", choices=list(NEWS_WINDOWS), default=None,
                   help=f"how recent (default: WEB_NEWS_WHEN, {d['WEB_NEWS_WHEN']})")
    p.add_argument("--max-results", type=int, default=None, metavar="N",
                   help=f"hits, 1-20 (default: WEB_SEARCH_MAX_RESULTS, {d['WEB_SEARCH_MAX_RESULTS']})")
    filter_options(p)
    output(p)
    verbose(p)

    p = command("fetch", "read public web pages as clean, bounded text (web_fetch)")
    p.add_argument("url", metavar="URL", nargs="+", help="one URL, or several read together (up to 5)")
    p.add_argument("--max-chars", type=int, default=None, metavar="N",
                   help=f"characters of text (default: WEB_FETCH_MAX_CHARS, {d['WEB_FETCH_MAX_CHARS']})")
    p.add_argument("--start-index", type=int, default=None, metavar="K",
                   help="character offset to read on from (default: 0)")
    p.add_argument("--raw", action="store_true", help="the body of a text type, without extraction")
    p.add_argument("--markdown", action="store_true", help="the main text as Markdown")
    p.add_argument("--head-tail", action="store_true", help="a long page's start and end in one read")
    p.add_argument("--comments", action="store_true", help="also the reader comments under an article, after it")
    output(p)
    verbose(p)

    p = command("tools", "print the tool definitions for function calling")
    p.add_argument("--format", choices=FORMATS, default="mcp",
                   help=f"the function-calling dialect: {', '.join(FORMATS)} (default: mcp)")

    command("mcp", "serve the tools over MCP on stdin/stdout")

    p = command("serve", "serve MCP (streamable HTTP, /mcp), POST /api/skills/invoke and GET /health")
    p.add_argument("--host", default="127.0.0.1",
                   help="bind address; off loopback needs LIGHTSEARCH_API_TOKEN (default: 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765,
                   help="port; 0: any free port, printed on stderr (default: 8765)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes behind the address, sharing state with LIGHTSEARCH_REDIS_URL "
                        "(default: 1)")
    p.add_argument("--allowed-hosts", default=None, metavar="NAMES",
                   help="comma-separated Host names to answer to besides the bind address "
                   "(WEB_SERVE_ALLOWED_HOSTS; needed behind a name or on 0.0.0.0)")
    p.add_argument("--forwarded-allow-ips", default=None, metavar="IPS",
                   help="comma-separated proxy addresses or networks whose X-Forwarded-For is believed "
                   "(WEB_SERVE_FORWARDED_ALLOW_IPS); unset: forwarded headers are ignored")
    # a worker of --workers: listens with SO_REUSEPORT and says so on its supervisor's pipe
    p.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)

    # Its options are scrapy evaluate's, read when it runs (main() hands them over): the
    # parser here only lists the command.
    command("evaluate", "run a judged query set (the options of `scrapy evaluate`)", add_help=False)

    p = command("sources", "your own sites beside the bundled catalog, and the source descriptions")
    common(p)
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    shared = argparse.ArgumentParser(add_help=False)
    common(shared, argparse.SUPPRESS)
    shared.add_argument("-o", "--output", choices=("table", "json"), default="table",
                        help="table: for people; json: as stored (default: table)")
    user_file = argparse.ArgumentParser(add_help=False, parents=[shared])
    user_file.add_argument("--file", default=None, metavar="PATH",
                           help="the user catalog (default: LIGHT_CATALOG_EXTRA, else sources.json in the "
                                "configuration folder: $XDG_CONFIG_HOME/lightsearch, ~/.config/lightsearch)")
    a = parsers["sources add"] = actions.add_parser("add", parents=[user_file],
                                                    help="probe a site and add it to the user catalog")
    a.add_argument("url", metavar="URL", help="the site's home page")
    a.add_argument("--name", default=None, help="the source's name (default: the site's own)")
    a.add_argument("--language", default=None, help="en or he (default: what the page declares)")
    a.add_argument("--kind", default=None, help="reference, government, news, science or technology")
    a.add_argument("--allow-private", action="store_true",
                   help="the site is on your own machine or network (a loopback or private address, an "
                        "internal name, any port): allow that for this site alone (docs/SOURCES.md)")
    parsers["sources list"] = actions.add_parser("list", parents=[user_file], help="the user catalog's sources")
    a = parsers["sources check"] = actions.add_parser("check", parents=[user_file],
                                                      help="probe the user catalog's sources again")
    a.add_argument("ids", nargs="*", metavar="ID", help="only these sources")
    a = parsers["sources remove"] = actions.add_parser("remove", parents=[user_file],
                                                       help="remove a source from the user catalog")
    a.add_argument("source_id", metavar="ID")
    a = parsers["sources describe"] = actions.add_parser(
        "describe", parents=[shared], help="prebuild a catalog's source descriptions (summary file)")
    a.add_argument("--catalog", default=None, metavar="PATH", help="the catalog (default: LIGHT_CATALOG or "
                   "the bundled one)")
    a.add_argument("--out", default=None, metavar="PATH", help="the summary file (default: beside a catalog of "
                   "your own; for the bundled catalog, catalog.summary.json in the configuration folder)")
    a.add_argument("--recorded", default=None, metavar="MAP", help="describe from recorded feeds and sitemaps: "
                   "a JSON map of URL -> file (relative to --data)")
    a.add_argument("--data", default=None, metavar="DIR", help="where the recorded files are")
    return top, parsers


def parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """The options, or a usage error (exit 2) from the subcommand the mistake is in."""
    top, parsers = parser()
    opts, extra = top.parse_known_args(argv)
    if extra:
        target = parsers.get(f"{opts.command} {getattr(opts, 'action', None)}") or parsers[opts.command]
        target.error(f"unrecognized arguments: {' '.join(extra)}")
    return opts


# ------------------------------------------------------------------------ progress
def _progress_wanted() -> bool:
    return sys.stdout.isatty() and sys.stderr.isatty()


class Spinner:
    """A stderr spinner that appears after a second (terminals only: never a carriage
    return in a file or a pipe)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.status: Any = None
        self._forget: Any = None

    async def __call__(self, elapsed: float, message: str) -> None:
        if not _progress_wanted():
            return
        text = f"{self.label} {elapsed:.0f} s"
        if self.status is None:
            from rich.console import Console

            from lightsearch.surfaces.exits import on_hard_exit

            self.status = Console(stderr=True, soft_wrap=False, highlight=False).status(text)
            self.status.start()
            # a process ended at once (a second Ctrl-C) clears the line and shows the cursor
            self._forget = on_hard_exit(lambda: os.write(2, b"\r\x1b[2K\x1b[?25h"))
        else:
            self.status.update(text)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()
            self.status = None
        if self._forget is not None:
            self._forget()
            self._forget = None


# ------------------------------------------------------------------------ commands
def _settings(opts: argparse.Namespace) -> dict[str, Any]:
    """The command line's settings: every ``-s`` checked against the settings table, then
    the options that are settings (``--provider``)."""
    from lightsearch.surfaces.environment import command_line

    out = command_line([*opts.settings, *getattr(opts, "action_settings", [])])
    out.update(provider_setting(getattr(opts, "provider", None), offline=getattr(opts, "offline", False)))
    return out


def _toolbox(opts: argparse.Namespace, cmdline: dict[str, Any]) -> Any:
    from lightsearch.surfaces.toolbox import Toolbox

    cmdline = {"LOG_LEVEL": "ERROR", **cmdline}
    return Toolbox.from_environ(cmdline, offline=getattr(opts, "offline", False))


def _worker_settings(cmdline: dict[str, Any]) -> Any:
    """The settings a worker will run with (environment and ``-s``), without starting one."""
    from lightsearch.config import make_settings
    from lightsearch.surfaces.environment import resolve

    return make_settings(resolve(cmdline))


async def _run_tool(opts: argparse.Namespace, cmdline: dict[str, Any]) -> dict[str, Any]:
    from lightsearch.errors import LightSearchError, SearchCancelled
    from lightsearch.surfaces.toolbox import error_result, with_progress

    spinner = Spinner({"search": "searching", "news": "searching news", "fetch": "fetching"}[opts.command])
    try:
        async with _toolbox(opts, cmdline) as box:
            if opts.command == "search":
                work = box.search(queries=opts.queries, max_results=opts.max_results, recency=opts.recency,
                                  **filters_of(opts))
            elif opts.command == "news":
                work = box.news(opts.query, when=opts.when, max_results=opts.max_results, **filters_of(opts))
            else:
                work = box.fetch(opts.url[0] if len(opts.url) == 1 else opts.url, max_chars=opts.max_chars,
                                 start_index=opts.start_index, raw=opts.raw or None, markdown=opts.markdown,
                                 head_tail=opts.head_tail, names=FLAGS, include_comments=opts.comments or None)
            return await with_progress(work, spinner, opts.command)
    except SearchCancelled:
        raise
    except LightSearchError as exc:
        return error_result(exc, FLAGS)
    finally:
        spinner.stop()


def _user_catalog(opts: argparse.Namespace, overrides: dict[str, Any]) -> Any:
    from pathlib import Path

    from lightsearch.errors import LightSearchError
    from lightsearch.surfaces.environment import default_user_catalog

    path = opts.file or overrides.get("LIGHT_CATALOG_EXTRA") or default_user_catalog()
    if path is None:
        raise LightSearchError("invalid_input", "no user catalog: give --file, or set LIGHTSEARCH_SOURCES (or HOME)",
                               {"parameter": "--file"})
    return Path(path)


async def _sources(opts: argparse.Namespace, cmdline: dict[str, Any]) -> dict[str, Any]:
    from pathlib import Path

    from lightsearch.surfaces import sources
    from lightsearch.surfaces.environment import resolve

    overrides = resolve(cmdline)
    overrides.setdefault("LOG_LEVEL", "ERROR")
    path = None if opts.action == "describe" else _user_catalog(opts, overrides)
    if opts.action == "list":
        return {"catalog": str(path), "sources": sources.entries(path)}
    if opts.action == "remove":
        return sources.remove(path, opts.source_id)
    origins = None
    if opts.offline:
        from lightsearch.offline_origins.server import OfflineOrigins

        origins = OfflineOrigins().start()
        overrides.update(origins.settings())
    try:
        if opts.action == "add":
            return await sources.add(path, opts.url, overrides, name=opts.name, language=opts.language,
                                     kind=opts.kind, allow_private=opts.allow_private)
        if opts.action == "check":
            return await sources.check(path, overrides, opts.ids)
        return await sources.describe_catalog(
            overrides, catalog_path=opts.catalog or overrides.get("LIGHT_CATALOG"),
            out=Path(opts.out) if opts.out else None, recorded=Path(opts.recorded) if opts.recorded else None,
            data_dir=Path(opts.data) if opts.data else None)
    finally:
        if origins is not None:
            origins.stop()


def _serve(opts: argparse.Namespace, cmdline: dict[str, Any]) -> int:
    from lightsearch.errors import LightSearchError
    from lightsearch.serving.app import check_bind, check_serving, serve
    from lightsearch.surfaces.environment import api_token
    from lightsearch.surfaces.exits import run_async

    token = api_token()
    check_bind(opts.host, token)
    for flag, key in (("allowed_hosts", "WEB_SERVE_ALLOWED_HOSTS"),
                      ("forwarded_allow_ips", "WEB_SERVE_FORWARDED_ALLOW_IPS")):
        if getattr(opts, flag) is not None:  # a flag is a setting, so workers get it too
            opts.settings.append((key, getattr(opts, flag)))
            cmdline[key] = getattr(opts, flag)
    serving = _worker_settings(cmdline)
    check_serving(serving, opts.host)
    from lightsearch.fleet.link import link_of

    link_of(serving)  # a fleet's Redis off this machine needs its key: refuse to start
    if opts.workers < 1 or opts.workers > 64:
        raise LightSearchError("invalid_input", f"--workers must be between 1 and 64, got {opts.workers}",
                               {"parameter": "--workers"})
    if opts.workers > 1 and opts.ready_fd is None:
        from lightsearch.config import fleet_url
        from lightsearch.serving.workers import serve_workers

        shared = bool(fleet_url(serving))
        args = [a for pair in opts.settings for a in ("-s", f"{pair[0]}={pair[1]}")]
        return serve_workers(opts.workers, opts.host, opts.port, args, offline=opts.offline, shared=shared)
    sock = None
    if opts.reuse_port:
        from lightsearch.serving.workers import listening_socket, signal_ready

        sock = listening_socket(opts.host, opts.port, reuse_port=True)
        if opts.ready_fd is not None:
            signal_ready(opts.ready_fd)
    run_async(serve(_toolbox(opts, cmdline), host=opts.host, port=opts.port, token=token, sock=sock))
    return OK


def run(opts: argparse.Namespace) -> int:
    """Run the parsed command; its exit status (errors are raised, for run_command)."""
    import json

    from lightsearch.surfaces.exits import run_async

    cmdline = _settings(opts)
    if opts.command in ("search", "news", "fetch"):
        from lightsearch.isolation.lanes import warm_pool
        from lightsearch.surfaces.present import show

        warm_pool(_worker_settings(cmdline))  # the extraction workers start while the engine loads
        return show(opts.command, run_async(_run_tool(opts, cmdline)), opts.output, verbose=opts.verbose)
    if opts.command == "sources":
        from lightsearch.surfaces.present import show_sources

        return show_sources(opts.action, run_async(_sources(opts, cmdline)), opts.output)
    if opts.command == "tools":
        from lightsearch.surfaces.tools import definitions_for

        print(json.dumps(definitions_for(opts.format, cmdline), ensure_ascii=False, indent=2))
        return OK
    if opts.command == "mcp":
        from lightsearch.surfaces.mcp_server import run_stdio
        from lightsearch.surfaces.toolbox import DeferredToolbox

        run_async(run_stdio(DeferredToolbox({"LOG_LEVEL": "ERROR", **cmdline}, offline=opts.offline)))
        return OK
    if opts.command == "serve":
        return _serve(opts, cmdline)
    return USAGE  # pragma: no cover


def evaluate(argv: Sequence[str]) -> int:
    """``lightsearch evaluate ...``: the ``scrapy evaluate`` command with its own options,
    parsed and run here (its help and usage errors say ``lightsearch evaluate``)."""
    from scrapy.commands import ScrapyHelpFormatter
    from scrapy.exceptions import UsageError
    from scrapy.settings import Settings

    from lightsearch.surfaces.commands.evaluate import Command

    cmd = Command()
    cmd.settings = Settings(cmd.default_settings, priority="command")
    p = argparse.ArgumentParser(prog="lightsearch evaluate", usage=f"lightsearch evaluate {cmd.syntax()}",
                                description=cmd.short_desc(), epilog=EXAMPLES["evaluate"],
                                formatter_class=ScrapyHelpFormatter, conflict_handler="resolve")
    cmd.add_options(p)
    opts, args = p.parse_known_args(list(argv))
    try:
        cmd.process_options(args, opts)
        cmd.run(args, opts)
    except UsageError as exc:
        p.error(str(exc))
    return cmd.exitcode


def _first_word(argv: Sequence[str]) -> str | None:
    return next((a for a in argv if not a.startswith("-")), None)


def _output_of(argv: Sequence[str]) -> str | None:
    """``-o``'s value, read before parsing (an error while parsing -s values is printed
    in the form asked for)."""
    for i, arg in enumerate(argv):
        if arg in ("-o", "--output") and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--output="):
            return arg.split("=", 1)[1]
        if arg.startswith("-o") and len(arg) > 2:
            return arg[2:]
    return None


def main(argv: Sequence[str] | None = None) -> int:
    from lightsearch.surfaces.exits import run_command

    args = list(sys.argv[1:] if argv is None else argv)
    if _first_word(args) == "evaluate":
        rest = args[args.index("evaluate") + 1:]
        return run_command(lambda: evaluate(rest), debug="--debug" in rest)
    return run_command(lambda: run(parse(args)), debug="--debug" in args, output=_output_of(args))


if __name__ == "__main__":
    sys.exit(main())
