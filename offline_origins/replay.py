"""What every loopback API replay shares: a TLS server on 127.0.0.1 with a CA of its own,
the host names it answers for, and settings that send a client there.

An API client trusts the replay only through configuration: ``LIGHT_HOST_MAP`` maps the
API's host name to the replay's port (the guard's one exception, never tool input) and a
CA-file setting makes its certificate valid. :func:`merge_settings` joins several such
settings (a replay and the offline origins) without one host map hiding the other.
"""

from __future__ import annotations

import ssl
import tempfile
import threading
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import trustme

from lightsearch.offline_origins.server import LoopbackServer


def merge_settings(*parts: Mapping[str, Any]) -> dict[str, Any]:
    """Later parts win, except ``LIGHT_HOST_MAP``, which is the union of every part's."""
    out: dict[str, Any] = {}
    host_map: dict[str, Any] = {}
    for part in parts:
        host_map.update(part.get("LIGHT_HOST_MAP") or {})
        out.update(part)
    if host_map:
        out["LIGHT_HOST_MAP"] = host_map
    return out


class TlsReplay:
    """Start/stop a threaded TLS loopback server for ``hosts``; subclasses give the handler."""

    handler: type[BaseHTTPRequestHandler]
    thread_name = "replay"

    def __init__(self, hosts: tuple[str, ...]) -> None:
        self.hosts = hosts
        self._ca = trustme.CA()
        self._server: LoopbackServer | None = None
        self._thread: threading.Thread | None = None
        self.ca_file: str | None = None
        self.port = 0

    def start(self) -> Any:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._ca.issue_cert("127.0.0.1", "localhost", *self.hosts).configure_cert(tls)
        fd, path = tempfile.mkstemp(prefix=f"lightsearch-{self.thread_name}-ca-", suffix=".pem")
        with open(fd, "wb") as fh:
            fh.write(self._ca.cert_pem.bytes())
        self.ca_file = path
        self._server = LoopbackServer(self.handler, tls)
        self._server.replay = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self.ca_file:
            Path(self.ca_file).unlink(missing_ok=True)
            self.ca_file = None

    def __enter__(self) -> Any:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def host_map(self) -> dict[str, dict[str, str]]:
        return {host: {"https": f"127.0.0.1:{self.port}"} for host in self.hosts}
