"""``lightsearch serve --workers N``: N worker processes behind one listening socket.

The supervisor binds the address once and hands the socket to each worker (an inherited
file descriptor, the pre-fork model of gunicorn and uvicorn); the kernel spreads
connections over the workers that accept. Each worker is a whole ``lightsearch serve``
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

RESTART_PAUSE_SECS = 1.0


def listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)  # connections queue from here on, so the announced address is usable at once
    return sock


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
    def __init__(self, sock: socket.socket, workers: int, worker_args: Sequence[str],
                 env: dict[str, str] | None = None) -> None:
        self.sock = sock
        self.count = workers
        self.args = list(worker_args)
        self.env = env
        self.children: list[subprocess.Popen[bytes] | None] = [None] * workers
        self.started: list[float] = [0.0] * workers
        self.restarts = 0
        self._stopping = False

    def command(self) -> list[str]:
        return [sys.executable, "-m", "lightsearch.surfaces.cli", "serve", *self.args,
                "--listen-fd", str(self.sock.fileno())]

    def spawn(self, i: int) -> None:
        self.children[i] = subprocess.Popen(self.command(), pass_fds=(self.sock.fileno(),), env=self.env)
        self.started[i] = time.monotonic()

    def run(self) -> int:
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._stop)
        for i in range(self.count):
            self.spawn(i)
        try:
            while not self._stopping:
                for i, child in enumerate(self.children):
                    if child is not None and child.poll() is not None and not self._stopping:
                        if time.monotonic() - self.started[i] < RESTART_PAUSE_SECS:
                            continue
                        print(f"lightsearch worker {child.pid} exited ({child.returncode}); starting another",
                              file=sys.stderr, flush=True)
                        self.restarts += 1
                        self.spawn(i)
                time.sleep(0.2)
        finally:
            self.shutdown()
        return 0

    def pids(self) -> list[int]:
        return [c.pid for c in self.children if c is not None]

    def _stop(self, *_args: Any) -> None:
        self._stopping = True

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
    sock = listening_socket(host, port)
    origins, extra = offline_settings() if offline else (None, [])
    supervisor = Supervisor(sock, workers, [*worker_args, *extra])
    shown = f"[{host}]" if ":" in host else host
    print(f"lightsearch serving on http://{shown}:{sock.getsockname()[1]} with {workers} workers "
          f"(MCP: /mcp, invoke: POST /api/skills/invoke); shared state: "
          f"{'Redis' if shared else 'none, each worker keeps its own (set LIGHTSEARCH_REDIS_URL)'}",
          file=sys.stderr, flush=True)
    try:
        return supervisor.run()
    finally:
        sock.close()
        if origins is not None:
            origins.stop()


def inherited_socket(fd: int) -> socket.socket:
    sock = socket.socket(fileno=fd)
    os.set_inheritable(fd, False)
    return sock
