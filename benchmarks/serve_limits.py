"""The HTTP boundary under exhaustion: what a fresh client sees while an attacker holds
MCP sessions or slow connections against ``lightsearch serve`` (one process, loopback).

Each server runs in a subprocess (``--offline``, so a fresh client's ``web_fetch`` reads a
real page); the fresh client is the MCP SDK's (initialize, tools/list, one web_fetch) and a
plain invoke call. Its latency is measured idle first, then during each attack, in the
same run, so load from other processes on the machine touches both sides.

Attacks (the issue's own): ``--sessions`` MCP ``initialize`` requests from 16 threads on
kept-alive connections (a fresh client is measured while they run, from the flood's own
address and from another loopback address, and after); ``--slow`` connections that send the start of a request head and
then a byte a second; the same slow connections against a server whose file limit is 200.
``--baseline-tree`` (a checkout of an older commit) runs the same attacks against that
code too.

``--fairness``: fairness per client instead. Client A (a loopback address of its own each
round) makes ``--calls`` (30) concurrent ``web_fetch`` calls of ordinary long pages (~470 KiB of paragraphs, one origin
each, within the default 60 fetches a minute); client B (127.0.0.2) makes one call while
they run: a ``web_fetch`` of a small page, then a Light search over the bundled offline
catalog. B's time beside A is divided by B's time alone, both measured in the same run
(alone before and after each round, so the load of the machine falls on both). The origins
run in a process of their own; ``--python`` runs the server with another interpreter (a checkout of
main in its own venv) in the same run, for a before/after table.

    python benchmarks/serve_limits.py                          # 10,000 sessions, 200 slow
    python benchmarks/serve_limits.py --sessions 2000 --slow 100
    git worktree add /tmp/old 77f4edf && python benchmarks/serve_limits.py --baseline-tree /tmp/old
    python benchmarks/serve_limits.py --fairness --python /path/to/main/.venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import http.client
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
INIT = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "flood", "version": "1"}}}).encode()
HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
SLOW_HEAD = b"POST /api/skills/invoke HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Pad: "


class Server:
    """``lightsearch serve`` in a subprocess: this tree's (``tree``, on ``PYTHONPATH``), or
    the install of another interpreter (``python``, run from a neutral directory)."""

    def __init__(self, tree: Path | None, args: list[str], files: int | None = None, *,
                 python: str | None = None, offline: bool = True) -> None:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_"))}
        if tree is not None:
            env["PYTHONPATH"] = str(tree)
        env["PYTHONDONTWRITEBYTECODE"] = "1"  # another checkout is only read

        def limit() -> None:
            if files:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.proc = subprocess.Popen([python or sys.executable, "-m", "lightsearch.surfaces.cli", "serve",
                                      *(["--offline"] if offline else []), "--port", "0", *args],
                                     cwd=tree or tempfile.gettempdir(), env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True, preexec_fn=limit)
        line = self.proc.stderr.readline()
        if "serving on http://" not in line:
            self.proc.kill()
            raise RuntimeError(line + self.proc.communicate()[1][-2000:])
        self.url = line.split("serving on ", 1)[1].split(" ", 1)[0]
        self.port = int(self.url.rsplit(":", 1)[1])
        threading.Thread(target=lambda: [None for _ in self.proc.stderr], daemon=True).start()

    def rss_mib(self) -> float:
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
        return float("nan")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


async def _mcp_client(url: str) -> None:
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    async with streamable_http_client(f"{url}/mcp") as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        await session.list_tools()
        result = await session.call_tool("web_fetch", {"url": "https://www.nasa.gov/", "max_length": 200})
        if result.is_error:
            raise RuntimeError(result.content[0].text)


def fresh_client(url: str, timeout: float = 60) -> dict[str, float | str]:
    """Seconds for one SDK session (initialize, tools/list, web_fetch) and one invoke call."""
    out: dict[str, float | str] = {}
    started = time.monotonic()
    try:
        asyncio.run(asyncio.wait_for(_mcp_client(url), timeout))
        out["mcp_s"] = time.monotonic() - started
    except BaseException as exc:  # reported; the benchmark goes on
        out["mcp_s"] = f"failed after {time.monotonic() - started:.1f} s: {type(exc).__name__}"
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=timeout)
    try:
        conn.request("POST", "/api/skills/invoke", body=b'{"name": "web.browse", "input": {}}',
                     headers={"content-type": "application/json"})
        status = conn.getresponse().status
        out["invoke_s"] = time.monotonic() - started if status == 400 else f"status {status}"
    except OSError as exc:
        out["invoke_s"] = f"failed: {type(exc).__name__}"
    finally:
        conn.close()
    return out


def other_address_session(port: int, source: str = "127.0.0.3") -> float | str:
    """Seconds for initialize, initialized and tools/list from another loopback address."""
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60, source_address=(source, 0))
    try:
        conn.request("POST", "/mcp", body=INIT, headers=HEADERS)
        response = conn.getresponse()
        response.read()
        sid = response.getheader("mcp-session-id") or ""
        session = {**HEADERS, "mcp-session-id": sid, "mcp-protocol-version": "2025-06-18"}
        statuses = [response.status]
        for message in ({"jsonrpc": "2.0", "method": "notifications/initialized"},
                        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):
            conn.request("POST", "/mcp", body=json.dumps(message).encode(), headers=session)
            response = conn.getresponse()
            response.read()
            statuses.append(response.status)
    except OSError as exc:
        return f"failed: {type(exc).__name__}"
    finally:
        conn.close()
    return time.monotonic() - started if statuses == [200, 202, 200] else f"statuses {statuses}"


def flood_sessions(port: int, total: int, threads: int = 16) -> dict[str, float]:
    counts = {"opened": 0, "refused": 0, "errors": 0}
    lock = threading.Lock()

    def worker(n: int) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for _ in range(n):
            try:
                conn.request("POST", "/mcp", body=INIT, headers=HEADERS)
                response = conn.getresponse()
                response.read()
                key = "opened" if response.status == 200 else "refused"
            except (OSError, http.client.HTTPException):
                key = "errors"
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            with lock:
                counts[key] += 1
        conn.close()

    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(worker, [total // threads + (i < total % threads) for i in range(threads)]))
    return {**counts, "seconds": time.monotonic() - started}


class SlowConnections:
    def __init__(self, port: int, count: int) -> None:
        self.socks = []
        for _ in range(count):
            sock = socket.create_connection(("127.0.0.1", port), timeout=10)
            sock.sendall(SLOW_HEAD)
            sock.setblocking(False)
            self.socks.append(sock)
        self.alive = [True] * count
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._trickle, daemon=True)
        self._thread.start()

    def _trickle(self) -> None:
        while not self._stop.wait(1.0):
            for i, sock in enumerate(self.socks):
                if not self.alive[i]:
                    continue
                try:
                    if sock.recv(4096) == b"":
                        self.alive[i] = False
                        continue
                except BlockingIOError:
                    pass
                except OSError:
                    self.alive[i] = False
                    continue
                with contextlib.suppress(BlockingIOError, OSError):
                    sock.send(b"a")

    def held(self) -> int:
        return sum(self.alive)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in self.socks:
            sock.close()


def median_client(url: str, runs: int) -> dict[str, float | str]:
    samples = [fresh_client(url) for _ in range(runs)]
    out: dict[str, float | str] = {}
    for key in ("mcp_s", "invoke_s"):
        values = [s[key] for s in samples]
        numbers = [v for v in values if isinstance(v, float)]
        out[key] = round(statistics.median(numbers), 3) if len(numbers) == len(values) else str(values)
    return out


def under_slow_connections(tree: Path, slow: int, runs: int, files: int | None = None) -> dict[str, object]:
    server = Server(tree, [], files=files)
    try:
        held = SlowConnections(server.port, slow)
        try:
            time.sleep(2)
            client = median_client(server.url, runs)
            return {"connections": slow, "still_held": held.held(), "fresh_client": client}
        finally:
            held.close()
    finally:
        server.stop()


def run(label: str, tree: Path, sessions: int, slow: int, runs: int) -> dict[str, object]:
    report: dict[str, object] = {"code": label}
    server = Server(tree, [])
    try:
        report["idle"] = median_client(server.url, runs)
        rss = server.rss_mib()
        flood: dict[str, float] = {}
        flooding = threading.Thread(target=lambda: flood.update(flood_sessions(server.port, sessions)))
        flooding.start()
        time.sleep(2)
        same, other = [], []
        while flooding.is_alive() and len(same) < runs:  # a fresh client while the flood runs
            same.append(fresh_client(server.url))
            other.append(other_address_session(server.port))
        flooding.join()
        report["sessions"] = {**{k: round(v, 1) for k, v in flood.items()}, "rss_before_mib": round(rss, 1),
                              "rss_after_mib": round(server.rss_mib(), 1),
                              "during_flood_same_address": same,
                              "during_flood_other_address": other,
                              "fresh_client_after": median_client(server.url, runs)}
    finally:
        server.stop()
    report["slow"] = under_slow_connections(tree, slow, runs)
    report["slow_file_limit_200"] = under_slow_connections(tree, slow, runs, files=200)
    return report


# ---------------------------------------------------------------------------- fairness per client
B_ADDRESS = "127.0.0.2"


def a_address(n: int) -> str:
    """Client A's address in round ``n``: a fresh one each round, so each round's calls stay
    within the default rate limit (60 fetches a minute per client)."""
    return f"127.0.1.{1 + n % 250}"
B_QUERY = "europa clipper gravity assist"


def _long_page(seed: int) -> bytes:
    """An ordinary long article: ~470 KiB of paragraphs, nothing hostile in its shape."""
    import random

    words = ["glacier", "moraine", "sediment", "field", "summer", "measured", "notes", "river", "valley", "ice",
             "rock", "survey", "station", "core", "sample", "layer"]
    rnd = random.Random(seed)
    paras = "".join("<p>" + " ".join(rnd.choice(words) for _ in range(60)) + "</p>\n" for _ in range(1200))
    return (f"<!doctype html><html lang='en'><head><title>Field notes {seed}</title></head><body><article>"
            f"<h1>Field notes {seed}</h1>{paras}</article></body></html>").encode()


def fairness_world(calls: int) -> Any:
    """The bundled offline origins plus ``calls`` origins of one long page each and one of
    a small page, served from the calling process."""
    sys.path.insert(0, str(ROOT))
    from lightsearch.offline_origins.server import OfflineOrigins

    origins = OfflineOrigins().start()
    robots = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}
    page = _long_page(1)
    for i in range(calls):
        origins.add_site(f"long{i}.bench.test", {"/robots.txt": robots, "/page": {"body": page}})
    small = (b"<!doctype html><html lang='en'><head><title>Tide tables</title></head><body><article>"
             b"<h1>Tide tables</h1><p>" + b"High water at the harbour mouth comes an hour after the bar. " * 12
             + b"</p></article></body></html>")
    origins.add_site("small.bench.test", {"/robots.txt": robots, "/page": {"body": small}})
    return origins


class WorldProcess:
    """:func:`fairness_world` in a process of its own: the origins' threads (TLS, 470 KiB
    bodies) then take no turn at this process's interpreter lock from the clients timed here."""

    def __init__(self, calls: int) -> None:
        code = ("import json, sys; sys.path.insert(0, sys.argv[1]); from serve_limits import fairness_world; "
                "o = fairness_world(int(sys.argv[2])); print(json.dumps(o.settings()), flush=True); "
                "sys.stdin.read(); o.stop()")
        self.proc = subprocess.Popen([sys.executable, "-c", code, str(Path(__file__).resolve().parent), str(calls)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.settings: dict[str, Any] = json.loads(self.proc.stdout.readline())

    def stop(self) -> None:
        self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _invoke(port: int, body: dict[str, Any], source: str, timeout: float = 120) -> tuple[float, str]:
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout, source_address=(source, 0))
    try:
        conn.request("POST", "/api/skills/invoke", body=json.dumps(body).encode(),
                     headers={"content-type": "application/json"})
        response = conn.getresponse()
        answer = json.loads(response.read())
    except (OSError, ValueError) as exc:
        return time.monotonic() - started, f"failed: {type(exc).__name__}"
    finally:
        conn.close()
    if response.status != 200 or not answer.get("ok"):
        return time.monotonic() - started, f"{response.status} {(answer.get('error') or {}).get('code')}"
    return time.monotonic() - started, "ok"


def fairness_run(python: str | None, calls: int, rounds: int) -> dict[str, Any]:
    origins = WorldProcess(calls)
    args = [a for key, value in origins.settings.items()
            for a in ("-s", f"{key}={value if isinstance(value, str) else json.dumps(value)}")]
    args += ["-s", "LOG_LEVEL=ERROR"]
    server = Server(None if python else ROOT, args, python=python, offline=False)
    rows: dict[str, Any] = {"python": python or sys.executable}
    try:
        round_no = iter(range(10**6))

        def b_call(kind: str) -> dict[str, Any]:
            n = next(round_no)
            if kind == "fetch":
                return {"name": "web.fetch", "input": {"url": f"https://small.bench.test/page?b={n}", "maxChars": 300}}
            return {"name": "web.search", "input": {"query": B_QUERY, "maxResults": 3}}

        def a_calls() -> tuple[str, list[dict[str, Any]]]:
            n = next(round_no)
            return a_address(n), [{"name": "web.fetch", "input": {"url": f"https://long{i}.bench.test/page?a={n}",
                                                                  "maxChars": 300}} for i in range(calls)]

        # warm: imports, the workers, TLS, robots.txt of every origin
        _invoke(server.port, b_call("fetch"), B_ADDRESS)
        _invoke(server.port, b_call("search"), B_ADDRESS)
        address, bodies = a_calls()
        with ThreadPoolExecutor(calls) as pool:
            list(pool.map(lambda body: _invoke(server.port, body, address), bodies))
        for kind in ("fetch", "search"):
            alone, beside, a_walls, outcomes = [], [], [], set()
            alone.append(_invoke(server.port, b_call(kind), B_ADDRESS)[0])
            for _ in range(rounds):
                address, bodies = a_calls()
                with ThreadPoolExecutor(calls) as pool:
                    started = time.monotonic()
                    a_done = [pool.submit(_invoke, server.port, body, address) for body in bodies]
                    time.sleep(0.3)  # A's calls are in: their pages reach the pool and the transfer slots
                    b_time, b_outcome = _invoke(server.port, b_call(kind), B_ADDRESS)
                    a_results = [f.result() for f in a_done]
                    a_walls.append(time.monotonic() - started)
                beside.append(b_time)
                outcomes.add(b_outcome)
                outcomes.update(f"A {o}" for _, o in a_results if o != "ok")
                alone.append(_invoke(server.port, b_call(kind), B_ADDRESS)[0])
            rows[kind] = {"b_alone_s": round(statistics.median(alone), 3),
                          "b_beside_a_s": round(statistics.median(beside), 3),
                          "ratio": round(statistics.median(beside) / statistics.median(alone), 1),
                          "b_beside_each_s": [round(b, 2) for b in beside],
                          "a_wall_s": round(statistics.median(a_walls), 2), "outcomes": sorted(outcomes)}
    finally:
        server.stop()
        origins.stop()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--slow", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3, help="fresh-client samples per measurement (median)")
    parser.add_argument("--baseline-tree", type=Path, default=None, help="an older checkout to attack too")
    parser.add_argument("--fairness", action="store_true", help="measure fairness per client instead")
    parser.add_argument("--calls", type=int, default=30, help="client A's concurrent calls (--fairness)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per measurement (--fairness)")
    parser.add_argument("--python", action="append", default=None,
                        help="(--fairness) serve with this interpreter too, e.g. another checkout's venv")
    opts = parser.parse_args()
    if opts.fairness:
        pythons = [None, *(opts.python or [])]
        print(json.dumps([fairness_run(p, opts.calls, opts.rounds) for p in pythons], indent=2))
        return 0
    reports = [run("this tree", ROOT, opts.sessions, opts.slow, opts.runs)]
    if opts.baseline_tree:
        reports.append(run(f"baseline {opts.baseline_tree}", opts.baseline_tree, opts.sessions, opts.slow,
                           opts.runs))
    print(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
