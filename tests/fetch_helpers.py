"""Loopback stand-ins for the transport guard's tests: a server that counts connections,
a download handler that sends every vetted connection to it, and a recording resolver.

The guard is proven at the socket, not by mocking it: a test sends a URL (or a scripted
DNS answer) through a real Scrapy crawl whose handler connects *every* address the
guard lets through to :class:`CountingServer` on loopback. An address the guard refuses
therefore shows up as zero accepted connections there, and one it allows as a request
that really arrived, while no test ever leaves 127.0.0.1.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import AsyncIterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from scrapy import Request, Spider, signals
from scrapy.crawler import AsyncCrawlerRunner

from lightsearch.config import make_settings
from lightsearch.crawl.guard.resolver import SystemResolver
from lightsearch.crawl.runtime import ensure_reactor
from lightsearch.crawl.transport import LightDownloadHandler

PAGE = (b"<!doctype html><html lang='en'><head><title>Stand-in page</title></head><body><article>"
        + b"<p>This loopback page stands in for a public web site in the guard tests. " * 8
        + b"</p></article></body></html>")


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: CountingServer

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.server.record(self.headers.get("Host", ""), self.path, dict(self.headers.items()))
        body = b"User-agent: *\nAllow: /\n" if self.path == "/robots.txt" else PAGE
        ctype = "text/plain" if self.path == "/robots.txt" else "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True


class CountingServer(ThreadingHTTPServer):
    """A plain-HTTP loopback server that records every accepted connection and request."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.port = self.server_address[1]
        self._lock = threading.Lock()
        self.connections = 0
        self.requests: list[dict[str, Any]] = []
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True, name="counting-server")

    def start(self) -> CountingServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()

    def get_request(self) -> tuple[socket.socket, Any]:
        conn = super().get_request()
        with self._lock:
            self.connections += 1
        return conn

    def record(self, host: str, path: str, headers: dict[str, str]) -> None:
        with self._lock:
            self.requests.append({"host": host, "path": path, "headers": headers})

    def reset(self) -> None:
        with self._lock:
            self.connections = 0
            self.requests.clear()


class StandInHandler(LightDownloadHandler):
    """The real guarded handler, except that a vetted address is connected to the
    counting server (``TEST_STAND_IN_PORT``) instead of itself; it records what the
    guard chose in :data:`connected`."""

    connected: list[tuple[str, int]] = []

    def __init__(self, crawler: Any) -> None:
        super().__init__(crawler)
        self._stand_in = crawler.settings.getint("TEST_STAND_IN_PORT")

    def connect_address(self, address: str, port: int) -> tuple[str, int]:
        self.connected.append((address, port))
        return "127.0.0.1", self._stand_in


class RecordingResolver(SystemResolver):
    """The configured-answer resolver, remembering every lookup it answered."""

    asked: list[str] = []

    async def resolve(self, host: str, port: int) -> list[str]:
        self.asked.append(host)
        return await super().resolve(host, port)


def stand_in_settings(server: CountingServer, **extra: Any) -> dict[str, Any]:
    """Settings that route every allowed connection to ``server`` and resolve from config.

    Names without a configured answer fail as NXDOMAIN, so no test does real DNS.
    """
    StandInHandler.connected.clear()
    RecordingResolver.asked.clear()
    server.reset()
    overrides = dict(extra.pop("LIGHT_RESOLVER_OVERRIDES", {}))
    return {
        "DOWNLOAD_HANDLERS": {"http": "tests.fetch_helpers.StandInHandler",
                              "https": "tests.fetch_helpers.StandInHandler"},
        "TEST_STAND_IN_PORT": server.port,
        "LIGHT_RESOLVER": "tests.fetch_helpers.RecordingResolver",
        "LIGHT_RESOLVER_OVERRIDES": overrides,
        "LIGHT_ROBOTS_CACHE": None,
        "LIGHT_RECORD_CACHE": None,
        "LOG_LEVEL": "ERROR",
        **extra,
    }


class OneRequestSpider(Spider):
    """Requests one URL through the full downloader (no web_fetch pre-check) and keeps
    the response or the exception, so the handler's own guard is what is tested."""

    name = "one-request"

    def __init__(self, url: str, outcome: dict[str, Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.url = url
        self.outcome = outcome

    async def start(self) -> AsyncIterator[Request]:
        yield Request(self.url, callback=self.parse, errback=self.failed, dont_filter=True,
                      meta={"handle_httpstatus_all": True})

    def parse(self, response: Any) -> None:
        self.outcome["response"] = response

    def failed(self, failure: Any) -> None:
        self.outcome["error"] = failure.value


async def crawl_one(url: str, settings: dict[str, Any]) -> dict[str, Any]:
    """Run :class:`OneRequestSpider` for ``url``; ``{"response": ...}`` or ``{"error": exc}``."""
    ensure_reactor()
    outcome: dict[str, Any] = {}
    full = make_settings({"ROBOTSTXT_OBEY": False, "ITEM_PIPELINES": {}, **settings})
    runner = AsyncCrawlerRunner(full)
    crawler = runner.create_crawler(OneRequestSpider)
    crawler.signals.connect(lambda: None, signal=signals.spider_closed)
    await runner.crawl(crawler, url=url, outcome=outcome)
    return outcome
