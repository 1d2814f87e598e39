"""How long a Redis that answers one byte every few milliseconds holds a fleet worker's
event loop: web_fetch calls, in process, on the offline origins, with
``FLEET_REDIS_URL`` pointing at a real redis-server behind a loopback proxy that passes its
answers a byte at a time (tests/redis_server.py ``TrickleProxy``).

Reported: the longest single Redis call (``FleetLink.call``, timed around it), the event
loop's longest stall and its total stalls over 10 ms (a task that sleeps 5 ms at a time
and notes how late it wakes), the fetches done and their notes; and the same loop figures
for the same fetches without Redis, measured first in the same process, which is what the
machine's load alone costs. ``--python`` runs the same measurement under other
interpreters (another checkout's venv: the code it imports is that checkout's), one after
the other.

    python benchmarks/redis_trickle.py
    python benchmarks/redis_trickle.py --python /work/main/.venv/bin/python --python .venv/bin/python
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
ROBOTS_ALLOW = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}


def _helpers() -> Any:
    """tests/redis_server.py, loaded by path: the lightsearch imported is the interpreter's."""
    spec = importlib.util.spec_from_file_location("soak_redis_server", ROOT / "tests" / "redis_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def measure(seconds: float, drip: float) -> dict[str, Any]:
    from lightsearch.fleet.link import FleetLink
    from lightsearch.offline_origins.server import OfflineOrigins
    from lightsearch.providers.fetch import WebFetch

    helpers = _helpers()
    redis = helpers.RedisServer().start()
    proxy = helpers.TrickleProxy(redis.port, interval=drip).start()
    origins = OfflineOrigins().start()
    hosts = [f"trickle-{i}.bench.test" for i in range(4)]
    for host in hosts:
        origins.add_site(host, {"/robots.txt": ROBOTS_ALLOW, "/p": {"body": (
            "<!doctype html><html><body><article>" + "<p>Harbour tide gauge readings, day by day.</p>" * 40
            + "</article></body></html>")}})
    longest_call = [0.0]
    original = FleetLink.call

    def timed(self: Any, fn: Any) -> Any:
        started = time.monotonic()
        try:
            return original(self, fn)
        finally:
            longest_call[0] = max(longest_call[0], time.monotonic() - started)

    FleetLink.call = timed  # type: ignore[method-assign]
    stalls: list[float] = []
    stop = asyncio.Event()

    async def watch() -> None:
        while not stop.is_set():
            before = time.monotonic()
            await asyncio.sleep(0.005)
            late = time.monotonic() - before - 0.005
            if late > 0.010:
                stalls.append(late)

    async def fetching(settings: dict[str, Any]) -> dict[str, Any]:
        stalls.clear()
        stop.clear()
        fetch = WebFetch.from_settings(settings)
        watcher = asyncio.ensure_future(watch())
        done = failed = unavailable = 0
        started = time.monotonic()
        i = 0
        try:
            while time.monotonic() - started < seconds:
                try:
                    page = await fetch.fetch(f"https://{hosts[i % len(hosts)]}/p")
                    done += 1
                    unavailable += any(n.startswith("shared state unavailable") for n in page.get("notes", []))
                except Exception:
                    failed += 1
                i += 1
        finally:
            elapsed = time.monotonic() - started
            stop.set()
            await watcher
        return {"seconds": round(elapsed, 1), "fetches": done, "failed": failed, "noted_unavailable": unavailable,
                "longest_loop_stall_s": round(max(stalls, default=0.0), 3), "loop_stalled_s": round(sum(stalls), 2)}

    base = {**origins.settings(), "LOG_LEVEL": "ERROR"}
    try:
        await WebFetch.from_settings(base).fetch(f"https://{hosts[0]}/p")  # the worker pool started
        alone = await fetching(base)
        longest_call[0] = 0.0
        trickling = await fetching({**base, "FLEET_REDIS_URL": proxy.url})
    finally:
        origins.stop()
        proxy.stop()
        redis.stop()
    return {"python": sys.executable, "alone": alone, "trickling": trickling,
            "longest_redis_call_s": round(longest_call[0], 3)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", action="append", help="interpreter to measure with (repeatable)")
    parser.add_argument("--seconds", type=float, default=15.0, help="how long to fetch")
    parser.add_argument("--drip", type=float, default=0.004, help="seconds between the bytes of Redis's answers")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(measure(args.seconds, args.drip))))
        return 0
    for python in args.python or [sys.executable]:
        out = subprocess.run([python, __file__, "--child", "--seconds", str(args.seconds), "--drip", str(args.drip)],
                             capture_output=True, text=True, timeout=args.seconds + 300)
        lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
        if not lines:
            print(f"{python}: failed\n{out.stderr[-2000:]}")
            continue
        r = json.loads(lines[-1])
        print(python)
        for name in ("alone", "trickling"):
            m = r[name]
            print(f"  {name:9s} {m['fetches']} fetches in {m['seconds']} s ({m['failed']} failed, "
                  f"{m['noted_unavailable']} noted 'shared state unavailable'); event loop: longest stall "
                  f"{m['longest_loop_stall_s']} s, {m['loop_stalled_s']} s stalled in all")
        print(f"  longest Redis call {r['longest_redis_call_s']} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
