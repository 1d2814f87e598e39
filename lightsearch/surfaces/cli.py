"""The ``lightsearch`` command: search, news, fetch, tools, mcp, serve, evaluate, sources.

The same tools and options as the ``scrapy search|read|evaluate`` commands (which stay),
configured the same way (defaults < environment < ``-s KEY=VALUE`` and options < the
call). Tables for people (rich), ``-o json`` / ``-o jsonl`` for programs, ``-o text`` for
the bounded text a model reads. Progress goes to stderr, only when both stdout and stderr
are terminals, and only for work that takes longer than a second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import sys
from collections.abc import Sequence
from typing import Any

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.commands import for_command_line

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
""",
    "news": """examples:
  lightsearch news "election results"              # the last day
  lightsearch news --when 7d -o json "solar maximum"
""",
    "fetch": """examples:
  lightsearch fetch --offline https://www.nasa.gov/
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
  LIGHTSEARCH_API_TOKEN=secret lightsearch serve --host 0.0.0.0
  curl -s -X POST localhost:8765/api/skills/invoke -H 'content-type: application/json' \\
       -d '{"name": "web.search", "input": {"query": "europa clipper", "maxResults": 3}}'
""",
    "evaluate": """examples:
  lightsearch evaluate --world cranfield --max-queries 20
""",
    "sources": """examples:
  lightsearch sources add https://blog.example.org/ --language en
  lightsearch sources list
  lightsearch sources check
  lightsearch sources remove user-blog-example-org
  lightsearch sources describe --out catalog.summary.json     # needs a network
""",
}


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


def _setting(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key.strip(), value


def parser() -> argparse.ArgumentParser:
    from lightsearch.plan.request import RECENCY_WINDOWS
    from lightsearch.surfaces.tools import FORMATS, NEWS_WHEN

    top = argparse.ArgumentParser(prog="lightsearch", description="Keyless web search and page reading for AI "
                                  "agents.", epilog=EXAMPLES[None], formatter_class=_Formatter)
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help, epilog=EXAMPLES[name], formatter_class=_Formatter)
        if name != "evaluate":
            p.add_argument("-s", "--set", dest="settings", action="append", type=_setting, default=[],
                           metavar="KEY=VALUE", help="a setting (docs/SETTINGS.md); beats the environment")
        if name not in ("tools", "evaluate"):
            p.add_argument("--offline", action="store_true", help="serve the bundled offline origins on loopback")
        return p

    def output(p: argparse.ArgumentParser, choices: Sequence[str] = ("table", "json", "jsonl", "text")) -> None:
        p.add_argument("-o", "--output", choices=choices, default=choices[0],
                       help="table for people, json / jsonl for programs, text: what a model reads")

    p = command("search", "search the web and print ranked, cited hits")
    p.add_argument("queries", nargs="+", metavar="QUERY", help="one or more queries (up to 5, fused)")
    p.add_argument("--max-results", type=int, default=None, metavar="N", help="hits, 1-20 (WEB_SEARCH_MAX_RESULTS)")
    p.add_argument("--recency", choices=list(RECENCY_WINDOWS), default=None, help="prefer recent pages")
    p.add_argument("--provider", default=None, help="light, brave, ... (WEB_SEARCH_PROVIDER)")
    output(p)

    p = command("news", "search recent news (web_news)")
    p.add_argument("query", metavar="QUERY")
    p.add_argument("--when", choices=NEWS_WHEN, default="1d", help="how recent")
    p.add_argument("--max-results", type=int, default=None, metavar="N", help="hits, 1-20 (WEB_SEARCH_MAX_RESULTS)")
    output(p)

    p = command("fetch", "read public web pages as clean, bounded text (web_fetch)")
    p.add_argument("url", metavar="URL", nargs="+", help="one URL, or several read together")
    p.add_argument("--max-chars", type=int, default=None, metavar="N", help="characters (WEB_FETCH_MAX_CHARS)")
    p.add_argument("--start-index", type=int, default=0, metavar="K", help="character offset to read on from")
    p.add_argument("--raw", action="store_true", help="the body of a text type, without extraction")
    p.add_argument("--markdown", action="store_true", help="the main text as Markdown")
    p.add_argument("--head-tail", action="store_true", help="a long page's start and end in one read")
    output(p, ("text", "json", "jsonl", "table"))

    p = command("tools", "print the tool definitions for function calling")
    p.add_argument("--format", choices=FORMATS, default="mcp", help="the function-calling dialect")

    command("mcp", "serve the tools over MCP on stdin/stdout")

    p = command("serve", "serve MCP (streamable HTTP, /mcp) and POST /api/skills/invoke")
    p.add_argument("--host", default="127.0.0.1", help="bind address; off loopback needs LIGHTSEARCH_API_TOKEN")
    p.add_argument("--port", type=int, default=8765, help="port (0: any free port, printed on stderr)")
    p.add_argument("--workers", type=int, default=1, metavar="N",
                   help="worker processes behind the address (share state with LIGHTSEARCH_REDIS_URL)")
    # a worker of --workers: listens with SO_REUSEPORT and says so on its supervisor's pipe
    p.add_argument("--reuse-port", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--ready-fd", type=int, default=None, help=argparse.SUPPRESS)

    p = command("evaluate", "run a judged query set (the scrapy evaluate command)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the options of `scrapy evaluate`")

    p = command("sources", "your own sites beside the bundled catalog, and the source descriptions")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    user_file = argparse.ArgumentParser(add_help=False)
    user_file.add_argument("--file", default=None, metavar="PATH",
                           help="the user catalog (default: LIGHT_CATALOG_EXTRA, else "
                                "$XDG_CONFIG_HOME/lightsearch/sources.json)")
    user_file.add_argument("-o", "--output", choices=("table", "json"), default="table")
    a = actions.add_parser("add", parents=[user_file], help="probe a site and add it to the user catalog")
    a.add_argument("url", metavar="URL", help="the site's home page")
    a.add_argument("--name", default=None, help="the source's name (default: the site's own)")
    a.add_argument("--language", default=None, help="en or he (default: what the page declares)")
    a.add_argument("--kind", default=None, help="reference, government, news, science or technology")
    actions.add_parser("list", parents=[user_file], help="the user catalog's sources")
    a = actions.add_parser("check", parents=[user_file], help="probe the user catalog's sources again")
    a.add_argument("ids", nargs="*", metavar="ID", help="only these sources")
    a = actions.add_parser("remove", parents=[user_file], help="remove a source from the user catalog")
    a.add_argument("source_id", metavar="ID")
    a = actions.add_parser("describe", help="prebuild a catalog's source descriptions (summary file)")
    a.add_argument("--catalog", default=None, metavar="PATH", help="the catalog (default: LIGHT_CATALOG or "
                   "the bundled one)")
    a.add_argument("--out", default=None, metavar="PATH", help="the summary file (default: "
                   "<catalog>.summary.json beside the catalog)")
    a.add_argument("--recorded", default=None, metavar="MAP", help="describe from recorded feeds and sitemaps: "
                   "a JSON map of URL -> file (relative to --data)")
    a.add_argument("--data", default=None, metavar="DIR", help="where the recorded files are")
    a.add_argument("-o", "--output", choices=("table", "json"), default="table")
    return top


# ------------------------------------------------------------------------ output
def _console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(stderr=stderr, soft_wrap=False, highlight=False)


def _progress_wanted() -> bool:
    return sys.stdout.isatty() and sys.stderr.isatty()


class Spinner:
    """A stderr spinner that appears after a second (terminals only)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.status: Any = None

    async def __call__(self, elapsed: float, message: str) -> None:
        if not _progress_wanted():
            return
        text = f"{self.label} {elapsed:.0f} s"
        if self.status is None:
            self.status = _console(stderr=True).status(text)
            self.status.start()
        else:
            self.status.update(text)

    def stop(self) -> None:
        if self.status is not None:
            self.status.stop()


def search_table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(title=f"{result.get('query', '')}", show_lines=False, expand=False)
    for col in ("#", "title", "source", "date", "url"):
        table.add_column(col, overflow="fold")
    for i, h in enumerate(result.get("hits", []), 1):
        date = (h.get("publishedAt") or h.get("modifiedAt") or "")[:10] or "-"
        table.add_row(str(i), h.get("title") or "", h.get("sourceName") or h.get("source") or "", date, h.get("url", ""))
    return table


def search_summary(result: dict[str, Any]) -> str:
    meta = (result.get("meta") or {}).get("lightSearch")
    parts = [f"{len(result.get('hits', []))} hits", f"provider {result.get('provider')}",
             f"coverage {result.get('coverage', {}).get('level')}", f"stop {result.get('stopReason')}"]
    if meta:
        consulted, selected = meta["sources"]["consulted"], meta["sources"]["selected"]
        parts[1:1] = [f"sources consulted {len(consulted)}/{len(selected)}", f"hops {meta['counts']['requests']}",
                      f"{meta.get('elapsedMs', 0) / 1000:.2f} s"]
    return " | ".join(parts)


def fetch_table(result: dict[str, Any]) -> Any:
    from rich.table import Table

    table = Table(show_header=False)
    table.add_column("field")
    table.add_column("value", overflow="fold")
    for key in ("url", "title", "contentType", "publishedAt", "totalChars", "startIndex", "nextStartIndex",
                "truncated"):
        table.add_row(key, str(result.get(key)))
    return table


def emit(command: str, result: dict[str, Any], fmt: str) -> int:
    """Print ``result``; 1 for an error (or any failed page of several), else 0."""
    result = for_command_line(result)
    if "error" in result:
        if fmt in ("json", "jsonl"):
            print(json.dumps({"error": result["error"]}, ensure_ascii=False, indent=2 if fmt == "json" else None))
        else:
            err = result["error"]
            print(f"ERROR: {err['code']}: {err['message']}", file=sys.stderr)
        return 1
    if fmt == "json":
        print(json.dumps(result, ensure_ascii=False, indent=2))
    elif fmt == "jsonl":
        rows = result["hits"] if command in ("search", "news") else result.get("results", [result])
        for row in rows:
            print(json.dumps(row, ensure_ascii=False))
    elif fmt == "text":
        print(result["text"])
    else:
        console = _console()
        if command in ("search", "news"):
            if result.get("hits"):
                console.print(search_table(result))
            else:
                console.print(f"No results for {result.get('query')!r}.")
            console.print(search_summary(result))
        else:
            for page in result.get("results", [result]):
                if "error" in page:
                    console.print(f"{page.get('url')}: ERROR: {page['error']['code']}: {page['error']['message']}",
                                  markup=False)
                    continue
                console.print(fetch_table(page))
                console.print(page.get("content", ""), markup=False)
    return 1 if result.get("failed") else 0


# ------------------------------------------------------------------------ commands
def _toolbox(opts: argparse.Namespace, extra: dict[str, Any] | None = None) -> Any:
    from lightsearch.surfaces.tools import Toolbox

    cmdline = dict(opts.settings)
    cmdline.setdefault("LOG_LEVEL", "ERROR")
    cmdline.update(extra or {})
    return Toolbox.from_environ(cmdline, offline=getattr(opts, "offline", False))


def _toolbox_settings(opts: argparse.Namespace) -> Any:
    """The settings a worker will run with (environment and ``-s``), without starting one."""
    from lightsearch.providers.light import make_settings
    from lightsearch.surfaces.environment import resolve

    return make_settings(resolve(dict(opts.settings)))


async def _run_tool(opts: argparse.Namespace) -> dict[str, Any]:
    from lightsearch.surfaces.tools import error_result, with_progress

    extra = {"WEB_SEARCH_PROVIDER": opts.provider} if getattr(opts, "provider", None) else {}
    spinner = Spinner({"search": "searching", "news": "searching news", "fetch": "fetching"}[opts.command])
    try:
        async with _toolbox(opts, extra) as box:
            if opts.command == "search":
                work = box.search_many(opts.queries, max_results=opts.max_results, recency=opts.recency)
            elif opts.command == "news":
                args = {"query": opts.query, "when": opts.when}
                if opts.max_results is not None:
                    args["maxResults"] = opts.max_results
                work = box.call("web_news", args)
            else:
                box.tool("web_fetch")
                work = box.fetch_page(opts.url[0] if len(opts.url) == 1 else opts.url, max_chars=opts.max_chars, start_index=opts.start_index, raw=opts.raw,
                                      **({"markdown": True} if opts.markdown else {}),
                                      **({"head_tail": True} if opts.head_tail else {}))
            return await with_progress(work, spinner, opts.command)
    except LightSearchError as exc:
        return error_result(exc)
    finally:
        spinner.stop()


async def _sources(opts: argparse.Namespace) -> dict[str, Any]:
    from pathlib import Path

    from lightsearch.surfaces import sources
    from lightsearch.surfaces.environment import resolve

    overrides = resolve(dict(opts.settings))
    overrides.setdefault("LOG_LEVEL", "ERROR")
    origins = None
    if opts.offline:
        from lightsearch.offline_origins.server import OfflineOrigins

        origins = OfflineOrigins().start()
        overrides.update(origins.settings())
    try:
        if opts.action == "describe":
            return await sources.describe_catalog(
                overrides, catalog_path=opts.catalog or overrides.get("LIGHT_CATALOG"),
                out=Path(opts.out) if opts.out else None, recorded=Path(opts.recorded) if opts.recorded else None,
                data_dir=Path(opts.data) if opts.data else None)
        path = opts.file or overrides.get("LIGHT_CATALOG_EXTRA") or sources.default_user_catalog()
        if path is None:
            raise LightSearchError("invalid_input", "no user catalog: give --file, or set LIGHT_CATALOG_EXTRA "
                                   "(or HOME)", {"parameter": "--file"})
        path = Path(path)
        if opts.action == "add":
            return await sources.add(path, opts.url, overrides, name=opts.name, language=opts.language,
                                     kind=opts.kind)
        if opts.action == "check":
            return await sources.check(path, overrides, opts.ids)
        if opts.action == "remove":
            return sources.remove(path, opts.source_id)
        return {"catalog": str(path), "sources": sources.entries(path)}
    finally:
        if origins is not None:
            origins.stop()


def sources_report(opts: argparse.Namespace, result: dict[str, Any]) -> int:
    if opts.output == "json":
        print(json.dumps(result, ensure_ascii=False, indent=2))
    elif opts.action == "add":
        entry = result["added"]
        print(f"added {entry['id']} ({entry['name']}, {entry['language']}, {entry['kind']}) to {result['catalog']}")
        for key, found in entry["evidence"].items():
            if isinstance(found, dict):
                for url, why in found.items():
                    print(f"  {key}: {url}: {why}")
            else:
                print(f"  {key}: {found}")
        for err in result["sourceErrors"]:
            print(f"  not read: {err['url']}: {err['code']}")
    elif opts.action == "list":
        if not result["sources"]:
            print(f"no sources in {result['catalog']}")
        for entry in result["sources"]:
            print(f"{entry['id']}\t{entry['name']}\t{entry['language']}\t{entry['kind']}\t{entry['seeds'][0]}\t"
                  f"feeds {len(entry.get('feeds', []))}, sitemaps {len(entry.get('sitemaps', []))}")
    elif opts.action == "check":
        for row in result["sources"]:
            detail = row.get("message") or ", ".join(f"{k} changed" for k in row.get("changes", {}))
            print(f"{row['id']}\t{row['status']}" + (f"\t{detail}" if detail else ""))
    elif opts.action == "remove":
        print(f"removed {result['removed']} from {result['catalog']}")
    else:
        print(f"described {result['sources']} sources from {result['documents']} documents into {result['summary']}")
    failing = opts.action == "check" and any(r["status"] == "failing" for r in result["sources"])
    return 1 if failing else 0


def main(argv: Sequence[str] | None = None) -> int:
    opts = parser().parse_args(argv)
    if opts.command == "evaluate":
        from scrapy.cmdline import execute

        execute(["scrapy", "evaluate", *opts.args])  # exits with the command's status
        return 0
    try:
        if opts.command in ("search", "news", "fetch"):
            return emit(opts.command, asyncio.run(_run_tool(opts)), opts.output)
        if opts.command == "sources":
            return sources_report(opts, asyncio.run(_sources(opts)))
        if opts.command == "tools":
            print(json.dumps(_toolbox(opts).definitions(opts.format), ensure_ascii=False, indent=2))
            return 0
        if opts.command == "mcp":
            from lightsearch.surfaces.mcp_server import run_stdio

            asyncio.run(run_stdio(_toolbox(opts)))
            return 0
        if opts.command == "serve":
            from lightsearch.surfaces.environment import api_token
            from lightsearch.surfaces.web import check_bind, serve

            token = api_token()
            check_bind(opts.host, token)
            if opts.workers < 1 or opts.workers > 64:
                raise LightSearchError("invalid_input", f"--workers must be between 1 and 64, got {opts.workers}",
                                       {"parameter": "--workers"})
            if opts.workers > 1 and opts.ready_fd is None:
                from lightsearch.fleet import fleet_url
                from lightsearch.surfaces.workers import serve_workers

                shared = bool(fleet_url(_toolbox_settings(opts)))
                args = [a for pair in opts.settings for a in ("-s", f"{pair[0]}={pair[1]}")]
                return serve_workers(opts.workers, opts.host, opts.port, args, offline=opts.offline, shared=shared)
            sock = None
            if opts.reuse_port:
                from lightsearch.surfaces.workers import listening_socket, signal_ready

                sock = listening_socket(opts.host, opts.port, reuse_port=True)
                if opts.ready_fd is not None:
                    signal_ready(opts.ready_fd)
            with contextlib.suppress(KeyboardInterrupt):
                asyncio.run(serve(_toolbox(opts), host=opts.host, port=opts.port, token=token, sock=sock))
            return 0
    except LightSearchError as exc:
        err = for_command_line(exc.to_dict())["error"]
        print(f"ERROR: {err['code']}: {err['message']}", file=sys.stderr)
        return 2
    return 2  # pragma: no cover


if __name__ == "__main__":
    sys.exit(main())
