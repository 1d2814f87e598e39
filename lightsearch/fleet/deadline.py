"""A total deadline for each Redis command, however its answer trickles in.

redis-py's ``socket_timeout`` bounds each read of the socket, not a command: a Redis (or
anything between) that sends one byte every few milliseconds never trips it, and a
synchronous client on the event loop's thread then holds the loop for as long as the
answer takes to trickle in. The connections here give each command its socket timeout as
a deadline for the whole command: sending it starts the clock, and before every blocking
operation on the socket its timeout is set to what is left (an operation started with
nothing left raises ``socket.timeout`` at once). redis-py turns that into its
``TimeoutError`` and drops the connection, whose answer was cut short, as it does for a
timed-out read. The commands of the connection's handshake (``HELLO``, ``CLIENT
SETNAME``...) are commands like any other; connecting is bounded by the connect timeout.

The connections are plugged in through redis-py's own extension point, the connection
pool's ``connection_class`` (one per URL scheme: TCP, TLS, unix socket). Resolving a host
name is not bounded (the standard library's resolver blocks): give Redis as an address,
or a name the hosts file knows.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable
from typing import Any

from redis.connection import Connection, SSLConnection, UnixDomainSocketConnection


class DeadlineSocket:
    """A socket whose blocking operations end by ``ends()`` (a monotonic time, or None for
    the socket's own timeout alone)."""

    def __init__(self, sock: socket.socket, ends: Callable[[], float | None]) -> None:
        self._sock = sock
        self._ends = ends
        self._timeout = sock.gettimeout()

    def settimeout(self, value: float | None) -> None:
        self._timeout = value
        self._sock.settimeout(value)

    def gettimeout(self) -> float | None:
        return self._timeout

    def _bound(self) -> None:
        ends = self._ends()
        if ends is None:
            self._sock.settimeout(self._timeout)
            return
        left = ends - time.monotonic()
        if left <= 0:
            raise TimeoutError("the Redis command's deadline passed")
        self._sock.settimeout(left if self._timeout is None else min(self._timeout, left))

    def recv(self, *args: Any) -> bytes:
        self._bound()
        return self._sock.recv(*args)

    def recv_into(self, *args: Any) -> int:
        self._bound()
        return self._sock.recv_into(*args)

    def send(self, *args: Any) -> int:
        self._bound()
        return self._sock.send(*args)

    def sendall(self, *args: Any) -> None:
        self._bound()
        self._sock.sendall(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sock, name)


class _Bounded:
    """Connection mixin: each command sent starts a deadline of ``socket_timeout`` for
    sending it and reading its answer (a pipeline's commands share one)."""

    socket_timeout: float | None
    _sock: Any
    _command_ends: float | None = None

    def _connect(self) -> Any:
        self._command_ends = None
        return DeadlineSocket(super()._connect(), lambda: self._command_ends)  # type: ignore[misc]

    def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        if not self._sock:  # connected (and its handshake answered) first, on its own deadlines
            self.connect()  # type: ignore[attr-defined]
        self._command_ends = None if self.socket_timeout is None else time.monotonic() + self.socket_timeout
        super().send_packed_command(command, check_health)  # type: ignore[misc]


class DeadlineConnection(_Bounded, Connection):
    pass


class DeadlineSSLConnection(_Bounded, SSLConnection):
    pass


class DeadlineUnixConnection(_Bounded, UnixDomainSocketConnection):
    pass


def connection_class(url: str) -> type:
    """The connection class for a Redis URL's scheme, as redis-py would pick it."""
    scheme = url.split(":", 1)[0].lower()
    if scheme == "unix":
        return DeadlineUnixConnection
    if scheme == "rediss":
        return DeadlineSSLConnection
    return DeadlineConnection
