"""One provider lifecycle: every provider is built, entered and closed the same way, and only
the ones that crawl start (and release) the crawl runtime."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.brave import BraveSearch
from lightsearch.providers.engines.modes import EngineSearch
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.lifecycle import Provider
from lightsearch.providers.light import LightSearch
from lightsearch.providers.news import NewsSearch

PROVIDERS = [LightSearch, WebFetch, BraveSearch, EngineSearch, NewsSearch]
LIFECYCLE = ("from_settings", "__aenter__", "__aexit__", "aclose")


@pytest.mark.parametrize("cls", PROVIDERS)
def test_every_provider_takes_the_one_lifecycle(cls):
    assert issubclass(cls, Provider)
    # written once, in the base: a provider that wrote its own again would be a twin
    assert [name for name in LIFECYCLE if name in vars(cls)] == []
    assert cls.crawls is (cls in (LightSearch, WebFetch))


@pytest.mark.parametrize("cls", PROVIDERS)
def test_the_kill_switch_refuses_every_provider_at_construction(cls):
    with pytest.raises(LightSearchError) as info:
        cls.from_settings({"WEB_RETRIEVAL_ENABLED": False, "BRAVE_SEARCH_API_KEY": "key"})
    assert info.value.code == "disabled"
    assert info.value.details["switch"] == "WEB_RETRIEVAL_ENABLED"


SCRIPT = r'''
import asyncio, json, sys
from lightsearch.providers.brave import BraveSearch
from lightsearch.providers.engines.modes import EngineSearch
from lightsearch.providers.news import NewsSearch

def crawler_loaded():
    return sorted(m for m in ("lightsearch.crawl.runtime", "lightsearch.isolation.pool") if m in sys.modules)

async def main():
    out = {}
    async with BraveSearch.from_settings({"BRAVE_SEARCH_API_KEY": "key"}) as brave:
        out["brave"] = brave.provider
    async with EngineSearch.from_settings({}, "fallback") as engines:
        out["engines"] = engines.provider
    async with NewsSearch.from_settings({}) as news:
        out["news"] = news.provider
    out["loaded"] = crawler_loaded()
    from lightsearch.isolation import pool
    out["pools_before_fetch"] = len(pool._pools)
    from lightsearch.providers.fetch import WebFetch
    async with WebFetch.from_settings({"LIGHT_POOL_WORKERS": 1}) as reader:
        out["loaded_by_fetch"] = crawler_loaded()
        out["pools_open"] = len(pool._pools)
    out["pools_after"] = len(pool._pools)
    return out

print(json.dumps(asyncio.run(main())), flush=True)
'''


def test_api_providers_never_start_the_crawler_and_crawling_ones_release_it():
    """Brave and the engines hold nothing to release, so they never import the crawl
    runtime or start workers (they may import the pool's module: a large answer is parsed
    there, on demand); web_fetch starts its workers when it is built and stops the
    idle ones when it is closed."""
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.splitlines()[-1])
    assert (out["brave"], out["engines"], out["news"]) == ("brave", "fallback", "news")
    assert out["loaded"] in ([], ["lightsearch.isolation.pool"])
    assert out["pools_before_fetch"] == 0
    assert out["loaded_by_fetch"] == ["lightsearch.crawl.runtime", "lightsearch.isolation.pool"]
    assert out["pools_open"] == 1
    assert out["pools_after"] == 0
