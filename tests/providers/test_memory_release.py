"""Every call gives its memory back: once a search, a news search, a fetch or an engine's
answer has returned and its result is let go, nothing it made is alive (no crawler,
spider, request, response, crawl outcome, API response, session or selector), whether it
succeeded or failed. Watched with weak references (tests/memory_probe.py) on real calls:
the offline origins, the engines' and Brave's recorded answers on loopback replay servers.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.light import LightSearch
from lightsearch.providers.news import NewsSearch
from tests.conftest import ROBOTS_ALLOW, coroutine_test
from tests.memory_probe import PROBED, left_alive

WALLS = "https://walls.example"
SITE = "release.memory.test"


@pytest.fixture
def settings(origins):
    origins.add_site(SITE, {
        "/robots.txt": ROBOTS_ALLOW,
        "/hop": {"status": 302, "headers": {"Location": f"https://{SITE}/page"}},
        "/page": {"body": "<!doctype html><html><body><article>" + "<p>tide gauge reading</p>" * 50
                          + "</article></body></html>"},
        "/gone": {"status": 404, "body": "<p>no</p>"},
        "/slow": {"body": "<p>late</p>", "delay": 3.0},
    })
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR", **PROBED}


async def fetch(settings, url, **overrides):
    try:
        return await WebFetch.from_settings({**settings, **overrides}).fetch(url)
    except LightSearchError as exc:
        return exc.to_dict()


FETCHES = {
    "article": (f"{WALLS}/article", {}),
    "redirect": (f"https://{SITE}/hop", {}),
    "http_status": (f"https://{SITE}/gone", {}),
    "robots_disallowed": (f"{WALLS}/private/page", {}),
    "deadline": (f"https://{SITE}/slow", {"WEB_FETCH_DEADLINE_SECS": 1.0}),
}


@coroutine_test
async def test_a_fetch_lets_go_of_its_crawl_however_it_ends(settings):
    async def every_ending():
        return [await fetch(settings, url, **overrides) for url, overrides in FETCHES.values()]

    alive, made = await left_alive(every_ending)
    assert made["crawler"] == len(FETCHES)  # the probe saw each crawl
    assert made["spider"] == len(FETCHES)
    assert alive == []


@coroutine_test
async def test_a_cancelled_fetch_lets_go_of_its_crawl(settings, origins):
    async def cancelled():
        task = asyncio.ensure_future(fetch(settings, f"https://{SITE}/slow"))
        while not any(e["path"] == "/slow" for e in origins.requests_for(SITE)):
            await asyncio.sleep(0.02)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    alive, made = await left_alive(cancelled)
    assert made["response"] >= 1  # robots.txt; the page's request was in flight
    assert alive == []


@coroutine_test
async def test_fetch_many_lets_go_of_every_crawl(settings):
    urls = [f"{WALLS}/article", f"https://{SITE}/page", f"https://{SITE}/gone", f"{WALLS}/notes.txt"]
    alive, made = await left_alive(lambda: WebFetch.from_settings(settings).fetch_many(urls))
    assert made["crawler"] == len(urls)
    assert made["response"] >= len(urls)
    assert alive == []


@coroutine_test
async def test_a_light_search_lets_go_of_its_crawl(settings):
    alive, made = await left_alive(lambda: LightSearch.from_settings(settings).search("moon landing"))
    assert made["crawler"] == 1
    assert made["response"] >= 3
    assert alive == []


@coroutine_test
async def test_news_lets_go_of_its_crawl_and_its_answers(settings, engine_replay):
    engine_replay.reset()
    news = NewsSearch.from_settings(merge_settings(settings, engine_replay.settings(),
                                                   {"WEB_SEARCH_CACHE": None}))
    alive, made = await left_alive(lambda: news.news("space", when="7d"))
    assert engine_replay.count("news") == 1
    assert made["crawler"] >= 1
    assert alive == []


ENGINES = {
    "ddg_html": {}, "ddg_lite": {}, "news": {}, "wikipedia": {}, "hn": {}, "reddit": {}, "searxng": {},
    "tavily": {"WEB_SEARCH_TAVILY_API_KEY": "tv-key"},
    "openrouter": {"WEB_SEARCH_OPENROUTER_API_KEY": "or-key"},
}


@coroutine_test
async def test_every_engine_lets_go_of_its_answer(engine_replay):
    engine_replay.reset()

    async def each_engine():
        answers = []
        for engine, keys in ENGINES.items():
            provider = load_provider(merge_settings(engine_replay.settings(), {
                "WEB_SEARCH_PROVIDER": engine, "LOG_LEVEL": "ERROR", "WEB_SEARCH_SUSPENSION": None,
                "WEB_SEARCH_CACHE": None, **keys}), environ={})
            answers.append(await provider.search("rust programming"))
        return answers

    alive, _ = await left_alive(each_engine)
    assert all(engine_replay.count(engine) >= 1 for engine in ENGINES)
    assert alive == []


@coroutine_test
async def test_brave_and_its_source_pages_let_go(brave_replay, origins, settings):
    def to_our_site(payload):
        payload["web"]["results"][0]["url"] = f"https://{SITE}/page"
        payload["web"]["results"][0]["meta_url"]["hostname"] = SITE
        return payload

    brave_replay.script("release", transform=to_our_site)
    provider = load_provider(merge_settings(settings, brave_replay.settings("release"), {
        "BRAVE_SOURCE_FETCH": True, "BRAVE_SOURCE_FETCH_PAGES": 1}), environ={})
    alive, made = await left_alive(lambda: provider.search("hello world program", max_results=3))
    assert made["crawler"] == 1  # the source page, read through web_fetch
    assert alive == []
