"""Start-up time: how long a new user waits before the command answers.

Measures, interleaved in one run so machine load falls on every side alike:

* ``lightsearch --help`` against the lightest peer's ``--help`` (ddgs, DuckDuckGo's
  keyless search command: ``pip install ddgs``; left out, with a note, when missing);
* ``lightsearch tools`` (the tool schemas, which a desktop agent asks for first);
* an MCP client over stdio from spawning ``lightsearch mcp`` to the answer of
  ``initialize`` (the official SDK's client, as a desktop agent connects).

    python benchmarks/startup.py [--runs 9] [--json]

Reports the median and the fastest run of each, and the ratios the targets are set on
(``--help`` / the peer's ``--help``; MCP ``initialize`` in seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def command(name: str) -> str | None:
    found = BIN / name
    return str(found) if found.exists() else shutil.which(name)


def clean_env() -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "SYSTEMROOT")
    return {k: v for k, v in os.environ.items() if k in keep}


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=clean_env(), timeout=120)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')[-500:]}")
    return elapsed


async def mcp_initialize(lightsearch: str) -> float:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=lightsearch, args=["mcp"], env=clean_env())
    started = time.perf_counter()
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=9)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args()
    lightsearch = command("lightsearch")
    if lightsearch is None:
        raise SystemExit("lightsearch is not installed in this environment (pip install -e .)")
    peer = command("ddgs")
    cases = {
        "lightsearch --help": lambda: timed([lightsearch, "--help"]),
        "lightsearch tools": lambda: timed([lightsearch, "tools"]),
        "mcp initialize (stdio)": lambda: asyncio.run(mcp_initialize(lightsearch)),
    }
    if peer:
        cases["ddgs --help (peer)"] = lambda: timed([peer, "--help"])
    for run in cases.values():  # warm the file cache once
        run()
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, run in cases.items():
            times[name].append(run())
    figures = {name: {"medianSecs": round(statistics.median(t), 3), "minSecs": round(min(t), 3)}
               for name, t in times.items()}
    if peer:
        figures["help / peer help (median)"] = round(
            figures["lightsearch --help"]["medianSecs"] / figures["ddgs --help (peer)"]["medianSecs"], 2)
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    for name, value in figures.items():
        if isinstance(value, dict):
            print(f"{name:28} median {value['medianSecs']:.3f} s   fastest {value['minSecs']:.3f} s")
        else:
            print(f"{name:28} {value}")
    if not peer:
        print("(the peer is not installed: pip install ddgs, then run again for the ratio)")


if __name__ == "__main__":
    main()
