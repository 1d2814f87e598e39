"""A loopback stand-in for the Brave Search API that replays recorded responses.

The recorded responses stay in the shared data folder and are read at run time (never
copied into the project). The server speaks HTTPS with a certificate for ``127.0.0.1``
signed by a CA of its own, so a client trusts it only when told to through
``BRAVE_TLS_CA_FILE``; ``LIGHT_HOST_MAP`` sends the API's host name to it. Behaviour is scripted per API key (the ``X-Subscription-Token``
header), which lets concurrent tests share one server: a status and headers, a raw body,
a delay, or a transform of the recorded payload. Unscripted keys get the recorded web
search response, cut to the request's ``count`` as the real API does.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from lightsearch.offline_origins.replay import TlsReplay

WEB_SEARCH_FILE = "brave_web_search_hello_world.json"
API_PATH = "/res/v1/web/search"
# A name of its own, so that a test missing the host map fails instead of reaching Brave.
API_HOST = "api.search.brave.replay.test"


@dataclass
class Script:
    status: int = 200
    headers: dict[str, str] | None = None
    body: bytes | None = None  # raw body instead of the (transformed) recording
    delay: float = 0.0  # seconds before the response starts
    chunked: bool = False  # send the body with Transfer-Encoding: chunked
    transform: Callable[[dict[str, Any]], dict[str, Any]] | None = None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        replay = self.server.replay
        parts = urlsplit(self.path)
        params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
        token = self.headers.get("X-Subscription-Token") or ""
        replay._record({"path": parts.path, "params": params, "token": token,
                        "headers": dict(self.headers.items())})
        script = replay.scripts.get(token, Script())
        if script.delay:
            time.sleep(script.delay)
        if parts.path != API_PATH:
            self._send(404, b'{"type":"ErrorResponse","error":{"code":"NOT_FOUND"}}', {})
            return
        if token == "" and script.body is None:
            self._send(422, b'{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_MISSING"}}', {})
            return
        if script.body is not None:
            body = script.body
        else:
            payload = replay.recording()
            if script.transform is not None:
                payload = script.transform(payload)
            count = int(params.get("count", "20") or 20)
            web = payload.get("web")
            if isinstance(web, dict) and isinstance(web.get("results"), list):
                web["results"] = web["results"][:count]
            body = json.dumps(payload).encode()
        self._send(script.status, body, script.headers or {}, chunked=script.chunked)

    def _send(self, status: int, body: bytes, headers: dict[str, str], *, chunked: bool = False) -> None:
        headers = dict(headers)
        try:
            self.send_response(status)
            self.send_header("Content-Type", headers.pop("Content-Type", "application/json"))
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            else:
                self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            if not chunked:
                self.wfile.write(body)
                return
            for start in range(0, len(body), 4096):
                piece = body[start : start + 4096]
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.write(b"0\r\n\r\n")
        except OSError:  # the client gave up (timeout, cancellation)
            self.close_connection = True


class BraveReplay(TlsReplay):
    """Start it, point ``settings()`` at it, script keys with :meth:`script`, stop it."""

    handler = _Handler
    thread_name = "brave-replay"

    def __init__(self, data_dir: Path | str) -> None:
        super().__init__((API_HOST,))
        self.data_dir = Path(data_dir)
        self.scripts: dict[str, Script] = {}
        self.log: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"https://{API_HOST}{API_PATH}"

    def settings(self, key: str = "replay-key") -> dict[str, Any]:
        """Settings that select Brave with ``key`` and send it to this server."""
        return {"BRAVE_SEARCH_API_KEY": key, "BRAVE_API_URL": self.url,
                "BRAVE_TLS_CA_FILE": self.ca_file, "LIGHT_HOST_MAP": self.host_map()}

    def script(self, key: str, **behaviour: Any) -> None:
        self.scripts[key] = Script(**behaviour)

    def recording(self) -> dict[str, Any]:
        """A fresh copy of the recorded web search response, read from the shared data."""
        return json.loads((self.data_dir / WEB_SEARCH_FILE).read_text(encoding="utf-8"))

    def requests_for(self, key: str) -> list[dict[str, Any]]:
        with self._lock:
            return [entry for entry in self.log if entry["token"] == key]

    def _record(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self.log.append(entry)


def main() -> None:  # pragma: no cover - manual use: python -m lightsearch.offline_origins.brave_replay DIR
    import sys

    replay = BraveReplay(sys.argv[1]).start()
    print(json.dumps(replay.settings()), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        replay.stop()


if __name__ == "__main__":  # pragma: no cover
    main()
