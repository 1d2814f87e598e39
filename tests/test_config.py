"""One kill switch, below every surface: ``LIGHTSEARCH_NO_WEB=1``, ``WEB_RETRIEVAL_ENABLED=false``
(environment) and ``WEB_RETRIEVAL_ENABLED`` (a setting, ``-s``) stop every search and fetch
with the structured ``disabled`` error, and nothing reaches an origin or an engine.

One test per surface: the Python API (``LightSearch``, ``WebFetch.fetch``/``fetch_many``,
``load_provider()`` for Light, Brave and the engines, web_news, ``Toolbox.fetch``,
Brave's page fetches, the crawl and the API client underneath), ``scrapy
search|read|news|evaluate`` and ``lightsearch search|news|fetch`` as processes. MCP and the
invoke endpoint have theirs in tests/surfaces/test_mcp_server.py and tests/serving/test_app.py.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lightsearch.config import make_settings, retrieval_switch
from lightsearch.errors import LightSearchError
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.light import LightSearch
from lightsearch.providers.news import NewsSearch
from lightsearch.surfaces.toolbox import Toolbox
from tests.conftest import coroutine_test
from tests.surfaces.test_mcp_server import clean_env, setting_args

PAGE = "https://www.nasa.gov/"
SWITCHES = [("LIGHTSEARCH_NO_WEB", "1"), ("WEB_RETRIEVAL_ENABLED", "false")]


def assert_disabled(exc: LightSearchError) -> None:
    assert exc.code == "disabled", exc
    assert "disabled by configuration" in exc.message
    assert exc.details["switch"] in ("LIGHTSEARCH_NO_WEB", "WEB_RETRIEVAL_ENABLED")


async def refused(call) -> LightSearchError:
    try:
        await call()
    except LightSearchError as exc:
        return exc
    raise AssertionError("the call answered with the kill switch off")


def test_the_switch_reads_settings_and_environment(monkeypatch):
    for var in ("LIGHTSEARCH_NO_WEB", "WEB_RETRIEVAL_ENABLED"):
        monkeypatch.delenv(var, raising=False)
    on = make_settings()
    assert retrieval_switch(on) is None
    assert retrieval_switch(make_settings({"WEB_RETRIEVAL_ENABLED": False})) == "WEB_RETRIEVAL_ENABLED"
    assert retrieval_switch(make_settings({"WEB_RETRIEVAL_ENABLED": "false"})) == "WEB_RETRIEVAL_ENABLED"
    assert retrieval_switch(on, {"LIGHTSEARCH_NO_WEB": "1"}) == "LIGHTSEARCH_NO_WEB=1"
    assert retrieval_switch(on, {"LIGHTSEARCH_NO_WEB": "0", "WEB_RETRIEVAL_ENABLED": "true"}) is None
    assert retrieval_switch(on, {"LIGHTSEARCH_NO_WEB": " "}) is None  # blank: unset
    assert retrieval_switch(on, {"WEB_RETRIEVAL_ENABLED": "maybe"}) is not None  # fails closed
    # off wins: a setting cannot switch back on what the environment switched off
    monkeypatch.setenv("LIGHTSEARCH_NO_WEB", "yes")
    assert retrieval_switch(make_settings({"WEB_RETRIEVAL_ENABLED": True})) == "LIGHTSEARCH_NO_WEB=1"


@pytest.mark.parametrize(("var", "value"), SWITCHES)
@coroutine_test
async def test_python_api_light_and_fetch(origins, offline_settings, monkeypatch, var, value):
    """Built before the switch went off: the search and both fetches stop at their start;
    built after: the constructor refuses. No request reaches the origins either way."""
    light = LightSearch.from_settings(offline_settings)
    fetcher = WebFetch.from_settings(offline_settings)
    origins.reset_log()
    monkeypatch.setenv(var, value)
    assert_disabled(await refused(lambda: light.search("NASA artemis moon")))
    assert_disabled(await refused(lambda: fetcher.fetch(PAGE)))
    assert_disabled(await refused(lambda: fetcher.fetch_many([PAGE, PAGE + "news"])))
    for build in (lambda: LightSearch.from_settings(offline_settings), lambda: WebFetch.from_settings(offline_settings)):
        with pytest.raises(LightSearchError) as info:
            build()
        assert_disabled(info.value)
    assert origins.log == []


@coroutine_test
async def test_setting_alone_stops_the_python_api(origins, offline_settings):
    off = {**offline_settings, "WEB_RETRIEVAL_ENABLED": False}
    with pytest.raises(LightSearchError) as info:
        LightSearch.from_settings(off)
    assert info.value.details["switch"] == "WEB_RETRIEVAL_ENABLED"
    with pytest.raises(LightSearchError):
        load_provider(off)
    box = Toolbox(off)
    assert_disabled(await refused(lambda: box.fetch(PAGE)))
    assert_disabled(await refused(lambda: box.fetch([PAGE])))
    assert origins.log == []


@coroutine_test
async def test_load_provider_for_light_brave_and_the_engines(engine_replay, monkeypatch):
    """Every provider ``load_provider`` builds, loaded while on: each search stops at its
    start and the engine engine_replay sees no request."""
    engine_replay.reset()
    # the host map alone keeps every provider on loopback, were the switch ever to fail
    base = merge_settings(engine_replay.settings(), {"LOG_LEVEL": "ERROR", "BRAVE_SEARCH_API_KEY": "k",
                                              "LIGHT_HOST_MAP_ONLY": True})
    providers = [load_provider({**base, "WEB_SEARCH_PROVIDER": name}, environ={})
                 for name in ("light", "brave", "auto", "fallback", "duckduckgo", "wikipedia")]
    news = NewsSearch(make_settings(base))
    monkeypatch.setenv("LIGHTSEARCH_NO_WEB", "1")
    for provider in providers:
        assert_disabled(await refused(lambda p=provider: p.search("rust programming language")))
    assert_disabled(await refused(lambda: news.news("rust programming language")))
    for name in ("light", "brave", "auto"):
        with pytest.raises(LightSearchError) as info:
            load_provider({**base, "WEB_SEARCH_PROVIDER": name}, environ={})
        assert_disabled(info.value)
    assert all(engine_replay.count(e) == 0 for e in ("ddg_html", "ddg_lite", "wikipedia", "news", "brave"))


@coroutine_test
async def test_the_layers_underneath_refuse_too(origins, offline_settings, monkeypatch):
    """Below the providers: Brave's page fetches and a crawl (an engine's API request is
    behind its provider's door, which checks the switch once: tests/providers/test_search_call.py)."""
    from lightsearch.crawl.run import run_crawl
    from lightsearch.providers.brave import BraveHit
    from lightsearch.providers.source_pages import fetch_sources
    from lightsearch.spiders.fetch import FetchSpider

    settings = make_settings({**offline_settings, "BRAVE_SEARCH_API_KEY": "k"})
    hits = [BraveHit(title="NASA", url=PAGE, snippet="s", source="nasa.gov", source_name="NASA",
                     retrieved_at="2026-01-01T00:00:00Z", rank=1)]
    origins.reset_log()
    monkeypatch.setenv("WEB_RETRIEVAL_ENABLED", "off")
    assert_disabled(await refused(lambda: fetch_sources(hits, settings, remaining_secs=10)))
    assert_disabled(await refused(lambda: run_crawl(settings, FetchSpider, 5.0, url=PAGE)))
    assert origins.log == []


# ------------------------------------------------------------------ the commands
def disabled_json(proc) -> dict:
    assert proc.returncode == 1, proc.stdout + proc.stderr
    result = json.loads(proc.stdout)
    assert result["error"]["code"] == "disabled", result
    return result


def test_scrapy_search_as_a_process_obeys_the_switch(tmp_path):
    """The switch in a new process's environment (the runs below go through the same entry
    point in this process)."""
    disabled_json(subprocess.run([sys.executable, "-m", "scrapy", "search", "--offline", "-o", "json",
                                  "NASA artemis moon"], cwd=tmp_path, env=clean_env(LIGHTSEARCH_NO_WEB="1"),
                                 capture_output=True, text=True, timeout=120, check=False))


SCRAPY_RUNS = [  # (command line, environment): each switch on each command at least once
    (["search", "--offline", "-o", "json", "NASA artemis moon"], {"LIGHTSEARCH_NO_WEB": "1"}),
    (["read", "--offline", "-o", "json", PAGE, PAGE + "news"], {"LIGHTSEARCH_NO_WEB": "1"}),
    # no --offline for news: the host map alone keeps it on loopback, were the switch ever to fail
    (["news", "-o", "json", "-s", "LIGHT_HOST_MAP_ONLY=True", "artemis"], {"WEB_RETRIEVAL_ENABLED": "false"}),
    (["search", "--offline", "-o", "json", "-s", "WEB_RETRIEVAL_ENABLED=false", "NASA artemis moon"], {}),
]


@pytest.mark.parametrize(("args", "env"), SCRAPY_RUNS, ids=["search-env", "read-many-env", "news-env", "search-s"])
def test_scrapy_commands_obey_the_switch(args, env, scrapy, tmp_path):
    disabled_json(scrapy(*args[1:], cwd=tmp_path, name=args[0], **env))  # a search that ran would end otherwise


def test_scrapy_read_prints_the_disabled_line(scrapy, tmp_path):
    read = scrapy("--offline", "-o", "text", "-s", "WEB_RETRIEVAL_ENABLED=false", PAGE, cwd=tmp_path, name="read",
                  WEB_RETRIEVAL_ENABLED="false")
    assert read.returncode == 1
    assert read.stdout.startswith("ERROR: disabled: web retrieval is disabled by configuration")  # what a model reads


def test_scrapy_evaluate_stops_with_one_line(tmp_path, scrapy):
    (tmp_path / "q.jsonl").write_text('{"id": "1", "query": "NASA artemis"}\n', encoding="utf-8")
    (tmp_path / "qrels").write_text("1 0 https://www.nasa.gov/ 1\n", encoding="utf-8")
    proc = scrapy("--runs", "light", "--queries", str(tmp_path / "q.jsonl"), "--qrels",
                  str(tmp_path / "qrels"), "--out", str(tmp_path / "out"), "-s", "LIGHT_HOST_MAP_ONLY=True",
                  cwd=tmp_path, name="evaluate", LIGHTSEARCH_NO_WEB="1")
    assert proc.returncode == 1
    assert "ERROR: disabled:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_lightsearch_commands(origins, in_process):
    """Through the command's main in this process."""
    world = setting_args({**origins.settings(), "LOG_LEVEL": "ERROR"})
    for args, env in ((["search", "-o", "json", *world, "NASA artemis"], {"LIGHTSEARCH_NO_WEB": "1"}),
                      (["news", "-o", "json", *world, "artemis"], {"WEB_RETRIEVAL_ENABLED": "false"}),
                      (["fetch", "-o", "json", *world, "-s", "WEB_RETRIEVAL_ENABLED=false", PAGE], {})):
        proc = in_process(*args, **env)
        assert json.loads(proc.stdout)["error"]["code"] == "disabled", (args, env, proc.stderr)
        assert proc.returncode != 0
