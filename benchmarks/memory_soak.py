"""Does a long-lived server give its memory back? RSS of one ``lightsearch serve`` process
through hundreds of calls on its invoke endpoint (``POST /api/skills/invoke``).

The server is a real subprocess; the sites it reads are served from this process on
loopback (the offline origins' server, ``LIGHT_HOST_MAP``), with three shapes:

- ``fetches``: ordinary ``web_fetch`` calls, a tiny page, then 500 KiB of plain text, in
  turn, over eight hosts, four callers at once. The target: the main process's RSS after
  the last call over its RSS after the first 20 is at most +32 MiB
  (docs/UNTRUSTED_WORK.md, the memory envelope).
- ``robots``: fetches of hosts whose robots.txt is 449 KiB (20,000 wildcard rules: under
  the 500 KiB a robots.txt may have), one host each.
- ``searches``: Light searches of a catalog whose source's home page, at a URL of 1,900
  characters, is 32 KiB with 2,700 relative links (each resolves to a 1.9 KiB URL: 5 MiB of
  links a parse), sent again with each request and never cacheable, so each search parses
  it anew; a second source answers the query.

RSS is read from /proc/<pid>/status (VmRSS) after each step; the pool's workers are
reported apart (their sum). ``--python`` runs the same server under other interpreters
(another checkout's venv: the code it imports is that checkout's), one after the other.

    python benchmarks/memory_soak.py
    python benchmarks/memory_soak.py --python /work/main/.venv/bin/python --python .venv/bin/python
    python benchmarks/memory_soak.py --fetches 200 --searches 20 --robots 10 --json
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROBOTS_ALLOW = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}
TINY_HOSTS = [f"tiny-{i}.soak.test" for i in range(8)]
WIDE = "wide.soak.test"
HEALTHY = "healthy.soak.test"
WIDE_PATH = "/" + "d" * 1900 + "/"
QUERY = "glacier moraine sediment"


def tiny_page(host: str) -> bytes:
    return (f"<!doctype html><html lang='en'><head><title>Tiny page of {host}</title></head><body><article>"
            "<h1>Tiny page</h1><p>A short page about glacier moraine sediment, one paragraph long, "
            "measured in the field.</p></article></body></html>").encode()


TEXT = ("Plain text about tides and harbours, line after line of it, as a long log would be.\n" * 6200)[:500 * 1024]


def big_robots() -> str:
    rules = "".join(f"Disallow: /*ab{i:05d}*c$\n" for i in range(20_000))  # 449 KiB in all
    return "User-agent: *\nAllow: /page\n" + rules


def wide_page(nonce: str) -> bytes:
    links = "".join(f"<a href={i:x}>" for i in range(2700))
    return (f"<!doctype html><html><head><title>Wide {nonce}</title></head><body>{links}</body></html>").encode()


def wide_handler(request: Any) -> None:
    body = wide_page(uuid.uuid4().hex)
    request.send_response(200)
    request.send_header("Content-Type", "text/html; charset=utf-8")
    request.send_header("Content-Length", str(len(body)))
    request.send_header("Cache-Control", "no-store")
    request.end_headers()
    if request.command != "HEAD":
        request.wfile.write(body)


def serve_sites(robots_hosts: list[str]) -> tuple[Any, dict[str, Any]]:
    """The offline origins with the soak's sites; their settings for the server."""
    sys.path.insert(0, str(ROOT))
    from lightsearch.offline_origins.server import OfflineOrigins

    origins = OfflineOrigins().start()
    for host in TINY_HOSTS:
        origins.add_site(host, {"/robots.txt": ROBOTS_ALLOW, "/tiny": {"body": tiny_page(host)},
                                "/text": {"body": TEXT, "type": "text/plain; charset=utf-8"}})
    robots = {"body": big_robots(), "type": "text/plain"}
    for host in robots_hosts:
        origins.add_site(host, {"/robots.txt": robots, "/page": {"body": tiny_page(host)}})
    origins.add_site(WIDE, {"/robots.txt": ROBOTS_ALLOW, WIDE_PATH: {"handler": wide_handler}})
    origins.add_site(HEALTHY, {"/robots.txt": ROBOTS_ALLOW,
                               "/": {"body": b"<!doctype html><html><body><a href='/moraine'>glacier moraine "
                                             b"sediment notes</a></body></html>"},
                               "/moraine": {"body": tiny_page(HEALTHY) * 3}})
    catalog = {"id": "soak", "version": "1", "sources": [
        {"id": "wide", "name": "Wide", "language": "en", "kind": "news", "origins": [f"https://{WIDE}"],
         "seeds": [f"https://{WIDE}{WIDE_PATH}"]},
        {"id": "healthy", "name": "Healthy", "language": "en", "kind": "news", "origins": [f"https://{HEALTHY}"],
         "seeds": [f"https://{HEALTHY}/"]},
    ]}
    path = Path(tempfile.mkdtemp(prefix="memory-soak-")) / "catalog.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    return origins, {**origins.settings(), "LIGHT_CATALOG": str(path), "LOG_LEVEL": "ERROR",
                     "WEB_TOOLS_FETCHES_PER_MINUTE": 0, "WEB_TOOLS_SEARCHES_PER_MINUTE": 0}


class Server:
    def __init__(self, python: str, settings: dict[str, Any]) -> None:
        args = []
        for key, value in settings.items():
            args += ["-s", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_"))}
        # Started outside any checkout: ``-m`` puts the working directory first on the path,
        # and the code served must be the interpreter's own.
        self.proc = subprocess.Popen([python, "-m", "lightsearch.surfaces.cli", "serve", "--port", "0", *args],
                                     env=env, cwd=tempfile.gettempdir(), stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        if "serving on http://" not in line:
            self.proc.kill()
            raise RuntimeError(line + self.proc.communicate(timeout=30)[1][-2000:])
        self.port = int(line.split("serving on ", 1)[1].split(" ", 1)[0].rsplit(":", 1)[1])
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()
        self.local = threading.local()

    def rss_mib(self, pid: int | None = None) -> float:
        for line in Path(f"/proc/{pid or self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
        return float("nan")

    def workers_mib(self) -> float:
        """The pool's processes: every descendant of the server, summed."""
        total, todo = 0.0, [self.proc.pid]
        while todo:
            pid = todo.pop()
            children: list[str] = []
            for task in Path(f"/proc/{pid}/task").glob("*"):
                try:
                    children += (task / "children").read_text().split()
                except OSError:
                    continue
            for child in map(int, children):
                todo.append(child)
                with contextlib.suppress(OSError):
                    total += self.rss_mib(child)
        return round(total, 1)

    def invoke(self, name: str, arguments: dict[str, Any], timeout: float = 120) -> dict[str, Any]:
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = self.local.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        body = json.dumps({"name": name, "input": arguments}).encode()
        try:
            conn.request("POST", "/api/skills/invoke", body=body, headers={"content-type": "application/json"})
            return json.loads(conn.getresponse().read())
        except (OSError, http.client.HTTPException, ValueError) as exc:
            conn.close()
            self.local.conn = None
            return {"ok": False, "error": {"code": type(exc).__name__}}

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def run(python: str, fetches: int, searches: int, robots: int, callers: int) -> dict[str, Any]:
    robots_hosts = [f"robots-{i}.soak.test" for i in range(robots)]
    origins, settings = serve_sites(robots_hosts)
    server = Server(python, settings)
    report: dict[str, Any] = {"python": python, "errors": {}}

    def note(result: dict[str, Any]) -> None:
        if not result.get("ok"):
            code = str((result.get("error") or {}).get("code"))
            report["errors"][code] = report["errors"].get(code, 0) + 1

    try:
        started = time.monotonic()
        report["rss_start_mib"] = server.rss_mib()
        urls = [f"https://{TINY_HOSTS[i % len(TINY_HOSTS)]}/{'tiny' if i % 2 == 0 else 'text'}" for i in range(fetches)]
        samples: dict[int, float] = {}
        with ThreadPoolExecutor(callers) as pool:
            for done, result in enumerate(pool.map(lambda u: server.invoke("web.fetch", {"url": u}), urls), 1):
                note(result)
                if done == 20 or done % 100 == 0 or done == fetches:
                    samples[done] = server.rss_mib()
        report["fetch_secs"] = round(time.monotonic() - started, 1)
        report["fetch_rss_mib"] = samples
        first = samples.get(20, report["rss_start_mib"])
        report["fetch_growth_mib"] = round(samples[fetches] - first, 1)

        before = server.rss_mib()
        for host in robots_hosts:
            note(server.invoke("web.fetch", {"url": f"https://{host}/page"}))
        report["robots_rss_mib"] = (before, server.rss_mib())

        before = server.rss_mib()
        found = 0
        for i in range(searches):
            result = server.invoke("web.search", {"query": f"{QUERY} {i % 3}"})
            note(result)
            found += bool(result.get("ok") and result["output"].get("hits"))
        report["search_rss_mib"] = (before, server.rss_mib())
        report["searches_with_hits"] = f"{found}/{searches}"
        report["workers_rss_mib"] = server.workers_mib()
        report["rss_end_mib"] = server.rss_mib()
    finally:
        server.stop()
        origins.stop()
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", help="interpreter to run the server with (repeatable)")
    parser.add_argument("--fetches", type=int, default=500)
    parser.add_argument("--searches", type=int, default=60)
    parser.add_argument("--robots", type=int, default=30)
    parser.add_argument("--callers", type=int, default=4, help="fetches sent at once")
    parser.add_argument("--json", action="store_true", help="print the reports as JSON")
    args = parser.parse_args()
    reports = [run(python, args.fetches, args.searches, args.robots, args.callers)
               for python in (args.python or [sys.executable])]
    if args.json:
        print(json.dumps(reports, indent=2))
        return 0
    for r in reports:
        fetch = r["fetch_rss_mib"]
        print(f"{r['python']}")
        print(f"  {args.fetches} fetches in {r['fetch_secs']} s: RSS {r['rss_start_mib']} MiB at start, "
              + ", ".join(f"{v} after {k}" for k, v in fetch.items())
              + f"; after {args.fetches} over after 20: {r['fetch_growth_mib']:+} MiB (target <= +32)")
        print(f"  {args.robots} fetches of 449 KiB robots.txt: RSS {r['robots_rss_mib'][0]} -> {r['robots_rss_mib'][1]} MiB")
        print(f"  {args.searches} searches of 2,700-link pages: RSS {r['search_rss_mib'][0]} -> "
              f"{r['search_rss_mib'][1]} MiB ({r['searches_with_hits']} with hits)")
        print(f"  workers {r['workers_rss_mib']} MiB in all at the end; errors {r['errors'] or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
