"""A client's burst beside another client's one call: the calls at once a client may run,
as a fixed number per client against the number divided among the clients present.

Client A makes 30 concurrent ``web_fetch`` calls of a small page on one origin (the soak's
``burst-30``); 0.2 s in, client B makes one call: a ``web_fetch`` of a small page on
another origin, or a Light search over the bundled offline catalog. B's time beside the
burst is divided by B's time alone, measured just before. Both ways are taken in the same
process, in alternating rounds, so the machine's load falls on both:

- ``fixed``: each client runs ``WEB_TOOLS_CALLS_IN_FLIGHT`` (4) calls at once whoever else
  is present;
- ``shared``: what the served surfaces do (``serving/call_limits.py``): the 4 divided among
  the clients present.

One process runs the toolbox as ``lightsearch serve`` does (its calls named by client); the
origins run in a process of their own, so their threads take no turn at this process's
interpreter lock. Prints one line per way and call, the medians of the rounds.

    python benchmarks/burst_fairness.py --rounds 8
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BURST = 30
B_QUERY = "europa clipper gravity assist"

WORLD = r'''
import json, sys
from lightsearch.offline_origins.server import OfflineOrigins
o = OfflineOrigins().start()
robots = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}
tiny = (b"<!doctype html><html><head><title>Tiny</title></head><body><p>"
        + b"A tiny page of a few words. " * 8 + b"</p></body></html>")
small = (b"<!doctype html><html lang='en'><head><title>Tide tables</title></head><body><article>"
         b"<h1>Tide tables</h1><p>" + b"High water at the harbour mouth comes an hour after the bar. " * 12
         + b"</p></article></body></html>")
o.add_site("burst.bench.test", {"/robots.txt": robots, "/tiny": {"body": tiny}})
o.add_site("small.bench.test", {"/robots.txt": robots, "/page": {"body": small}})
print(json.dumps(o.settings()), flush=True)
sys.stdin.read()
o.stop()
'''


async def measure(rounds: int) -> dict[str, Any]:
    world = subprocess.Popen([sys.executable, "-c", WORLD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        settings = json.loads(world.stdout.readline())
        # the burst's 30 fetches every round: no client here is held by the per-minute limits
        settings.update({"LOG_LEVEL": "ERROR", "WEB_TOOLS_FETCHES_PER_MINUTE": 0,
                         "WEB_TOOLS_SEARCHES_PER_MINUTE": 0})
        from lightsearch.surfaces.toolbox import Toolbox

        toolbox = Toolbox(settings)
        shared_share = toolbox.in_flight.share
        numbers = iter(range(10**9))

        async def b_call(kind: str) -> float:
            started = time.monotonic()
            if kind == "fetch":
                args = {"url": f"https://small.bench.test/page?b={next(numbers)}", "maxChars": 300}
                answer = await toolbox.invoke("web_fetch", args, client="B")
            else:
                answer = await toolbox.invoke("web_search", {"query": B_QUERY, "maxResults": 3}, client="B")
            if "error" in answer:
                raise RuntimeError(f"B's {kind}: {answer['error']}")
            return time.monotonic() - started

        async def burst() -> None:
            await asyncio.gather(*[toolbox.invoke("web_fetch", {"url": f"https://burst.bench.test/tiny?{next(numbers)}"},
                                                  client="A") for _ in range(BURST)])

        await b_call("fetch")  # warm: imports, the workers, TLS, robots.txt, the catalog
        await b_call("search")
        await burst()
        times: dict[tuple[str, str], tuple[list[float], list[float]]] = {
            (way, kind): ([], []) for way in ("fixed", "shared") for kind in ("fetch", "search")}
        for _ in range(rounds):
            for way in ("fixed", "shared"):
                toolbox.in_flight.share = (lambda _c: toolbox.in_flight.limit) if way == "fixed" else shared_share
                for kind in ("fetch", "search"):
                    alone, beside = times[(way, kind)]
                    alone.append(await b_call(kind))
                    a = asyncio.ensure_future(burst())
                    await asyncio.sleep(0.2)  # A's calls are in: four (or its share) running, the rest waiting
                    beside.append(await b_call(kind))
                    await a
        await toolbox.aclose()
    finally:
        world.stdin.close()
        try:
            world.wait(10)
        except subprocess.TimeoutExpired:
            world.kill()
    return {f"{way} {kind}": {"b_alone_s": round(statistics.median(alone), 3),
                              "b_beside_s": round(statistics.median(beside), 3),
                              "ratio": round(statistics.median(beside) / statistics.median(alone), 2)}
            for (way, kind), (alone, beside) in times.items()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8, help="rounds of each way (medians reported)")
    opts = parser.parse_args()
    for name, row in asyncio.run(asyncio.wait_for(measure(opts.rounds), 1800)).items():
        print(name, json.dumps(row))
    return 0


if __name__ == "__main__":
    sys.exit(main())
