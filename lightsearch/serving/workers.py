"""``lightsearch serve --workers N``: N worker processes behind one address.

Each worker listens on the address itself with ``SO_REUSEPORT``, and the kernel spreads
incoming connections over the workers by hashing each connection. (One inherited
listening socket, the pre-fork model, lets whichever event loop wakes first accept a
whole burst: docs/EVALUATION.md.) The
supervisor holds the port from the start, and announces the address only once every
worker listens, so a client that connects at once is never refused. Each worker is a whole ``lightsearch serve``
with its own reactor, so one slow search never holds another worker's loop. With
``LIGHTSEARCH_REDIS_URL`` (or ``-s FLEET_REDIS_URL=...``) the workers share politeness,
records, robots rules, suspensions and the search cache; without it each keeps its own,
and the supervisor says so. A worker that dies is started again (at most once a second).
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

from lightsearch.errors import LightSearchError, quote_untrusted

RESTART_PAUSE_SECS = 1.0


READY_TIMEOUT_SECS = 60.0


def listening_socket(host: str, port: int, *, reuse_port: bool = False, listen: bool = True) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
        if listen:
            sock.listen(128)  # connections queue from here on, so the announced address is usable at once
    except OSError as exc:
        sock.close()
        raise LightSearchError("invalid_input", f"--host/--port: cannot listen on {quote_untrusted(host)} port "
                               f"{port}: {exc.strerror or exc}", {"parameter": "--host"}) from None
    return sock


def signal_ready(fd: int) -> None:
    """A worker tells its supervisor that it listens."""
    with contextlib.suppress(OSError):
        os.write(fd, b"1")
        os.close(fd)


def offline_settings() -> tuple[Any, list[str]]:
    """Start the offline origins once for the whole fleet; the ``-s`` flags that point
    every worker at them (so one origin server sees, and counts, the fleet's traffic)."""
    from lightsearch.offline_origins.server import OfflineOrigins

    origins = OfflineOrigins().start()
    flags = []
    for key, value in {**origins.settings(), "WEB_SEARCH_PROVIDER": "light"}.items():
        text = json.dumps(value) if isinstance(value, (dict, bool)) else str(value)
        flags += ["-s", f"{key}={text}"]
    return origins, flags


class Supervisor:
    def __init__(self, host: str, port: int, workers: int, worker_args: Sequence[str],
                 env: dict[str, str] | None = None) -> None:
        self.host = host
        self.port = port
        self.count = workers
        self.args = list(worker_args)
        self.env = env
        self.children: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.started: list[float] = [0.0] * workers
        self.restarts = 0
        self._stopping = False
        self.signal = 0  # the signal that stopped it (the exit status is 128 + it)

    def command(self, ready_fd: int) -> list[str]:
        return [sys.executable, "-m", "lightsearch.surfaces.cli", "serve", *self.args, "--host", self.host,
                "--port", str(self.port), "--reuse-port", "--ready-fd", str(ready_fd)]

    def spawn(self, i: int) -> int:
        """Start worker ``i``; the read end of its readiness pipe."""
        read, write = os.pipe()
        try:
            self.children[i] = subprocess.Popen(self.command(write), pass_fds=(write,), env=self.env)
        finally:
            os.close(write)
        self.started[i] = time.monotonic()
        return read

    def wait_ready(self, pipes: list[int]) -> None:
        """Return once every worker listens (or has died trying, or the wait is over)."""
        deadline = time.monotonic() + READY_TIMEOUT_SECS
        for fd in pipes:
            os.set_blocking(fd, False)
        pending = set(pipes)
        while pending and time.monotonic() < deadline and not self._stopping:
            for fd in list(pending):
                try:
                    data = os.read(fd, 1)
                except BlockingIOError:
                    continue
                pending.discard(fd)  # "1": listening; b"": the worker exited first
                os.close(fd)
                if not data:
                    print("lightsearch worker exited before it listened", file=sys.stderr, flush=True)
            time.sleep(0.02)
        for fd in pending:
            os.close(fd)

    def start(self) -> None:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._stop)
        self.wait_ready([self.spawn(i) for i in range(self.count)])

    def run(self) -> int:
        try:
            while not self._stopping:
                for i, child in enumerate(self.children):
                    if child is not None and child.poll() is not None and not self._stopping:
                        if time.monotonic() - self.started[i] < RESTART_PAUSE_SECS:
                            continue
                        print(f"lightsearch worker {child.pid} exited ({child.returncode}); starting another",
                              file=sys.stderr, flush=True)
                        self.restarts += 1
                        os.close(self.spawn(i))
                time.sleep(0.2)
        finally:
            self.shutdown()
        return 128 + self.signal if self.signal else 0

    def pids(self) -> list[int]:
        return [c.pid for c in self.children if c is not None]

    def _stop(self, signum: int = 0, *_args: Any) -> None:
        self._stopping = True
        self.signal = self.signal or signum

    def shutdown(self) -> None:
        for child in self.children:
            if child is not None and child.poll() is None:
                child.terminate()
        deadline = time.monotonic() + 5
        for child in self.children:
            if child is None:
                continue
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(max(0.1, deadline - time.monotonic()))
            if child.poll() is None:
                child.kill()
                child.wait()


def serve_workers(workers: int, host: str, port: int, worker_args: Sequence[str], *, offline: bool,
                  shared: bool) -> int:
    """Run the supervisor in the foreground until SIGINT/SIGTERM."""
    reserved = listening_socket(host, port, reuse_port=True, listen=False)  # the port, held
    bound = reserved.getsockname()[1]
    origins, extra = offline_settings() if offline else (None, [])
    supervisor = Supervisor(host, bound, workers, [*worker_args, *extra])
    supervisor.start()
    shown = f"[{host}]" if ":" in host else host
    print(f"lightsearch serving on http://{shown}:{bound} with {workers} workers "
          f"(MCP: /mcp, invoke: POST /api/skills/invoke); shared state: "
          f"{'Redis' if shared else 'none, each worker keeps its own (set LIGHTSEARCH_REDIS_URL)'}",
          file=sys.stderr, flush=True)
    try:
        return supervisor.run()
    finally:
        reserved.close()
        if origins is not None:
            origins.stop()
