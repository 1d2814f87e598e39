"""reliability.md §9.2, every row: scripted DNS answers for ``t.example``, vetted, and the
connection made to exactly the vetted address (or not at all).

Answers come from ``LIGHT_RESOLVER_OVERRIDES`` (classified like any DNS answer); the
stand-in handler connects whatever the guard chose to a loopback counting server and
records the address it chose, so "connect to exactly that IP" and "no connection" are
both observed, not assumed.
"""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import WebFetch
from tests.conftest import coroutine_test
from tests.fetch_helpers import CountingServer, RecordingResolver, StandInHandler, stand_in_settings

PUBLIC = "93.184.215.14"
URL = "http://t.example/page"


@pytest.fixture(scope="module")
def counting():
    server = CountingServer().start()
    yield server
    server.stop()


def fetcher(counting, answer, **extra):
    return WebFetch.from_settings(stand_in_settings(
        counting, LIGHT_RESOLVER_OVERRIDES={"t.example": answer}, **extra))


@coroutine_test
async def test_public_answer_connects_to_exactly_that_address(counting):
    result = await fetcher(counting, [PUBLIC]).fetch(URL)
    assert result["title"] == "Stand-in page"
    # robots.txt and the page: two hops, two lookups, each connected to the vetted address
    assert StandInHandler.connected == [(PUBLIC, 80), (PUBLIC, 80)]
    assert RecordingResolver.asked == ["t.example", "t.example"]
    assert [r["path"] for r in counting.requests] == ["/robots.txt", "/page"]
    assert {r["host"] for r in counting.requests} == {"t.example"}  # Host stays the name


@pytest.mark.parametrize(("answer", "reason"), [
    (["127.0.0.1"], "loopback"),
    ([PUBLIC, "10.0.0.5"], "private"),  # "any-private": one bad record refuses the host
    (["10.0.0.5", PUBLIC], "private"),
    (["::ffff:10.0.0.1"], "ipv4-mapped:private"),  # AAAA only
    (["64:ff9b::a9fe:a9fe"], "nat64:metadata"),
    (["10.1.1.1"], "private"),  # the end of a CNAME chain: the address decides, not the name
    (["fe80::1%2"], "zone-id"),
    (["2001:db8::5"], "documentation"),
])
@coroutine_test
async def test_non_public_answers_are_refused_before_connecting(counting, answer, reason):
    for robots in (True, False):
        with pytest.raises(LightSearchError) as info:
            await fetcher(counting, answer).fetch(URL, robots=robots)
        assert info.value.code == "blocked_address", info.value.to_dict()
        assert reason in info.value.message or info.value.details.get("reason") == reason
        assert counting.connections == 0
        assert StandInHandler.connected == []


@coroutine_test
async def test_rebinding_second_answer_is_refused_and_never_connected(counting):
    """1st lookup public (TTL 0), 2nd lookup 127.0.0.1: the robots.txt hop connects to the
    address it vetted; the page hop's own lookup is refused; nothing reaches 127.0.0.1."""
    with pytest.raises(LightSearchError) as info:
        await fetcher(counting, [[PUBLIC], ["127.0.0.1"]]).fetch(URL)
    assert info.value.code == "blocked_address"
    assert RecordingResolver.asked == ["t.example", "t.example"]
    assert StandInHandler.connected == [(PUBLIC, 80)]
    assert [r["path"] for r in counting.requests] == ["/robots.txt"]


@coroutine_test
async def test_each_hop_resolves_once_and_connects_to_what_it_vetted(counting):
    """Rebinding between hops cannot reach anything unvetted: three lookups, three
    answers, each hop connected to its own vetted answer (never a second lookup)."""
    other = "93.184.215.15"
    result = await fetcher(counting, [[PUBLIC], [other]]).fetch(URL)
    assert result["status"] == 200
    assert StandInHandler.connected == [(PUBLIC, 80), (other, 80)]
    assert len(RecordingResolver.asked) == len(counting.requests) == 2


@pytest.mark.parametrize(("answer", "code"), [
    ("nxdomain", "network_error"),
    ("servfail", "network_error"),
    ("timeout", "timeout"),
])
@coroutine_test
async def test_resolution_failures_are_fetch_errors(counting, answer, code):
    for robots in (True, False):
        with pytest.raises(LightSearchError) as info:
            await fetcher(counting, answer).fetch(URL, robots=robots)
        assert info.value.code == code, (robots, info.value.to_dict())
        assert counting.connections == 0


@coroutine_test
async def test_unconfigured_names_never_reach_real_dns_in_tests(counting):
    # stand_in_settings answers only configured names; the system resolver is bypassed
    # for them, and this name is configured as NXDOMAIN.
    with pytest.raises(LightSearchError) as info:
        await fetcher(counting, "nxdomain").fetch("http://t.example/")
    assert info.value.details.get("reason") in ("dns", "robots_unreachable")
