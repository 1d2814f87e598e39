"""A search call's door (providers/search_call.py): one signature, one request object, and the
kill switch checked once per search at the door (and once more by the crawl runner below
every surface), never again by what the search calls."""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.plan.request import SearchRequest
from lightsearch.providers import load_provider
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world


@coroutine_test
async def test_an_engine_search_checks_the_switch_once_at_its_door(engine_replay, switch_checks):
    engine_replay.reset()
    provider = load_provider(merge_settings(engine_replay.settings(), {
        "WEB_SEARCH_PROVIDER": "ddg_html", "LOG_LEVEL": "ERROR", "WEB_SEARCH_SUSPENSION": None,
        "WEB_SEARCH_CACHE": None}), environ={})
    switch_checks.clear()
    result = await provider.search("rust programming", max_results=3)
    assert result["hits"]
    assert len(switch_checks) == 1  # the door; not again per engine request


@coroutine_test
async def test_a_light_search_checks_at_its_door_and_below_every_surface(origins, tmp_path, switch_checks):
    host = "door.test"
    settings = make_world(origins, tmp_path, {host: {
        "/": {"body": home_html([("/fen", "fen drainage history")])},
        "/fen": {"body": article_html("Fen drainage history")},
    }}, [{"id": "door", "host": host}])
    light = LightSearch.from_settings(settings)
    switch_checks.clear()
    request = light.request("fen drainage history", max_results=3)
    assert isinstance(request, SearchRequest)
    assert request.max_results == 3
    result = await light.search_request(request)
    assert [h["url"] for h in result["hits"]] == [f"https://{host}/fen"]
    assert len(switch_checks) == 1  # the crawl runner's guard: the request went around the door
    switch_checks.clear()
    await light.search("fen drainage history")
    assert len(switch_checks) == 2  # the door, then the crawl runner


@coroutine_test
async def test_the_door_names_a_bad_parameter(origins, tmp_path):
    light = LightSearch.from_settings({"LOG_LEVEL": "ERROR"})
    with pytest.raises(LightSearchError) as info:
        await light.search("fen", max_results=0)
    assert info.value.code == "invalid_input"
    assert info.value.details.get("parameter") == "maxResults"
