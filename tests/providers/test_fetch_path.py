"""web_fetch does not pass through Light: reading a page never imports Light's provider, its
result or its discovery spider, neither in the code (every import, lazy ones too) nor in a
process that fetched through the front door."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.test_layers import imports, modules

LIGHT = ("lightsearch.providers.light", "lightsearch.providers.light_result", "lightsearch.spiders.discovery",
         "lightsearch.plan.selection")


def reach(start: str) -> dict[str, str | None]:
    """Every project module importing ``start`` can load at run time (module-level and lazy
    imports, and the packages around each; not what only a type checker reads), with the
    module that first imports it."""
    mods = modules()
    via: dict[str, str | None] = {start: None}
    todo = [start]
    while todo:
        name = todo.pop()
        parts = name.split(".")
        targets = set(imports(mods[name], name, runtime=True)) | {".".join(parts[:i]) for i in range(2, len(parts))}
        for target in sorted(targets):
            if target in mods and target not in via:
                via[target] = name
                todo.append(target)
    return via


def chain(via: dict[str, str | None], name: str) -> str:
    links: list[str] = []
    at: str | None = name
    while at is not None:
        links.append(at)
        at = via[at]
    return " <- ".join(links)


def test_the_fetch_provider_and_spider_import_nothing_of_light():
    for start in ("lightsearch.providers.fetch", "lightsearch.spiders.fetch"):
        via = reach(start)
        assert [chain(via, m) for m in LIGHT if m in via] == []


SCRIPT = r'''
import asyncio, json, sys
from lightsearch.surfaces.toolbox import Toolbox

async def main():
    async with Toolbox({"LOG_LEVEL": "ERROR"}, offline=True) as box:
        one = await box.fetch("https://www.nasa.gov/")
        many = await box.call("web_fetch", {"urls": ["https://www.nasa.gov/", "https://www.nasa.gov/news"]})
    return {"title": one.get("title"), "fetched": many["fetched"],
            "loaded": sorted(m for m in sys.modules if m.startswith("lightsearch."))}

print(json.dumps(asyncio.run(main())), flush=True)
'''


def test_a_fetch_through_the_front_door_never_loads_light():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert out["title"]
    assert out["fetched"] >= 1
    assert "lightsearch.providers.fetch" in out["loaded"]
    assert [m for m in LIGHT if m in out["loaded"]] == []
