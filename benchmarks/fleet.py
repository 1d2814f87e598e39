"""Fleet benchmark: searches per minute and origin requests per search for 1, 2
and 4 workers, with and without a shared Redis, on an offline world in stream mode.

Each configuration gets fresh origins (so the server's counts are its own), a fresh Redis
namespace, and ``lightsearch serve --workers N`` in a subprocess; a client sends the same
query stream through the invoke endpoint, ``--concurrency`` searches at a time (each thread
an agent with a loopback address of its own: the server gives turns by client). Counted at
the origin server: requests per search, robots.txt fetches per origin, and the most
requests one origin ever saw open at once (1 is polite; more is what a fleet without
shared politeness does).

    python benchmarks/fleet.py --world cranfield --queries 80      # needs ../shared/data
    python benchmarks/fleet.py --world offline --queries 60        # the bundled origins
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lightsearch.offline_origins.server import SITES_DIR, OfflineOrigins  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402


def world(name: str, tmp: Path, data: Path | None) -> tuple[Path, str | None, list[str]]:
    """(sites folder, catalog path or None for the bundled one, queries)."""
    if name == "offline":
        import html
        import re

        queries = []
        for page in sorted(Path(SITES_DIR).glob("*/articles/*.html")):
            found = re.search(r"<title>(.*?)</title>", page.read_text("utf-8", "replace"), re.S)
            if found:
                queries.append(html.unescape(found.group(1)).split(" | ")[0].split(" - ")[0].strip())
        return Path(SITES_DIR), None, queries
    from lightsearch.offline_origins import worlds

    build = worlds.build_cranfield_world if name == "cranfield" else worlds.build_heq_world
    built = build(tmp, data)
    return built.sites_dir, str(built.catalog_path), [q["query"] if isinstance(q, dict) else q.query
                                                      for q in built.queries]


_agent = threading.local()
_agents = itertools.count(1)


def agent_address() -> str:
    """Each client thread is an agent of its own, with a loopback address of its own: the
    server gives turns by client, and one address would be one agent held to its share."""
    if not hasattr(_agent, "address"):
        _agent.address = f"127.0.2.{next(_agents) % 250 + 1}"
    return _agent.address


def invoke(url: str, query: str) -> tuple[bool, float]:
    body = json.dumps({"name": "web.search", "input": {"query": query, "maxResults": 10}}).encode()
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120, source_address=(agent_address(), 0))
    started = time.monotonic()
    try:
        conn.request("POST", "/api/skills/invoke", body=body, headers={"content-type": "application/json"})
        answer = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    return bool(answer.get("ok")), time.monotonic() - started


def run(workers: int, shared: bool, sites: Path, catalog: str | None, queries: list[str], *,
        latency: float, concurrency: int) -> dict:
    origins = OfflineOrigins(sites, latency=latency, jitter=latency / 2).start()
    redis = RedisServer().start() if shared else None
    settings = {**origins.settings(), "LOG_LEVEL": "ERROR", "WEB_SEARCH_PROVIDER": "light",
                "WEB_TOOLS_SEARCHES_PER_MINUTE": 0, "FLEET_REDIS_PREFIX": f"b{uuid.uuid4().hex[:6]}:"}
    if catalog:
        settings["LIGHT_CATALOG"] = catalog
    args = []
    for key, value in settings.items():
        args += ["-s", f"{key}={value if isinstance(value, str) else json.dumps(value)}"]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEB_", "LIGHTSEARCH_", "BRAVE_"))}
    if redis is not None:
        env["LIGHTSEARCH_REDIS_URL"] = redis.url
    proc = subprocess.Popen([sys.executable, "-m", "lightsearch.surfaces.cli", "serve", "--port", "0",
                             "--workers", str(workers), *args], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        url = line.split("serving on ", 1)[1].split(" ", 1)[0]
        invoke(url, queries[0])  # every worker imports its stack before the clock starts
        for _ in range(workers):
            invoke(url, queries[0])
        origins.reset_log()
        started = time.monotonic()
        with ThreadPoolExecutor(concurrency) as pool:
            answers = list(pool.map(lambda q: invoke(url, q), queries))
        wall = time.monotonic() - started
        robots: dict[tuple[str, str], int] = {}
        for entry in origins.log:
            if entry["path"] == "/robots.txt":
                robots[(entry["scheme"], entry["host"])] = robots.get((entry["scheme"], entry["host"]), 0) + 1
        latencies = sorted(t for _, t in answers)
        return {
            "workers": workers, "redis": shared, "searches": len(queries),
            "ok": sum(ok for ok, _ in answers),
            "searchesPerMinute": round(len(queries) / wall * 60, 1),
            "p50Secs": round(latencies[len(latencies) // 2], 2),
            "p95Secs": round(latencies[int(len(latencies) * 0.95) - 1], 2),
            "originRequestsPerSearch": round(len(origins.log) / len(queries), 2),
            "robotsFetchesPerOrigin": round(sum(robots.values()) / max(1, len(robots)), 2),
            "maxOpenPerOrigin": max(origins.open_max.values(), default=0),
        }
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        proc.stderr.close()
        if redis is not None:
            redis.stop()
        origins.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", choices=("offline", "cranfield", "heq"), default="offline")
    parser.add_argument("--data", default=None, help="shared data folder (worlds)")
    parser.add_argument("--queries", type=int, default=60)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=8, help="searches in flight from the client")
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="lightsearch-fleet-") as tmp:
        sites, catalog, queries = world(opts.world, Path(tmp), Path(opts.data) if opts.data else None)
        queries = (queries * (1 + opts.queries // max(1, len(queries))))[: opts.queries]
        rows = []
        for workers in (int(w) for w in opts.workers.split(",")):
            for shared in (False, True):
                rows.append(run(workers, shared, sites, catalog, queries, latency=opts.latency,
                                concurrency=opts.concurrency))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    if opts.json:
        print(json.dumps(rows, indent=2))
        return
    cols = ["workers", "redis", "ok", "searchesPerMinute", "p50Secs", "p95Secs", "originRequestsPerSearch",
            "robotsFetchesPerOrigin", "maxOpenPerOrigin"]
    print("| " + " | ".join(cols) + " |")
    print("|" + " --- |" * len(cols))
    for row in rows:
        print("| " + " | ".join(str(row[c]) for c in cols) + " |")


if __name__ == "__main__":
    main()
