"""An app embeds the engine: searches and a fetch inside ``asyncio.run``, then the process
exits by itself; a second ``asyncio.run`` fails at once with a clear, documented error."""

from __future__ import annotations

import json
import subprocess
import sys
import time

SCRIPT = r'''
import asyncio, json, sys, time
from lightsearch import LightSearch, LightSearchError
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.providers.fetch import WebFetch

origins = OfflineOrigins().start()
settings = {**origins.settings(), "LOG_LEVEL": "ERROR"}

async def main():
    out = {}
    async with LightSearch.from_settings(settings) as engine:
        out["a"] = len((await engine.search("photosynthesis calvin cycle"))["hits"])
        out["b"] = len((await engine.search("europa clipper"))["hits"])
    async with WebFetch.from_settings(settings) as reader:
        out["title"] = (await reader.fetch("https://www.nasa.gov/"))["title"]
    return out

print(json.dumps(asyncio.run(main())), flush=True)
if sys.argv[1] == "again":
    try:
        asyncio.run(main())
        print(json.dumps({"second": "ok"}), flush=True)
    except LightSearchError as exc:
        print(json.dumps({"second": exc.code, "message": exc.message}), flush=True)
origins.stop()
print(json.dumps({"last": time.time()}), flush=True)
'''


def _run(mode: str) -> tuple[list[dict], float]:
    proc = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True, text=True, timeout=90)
    ended = time.time()
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [json.loads(line) for line in proc.stdout.splitlines()], ended


def test_script_exits_by_itself_after_its_results():
    lines, ended = _run("once")
    assert lines[0]["a"] >= 1
    assert lines[0]["b"] >= 1
    assert lines[0]["title"]
    assert ended - lines[-1]["last"] < 5


def test_second_asyncio_run_fails_at_once_with_a_clear_error():
    lines, ended = _run("again")
    second = lines[1]
    assert second["second"] == "runtime_closed"
    assert "one asyncio.run()" in second["message"]
    assert ended - lines[-1]["last"] < 5
