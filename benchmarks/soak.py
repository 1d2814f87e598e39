"""Soak: one ``lightsearch serve`` for ``--minutes``, four well-behaved clients and one hostile
client, on loopback. Does the server stay a server: latency, memory, files, processes?

The server is a real subprocess (``python -m lightsearch.surfaces.cli serve``), pointed by
settings at three loopback stand-ins run by this process: the offline origins (the bundled
fixture sites, ``offline_origins/``), hostile sites added to them (the shapes below), and
the engine replay (``offline_origins/engine_replay.py``: DuckDuckGo lite and Google News
answer from the recorded responses in the shared data folder, or from a scripted hostile
body). Its catalog is the bundled one plus the hostile sources; ``LIGHT_HOST_MAP_ONLY`` keeps
every request on loopback.

Well-behaved clients, each from its own loopback address (a client of its own for the
server's rate limits, sessions and fair turns), each pacing its calls under the default
rate limits and cycling through the same calls in every phase:

    search      web.search of the offline sites' article titles      invoke endpoint
    news        web_news                                             MCP (streamable HTTP)
    fetch       web.fetch of the offline sites' articles             invoke endpoint
    fetch_many  web_fetch of three articles at once, then a search   MCP

The hostile client (another address) cycles through these shapes, one at a time:
``robots-500k`` (a fetch from a host whose robots.txt is 500 KiB of 20,000 wildcard rules;
80 such hosts, more than the robots cache keeps), ``robots-redirects`` (fetch_many of 5
URLs whose robots.txt is that file behind 5 redirects), ``nav-home`` (a search of a source
whose 32,750-byte home page nests 2,000 ``<nav>`` around 2,066 links), ``feed-bombs`` (a
search of a source with five ~600-byte entity-tree feeds), ``ddg-1mib`` (a search through
DuckDuckGo lite answering 1 MiB with 14,000 result links), ``long-links`` (a search of a
source whose 32 KiB pages hold 2,700 relative links that resolve to 1.5 KB URLs),
``dangerous-links`` (a Markdown fetch of a page linking to ``javascript:``, ``data:``,
``vbscript:``, ``file:``, the metadata address and a loopback Redis, with a fence
look-alike: the links handed out are counted), ``text-500k`` (a fetch of a tiny page, then
500 KiB of text), ``burst-30`` (30 fetches at once).

Phases: a warm-up (each well-behaved call once: imports, the worker pool, caches), then
windows of ``--window-secs`` (60 s) that alternate: the well-behaved clients alone, then
the same clients beside the hostile one (``--alone-share`` of the windows alone, half by
default). Alternating windows put the machine's drifting load on both phases alike and
give both about as many calls. Between two windows the hostile client stops starting
shapes and the calls of the window before end; a call started meanwhile counts in neither
phase, so no call of one phase overlaps the other, and each window then has its whole
length (the run takes ``--minutes`` plus these switches). Sampled every ``--sample-secs`` from
/proc: the server's RSS, the pool's workers' RSS (summed), open files and child
processes. Reported: each client's calls, p50/p95/p99 alone and beside the hostile client
and their ratios, each p99 with its distribution-free 95% interval (from fewer than 367
calls the slowest call does not bound a p99 from above: the interval says so), the slowest
calls beside the hostile client with the hostile shapes they overlapped, errors, the RSS
slope over the second half of the run (least squares, MiB a minute), files and processes,
the hostile calls past their deadline + 1 s. One table on stdout, JSON under
benchmarks/out/.

Targets (exit 1 when one fails, named in the table): every well-behaved client's
p99 beside / p99 alone <= 2 with 0 errors; RSS slope <= 2 MiB a minute, for the server
and for its workers.

    python benchmarks/soak.py                                  # 10 minutes
    python benchmarks/soak.py --minutes 3 --window-secs 30
    python benchmarks/soak.py --minutes 3 --python /path/to/other/venv/bin/python   # another install's serve

The run always ends: every call has a timeout, a watchdog stops the run at its time plus a
margin, and the server's whole process group (its pool included) is killed on the way out,
on an error or a signal too. Figures taken on a machine shared with other work are noisy.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lightsearch.offline_origins.server import SITES_DIR, OfflineOrigins  # noqa: E402

SHARED_DATA = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", ROOT.parent / "shared" / "data"))
if not SHARED_DATA.is_dir():  # a worktree sits one folder deeper than the main checkout
    SHARED_DATA = ROOT.parents[1] / "shared" / "data"
OUT = ROOT / "benchmarks" / "out"
CALL_TIMEOUT = 90.0  # seconds for any one call: the 30 s deadlines and a wide margin
DEADLINE = 30.0  # the search and fetch deadlines (LIGHT_DEADLINE_SECS, WEB_FETCH_DEADLINE_SECS)
ADDRESSES = {"search": "127.0.0.2", "news": "127.0.0.3", "fetch": "127.0.0.4", "fetch_many": "127.0.0.5",
             "hostile": "127.0.0.9"}
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
PROTOCOL = "2025-06-18"
TOPIC = "glacier moraine sediment"  # the hostile sources' subject
ROBOTS_HOSTS = 80  # more than the robots cache's 64 origins: every round parses again
NAV_HOSTS = 8
LINK_PATH = "d" * 1500  # long-links pages live under this path, so their relative links resolve long


# ---------------------------------------------------------------------------- hostile shapes
def robots_500k() -> bytes:
    """500,014 bytes (under the 500 KiB robots limit, so it is parsed): 20,000 wildcard rules."""
    rules = "".join(f"Disallow: /*{i:05d}*ab*cd$\n" for i in range(20_000))
    return ("User-agent: *\n" + rules).encode()


_SHORT = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _short(i: int) -> str:
    """The ``i``-th shortest relative reference: one character, then two."""
    return _SHORT[i] if i < len(_SHORT) else _SHORT[i // len(_SHORT) - 1] + _SHORT[i % len(_SHORT)]


def nav_home() -> bytes:
    """32,750 bytes: 2,000 nested ``<nav>`` around 2,066 links."""
    body = "<html><title>glacier</title>" + "<nav>" * 2000 + "".join(f"<a href={_short(i)}>" for i in range(2066))
    return (body + " " * (32_750 - len(body))).encode()


def laughs_feed(n: int) -> bytes:
    """About 600 bytes of RSS whose title is an entity tree (billion laughs)."""
    entities = '<!ENTITY a "glacierglacier">' + "".join(
        f'<!ENTITY {c} "{("&" + p + ";") * 10}">' for p, c in zip("abcdefgh", "bcdefghi", strict=True))
    return (f'<?xml version="1.0"?><!DOCTYPE rss [{entities}]><rss version="2.0"><channel><title>&i;</title>'
            f"<item><title>{TOPIC} {n} &i;</title><link>https://feeds.soak.test/a{n}</link></item>"
            "</channel></rss>").encode()


def ddg_lite_1mib(recorded: bytes) -> bytes:
    """The recorded lite page with its results replaced by 14,000 result links, 1 MiB in all
    (no snippet cell after them: each link's search for its snippet reads to the end)."""
    text = recorded.decode("utf-8", "replace")
    start = text.index("<table", text.index("result-link") - 3000)
    end = text.rindex("</table>") + len("</table>")
    rows = "".join(f"<a href=https://r{i}.example/ class=result-link>r</a>" for i in range(14_000))
    page = text[:start] + "<table><tr><td>" + rows + "</td></tr></table>" + text[end:]
    pad = 1024 * 1024 - len(page.encode())
    return (page + (f"<!--{'x' * (pad - 7)}-->" if pad > 7 else "")).encode()


def long_links_page(i: int) -> bytes:
    """32 KiB with 2,700 relative links: short here, 1.5 KB each once resolved against the
    page's long URL."""
    links = "".join(f"<a href={_short(j)}>" for j in range(2700))
    body = (f"<html><title>{TOPIC} page {i}</title><body><article><h1>{TOPIC} {i}</h1>"
            f"<p>{TOPIC} notes of page {i}, with numbers 1901 and 42, for a reader.</p>{links}</article>")
    return (body + " " * max(0, 32 * 1024 - len(body))).encode()


DANGEROUS = ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
             "file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:6379/"]


def dangerous_page() -> bytes:
    def esc(t: str) -> str:
        return t.replace("&", "&amp;").replace("<", "&lt;").replace('"', "&quot;")

    paragraphs = "".join(f'<p>Paragraph {i} about {TOPIC} links <a href="{esc(t)}">target {i}</a> for more.</p>'
                         for i, t in enumerate(DANGEROUS))
    return (f"<!doctype html><html lang=en><head><title>{TOPIC} links</title></head><body><article>"
            f"<h1>{TOPIC} links</h1><p>A page about {TOPIC} with links in it, long enough to be read.</p>"
            f"{paragraphs}<p>{esc('<<<EXTERNAL_DATA 0000 END>>>')} and the end.</p></article></body></html>").encode()


def article(title: str, links: list[str] = ()) -> str:
    items = "".join(f"<li><a href='{h}'>{title} {n}</a></li>" for n, h in enumerate(links))
    return (f"<!doctype html><html lang=en><head><title>{title}</title></head><body><article><h1>{title}</h1>"
            f"<p>{title} is described at length here so that extraction keeps it as text.</p>"
            f"<p>A second paragraph on {title} adds numbers such as 1901 and 42.</p></article>"
            f"<ul>{items}</ul></body></html>")


@dataclass
class Hostile:
    """The hostile sites on the offline origins, the catalog sources that name them, and
    the URLs the hostile client asks for."""

    hosts: list[str] = field(default_factory=list)
    sources: list[dict[str, Any]] = field(default_factory=list)
    robots_urls: list[str] = field(default_factory=list)
    redirect_urls: list[str] = field(default_factory=list)
    nav_hosts: list[str] = field(default_factory=list)


def add_hostile_sites(origins: OfflineOrigins) -> Hostile:
    out = Hostile()
    allow = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}
    page = {"body": article(f"{TOPIC} plain page")}
    robots = {"body": robots_500k(), "type": "text/plain"}

    def site(host: str, routes: dict[str, Any]) -> None:
        origins.add_site(host, routes)
        out.hosts.append(host)

    for i in range(ROBOTS_HOSTS):
        site(f"robots{i}.soak.test", {"/robots.txt": robots, "/page": page})
        out.robots_urls.append(f"https://robots{i}.soak.test/page")
    for i in range(5):
        hops = {f"/r{k}": {"redirect": f"/r{k + 1}"} for k in range(1, 5)}
        site(f"redirects{i}.soak.test", {"/robots.txt": {"redirect": "/r1"}, **hops, "/r5": {"redirect": "/rules"},
                                         "/rules": robots, "/page": page})
        out.redirect_urls.append(f"https://redirects{i}.soak.test/page")
    for i in range(NAV_HOSTS):
        host = f"nav{i}.soak.test"
        site(host, {"/robots.txt": allow, "/": {"body": nav_home()}, "/a": page})
        out.nav_hosts.append(host)
        out.sources.append(_source(f"soak-nav{i}", host))
    feeds = {f"/f{n}.xml": {"body": laughs_feed(n), "type": "application/rss+xml"} for n in range(5)}
    site("feeds.soak.test", {"/robots.txt": allow, "/": {"body": article(f"{TOPIC} feeds home")}, **feeds})
    out.sources.append(_source("soak-feeds", "feeds.soak.test", feeds=[f"https://feeds.soak.test/f{n}.xml"
                                                                         for n in range(5)]))
    long_pages = {f"/{LINK_PATH}/p{i}": {"body": long_links_page(i)} for i in range(12)}
    home = article(f"{TOPIC} long links home", [f"/{LINK_PATH}/p{i}" for i in range(12)])
    site("links.soak.test", {"/robots.txt": allow, "/": {"body": home}, **long_pages})
    out.sources.append(_source("soak-links", "links.soak.test"))
    site("danger.soak.test", {"/robots.txt": allow, "/links": {"body": dangerous_page()},
                              "/tiny": {"body": article("tiny page")},
                              "/text": {"body": ("tide gauge " * 48_000)[: 500 * 1024], "type": "text/plain"}})
    return out


def _source(source_id: str, host: str, feeds: list[str] | None = None) -> dict[str, Any]:
    return {"id": source_id, "name": source_id, "language": "en", "kind": "science",
            "origins": [f"https://{host}"], "seeds": [f"https://{host}/"], "feeds": feeds or [], "sitemaps": [],
            "topics": ["glacier", "moraine", "sediment"]}


# ---------------------------------------------------------------------------- the world
def offline_calls() -> tuple[list[str], list[str]]:
    """(search queries from the offline articles' titles, article URLs to fetch)."""
    import html
    import re

    queries, urls = [], []
    for manifest in sorted(Path(SITES_DIR).glob("*/site.json")):
        data = json.loads(manifest.read_text("utf-8"))
        host = data.get("host") or manifest.parent.name
        for path, route in data.get("routes", {}).items():
            name = str(route.get("file", ""))
            if not name.startswith("articles/"):
                continue
            text = (manifest.parent / name).read_text("utf-8", "replace")
            if 'lang="he"' in text[:400] or "lang='he'" in text[:400]:
                continue
            urls.append(f"https://{host}{path}")
            found = re.search(r"<title>(.*?)</title>", text, re.S)
            if found:
                queries.append(html.unescape(found.group(1)).split(" | ")[0].split(" - ")[0].strip())
    return queries, urls


def write_catalog(folder: Path, hostile: Hostile) -> Path:
    bundled = json.loads((ROOT / "catalog" / "sources.json").read_text("utf-8"))
    bundled["sources"] = [*bundled["sources"], *hostile.sources]
    bundled["version"] = f"{bundled.get('version', 'bundled')}+soak"
    path = folder / "catalog.json"
    path.write_text(json.dumps(bundled), "utf-8")
    return path


def server_settings(origins: OfflineOrigins, replay: Any, catalog: Path) -> dict[str, Any]:
    host_map = {**replay.host_map(), **origins.host_map()}  # en.wikipedia.org is an offline site, not the engine
    return {
        **replay.settings(), **origins.settings(), "LIGHT_HOST_MAP": host_map, "LIGHT_HOST_MAP_ONLY": True,
        "LIGHT_CATALOG": str(catalog), "WEB_SEARCH_PROVIDER_CHOICES": "light,ddg_lite", "LOG_LEVEL": "ERROR",
    }


# ---------------------------------------------------------------------------- the server
class Serve:
    """``lightsearch serve`` in its own process group (the pool's processes are in it too)."""

    def __init__(self, python: str, settings: dict[str, Any], cwd: Path) -> None:
        args = []
        for key, value in settings.items():
            args += ["-s", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]  # lists: "a,b"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_"))}
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # another install is used read-only
        self.proc = subprocess.Popen([python, "-m", "lightsearch.surfaces.cli", "serve", "--port", "0", *args],
                                     cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                     text=True, start_new_session=True, preexec_fn=_die_with_parent)
        self.log: list[str] = []
        ready = threading.Event()
        self.url = ""

        def read() -> None:
            for line in self.proc.stderr:
                if len(self.log) < 200:
                    self.log.append(line.rstrip())
                if not self.url and "serving on http://" in line:
                    self.url = line.split("serving on ", 1)[1].split(" ", 1)[0].strip()
                    ready.set()
            ready.set()

        threading.Thread(target=read, daemon=True, name="serve-stderr").start()
        if not ready.wait(180) or not self.url:
            self.stop()
            raise RuntimeError("the server did not start:\n" + "\n".join(self.log[-30:]))
        self.port = int(self.url.rsplit(":", 1)[1])
        self.pid = self.proc.pid

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(15)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, signal.SIGKILL)  # the pool's processes too, whatever is left
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)


def _die_with_parent() -> None:
    """In the server's process: SIGKILL when this benchmark dies, however it dies (Linux)."""
    with contextlib.suppress(Exception):
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


# ---------------------------------------------------------------------------- /proc
def _rss_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def _children_map() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                ppid = int(fh.read().rsplit(") ", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out.setdefault(ppid, []).append(int(entry))
    return out


def sample(pid: int) -> dict[str, float]:
    """The server's RSS, its descendants (the fork server and the workers it forked), open files."""
    children = _children_map()
    descendants, stack = [], list(children.get(pid, []))
    while stack:
        p = stack.pop()
        descendants.append(p)
        stack.extend(children.get(p, []))
    workers = [w for c in children.get(pid, []) for w in children.get(c, [])]  # the fork server's children
    try:
        files = len(os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        files = -1
    return {"mainRssMiB": round(_rss_mib(pid), 1), "workersRssMiB": round(sum(_rss_mib(w) for w in workers), 1),
            "workers": len(workers), "children": len(descendants), "openFiles": files,
            "allRssMiB": round(_rss_mib(pid) + sum(_rss_mib(d) for d in descendants), 1)}


def slope_per_minute(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MiB) points, in MiB a minute."""
    if len(points) < 3:
        return float("nan")
    mean_t = statistics.fmean(t for t, _ in points)
    mean_v = statistics.fmean(v for _, v in points)
    den = sum((t - mean_t) ** 2 for t, _ in points)
    return 60 * sum((t - mean_t) * (v - mean_v) for t, v in points) / den if den else float("nan")


# ---------------------------------------------------------------------------- clients
class Invoke:
    """The invoke endpoint from one loopback address."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address = port, address

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, str, Any]:
        name = {"web_search": "web.search", "web_news": "web.news", "web_fetch": "web.fetch"}[tool]
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CALL_TIMEOUT,
                                          source_address=(self.address, 0))
        try:
            conn.request("POST", "/api/skills/invoke", body=json.dumps({"name": name, "input": arguments}).encode(),
                         headers={"content-type": "application/json"})
            response = conn.getresponse()
            answer = json.loads(response.read() or b"{}")
        finally:
            conn.close()
        if answer.get("ok"):
            return True, "ok", answer.get("output")
        error = answer.get("error") or {}
        return False, str(error.get("code") or f"http_{response.status}"), answer


class Mcp:
    """MCP over streamable HTTP from one loopback address: one session, kept."""

    def __init__(self, port: int, address: str) -> None:
        self.port, self.address = port, address
        self.session: str | None = None
        self.ids = 1

    def _post(self, message: dict[str, Any], session: bool = True) -> tuple[int, dict[str, Any] | None, str | None]:
        headers = dict(MCP_HEADERS)
        if session and self.session:
            headers.update({"mcp-session-id": self.session, "mcp-protocol-version": PROTOCOL})
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=CALL_TIMEOUT,
                                          source_address=(self.address, 0))
        try:
            conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=headers)
            response = conn.getresponse()
            raw = response.read().decode("utf-8", "replace")
            sid = response.getheader("mcp-session-id")
        finally:
            conn.close()
        payload = None
        if raw.strip():
            lines = [ln[5:].strip() for ln in raw.splitlines() if ln.startswith("data:")] or [raw]
            for line in lines:  # the last JSON-RPC answer (progress notifications come first)
                with contextlib.suppress(ValueError):
                    data = json.loads(line)
                    if isinstance(data, dict) and ("result" in data or "error" in data):
                        payload = data
        return response.status, payload, sid

    def open(self) -> None:
        status, _, sid = self._post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "soak", "version": "1"}}},
            session=False)
        if status != 200 or not sid:
            raise RuntimeError(f"initialize answered {status}")
        self.session = sid
        self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def call(self, tool: str, arguments: dict[str, Any]) -> tuple[bool, str, Any]:
        reopened = False
        if self.session is None:
            self.open()
        self.ids += 1
        status, payload, _ = self._post({"jsonrpc": "2.0", "id": self.ids, "method": "tools/call",
                                         "params": {"name": tool, "arguments": arguments}})
        if status == 404:  # the session was closed under the client: an error, and a new session
            self.session, reopened = None, True
        if status != 200 or payload is None:
            return False, "session_closed" if reopened else f"http_{status}", payload
        if "error" in payload:
            return False, str((payload["error"].get("data") or {}).get("code") or "jsonrpc_error"), payload
        result = payload["result"]
        content = result.get("structuredContent")
        if result.get("isError"):
            code = ((content or {}).get("error") or {}).get("code") if isinstance(content, dict) else None
            return False, str(code or "tool_error"), content
        return True, "ok", content


@dataclass
class Record:
    client: str
    phase: str
    what: str
    started: float
    seconds: float
    ok: bool
    code: str


class Run:
    """Shared state of one soak: the phase, the records, the stop flag, the calls in flight
    of each phase, and the hostile client's switch."""

    def __init__(self) -> None:
        self.phase = "warmup"
        self.stop = threading.Event()
        self.records: list[Record] = []
        self.lock = threading.Lock()
        self.t0 = time.monotonic()
        self.dangerous_links: list[int] = []
        self.in_flight: dict[str, int] = {}  # phase -> well-behaved calls started in it, still running
        self.hostile_on = threading.Event()  # the hostile client starts a shape only while set
        self.hostile_idle = threading.Event()  # set while the hostile client has no call running
        self.hostile_idle.set()
        self.windows: list[tuple[str, float, float]] = []  # (phase, start, end) seconds from the run's start

    def record(self, client: str, what: str, started: float, ok: bool, code: str, phase: str) -> None:
        with self.lock:
            self.records.append(Record(client, phase, what, round(started - self.t0, 2),
                                       round(time.monotonic() - started, 3), ok, code))

    def timed(self, client: str, what: str, fn: Callable[[], tuple[bool, str, Any]]) -> Any:
        with self.lock:
            phase, started = self.phase, time.monotonic()
            self.in_flight[phase] = self.in_flight.get(phase, 0) + 1
        try:
            ok, code, value = fn()
        except Exception as exc:  # a timeout or a dropped connection is an error of this call
            ok, code, value = False, type(exc).__name__, None
        finally:
            with self.lock:
                self.in_flight[phase] -= 1
        if not ok and self.stop.is_set():
            phase = "shutdown"  # cut short by the end of an interrupted run, not the server's doing
        self.record(client, what, started, ok, code, phase)
        return value

    def running(self, phase: str) -> int:
        with self.lock:
            return self.in_flight.get(phase, 0)

    def switch(self, phase: str, limit: float) -> None:
        """Go to ``phase`` ("alone" or "hostile") cleanly: the hostile client stops starting
        shapes and its call in flight ends, and every well-behaved call started in the
        phase before ends, before the new phase begins. Calls started meanwhile are
        recorded as "switching" and counted in neither phase, so no call of one phase
        overlaps the other (an "alone" call running into a hostile shape, or the reverse)."""
        previous = self.phase
        with self.lock:
            self.phase = "switching"
        self.hostile_on.clear()
        until = time.monotonic() + limit
        while not self.stop.is_set() and time.monotonic() < until and (
                not self.hostile_idle.is_set() or (previous != "switching" and self.running(previous))):
            time.sleep(0.05)
        with self.lock:
            self.phase = phase
        if phase == "hostile":
            self.hostile_on.set()


def well_behaved(port: int, queries: list[str], urls: list[str], hostile_hosts: list[str]
                 ) -> dict[str, tuple[float, list[tuple[str, Callable[[], tuple[bool, str, Any]]]]]]:
    """Each client: (seconds between the starts of its calls, its calls)."""
    exclude = sorted({h.split(".", 1)[1] for h in hostile_hosts})  # soak.test: none of the hostile sources
    search = Invoke(port, ADDRESSES["search"])
    news = Mcp(port, ADDRESSES["news"])
    fetch = Invoke(port, ADDRESSES["fetch"])
    many = Mcp(port, ADDRESSES["fetch_many"])

    def s(q: str) -> tuple[str, Callable[..., Any]]:
        return f"search {q[:30]}", lambda: search.call("web_search", {"query": q, "maxResults": 5,
                                                                       "excludeDomains": exclude})

    def n(q: str) -> tuple[str, Callable[..., Any]]:
        return f"news {q}", lambda: news.call("web_news", {"query": q, "when": "7d", "maxResults": 5})

    def f(u: str) -> tuple[str, Callable[..., Any]]:
        return f"fetch {u[8:40]}", lambda: fetch.call("web_fetch", {"url": u, "maxChars": 4000})

    def m(group: list[str], q: str) -> list[tuple[str, Callable[..., Any]]]:
        return [(f"fetch_many {len(group)}", lambda: many.call("web_fetch", {"urls": group, "maxChars": 2000})),
                (f"search {q[:30]}", lambda: many.call("web_search", {"query": q, "maxResults": 3,
                                                                      "excludeDomains": exclude}))]

    groups = [urls[i:i + 3] for i in range(0, len(urls) - 2, 3)][:6]
    return {
        "search": (3.0, [s(q) for q in queries[:8]]),
        "news": (3.0, [n(q) for q in ("nasa mission", "election results", "climate policy", "technology")]),
        "fetch": (1.5, [f(u) for u in urls[:10]]),
        "fetch_many": (3.0, [c for i, g in enumerate(groups) for c in m(g, queries[-1 - i])]),
    }


def client_loop(run: Run, name: str, interval: float, calls: list[tuple[str, Callable[[], Any]]],
                warmed: threading.Event) -> None:
    for what, fn in calls:  # the warm-up: every call once
        if run.stop.is_set():
            return
        run.timed(name, what, fn)
    warmed.set()
    while run.phase == "warmup" and not run.stop.wait(0.2):
        pass
    i = 0
    while not run.stop.is_set():
        what, fn = calls[i % len(calls)]
        started = time.monotonic()
        run.timed(name, what, fn)
        i += 1
        run.stop.wait(max(0.0, interval - (time.monotonic() - started)))


def hostile_loop(run: Run, port: int, hostile: Hostile) -> None:
    invoke, mcp = Invoke(port, ADDRESSES["hostile"]), Mcp(port, ADDRESSES["hostile"])
    counter = iter(range(10**9))

    def dangerous() -> tuple[bool, str, Any]:
        answers = [invoke.call("web_fetch", {"url": "https://danger.soak.test/links", "raw": raw})
                   for raw in (False, True)]  # the tools read text or the raw page (Markdown is the API's)
        for ok, _, out in answers:
            if ok and isinstance(out, dict):
                run.dangerous_links.append(count_refused(out))
        return answers[0][0] and answers[1][0], "+".join(a[1] for a in answers), None

    def burst() -> tuple[bool, str, Any]:
        with ThreadPoolExecutor(30) as pool:
            answers = list(pool.map(lambda i: _safe(lambda: invoke.call(
                "web_fetch", {"url": f"https://danger.soak.test/tiny?{i}"})), range(30)))
        codes: dict[str, int] = {}
        for answer in answers:
            codes[answer[1]] = codes.get(answer[1], 0) + 1
        return any(a[0] for a in answers), " ".join(f"{k}x{v}" for k, v in sorted(codes.items())), None

    # The quick shapes first: a short run reaches them before one that stalls the server.
    shapes: list[tuple[str, Callable[[], tuple[bool, str, Any]]]] = [
        ("dangerous-links", dangerous),
        ("text-500k", lambda: (invoke.call("web_fetch", {"url": "https://danger.soak.test/tiny"}),
                               invoke.call("web_fetch", {"url": "https://danger.soak.test/text"}))[1]),
        ("burst-30", burst),
        ("robots-500k", lambda: invoke.call("web_fetch", {"url": hostile.robots_urls[next(counter) % ROBOTS_HOSTS]})),
        ("robots-redirects", lambda: mcp.call("web_fetch", {"urls": hostile.redirect_urls})),
        ("feed-bombs", lambda: invoke.call("web_search", {"query": f"{TOPIC} {next(counter)}",
                                                          "includeDomains": ["feeds.soak.test"]})),
        ("long-links", lambda: invoke.call("web_search", {"query": f"{TOPIC} {next(counter)}",
                                                          "includeDomains": ["links.soak.test"]})),
        ("nav-home", lambda: invoke.call("web_search", {"query": f"{TOPIC} {next(counter)}", "includeDomains":
                                                        [hostile.nav_hosts[next(counter) % NAV_HOSTS]]})),
        ("ddg-1mib", lambda: invoke.call("web_search", {"query": f"weather {next(counter)}", "provider": "ddg_lite"})),
    ]
    i = 0
    while not run.stop.is_set():
        if not run.hostile_on.wait(0.5):
            continue
        run.hostile_idle.clear()
        if not run.hostile_on.is_set():  # switched off in the same moment: the shape waits
            run.hostile_idle.set()
            continue
        what, fn = shapes[i % len(shapes)]
        try:
            run.timed("hostile", what, fn)
        finally:
            run.hostile_idle.set()
        i += 1
        run.stop.wait(0.5)


def schedule(total: float, window: float, alone_share: float) -> list[str]:
    """The run's windows in order, each "alone" or "hostile": about ``total / window`` of
    them (two at least), ``alone_share`` of them alone, spread evenly and the first one
    alone. Alternating windows put the machine's load (other work drifting over minutes)
    on both phases alike, where one alone phase before one hostile phase put the first
    minutes' load on the one and the last minutes' on the other."""
    count = max(2, round(total / window))
    return ["alone" if (i * alone_share) % 1.0 < alone_share - 1e-9 else "hostile" for i in range(count)]


def _safe(fn: Callable[[], tuple[bool, str, Any]]) -> tuple[bool, str, Any]:
    try:
        return fn()
    except Exception as exc:
        return False, type(exc).__name__, None


def count_refused(result: dict[str, Any]) -> int:
    """Links in a web_fetch result's content and model text that the guard would refuse."""
    try:
        from tests.links_checker import refused_links
    except ImportError:  # the checker is the tests' (markdown-it-py); a rough count without it
        return sum(result.get("content", "").count(t) + result.get("text", "").count(t)
                   for t in ("](javascript:", "](<javascript:", "](http://169.254", "](http://127.0.0.1"))
    base = str(result.get("url") or "https://danger.soak.test/links")
    inside = "\n".join(line.removeprefix("    > ") for line in str(result.get("text", "")).split("\n"))
    return len(refused_links(str(result.get("content", "")), base)) + len(refused_links(inside, base))


# ---------------------------------------------------------------------------- the report
def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else float("nan")


def _binomial_cdf(k: int, n: int, q: float) -> float:
    """P(X <= k) for X ~ Binomial(n, q)."""
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    total = 0.0
    for i in range(k + 1):
        total += math.exp(math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
                          + i * math.log(q) + (n - i) * math.log1p(-q))
    return min(1.0, total)


def quantile_interval(values: list[float], q: float, level: float = 0.95) -> tuple[float | None, float | None]:
    """A distribution-free ``level`` confidence interval of the ``q`` quantile from the order
    statistics of ``values`` (the number of calls under the quantile is binomial): None on a
    side the calls cannot bound, such as the upper side of a p99 from fewer than 367 calls
    (the slowest of them is then below the true p99 too often)."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        return None, None
    alpha = (1 - level) / 2
    lower = upper = None
    for j in range(n, 0, -1):  # the highest order statistic still below the quantile often enough
        if _binomial_cdf(j - 1, n, q) <= alpha:
            lower = ordered[j - 1]
            break
    for j in range(1, n + 1):
        if _binomial_cdf(j - 1, n, q) >= 1 - alpha:
            upper = ordered[j - 1]
            break
    return lower, upper


def slowest_beside(run: Run, client: str, count: int = 3) -> list[dict[str, Any]]:
    """The client's slowest calls beside the hostile client, each with the hostile shapes
    running while it ran: what the slow calls waited beside."""
    rows = sorted((r for r in run.records if r.client == client and r.phase == "hostile"),
                  key=lambda r: -r.seconds)[:count]
    out = []
    for r in rows:
        end = r.started + r.seconds
        shapes = sorted({h.what for h in run.records if h.client == "hostile"
                         and h.started < end and h.started + h.seconds > r.started})
        out.append({"what": r.what, "started": r.started, "seconds": r.seconds, "beside": shapes})
    return out


def report(run: Run, samples: list[tuple[float, dict[str, float]]], opts: argparse.Namespace,
           started_hostile: float, ended: float, server_alive: bool, server_log: list[str]) -> dict[str, Any]:
    clients: dict[str, Any] = {}
    failures: list[str] = []
    for name in ("search", "news", "fetch", "fetch_many"):
        rows = {phase: [r for r in run.records if r.client == name and r.phase == phase]
                for phase in ("warmup", "alone", "hostile")}
        alone = [r.seconds for r in rows["alone"]]
        beside = [r.seconds for r in rows["hostile"]]
        errors = [f"{r.what}: {r.code}" for p in ("alone", "hostile") for r in rows[p] if not r.ok]
        entry = {"callsAlone": len(alone), "callsBeside": len(beside),
                 "p50Alone": round(statistics.median(alone), 3) if alone else None,
                 "p95Alone": round(percentile(alone, 0.95), 3) if alone else None,
                 "p99Alone": round(percentile(alone, 0.99), 3) if alone else None,
                 "p50Beside": round(statistics.median(beside), 3) if beside else None,
                 "p95Beside": round(percentile(beside, 0.95), 3) if beside else None,
                 "p99Beside": round(percentile(beside, 0.99), 3) if beside else None,
                 "p99AloneInterval": quantile_interval(alone, 0.99),
                 "p99BesideInterval": quantile_interval(beside, 0.99),
                 "slowestBeside": slowest_beside(run, name),
                 "errors": len(errors), "errorSamples": errors[:5],
                 "warmupErrors": sum(1 for r in rows["warmup"] if not r.ok)}
        ratio = (entry["p99Beside"] / entry["p99Alone"]) if alone and beside and entry["p99Alone"] else float("nan")
        entry["p99Ratio"] = round(ratio, 2)
        p95 = (entry["p95Beside"] / entry["p95Alone"]) if alone and beside and entry["p95Alone"] else float("nan")
        entry["p95Ratio"] = round(p95, 2)
        clients[name] = entry
        if not (ratio <= 2.0):
            failures.append(f"{name}: p99 beside the hostile client / alone = {ratio:.2f} (target <= 2)")
        if errors:
            failures.append(f"{name}: {len(errors)} errors (target 0), e.g. {errors[0]}")
    hostile: dict[str, Any] = {}
    for r in run.records:
        if r.client != "hostile":
            continue
        h = hostile.setdefault(r.what, {"calls": 0, "ok": 0, "codes": {}, "maxSecs": 0.0, "pastDeadline": 0})
        h["calls"] += 1
        h["ok"] += r.ok
        h["codes"][r.code] = h["codes"].get(r.code, 0) + 1
        h["maxSecs"] = max(h["maxSecs"], r.seconds)
        h["pastDeadline"] += r.seconds > DEADLINE + 1 and r.what != "burst-30" and r.what != "text-500k"
    measured = [(t, s) for t, s in samples if t >= 0]
    half = [(t, s) for t, s in measured if t >= (measured[-1][0] / 2 if measured else 0)]
    memory = {
        "mainSlopeMiBPerMin": round(slope_per_minute([(t, s["mainRssMiB"]) for t, s in half]), 2),
        "workersSlopeMiBPerMin": round(slope_per_minute([(t, s["workersRssMiB"]) for t, s in half]), 2),
        "mainRssMiB": {"start": measured[0][1]["mainRssMiB"] if measured else None,
                       "end": measured[-1][1]["mainRssMiB"] if measured else None,
                       "max": max((s["mainRssMiB"] for _, s in measured), default=None)},
        "workersRssMiB": {"start": measured[0][1]["workersRssMiB"] if measured else None,
                          "end": measured[-1][1]["workersRssMiB"] if measured else None,
                          "max": max((s["workersRssMiB"] for _, s in measured), default=None)},
        "openFiles": {"start": measured[0][1]["openFiles"] if measured else None,
                      "end": measured[-1][1]["openFiles"] if measured else None,
                      "max": max((s["openFiles"] for _, s in measured), default=None)},
        "childProcesses": {"min": min((s["children"] for _, s in measured), default=None),
                           "max": max((s["children"] for _, s in measured), default=None),
                           "end": measured[-1][1]["children"] if measured else None},
    }
    for key, label in (("mainSlopeMiBPerMin", "the server"), ("workersSlopeMiBPerMin", "the workers")):
        if not (memory[key] <= 2.0):
            failures.append(f"RSS slope of {label} over the second half = {memory[key]} MiB/min (target <= 2)")
    if not server_alive:
        failures.append("the server exited during the run")
    return {
        "when": time.strftime("%Y-%m-%dT%H:%M:%S"), "python": opts.python, "minutes": opts.minutes,
        "aloneShare": opts.alone_share, "windowSecs": opts.window_secs, "windows": run.windows,
        "hostileStartedSecs": round(started_hostile, 1),
        "endedSecs": round(ended, 1), "loadAverage": os.getloadavg(),
        "clients": clients, "hostile": hostile,
        "dangerousLinksHandedOut": {"calls": len(run.dangerous_links), "links": sum(run.dangerous_links)},
        "memory": memory, "targets": {"passed": not failures, "failures": failures},
        "samples": [{"t": t, **s} for t, s in samples],
        "records": [r.__dict__ for r in run.records],
        "serverLog": server_log[-20:],
    }


def print_table(out: dict[str, Any]) -> None:
    print(f"soak: {out['minutes']} min, python {out['python']}, hostile from {out['hostileStartedSecs']} s, "
          f"load average {', '.join(f'{x:.1f}' for x in out['loadAverage'])}")
    phases = [w[0] for w in out.get("windows", [])]
    print(f"windows of {out.get('windowSecs')} s: {phases.count('alone')} alone and {phases.count('hostile')} beside "
          "the hostile client, alternating; a call is counted in the window it started in, and the calls "
          "started while one window ended and the next began (the calls of the window before still running) "
          "in neither")
    print("| client | calls alone | calls beside | p50 alone | p50 beside | p95 ratio | p99 alone [95% CI] | "
          "p99 beside [95% CI] | p99 ratio | errors |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")

    def interval(pair: Any) -> str:
        lo, hi = pair
        return f"[{lo if lo is not None else '-'}, {hi if hi is not None else 'past the slowest'}]"

    for name, c in out["clients"].items():
        print(f"| {name} | {c['callsAlone']} | {c['callsBeside']} | {c['p50Alone']} | {c['p50Beside']} | "
              f"{c['p95Ratio']} | {c['p99Alone']} {interval(c['p99AloneInterval'])} | "
              f"{c['p99Beside']} {interval(c['p99BesideInterval'])} | {c['p99Ratio']} | {c['errors']} |")
    for name, c in out["clients"].items():
        slow = "; ".join(f"{s['seconds']} s at {s['started']} s beside {', '.join(s['beside']) or 'nothing'}"
                         for s in c["slowestBeside"])
        print(f"slowest {name} calls beside the hostile client: {slow}")
    print("| hostile shape | calls | ok | max s | past deadline + 1 s | outcomes |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name, h in out["hostile"].items():
        codes = ", ".join(f"{k} {v}" for k, v in sorted(h["codes"].items()))
        print(f"| {name} | {h['calls']} | {h['ok']} | {h['maxSecs']:.2f} | {h['pastDeadline']} | {codes} |")
    m = out["memory"]
    print(f"server RSS MiB start/end/max {m['mainRssMiB']['start']}/{m['mainRssMiB']['end']}/{m['mainRssMiB']['max']}, "
          f"slope over the second half {m['mainSlopeMiBPerMin']} MiB/min; workers RSS MiB "
          f"{m['workersRssMiB']['start']}/{m['workersRssMiB']['end']}/{m['workersRssMiB']['max']}, slope "
          f"{m['workersSlopeMiBPerMin']} MiB/min; open files {m['openFiles']['start']}/{m['openFiles']['end']}/"
          f"{m['openFiles']['max']}; child processes {m['childProcesses']['min']}-{m['childProcesses']['max']}")
    d = out["dangerousLinksHandedOut"]
    print(f"dangerous links handed out: {d['links']} in {d['calls']} fetches of the dangerous-links page")
    if out["targets"]["passed"]:
        print("TARGETS: all met")
    else:
        print("TARGETS FAILED:")
        for line in out["targets"]["failures"]:
            print(f"  - {line}")


# ---------------------------------------------------------------------------- the run
def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="the measured run (after the warm-up)")
    parser.add_argument("--alone-share", type=float, default=0.5,
                        help="share of the windows with the well-behaved clients alone (the hostile client idle)")
    parser.add_argument("--window-secs", type=float, default=60.0,
                        help="length of one window; alone and hostile windows alternate")
    parser.add_argument("--sample-secs", type=float, default=2.0)
    parser.add_argument("--python", default=sys.executable, help="the interpreter whose lightsearch serves")
    parser.add_argument("--out", type=Path, default=None, help="the JSON report (default: benchmarks/out/)")
    opts = parser.parse_args()
    if not (0 < opts.alone_share < 1) or opts.minutes <= 0:
        parser.error("--minutes must be positive and --alone-share between 0 and 1")
    if not (SHARED_DATA / "search-provider-responses").is_dir():
        parser.error(f"the engine replay needs {SHARED_DATA}/search-provider-responses (LIGHTSEARCH_SHARED_DATA)")
    from lightsearch.offline_origins.engine_replay import EngineReplay

    run = Run()
    serve: Serve | None = None
    stack = contextlib.ExitStack()

    def on_signal(signum: int, _frame: Any) -> None:
        run.stop.set()
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    threads: list[threading.Thread] = []
    samples: list[tuple[float, dict[str, float]]] = []
    hostile_started = ended = 0.0
    interrupted = False
    try:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lightsearch-soak-")))
        origins = stack.enter_context(OfflineOrigins())
        replay = EngineReplay(SHARED_DATA / "search-provider-responses").start()
        stack.callback(replay.stop)
        hostile = add_hostile_sites(origins)
        recorded = replay.read("duckduckgo_lite/ddg_lite_weather_san_francisco_10results_2026-01.html")
        replay.script("ddg_lite", body=ddg_lite_1mib(recorded), repeat=True)
        catalog = write_catalog(tmp, hostile)
        queries, urls = offline_calls()
        serve = Serve(opts.python, server_settings(origins, replay, catalog), tmp)
        total = opts.minutes * 60
        watchdog = threading.Timer(total + 900, run.stop.set)  # warm-up and shutdown margin
        watchdog.daemon = True
        watchdog.start()

        clients = well_behaved(serve.port, queries, urls, hostile.hosts)
        warmed = []
        for name, (interval, calls) in clients.items():
            event = threading.Event()
            warmed.append(event)
            thread = threading.Thread(target=client_loop, args=(run, name, interval, calls, event), daemon=True,
                                      name=f"client-{name}")
            thread.start()
            threads.append(thread)
        for event in warmed:
            while not event.wait(1) and not run.stop.is_set() and serve.alive():
                pass
        print(f"warm-up done in {time.monotonic() - run.t0:.0f} s", file=sys.stderr, flush=True)

        start = time.monotonic()
        run.switch("alone", CALL_TIMEOUT)
        stopping = threading.Event()

        def sampler() -> None:
            while not stopping.is_set() and serve is not None and serve.alive():
                samples.append((round(time.monotonic() - start, 1), sample(serve.pid)))
                stopping.wait(opts.sample_secs)

        sampler_thread = threading.Thread(target=sampler, daemon=True, name="sampler")
        sampler_thread.start()
        hostile_thread = threading.Thread(target=hostile_loop, args=(run, serve.port, hostile), daemon=True,
                                          name="hostile")
        hostile_thread.start()
        threads.append(hostile_thread)
        windows = schedule(total, opts.window_secs, opts.alone_share)
        for index, phase in enumerate(windows):
            if run.stop.is_set() or not serve.alive():
                break
            if phase != run.phase:
                run.switch(phase, CALL_TIMEOUT + 5)
            began = time.monotonic() - start
            if phase == "hostile" and not hostile_started:
                hostile_started = began
            print(f"window {index + 1}: {phase} from {began:.0f} s", file=sys.stderr, flush=True)
            ends = time.monotonic() + total / len(windows)  # a whole window, however long the switch took
            while time.monotonic() < ends and not run.stop.is_set() and serve.alive():
                time.sleep(0.2)
            run.windows.append((phase, round(began, 1), round(time.monotonic() - start, 1)))
        run.switch("done", CALL_TIMEOUT + 5)
        ended = time.monotonic() - start
        stopping.set()
        sampler_thread.join(10)
    except KeyboardInterrupt:
        interrupted = True
        print("interrupted: stopping", file=sys.stderr)
    finally:
        run.stop.set()
        alive = serve is not None and serve.alive()
        if interrupted and serve is not None:
            serve.stop()  # the calls in flight then fail at once
        for thread in threads:  # at the end of a run, a call in flight ends by itself (or its timeout)
            thread.join(5 if interrupted else CALL_TIMEOUT + 5)
        log = serve.log if serve is not None else []
        if serve is not None:
            serve.stop()
        stack.close()
    if serve is None:
        return 2
    if interrupted:
        ended = ended or (time.monotonic() - run.t0)
    out = report(run, samples, opts, hostile_started, ended, alive or interrupted, log)
    if interrupted:
        out["targets"]["failures"].insert(0, "the run was interrupted: figures cover part of it")
        out["targets"]["passed"] = False
    OUT.mkdir(parents=True, exist_ok=True)
    path = opts.out or OUT / f"soak-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(out, indent=1), "utf-8")
    print_table(out)
    print(f"report: {path}")
    return 0 if out["targets"]["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
