"""Connections of ``lightsearch serve``: read timeouts and a connection cap, below ASGI.

uvicorn times out only a connection that stays silent between requests
(``timeout_keep_alive``), and any byte that arrives cancels that timer, so a client that
sends its request head one byte every few seconds holds a connection (and a file
descriptor) for as long as it likes; ASGI middleware cannot help, since it runs only once
the head is complete. :class:`GuardedH11Protocol` is uvicorn's h11 protocol with three
deadlines, taken from the h11 connection's state after every event:

- the request head (request line and header fields) must be complete within
  ``WEB_SERVE_HEADER_TIMEOUT_SECS`` of the connection's start, or of the previous
  response's end on a kept-alive connection: else 408 and the connection is closed;
- the request body must be complete within ``WEB_SERVE_BODY_TIMEOUT_SECS`` of its head:
  else the connection is dropped (the route sees the client disconnect);
- a client that stops reading a response (the transport's buffer full) for
  ``WEB_SERVE_SEND_TIMEOUT_SECS`` is dropped.

The kernel's send buffer of each connection is capped at ``WEB_SERVE_SEND_BUFFER_BYTES``.
Left to the kernel it grows to megabytes on a fast link, and a client that pipelines
requests and reads no answer has the server parse and answer every request whose answer
fits in it, tens of thousands of them, on the event loop every caller shares, before the
send deadline starts; the cap bounds that work, and the kernel memory a connection holds.

:class:`ConnectionTable` caps the open connections of one server process at
``WEB_SERVE_MAX_CONNECTIONS`` and at half the process's file limit (the rest is for
origins, Redis and files). At the cap, a new connection closes the one that has waited
longest for a request head (a trickling client, or one idle between requests); only when
every connection is in a request is the new one answered 503. So slow clients are
dropped, and a fresh client is served at once, however many slow ones there are.

Only the h11 implementation is wrapped (``Config(http=...)`` takes a protocol class; the
hooks used are listed in docs/PRIVATE_API.md), whether or not httptools is installed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

TIMEOUT_408 = (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
               b"connection: close\r\ncontent-length: 24\r\n\r\nrequest head timed out\r\n")
BUSY_503 = (b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
            b"connection: close\r\nretry-after: 1\r\ncontent-length: 38\r\n\r\nevery connection is serving a request\r\n")


def file_limit() -> int | None:
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    return None if soft == resource.RLIM_INFINITY else soft


class ConnectionTable:
    """The open connections of one server process, the cap, and the deadlines."""

    def __init__(self, *, max_connections: int = 256, header_timeout: float = 10.0, body_timeout: float = 10.0,
                 send_timeout: float = 30.0, send_buffer: int = 0, files: int | None = None) -> None:
        files = file_limit() if files is None else files
        self.cap = max(1, min(max_connections, files // 2)) if files else max_connections
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.send_timeout = send_timeout
        self.send_buffer = send_buffer  # 0: the kernel's own sizing
        self.open: set[GuardedH11Protocol] = set()
        self.stats = {"evicted": 0, "refused": 0, "head_timeouts": 0, "body_timeouts": 0, "send_timeouts": 0}

    @classmethod
    def from_settings(cls, settings: Any) -> ConnectionTable:
        return cls(max_connections=settings.getint("WEB_SERVE_MAX_CONNECTIONS"),
                   header_timeout=settings.getfloat("WEB_SERVE_HEADER_TIMEOUT_SECS"),
                   body_timeout=settings.getfloat("WEB_SERVE_BODY_TIMEOUT_SECS"),
                   send_timeout=settings.getfloat("WEB_SERVE_SEND_TIMEOUT_SECS"),
                   send_buffer=settings.getint("WEB_SERVE_SEND_BUFFER_BYTES"))

    def protocol(self) -> Any:
        """The protocol "class" for ``uvicorn.Config(http=...)``."""
        return functools.partial(GuardedH11Protocol, table=self)

    def admit(self, conn: GuardedH11Protocol) -> bool:
        if len(self.open) >= self.cap:
            waiting = [c for c in self.open if c.waiting_since is not None]
            if not waiting:
                self.stats["refused"] += 1
                return False
            victim = min(waiting, key=lambda c: c.waiting_since or 0.0)
            self.stats["evicted"] += 1
            victim.drop()
        self.open.add(conn)
        return True


class GuardedH11Protocol(H11Protocol):
    def __init__(self, *args: Any, table: ConnectionTable, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.table = table
        self.phase: str | None = None  # "head" | "body" | None (a request is being answered)
        self.waiting_since: float | None = None  # loop time the head phase began
        self.partial_head = False  # some bytes of the awaited head have arrived
        self._read_timer: asyncio.TimerHandle | None = None
        self._send_timer: asyncio.TimerHandle | None = None

    # -- asyncio.Protocol
    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if not self.table.admit(self):
            transport.write(BUSY_503)
            transport.close()
            return
        sock = transport.get_extra_info("socket")
        if self.table.send_buffer and sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, self.table.send_buffer)
        self._watch()

    def connection_lost(self, exc: Exception | None) -> None:
        self.table.open.discard(self)
        self._set_phase(None)
        self._cancel_send_timer()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._watch()
        if self.phase == "head" and data:
            self.partial_head = True

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._watch()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._send_timer is None:
            self._send_timer = self.loop.call_later(self.table.send_timeout, self._expired, "send")

    def resume_writing(self) -> None:
        super().resume_writing()
        self._cancel_send_timer()

    # -- deadlines
    def _watch(self) -> None:
        """Set the phase from the h11 state: waiting for a head, reading a body, or neither."""
        if self.transport is None or self.transport.is_closing():
            self._set_phase(None)
        elif self.conn.their_state is h11.IDLE and self.conn.our_state is h11.IDLE:
            self._set_phase("head")
        elif self.conn.their_state is h11.SEND_BODY:
            self._set_phase("body")
        else:
            self._set_phase(None)

    def _set_phase(self, phase: str | None) -> None:
        if phase == self.phase:
            return
        if self._read_timer is not None:
            self._read_timer.cancel()
            self._read_timer = None
        self.phase = phase
        self.partial_head = False
        self.waiting_since = self.loop.time() if phase == "head" else None
        if phase is not None:
            timeout = self.table.header_timeout if phase == "head" else self.table.body_timeout
            self._read_timer = self.loop.call_later(timeout, self._expired, phase)

    def _cancel_send_timer(self) -> None:
        if self._send_timer is not None:
            self._send_timer.cancel()
            self._send_timer = None

    def _expired(self, what: str) -> None:
        if what != "send":
            self._read_timer = None
        else:
            self._send_timer = None
        if self.transport.is_closing():
            return
        self.table.stats[f"{what}_timeouts"] += 1
        self.drop()

    def drop(self) -> None:
        """Close the connection. Waiting for a head, nothing is buffered: a 408 when part
        of one came, and a clean close. Otherwise at once, whatever is buffered."""
        self.table.open.discard(self)
        waiting, partial = self.phase == "head", self.partial_head
        self._set_phase(None)
        self._cancel_send_timer()
        if not waiting:
            self.transport.abort()
            return
        if partial:
            with contextlib.suppress(Exception):
                self.transport.write(TIMEOUT_408)
        self.transport.close()
