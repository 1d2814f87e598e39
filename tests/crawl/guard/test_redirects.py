"""reliability.md §9.3, every row that applies to web_fetch: each redirect hop and meta
refresh is checked again, counted, and refused before any connection.

The redirecting pages are offline origins reached through ``LIGHT_HOST_MAP``; every
other address the guard lets through goes to a loopback counting server, so a refused
hop is asserted as zero connections there. Origin confinement of Light searches is the
crawl's own rule and is tested with the search (tests/crawl/test_transport_hygiene.py).
"""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import WebFetch
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test
from tests.fetch_helpers import CountingServer, StandInHandler, stand_in_settings

PUBLIC = "93.184.215.14"
HOST = "hops.fetch.test"


def refresh(target: str, delay: int = 0) -> dict:
    return {"body": f'<!doctype html><html><head><meta http-equiv="refresh" content="{delay};url={target}">'
                    "<title>Moved</title></head><body></body></html>"}


ROUTES = {
    "/robots.txt": ROBOTS_ALLOW,
    "/to-loopback": {"redirect": "http://127.0.0.1/", "status": 302},
    "/to-metadata": {"redirect": "//169.254.169.254/latest/meta-data/", "status": 302},
    "/to-file": {"redirect": "file:///etc/passwd", "status": 302},
    "/to-gopher": {"redirect": "gopher://127.0.0.1:6379/_", "status": 302},
    "/to-userinfo": {"redirect": "http://user:pw@t.example/", "status": 302},
    "/to-private-name": {"redirect": "http://t.example/", "status": 302},
    "/to-public": {"redirect": "http://pub.example/landing", "status": 302},
    "/refresh-private": refresh("http://10.0.0.1/"),
    "/refresh-public": refresh("http://pub.example/landing"),
    "/refresh-slow": refresh("/final", delay=3600),
    "/no-location": {"status": 302},
    "/loop-a": {"redirect": "/loop-b", "status": 302},
    "/loop-b": {"redirect": "/loop-a", "status": 302},
    "/final": {"body": article_html("Redirect chain destination")},
    **{f"/chain{i}": {"redirect": f"/chain{i + 1}", "status": 301} for i in range(1, 6)},
    "/chain6": {"redirect": "/final", "status": 301},
    **{f"/mixed{i}": refresh(f"/mixed{i + 1}") for i in range(1, 4)},
    "/mixed4": {"redirect": "/final", "status": 302},
    **{f"/slow{i}": {"redirect": f"/slow{i + 1}", "status": 302, "delay": 0.4} for i in range(1, 5)},
    "/slow5": {"body": article_html("Too late")},
}


@pytest.fixture(scope="module")
def counting():
    server = CountingServer().start()
    yield server
    server.stop()


@pytest.fixture
def settings(origins, counting):
    origins.add_site(HOST, ROUTES)
    origins.reset_log()
    return {
        **stand_in_settings(counting, LIGHT_RESOLVER_OVERRIDES={
            "t.example": ["10.9.8.7"], "pub.example": [PUBLIC]}),
        **origins.settings(),
        "LIGHT_HOST_MAP_ONLY": False,  # unmapped names go through the guard (and the stand-in)
    }


def paths(origins):
    return [e["path"] for e in origins.requests_for(HOST)]


@pytest.mark.parametrize(("path", "code", "reason"), [
    ("/to-loopback", "blocked_address", "loopback"),
    ("/to-metadata", "blocked_address", "metadata"),  # protocol-relative
    ("/to-file", "invalid_url", "scheme"),
    ("/to-gopher", "invalid_url", "scheme"),
    ("/to-userinfo", "invalid_url", "userinfo"),
    ("/to-private-name", "blocked_address", "private"),  # a public-looking name, private answer
    ("/refresh-private", "blocked_address", "private"),  # meta refresh is a hop too
])
@coroutine_test
async def test_refused_hop_stops_the_fetch_without_connecting(settings, origins, counting, path,
                                                              code, reason):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"https://{HOST}{path}")
    assert info.value.code == code, info.value.to_dict()
    if path == "/to-private-name":
        # the name passes the URL check; its robots.txt hop is the first to resolve it,
        # and the guard refuses that connection
        assert f"({reason})" in info.value.message
    else:
        assert info.value.details["reason"] == reason
        assert info.value.details["hops"] == [f"https://{HOST}{path}"]
    assert counting.connections == 0
    assert StandInHandler.connected == []
    assert paths(origins) == ["/robots.txt", path]


@pytest.mark.parametrize("path", ["/to-public", "/refresh-public"])
@coroutine_test
async def test_hop_to_a_public_address_is_followed_and_rechecked(settings, counting, path):
    result = await WebFetch.from_settings(settings).fetch(f"https://{HOST}{path}")
    assert result["url"] == "http://pub.example/landing"
    assert result["originalUrl"] == f"https://{HOST}{path}"
    assert result["redirects"] == ["http://pub.example/landing"]
    assert StandInHandler.connected == [(PUBLIC, 80), (PUBLIC, 80)]  # robots.txt, page
    assert result["meta"]["webSources"]["entries"][0]["originalUrl"] == f"https://{HOST}{path}"


@coroutine_test
async def test_chain_within_the_limit_is_followed(settings, origins):
    result = await WebFetch.from_settings(settings).fetch(f"https://{HOST}/chain2")
    assert result["url"] == f"https://{HOST}/final"
    assert len(result["redirects"]) == 5
    assert paths(origins) == ["/robots.txt", *[f"/chain{i}" for i in range(2, 7)], "/final"]


@coroutine_test
async def test_one_hop_past_the_limit_is_refused(settings, origins):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"https://{HOST}/chain1")
    assert info.value.code == "network_error"
    assert info.value.details["reason"] == "too_many_redirects"
    assert "/final" not in paths(origins)


@coroutine_test
async def test_meta_refreshes_count_against_the_redirect_limit(settings, origins):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings({**settings, "WEB_FETCH_MAX_REDIRECTS": 3}).fetch(
            f"https://{HOST}/mixed1")
    assert info.value.details["reason"] == "too_many_redirects"
    result = await WebFetch.from_settings(settings).fetch(f"https://{HOST}/mixed1")
    assert result["url"] == f"https://{HOST}/final"
    assert len(result["redirects"]) == 4


@coroutine_test
async def test_loop_stops_at_the_first_repeat(settings, origins):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"https://{HOST}/loop-a")
    assert info.value.details["reason"] == "redirect_loop"
    assert paths(origins) == ["/robots.txt", "/loop-a", "/loop-b"]


@coroutine_test
async def test_redirect_without_location_is_its_own_status(settings):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"https://{HOST}/no-location")
    assert info.value.code == "http_status"
    assert info.value.details["status"] == 302


@coroutine_test
async def test_slow_meta_refresh_is_not_followed(settings):
    # A refresh delayed beyond WEB_FETCH_META_REFRESH_MAX_DELAY is a page, not a redirect.
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"https://{HOST}/refresh-slow")
    assert info.value.code == "extraction_failed"


@coroutine_test
async def test_slow_hops_hit_the_deadline(settings, origins):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings({**settings, "WEB_FETCH_DEADLINE_SECS": 1.0}).fetch(
            f"https://{HOST}/slow1")
    assert info.value.code == "timeout"
    assert "/slow5" not in paths(origins)


@coroutine_test
async def test_robots_txt_redirect_to_loopback_is_refused_and_blocks_the_fetch(settings, origins,
                                                                                counting):
    """reliability.md §9.4: robots.txt hops are guarded like any other (the MCP fetch
    server fetched them unguarded); an origin whose robots.txt cannot be read is not read."""
    host = "robots-hop.fetch.test"
    origins.add_site(host, {"/robots.txt": {"redirect": "http://127.0.0.1/robots.txt", "status": 301},
                            "/page": {"body": article_html("Never fetched")}})
    cfg = {**settings, **origins.settings(), "LIGHT_HOST_MAP_ONLY": False}
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(cfg).fetch(f"https://{host}/page")
    assert info.value.code == "blocked_address"
    assert counting.connections == 0
    assert [e["path"] for e in origins.requests_for(host)] == ["/robots.txt"]
