"""Configuration from the environment: every variable of the table changes behaviour, a bad
value is an error naming the variable, and the precedence is argument > command line >
environment > defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.surfaces import environment
from lightsearch.surfaces.environment import VARIABLES, resolve, settings_from_environ
from lightsearch.surfaces.toolbox import Toolbox
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test

ROOT = Path(__file__).resolve().parents[2]


def box(env: dict[str, str], cmdline: dict | None = None, base: dict | None = None) -> Toolbox:
    return Toolbox({**(base or {}), **resolve(cmdline, env)})


def test_kill_switches_hide_every_tool():
    assert [t.name for t in box({}).tools()] == ["web_search", "web_news", "web_fetch"]
    for env in ({"WEB_RETRIEVAL_ENABLED": "false"}, {"WEB_RETRIEVAL_ENABLED": "0"}, {"LIGHTSEARCH_NO_WEB": "1"}):
        assert box(env).tools() == [], env
    assert box({"LIGHTSEARCH_NO_WEB": "0"}).tools() != []
    assert box({"WEB_RETRIEVAL_ENABLED": ""}).tools() != []  # blank: unset


@pytest.mark.parametrize(("env", "variable", "words"), [
    ({"WEB_RETRIEVAL_ENABLED": "maybe"}, "WEB_RETRIEVAL_ENABLED", "true or false"),
    ({"LIGHTSEARCH_NO_WEB": "yes please"}, "LIGHTSEARCH_NO_WEB", "true or false"),
    ({"WEB_SEARCH_MAX_RESULTS": "50"}, "WEB_SEARCH_MAX_RESULTS", "between 1 and 20"),
    ({"WEB_SEARCH_MAX_RESULTS": "eight"}, "WEB_SEARCH_MAX_RESULTS", "integer"),
    ({"WEB_FETCH_MAX_CHARS": "0"}, "WEB_FETCH_MAX_CHARS", "between 1 and 100000"),
    ({"WEB_FETCH_TIMEOUT_MS": "10"}, "WEB_FETCH_TIMEOUT_MS", "between 500 and 120000 ms"),
    ({"WEB_FETCH_TIMEOUT_MS": "soon"}, "WEB_FETCH_TIMEOUT_MS", "milliseconds"),
    ({"WEB_CACHE_TTL_SECS": "-1"}, "WEB_CACHE_TTL_SECS", "negative"),
    ({"WEB_SEARCH_REGION": "Israel"}, "WEB_SEARCH_REGION", "country-language"),
    ({"WEB_TOOLS_SEARCHES_PER_MINUTE": "-3"}, "WEB_TOOLS_SEARCHES_PER_MINUTE", "between 0 and 10000"),
    ({"WEB_TOOLS_FETCHES_PER_MINUTE": "lots"}, "WEB_TOOLS_FETCHES_PER_MINUTE", "integer"),
    ({"WEB_SEARCH_PROVIDER": "tavily"}, "TAVILY_API_KEY", "neither TAVILY_API_KEY nor WEB_SEARCH_API_KEY"),
    ({"WEB_SEARCH_PROVIDER": "openrouter"}, "OPENROUTER_API_KEY", "neither OPENROUTER_API_KEY"),
    ({"WEB_SEARCH_PROVIDER": "light", "WEB_SEARCH_API_KEY": "k"}, "WEB_SEARCH_API_KEY", "takes no key"),
])
def test_a_bad_value_names_the_variable(env, variable, words):
    with pytest.raises(LightSearchError) as info:
        resolve({}, env)
    err = info.value
    assert err.code == "invalid_settings"
    assert err.message.startswith(f"environment variable {variable}:")
    assert words in err.message
    assert err.details["variable"] == variable


def test_unrelated_variables_are_not_read():
    assert settings_from_environ({"WEB_SOMETHING_ELSE": "x", "LIGHT_FOO": "1", "PATH": "/bin"}) == {}


def test_search_max_results_and_fetch_max_chars_set_the_schema_defaults():
    search, news, fetch = box({"WEB_SEARCH_MAX_RESULTS": "3", "WEB_FETCH_MAX_CHARS": "500"}).tools()
    assert search.input_schema["properties"]["maxResults"]["default"] == 3
    assert news.input_schema["properties"]["maxResults"]["default"] == 3
    assert fetch.input_schema["properties"]["maxChars"]["default"] == 500


def test_precedence_command_line_over_environment_over_defaults():
    assert resolve({}, {})  == {}
    assert resolve({}, {"WEB_SEARCH_MAX_RESULTS": "3"})["WEB_SEARCH_MAX_RESULTS"] == 3
    assert resolve({"WEB_SEARCH_MAX_RESULTS": 5}, {"WEB_SEARCH_MAX_RESULTS": "3"})["WEB_SEARCH_MAX_RESULTS"] == 5
    assert resolve({}, {"WEB_FETCH_TIMEOUT_MS": "2500"})["WEB_FETCH_DEADLINE_SECS"] == 2.5
    ttl = resolve({}, {"WEB_CACHE_TTL_SECS": "100000"})
    assert ttl["LIGHT_PAGE_MAX_AGE_SECS"] == 1800
    assert ttl["LIGHT_DISCOVERY_MAX_AGE_SECS"] == 300


def test_provider_and_keys_choose_the_engine():
    assert type(box({})._provider(None)).__name__ == "LightSearch"
    brave_env = {"BRAVE_SEARCH_API_KEY": "k1"}
    assert type(box(brave_env)._provider(None)).__name__ == "BraveSearch"
    # WEB_SEARCH_API_KEY goes to the key of the named provider (Brave when none is named)
    generic = box({"WEB_SEARCH_PROVIDER": "brave", "WEB_SEARCH_API_KEY": "k2"})._provider(None)
    assert type(generic).__name__ == "BraveSearch"
    assert generic.settings.get("BRAVE_SEARCH_API_KEY") == "k2"
    assert box({"WEB_SEARCH_API_KEY": "k3"}).settings.get("BRAVE_SEARCH_API_KEY") == "k3"
    # the specific variable wins over the generic one
    both = box({"WEB_SEARCH_API_KEY": "generic", "BRAVE_SEARCH_API_KEY": "specific"})
    assert both.settings.get("BRAVE_SEARCH_API_KEY") == "specific"
    assert type(box({"WEB_SEARCH_PROVIDER": "light", **brave_env})._provider(None)).__name__ == "LightSearch"
    with pytest.raises(LightSearchError) as info:
        box({"WEB_SEARCH_PROVIDER": "brave"})._provider(None)
    assert "no Brave API key" in info.value.message


@pytest.mark.parametrize(("provider", "key"), [("tavily", "TAVILY_API_KEY"), ("openrouter", "OPENROUTER_API_KEY")])
def test_tavily_and_openrouter_keys_are_routed(provider, key):
    for env in ({"WEB_SEARCH_PROVIDER": provider, key: "k"},
                {"WEB_SEARCH_PROVIDER": provider, "WEB_SEARCH_API_KEY": "k"}):
        tb = box(env)
        assert tb.settings.get(f"WEB_SEARCH_{key}") == "k"
        assert tb._provider(None).settings.get(f"WEB_SEARCH_{key}") == "k"


def test_region_sets_brave_country_and_language_unless_given():
    tb = box({"WEB_SEARCH_REGION": "IL-he", "BRAVE_SEARCH_API_KEY": "k"})
    brave = tb._provider(None)
    assert brave.settings.get("BRAVE_COUNTRY") == "il"
    assert brave.settings.get("BRAVE_SEARCH_LANG") == "he"
    kept = resolve({"BRAVE_COUNTRY": "us"}, {"WEB_SEARCH_REGION": "il-he"})
    assert kept["BRAVE_COUNTRY"] == "us"
    assert kept["BRAVE_SEARCH_LANG"] == "he"
    assert "BRAVE_COUNTRY" not in resolve({}, {"WEB_SEARCH_REGION": "wt-wt"})


def test_api_token_is_read_from_the_environment():
    assert environment.api_token({}) is None
    assert environment.api_token({"LIGHTSEARCH_API_TOKEN": "  "}) is None
    assert environment.api_token({"LIGHTSEARCH_API_TOKEN": " s3cret "}) == "s3cret"


def test_the_configuration_page_has_the_environment_table():
    page = (ROOT / "docs" / "CONFIGURATION.md").read_text("utf-8")
    assert environment.markdown_table() in page
    for var in VARIABLES:
        assert f"`{var.name}`" in page


@coroutine_test
async def test_environment_changes_search_and_fetch_behaviour(offline_settings):
    env = {"WEB_SEARCH_MAX_RESULTS": "1", "WEB_FETCH_MAX_CHARS": "30", "WEB_TOOLS_SEARCHES_PER_MINUTE": "2"}
    async with box(env, base=offline_settings) as tb:
        search = await tb.invoke("web_search", {"query": "NASA artemis moon"})
        page = await tb.invoke("web_fetch", {"url": "https://www.nasa.gov/"})
        override = await tb.invoke("web_fetch", {"url": "https://www.nasa.gov/", "maxChars": 60})
        await tb.invoke("web_search", {"query": "europa clipper"})
        limited = await tb.invoke("web_search", {"query": "europa clipper"})
    assert len(search["hits"]) == 1
    assert len(page["content"]) == 30
    assert len(override["content"]) == 60  # the argument beats the environment
    assert limited["error"]["code"] == "rate_limited"


@coroutine_test
async def test_fetch_timeout_ms(origins):
    origins.add_site("slow.example", {"/robots.txt": ROBOTS_ALLOW,
                                      "/": {"body": article_html("Slow page"), "type": "text/html", "delay": 1.5}})
    base = {**origins.settings(), "LOG_LEVEL": "ERROR"}
    async with box({"WEB_FETCH_TIMEOUT_MS": "700"}, base=base) as tb:
        slow = await tb.invoke("web_fetch", {"url": "https://slow.example/"})
    assert slow["error"]["code"] == "timeout"
    assert "0.7" in slow["error"]["message"]


@coroutine_test
async def test_cache_ttl_zero_means_no_reuse(offline_settings):
    async def hits_from_cache(env: dict[str, str]) -> int:
        from lightsearch.cache import clear_process_caches

        clear_process_caches()
        async with box(env, base=offline_settings) as tb:
            await tb.invoke("web_search", {"query": "europa clipper"})
            again = await tb.invoke("web_search", {"query": "europa clipper"})
        counts = again["meta"]["lightSearch"]["counts"]
        return counts["cacheHits"] + counts["cacheDiscoveryHits"] + counts["robotsCacheHits"] * 0

    assert await hits_from_cache({}) > 0
    assert await hits_from_cache({"WEB_CACHE_TTL_SECS": "0"}) == 0


def test_the_user_catalog_is_read_when_it_exists_and_the_variable_names_another(tmp_path):
    home = tmp_path / "home"
    assert "LIGHT_CATALOG_EXTRA" not in resolve({}, {"HOME": str(home)})  # none written yet
    user = home / ".config" / "lightsearch" / "sources.json"
    user.parent.mkdir(parents=True)
    user.write_text('{"id": "user", "version": "1", "sources": []}')
    assert resolve({}, {"HOME": str(home)})["LIGHT_CATALOG_EXTRA"] == str(user)
    xdg = tmp_path / "xdg"
    assert "LIGHT_CATALOG_EXTRA" not in resolve({}, {"HOME": str(home), "XDG_CONFIG_HOME": str(xdg)})
    other = tmp_path / "mine.json"
    env = {"HOME": str(home), "LIGHTSEARCH_SOURCES": str(other)}
    assert resolve({}, env)["LIGHT_CATALOG_EXTRA"] == str(other)
    assert resolve({"LIGHT_CATALOG_EXTRA": "x.json"}, env)["LIGHT_CATALOG_EXTRA"] == "x.json"
