"""Slow clients against ``lightsearch serve`` (one process and a fleet): real sockets on
loopback that send a request head a byte at a time, stall inside a body, or never read
their answers. They are dropped on time, and a fresh client is served meanwhile, even when
they outnumber the connection cap or the process's file limit.
"""

from __future__ import annotations

import contextlib
import resource
import socket
import threading
import time
from urllib.parse import urlsplit

import pytest

from lightsearch.serving.connection_limits import ConnectionTable
from tests.serving.test_request_checks import invoke
from tests.surfaces.test_mcp_server import Served, clean_env, setting_args, world

BROWSE = {"name": "web.browse", "input": {}}  # answered past the door at once (unknown_tool)
SLOW_HEAD = b"POST /api/skills/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Pad: "


class SlowClients:
    """``count`` connections that each send the start of a head, then one byte a second."""

    def __init__(self, url: str, count: int, *, head: bytes = SLOW_HEAD, every: float = 1.0) -> None:
        parts = urlsplit(url)
        self.socks: list[socket.socket] = []
        self.opened: list[float] = []
        self.closed_at: list[float | None] = [None] * count
        self.received: list[bytes] = [b""] * count
        for _ in range(count):
            sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
            sock.sendall(head)
            sock.setblocking(False)
            self.socks.append(sock)
            self.opened.append(time.monotonic())
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)
        self._thread.start()

    def _poll(self, i: int) -> None:
        if self.closed_at[i] is not None:
            return
        try:
            while True:
                data = self.socks[i].recv(4096)
                if not data:
                    self.closed_at[i] = time.monotonic()
                    return
                self.received[i] += data
        except BlockingIOError:
            return
        except OSError:
            self.closed_at[i] = time.monotonic()

    def _trickle(self) -> None:
        while not self._stop.wait(self.every):
            for i, sock in enumerate(self.socks):
                self._poll(i)
                if self.closed_at[i] is None:
                    with contextlib.suppress(BlockingIOError, OSError):
                        sock.send(b"a")

    def closed(self) -> int:
        for i in range(len(self.socks)):
            self._poll(i)
        return sum(t is not None for t in self.closed_at)

    def wait_all_closed(self, within: float) -> None:
        deadline = time.monotonic() + within
        while self.closed() < len(self.socks):
            assert time.monotonic() < deadline, f"{self.closed()} of {len(self.socks)} closed"
            time.sleep(0.2)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=10)
        for sock in self.socks:
            sock.close()


@pytest.fixture(scope="module")
def quick(origins):
    """A server with two-second read and send deadlines."""
    server = Served([*world(origins), *setting_args({"WEB_SERVE_HEADER_TIMEOUT_SECS": 2,
                                                     "WEB_SERVE_BODY_TIMEOUT_SECS": 2,
                                                     "WEB_SERVE_SEND_TIMEOUT_SECS": 2})], clean_env())
    yield server
    server.stop()


def fresh_client_served(url: str) -> None:
    """A new client's call is answered (beside the slow ones the test holds open)."""
    got = invoke(url, BROWSE)
    assert (got.status, got.code) == (400, "unknown_tool"), got.raw[:300]


def test_a_head_that_trickles_in_is_timed_out_with_408(quick):
    slow = SlowClients(quick.url, 20, every=0.5)
    try:
        fresh_client_served(quick.url)  # benchmarks/serve_limits.py times it
        slow.wait_all_closed(within=60)
    finally:
        slow.close()
    for opened, closed, data in zip(slow.opened, slow.closed_at, slow.received, strict=True):
        assert closed - opened >= 1.5  # held to the deadline, though it kept sending
        assert data.startswith(b"HTTP/1.1 408 ")


def test_a_connection_that_never_speaks_is_timed_out(quick):
    silent = SlowClients(quick.url, 5, head=b"", every=60)
    try:
        silent.wait_all_closed(within=60)
    finally:
        silent.close()
    assert silent.received == [b""] * 5  # nothing came, so no 408: just closed


def test_slow_clients_beyond_the_file_limit_leave_a_fresh_client_served(origins):
    # File limit 200: at most 100 connections. 200 slow clients, each sending a byte a
    # second with a head timeout of two minutes: only evictions can make room before it
    # (none is timed out during the test, which gives up long before).
    def limit_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    server = Served([*world(origins), "-s", "WEB_SERVE_HEADER_TIMEOUT_SECS=120"], clean_env(),
                    preexec_fn=limit_files)
    slow = SlowClients(server.url, 200)
    try:
        for _ in range(3):
            fresh_client_served(server.url)
        evicted = slow.closed()
    finally:
        slow.close()
        server.stop()
    assert evicted >= 100  # the oldest waiting connections made room; the cap held


def test_the_connection_cap_setting_holds(origins):
    server = Served([*world(origins), *setting_args({"WEB_SERVE_MAX_CONNECTIONS": 16,
                                                     "WEB_SERVE_HEADER_TIMEOUT_SECS": 60})], clean_env())
    slow = SlowClients(server.url, 40)
    try:
        fresh_client_served(server.url)
        deadline = time.monotonic() + 30
        while slow.closed() < 40 - 16 + 1:  # all but the newest 15 (the fresh client took a place)
            assert time.monotonic() < deadline, slow.closed()
            time.sleep(0.2)
        time.sleep(1)
        still_open = 40 - slow.closed()
    finally:
        slow.close()
        server.stop()
    assert still_open == 15
    assert all(t is None for t in slow.closed_at[-15:])  # the oldest went first


def test_a_body_that_stalls_is_dropped(quick):
    head = (b"POST /api/skills/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 100\r\n\r\n{\"name\": ")
    stalled = SlowClients(quick.url, 5, head=head, every=60)
    try:
        fresh_client_served(quick.url)
        stalled.wait_all_closed(within=60)
    finally:
        stalled.close()
    for opened, closed in zip(stalled.opened, stalled.closed_at, strict=True):
        assert closed - opened >= 1.5


def test_a_client_that_never_reads_its_answers_is_dropped(quick):
    # Pipelined requests, never a byte read: the answers fill the socket buffers, the server
    # stops reading, and the connection must be dropped rather than held for ever.
    parts = urlsplit(quick.url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname, parts.port))
    sock.settimeout(90)
    batch = b"GET /nothing HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" * 1000
    dropped: list[BaseException] = []

    def send() -> None:
        try:
            while True:
                sock.sendall(batch)
        except OSError as exc:
            dropped.append(exc)

    sender = threading.Thread(target=send, daemon=True)
    try:
        sender.start()
        sender.join(timeout=90)
        fresh_client_served(quick.url)
    finally:
        sock.close()
        sender.join(timeout=10)
    assert dropped, "the server kept the connection of a client that reads nothing"
    assert isinstance(dropped[0], (ConnectionResetError, BrokenPipeError)), dropped


def test_each_connection_has_the_send_buffer_of_the_setting():
    # A client that pipelines requests and reads nothing makes the server answer as many as
    # fit in the connection's kernel send buffer; the setting is that buffer's size.
    import asyncio

    import uvicorn
    from uvicorn.server import ServerState

    async def served_socket_buffer(send_buffer: int) -> int:
        table = ConnectionTable(send_buffer=send_buffer)
        config = uvicorn.Config(app=None, http=table.protocol(), log_level="error")
        config.load()
        loop = asyncio.get_running_loop()
        server = await loop.create_server(
            lambda: config.http_protocol_class(config=config, server_state=ServerState(), app_state={}),
            "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            for _ in range(500):
                if table.open:
                    break
                await asyncio.sleep(0.01)
            (conn,) = table.open
            return conn.transport.get_extra_info("socket").getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
        finally:
            writer.close()
            server.close()

    capped = asyncio.run(served_socket_buffer(65536))
    assert 65536 <= capped <= 2 * 65536  # Linux doubles what it is asked for, for its bookkeeping


def test_the_cap_follows_the_file_limit():
    assert ConnectionTable(max_connections=256, files=200).cap == 100
    assert ConnectionTable(max_connections=64, files=100_000).cap == 64
    assert ConnectionTable(max_connections=256, files=0).cap == 256  # unknown limit
