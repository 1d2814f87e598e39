"""Hostile responses against web_fetch: time to the structured error, peak RSS, and the
latency of a normal fetch running beside it.

Each case runs in a fresh process (peak RSS is per process), against the offline
origins on loopback, with default settings:

    python benchmarks/hostile_transport.py               # every case, one table
    python benchmarks/hostile_transport.py --case headers-1m --json

The process's baseline (interpreter, Scrapy, a first fetch) is reported next to its
peak, so the cost of the hostile response itself is the difference.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOST = "hostile.bench.test"
PAGE = ("<!doctype html><html lang='en'><head><title>Plain page</title></head><body><article>"
        + "<p>A plain page read beside the hostile one, to see whether it is slowed.</p>" * 20
        + "</article></body></html>").encode()


def _cases() -> dict[str, dict[str, Any]]:
    from tests.raw_http import chunked, many_headers, one_long_header, stacked_encodings

    return {
        "headers-100k": many_headers(100_000, PAGE),
        "headers-1m": many_headers(1_000_000, PAGE),  # about 12 MB of header fields
        "header-12mb": one_long_header(12 * 1024 * 1024, PAGE),
        "encodings-7000": stacked_encodings(7000, PAGE),
        "chunked-600k": chunked(600 * 1024),
    }


def _rss_mib() -> float:
    """Peak RSS of this process. ``VmHWM`` belongs to the process image, whereas Linux
    carries ``ru_maxrss`` over ``exec`` from the forking parent (a big test runner)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def _fetch(fetcher: Any, url: str) -> tuple[float, float, str, dict[str, Any]]:
    """Wall time, the event loop thread's CPU time (what a response costs the process,
    whatever else runs on the machine), the outcome's code and details."""
    from lightsearch.errors import LightSearchError

    started, cpu = time.monotonic(), time.thread_time()
    try:
        await fetcher.fetch(url)
        code, details = "ok", {}
    except LightSearchError as exc:
        code, details = exc.code, exc.details
    return time.monotonic() - started, time.thread_time() - cpu, code, details


async def run_case(name: str) -> dict[str, Any]:
    from lightsearch.offline_origins.server import OfflineOrigins
    from lightsearch.providers.fetch import WebFetch
    from tests.conftest import ROBOTS_ALLOW

    routes = _cases()
    with OfflineOrigins() as origins:
        origins.add_site(HOST, {"/robots.txt": ROBOTS_ALLOW, "/plain": {"body": PAGE},
                                f"/{name}": routes[name]})
        fetcher = WebFetch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})
        await _fetch(fetcher, f"https://{HOST}/plain")  # warm: imports, robots cache, TLS
        alone, alone_cpu, _, _ = await _fetch(fetcher, f"https://{HOST}/plain")
        baseline = _rss_mib()
        elapsed, cpu, code, details = await _fetch(fetcher, f"https://{HOST}/{name}")
        peak = _rss_mib()
        hostile, beside = await asyncio.gather(_fetch(fetcher, f"https://{HOST}/{name}"),
                                               _fetch(fetcher, f"https://{HOST}/plain"))
    return {
        "case": name, "code": code, "reason": details.get("reason"),
        "elapsed_s": round(elapsed, 3), "cpu_s": round(cpu, 3), "baseline_rss_mib": round(baseline, 1),
        "peak_rss_mib": round(max(peak, _rss_mib()), 1),
        "plain_alone_s": round(alone, 3), "plain_alone_cpu_s": round(alone_cpu, 3),
        "plain_beside_s": round(beside[0], 3), "plain_beside_code": beside[2],
        "hostile_beside_s": round(hostile[0], 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", default=None, help="one case, run in this process")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if args.case:
        row = asyncio.run(run_case(args.case))
        print(json.dumps(row))
        return 0
    rows = []
    for name in _cases():
        out = subprocess.run([sys.executable, __file__, "--case", name], capture_output=True,
                             text=True, check=True, cwd=ROOT)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    cols = ["case", "code", "reason", "elapsed_s", "baseline_rss_mib", "peak_rss_mib",
            "plain_alone_s", "plain_beside_s"]
    print(" | ".join(cols))
    for row in rows:
        print(" | ".join(str(row[c]) for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
