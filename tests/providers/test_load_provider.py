"""The load-time rule: explicit provider, else a trimmed non-empty Brave key, else Light."""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers import (
    SearchProvider,
    brave_api_key,
    load_provider,
    provider_name,
)
from lightsearch.providers.brave import BraveSearch
from lightsearch.providers.light import LightSearch


@pytest.fixture(autouse=True)
def _no_key_in_environment(monkeypatch):
    monkeypatch.delenv("BRAVE_SEARCH_API_KEY", raising=False)


@pytest.mark.parametrize("key", [None, "", "  ", "\t\n"])
def test_absent_or_blank_key_selects_light(key):
    provider = load_provider({"BRAVE_SEARCH_API_KEY": key})
    assert isinstance(provider, LightSearch)
    assert provider.provider == "light"


def test_trimmed_key_selects_brave():
    provider = load_provider({"BRAVE_SEARCH_API_KEY": " k "})
    assert isinstance(provider, BraveSearch)
    assert provider.provider == "brave"
    assert provider.settings.get("BRAVE_SEARCH_API_KEY") == "k"
    assert isinstance(provider, SearchProvider)


def test_key_from_the_environment_selects_brave(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", " env-key ")
    provider = load_provider()
    assert provider.provider == "brave"
    assert provider.settings.get("BRAVE_SEARCH_API_KEY") == "env-key"


def test_configured_blank_key_overrides_the_environment(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "env-key")
    assert load_provider({"BRAVE_SEARCH_API_KEY": "  "}).provider == "light"


def test_environ_argument_replaces_os_environ(monkeypatch):
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "real-env")
    assert load_provider(environ={}).provider == "light"
    assert load_provider(environ={"BRAVE_SEARCH_API_KEY": "x"}).provider == "brave"


@pytest.mark.parametrize(("config", "expected"), [
    ({"braveSearchApiKey": " k "}, "brave"),
    ({"braveSearchApiKey": "   "}, "light"),
    ({}, "light"),
    ({"braveSearchApiKey": "k", "webSearchProvider": "light"}, "light"),
])
def test_plugin_style_config(config, expected):
    assert load_provider(config=config).provider == expected


def test_plugin_config_wins_over_settings():
    provider = load_provider({"BRAVE_SEARCH_API_KEY": "from-settings"},
                             config={"braveSearchApiKey": "from-config"})
    assert provider.settings.get("BRAVE_SEARCH_API_KEY") == "from-config"


@pytest.mark.parametrize(("settings", "expected"), [
    ({"WEB_SEARCH_PROVIDER": "light", "BRAVE_SEARCH_API_KEY": "k"}, "light"),
    ({"WEB_SEARCH_PROVIDER": "Brave", "BRAVE_SEARCH_API_KEY": "k"}, "brave"),
    ({"WEB_SEARCH_PROVIDER": "auto", "BRAVE_SEARCH_API_KEY": "k"}, "fused"),  # auto is fused
    ({"WEB_SEARCH_PROVIDER": "fallback"}, "fallback"),
    ({"WEB_SEARCH_PROVIDER": "duckduckgo"}, "duckduckgo"),
    ({"WEB_SEARCH_PROVIDER": " ", "BRAVE_SEARCH_API_KEY": ""}, "light"),
    ({"WEB_SEARCH_PROVIDER": "lightsearch.providers.light.LightSearch"}, "light"),
])
def test_explicit_provider(settings, expected):
    assert load_provider(settings).provider == expected


def test_explicit_brave_without_a_key_is_a_settings_error():
    with pytest.raises(LightSearchError) as info:
        load_provider({"WEB_SEARCH_PROVIDER": "brave", "BRAVE_SEARCH_API_KEY": " "})
    assert info.value.code == "invalid_settings"
    assert info.value.details["key"] == "BRAVE_SEARCH_API_KEY"


@pytest.mark.parametrize("name", ["bing", "no.such.Module", 42])
def test_unknown_provider_is_a_settings_error(name):
    with pytest.raises(LightSearchError) as info:
        load_provider({"WEB_SEARCH_PROVIDER": name})
    assert info.value.code == "invalid_settings"
    assert info.value.details["key"] == "WEB_SEARCH_PROVIDER"


def test_brave_needs_an_https_endpoint():
    with pytest.raises(LightSearchError) as info:
        load_provider({"BRAVE_SEARCH_API_KEY": "k", "BRAVE_API_URL": "http://api.example/s"})
    assert info.value.code == "invalid_settings"
    assert info.value.details["key"] == "BRAVE_API_URL"


def test_invalid_light_settings_do_not_stop_brave_loading():
    provider = load_provider({"BRAVE_SEARCH_API_KEY": "k", "LIGHT_MAX_HOPS": "lots",
                              "LIGHT_DEADLINE_SECS": -1})
    assert provider.provider == "brave"


def test_choice_is_made_once_at_load(monkeypatch):
    provider = load_provider()
    monkeypatch.setenv("BRAVE_SEARCH_API_KEY", "k")
    assert provider.provider == "light"  # a key appearing later does not switch providers
    assert load_provider().provider == "brave"


def test_helpers_agree_with_load_provider():
    from lightsearch.config import make_settings

    s = make_settings({"BRAVE_SEARCH_API_KEY": " k "})
    assert brave_api_key(s, environ={}) == "k"
    assert provider_name(s, environ={}) == "brave"
    assert provider_name(make_settings(), environ={}) == "light"


@pytest.mark.parametrize(("key", "value"), [
    ("BRAVE_TIMEOUT_SECS", "soon"), ("BRAVE_DEADLINE_SECS", 0), ("BRAVE_RESPONSE_MAX_BYTES", 1.5),
    ("BRAVE_SOURCE_FETCH_PAGES", 99), ("BRAVE_SNIPPET_CHARS", True),
])
def test_bad_brave_settings_fail_at_load_naming_the_key(key, value):
    with pytest.raises(LightSearchError) as info:
        load_provider({"BRAVE_SEARCH_API_KEY": "k", key: value})
    assert info.value.code == "invalid_settings"
    assert info.value.details["key"] == key


def test_brave_settings_from_the_command_line_are_strings():
    provider = load_provider({"BRAVE_SEARCH_API_KEY": "k", "BRAVE_TIMEOUT_SECS": "2.5",
                              "BRAVE_SOURCE_FETCH_PAGES": " 2 "})
    assert provider.provider == "brave"
