"""One loopback server that plays many web sites, over HTTP and HTTPS.

Fixture sites live in ``sites/<host>/`` with a ``site.json`` route table; the server picks
the site by the ``Host`` header (and, for HTTPS, the TLS server name, answering with a
certificate for that host signed by a CA made at start with trustme). Routes can script
the behaviour real origins have and crawlers must survive: latency, status codes,
redirects, cache headers, slow drips, truncated bodies, compression. A route's ``gate``
(a ``threading.Event`` or ``threading.Barrier`` a test holds) keeps its answer back until
the test opens it, so a test waits on that event instead of on a delay a busy machine can
outrun. The server runs in threads of its own so that it never shares an event loop with
the crawl it serves.
"""

from __future__ import annotations

import gzip
import json
import os
import random
import socket
import ssl
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import trustme

SITES_DIR = Path(__file__).resolve().parent / "sites"

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".htm": "text/html; charset=utf-8",
    ".xml": "application/xml",
    ".rss": "application/rss+xml",
    ".atom": "application/atom+xml",
    ".txt": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".gz": "application/gzip",
}

Handler = Callable[["_RequestHandler"], None]

# The longest a gated answer waits for its test to open the gate (the suite's per-test limit).
GATE_SECS = 300.0


@dataclass
class Site:
    host: str
    root: Path | None
    routes: dict[str, dict[str, Any]] = field(default_factory=dict)
    source_id: str | None = None
    articles: list[dict[str, Any]] = field(default_factory=list)


def load_sites(sites_dir: Path = SITES_DIR) -> dict[str, Site]:
    sites: dict[str, Site] = {}
    if not sites_dir.is_dir():
        return sites
    for manifest in sorted(sites_dir.glob("*/site.json")):
        data = json.loads(manifest.read_text(encoding="utf-8"))
        host = data.get("host") or manifest.parent.name
        sites[host.lower()] = Site(
            host=host.lower(),
            root=manifest.parent,
            routes=dict(data.get("routes", {})),
            source_id=data.get("source_id"),
            articles=list(data.get("articles", [])),
        )
    return sites


class _RequestHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read server.log
        pass

    def handle_one_request(self) -> None:
        started = time.thread_time()
        try:
            super().handle_one_request()
        finally:
            self.server.origins.spent(time.thread_time() - started)

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        origins: OfflineOrigins = self.server.origins
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]").lower()
        origins._enter(host)
        self._open_host: str | None = host
        try:
            origins._record(host, self.path, self.server.scheme, self.headers)
            site = origins.sites.get(host)
            if site is None:
                self._send_simple(421, f"no site for host {host!r}\n")
                return
            route = origins._match(site, self.path)
            if route is None:
                self._send_simple(404, "<!doctype html><title>Not found</title><h1>Page not found</h1>\n",
                                  "text/html; charset=utf-8")
                return
            origins._serve(self, site, route)
        finally:
            self.release()

    def release(self) -> None:
        """End this request's count in ``open_now`` before its response is written, so a
        client that sends its next request the moment a body ends is not miscounted."""
        if self._open_host is not None:
            self.server.origins._leave(self._open_host)
            self._open_host = None

    def _send_simple(self, status: int, text: str, ctype: str = "text/plain; charset=utf-8") -> None:
        body = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP(S) server on 127.0.0.1 with a free port; TLS when given a context."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, handler: type[BaseHTTPRequestHandler], tls: ssl.SSLContext | None) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.tls = tls

    def finish_request(self, request: socket.socket, client_address: Any) -> None:
        # A handler writes the head and the body apart; with Nagle's algorithm on, the body
        # of every second response on a kept-alive connection waited for the client's
        # delayed ACK of the head (tens of milliseconds on Linux: docs/EVALUATION.md). Real
        # servers (nginx, Apache, Go, Node) send without that wait.
        request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        # The TLS handshake runs in the worker thread, never in the accept loop.
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        started = time.thread_time()
        try:
            wrapped = self.tls.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            request.close()
            return
        finally:
            spent = getattr(getattr(self, "origins", None), "spent", None)
            if spent is not None:
                spent(time.thread_time() - started)
        try:
            super().finish_request(wrapped, client_address)
        finally:
            wrapped.close()


class _Server(LoopbackServer):
    def __init__(self, origins: OfflineOrigins, scheme: str, tls: ssl.SSLContext | None) -> None:
        super().__init__(_RequestHandler, tls)
        self.origins = origins
        self.scheme = scheme


class OfflineOrigins:
    """The fixture web: start it, hand its :meth:`settings` to a crawl, stop it."""

    def __init__(
        self,
        sites_dir: Path | str | None = None,
        *,
        latency: float = 0.0,
        jitter: float = 0.0,
        bandwidth: float = 0.0,
        seed: int = 0,
    ) -> None:
        self.sites = load_sites(Path(sites_dir) if sites_dir else SITES_DIR)
        self.latency = latency
        self.jitter = jitter
        self.bandwidth = bandwidth  # bytes per second per response; 0 means unlimited
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self.log: list[dict[str, Any]] = []
        self.open_now: dict[str, int] = defaultdict(int)
        self.open_max: dict[str, int] = defaultdict(int)
        self._ca = trustme.CA()
        self._certs: dict[str, ssl.SSLContext] = {}
        self._servers: list[_Server] = []
        self._threads: list[threading.Thread] = []
        self.ca_file: str | None = None
        self._forget_ca: Any = lambda: None
        # Hosts whose certificate names another host (a TLS failure the client must refuse).
        self.wrong_name_hosts: set[str] = set()
        self.http_port = 0
        self.https_port = 0
        # CPU the fixture web spent serving (its threads live in the caller's process), so
        # a benchmark can tell the search's CPU from the simulated sites'
        self.cpu_seconds = 0.0

    def spent(self, seconds: float) -> None:
        with self._lock:
            self.cpu_seconds += seconds

    # ----------------------------------------------------------------- life cycle
    def start(self) -> OfflineOrigins:
        import tempfile

        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._ca.issue_cert("offline-origins.invalid").configure_cert(tls)
        tls.sni_callback = self._sni
        fd, path = tempfile.mkstemp(prefix="lightsearch-test-ca-", suffix=".pem")
        with open(fd, "wb") as fh:
            fh.write(self._ca.cert_pem.bytes())
        self.ca_file = path
        from lightsearch.surfaces.exits import on_hard_exit

        # a command ended at once (a second Ctrl-C) leaves no CA file behind either
        self._forget_ca = on_hard_exit(lambda: os.unlink(path))
        for scheme, ctx in (("http", None), ("https", tls)):
            server = _Server(self, scheme, ctx)
            thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                      name=f"offline-origins-{scheme}", daemon=True)
            thread.start()
            self._servers.append(server)
            self._threads.append(thread)
        self.http_port = self._servers[0].server_address[1]
        self.https_port = self._servers[1].server_address[1]
        return self

    def stop(self) -> None:
        for server in self._servers:
            server.shutdown()
            server.server_close()
        self._servers.clear()
        if self.ca_file:
            Path(self.ca_file).unlink(missing_ok=True)
            self.ca_file = None
            self._forget_ca()

    def __enter__(self) -> OfflineOrigins:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ----------------------------------------------------------------- configuration
    def host_map(self) -> dict[str, dict[str, str]]:
        return {
            host: {"http": f"127.0.0.1:{self.http_port}", "https": f"127.0.0.1:{self.https_port}"}
            for host in self.sites
        }

    def settings(self) -> dict[str, Any]:
        """The crawl settings that point a catalog at this server and nowhere else."""
        return {
            "LIGHT_HOST_MAP": self.host_map(),
            "LIGHT_HOST_MAP_ONLY": True,
            "LIGHT_TLS_CA_FILE": self.ca_file,
        }

    def add_site(self, host: str, routes: dict[str, dict[str, Any]] | None = None) -> Site:
        """Add (or replace) a site at run time, e.g. a fault-scripted one in a test."""
        site = Site(host=host.lower(), root=None, routes=dict(routes or {}))
        self.sites[site.host] = site
        return site

    def requests_for(self, host: str) -> list[dict[str, Any]]:
        with self._lock:
            return [entry for entry in self.log if entry["host"] == host.lower()]

    def reset_log(self) -> None:
        with self._lock:
            self.log.clear()
            self.open_max.clear()

    # ----------------------------------------------------------------- internals
    def _sni(self, sslsock: ssl.SSLObject, server_name: str | None, _ctx: ssl.SSLContext) -> None:
        name = (server_name or "offline-origins.invalid").lower()
        if name in self.wrong_name_hosts:
            name = "not-" + name
        with self._lock:
            ctx = self._certs.get(name)
            if ctx is None:
                ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                self._ca.issue_cert(name).configure_cert(ctx)
                self._certs[name] = ctx
        sslsock.context = ctx

    def _enter(self, host: str) -> None:
        with self._lock:
            self.open_now[host] += 1
            self.open_max[host] = max(self.open_max[host], self.open_now[host])

    def _leave(self, host: str) -> None:
        with self._lock:
            self.open_now[host] -= 1

    def _record(self, host: str, path: str, scheme: str, headers: Any) -> None:
        with self._lock:
            self.log.append({
                "host": host, "path": path, "scheme": scheme, "time": time.monotonic(),
                "headers": dict(headers.items()),
            })

    @staticmethod
    def _match(site: Site, raw_path: str) -> dict[str, Any] | None:
        parts = urlsplit(raw_path)
        path = unquote(parts.path or "/")
        candidates = [f"{path}?{unquote(parts.query)}", f"{path}?{parts.query}"] if parts.query else []
        candidates.append(path)
        for key in candidates:
            if key in site.routes:
                return site.routes[key]
        return None

    def _body(self, site: Site, route: dict[str, Any]) -> tuple[bytes, str]:
        if "body" in route:
            body = route["body"]
            data = body.encode(route.get("encoding", "utf-8")) if isinstance(body, str) else body
            return data, route.get("type", "text/html; charset=utf-8")
        if "file" in route and site.root is not None:
            path = site.root / route["file"]
            data = path.read_bytes()
            ctype = route.get("type") or _TYPES.get(path.suffix.lower(), "application/octet-stream")
            return data, ctype
        return b"", route.get("type", "text/plain")

    def _serve(self, handler: _RequestHandler, site: Site, route: dict[str, Any]) -> None:
        delay = float(route.get("delay", 0.0)) + self.latency
        if self.jitter:
            delay += self._random.uniform(0, self.jitter)
        if delay > 0:
            time.sleep(delay)
        if "gate" in route and not _opened(route["gate"]):
            handler._send_simple(503, "the gate this route waits on was never opened\n")
            return
        if "handler" in route:  # a test's own Python behaviour
            route["handler"](handler)
            return
        handler.release()
        status = int(route.get("status", 200))
        headers = dict(route.get("headers", {}))
        if "redirect" in route:
            status = int(route.get("status", 301))
            headers["Location"] = route["redirect"]
            body, ctype = b"", "text/html; charset=utf-8"
        else:
            body, ctype = self._body(site, route)
        if route.get("gzip"):
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        handler.send_response(status)
        handler.send_header("Content-Type", headers.pop("Content-Type", ctype))
        declared = len(body) + int(route.get("truncate", 0))
        if route.get("truncate"):  # announce more than is sent, then hang up
            handler.close_connection = True
        handler.send_header("Content-Length", str(declared))
        for name, value in headers.items():
            handler.send_header(name, str(value))
        handler.end_headers()
        if handler.command == "HEAD":
            return
        if self.bandwidth > 0 and not route.get("drip"):
            time.sleep(len(body) / self.bandwidth)
        drip = route.get("drip")
        if drip:  # a slow origin: the body in small chunks with pauses between them
            chunk, interval = int(drip.get("chunk", 1024)), float(drip.get("interval", 0.1))
            try:
                for start in range(0, len(body), chunk):
                    handler.wfile.write(body[start : start + chunk])
                    handler.wfile.flush()
                    time.sleep(interval)
            except OSError:
                handler.close_connection = True
            return
        handler.wfile.write(body)


def _opened(gate: threading.Event | threading.Barrier) -> bool:
    """Wait for a test's gate: an event set, or a barrier whose parties all arrived."""
    try:
        return gate.wait(GATE_SECS) is not False
    except threading.BrokenBarrierError:
        return False
