"""robots.txt rules, one case per row, against loopback origins (RFC 9309, stricter where docs/CRAWLING.md says)."""

from __future__ import annotations

import asyncio
import time

import pytest

from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world, shared_data
from tests.hygiene_world import QUERY, case_routes, counts, errors, hit_urls, paths, slug, world

KIB = 1024


def _chain(n: int, final: dict) -> dict:
    """/robots.txt redirecting ``n`` times (/r1 .. /rn), then ``final``."""
    routes = {"/robots.txt": {"redirect": "/r1"}}
    for i in range(1, n):
        routes[f"/r{i}"] = {"redirect": f"/r{i + 1}"}
    routes[f"/r{n}"] = final
    return routes


DISALLOW_A = {"body": "User-agent: *\nDisallow: /a\n", "type": "text/plain"}

# name, robots routes, settings, article fetched?, error code, robots fetches on the case host
CASES = [
    ("404 allows", {"/robots.txt": {"body": "gone", "status": 404}}, {}, True, None, 1),
    ("410 allows", {"/robots.txt": {"body": "", "status": 410}}, {}, True, None, 1),
    ("500 blocks", {"/robots.txt": {"body": "oops", "status": 500}}, {}, False, "robots_unreachable", 1),
    ("503 blocks", {"/robots.txt": {"body": "", "status": 503}}, {}, False, "robots_unreachable", 1),
    ("timeout blocks", {"/robots.txt": {"body": "User-agent: *\nAllow: /\n", "delay": 1.5}},
     {"LIGHT_ROBOTS_TIMEOUT_SECS": 0.4}, False, "robots_unreachable", 1),
    ("cut mid-body blocks", {"/robots.txt": {"body": "User-agent: *\nAllow: /\n", "truncate": 500}},
     {}, False, "robots_unreachable", 1),
    ("oversized blocks", {"/robots.txt": {"body": "User-agent: *\nAllow: /\n" + "# pad\n" * 20000}},
     {"LIGHT_ROBOTS_MAX_BYTES": 64 * KIB}, False, "robots_unreachable", 1),
    ("disallow applies", {"/robots.txt": DISALLOW_A}, {}, False, "robots_disallowed", 1),
    ("five redirects are followed", _chain(5, DISALLOW_A), {}, False, "robots_disallowed", 6),
    ("six redirects mean unavailable", _chain(6, DISALLOW_A), {}, True, None, 6),
    ("agent group for lightbot", {"/robots.txt": {
        "body": "User-agent: *\nAllow: /\n\nUser-agent: lightbot\nDisallow: /a\n", "type": "text/plain"}},
     {}, False, "robots_disallowed", 1),
    ("other agent's group does not bind us", {"/robots.txt": {
        "body": "User-agent: otherbot\nDisallow: /\n", "type": "text/plain"}}, {}, True, None, 1),
]


@pytest.mark.parametrize(("name", "robots", "settings", "fetched", "code", "fetches"), CASES,
                         ids=[c[0] for c in CASES])
@coroutine_test
async def test_robots_rule(origins, tmp_path, name, robots, settings, fetched, code, fetches):
    host = f"robots-{slug(name)}.test"
    cfg = world(origins, tmp_path, host, case_routes(**robots), **settings)
    result = await LightSearch.from_settings(cfg).search(QUERY)
    c = counts(result)
    case_paths = paths(origins, host)
    robots_paths = [p for p in case_paths if p == "/robots.txt" or p.startswith("/r")]
    assert len(robots_paths) == fetches
    assert c["robotsFetches"] == fetches + 1  # and the healthy host's robots.txt
    # Every robots fetch and redirect is a hop.
    assert c["requests"] == len(case_paths) + len(paths(origins, "healthy.test"))
    assert (f"https://{host}/a" in hit_urls(result)) is fetched
    assert ("/a" in case_paths) is fetched
    codes = {e["code"] for e in errors(result)}
    if code is None:
        assert not codes
    else:
        assert code in codes
    if code == "robots_unreachable":
        assert case_paths == robots_paths  # nothing else on the origin was requested
        assert c["robotsBlocked"] >= 1
    if code == "robots_disallowed":
        assert c["robotsDenied"] == 1


@coroutine_test
async def test_real_oversized_robots_file_blocks_the_origin(origins, tmp_path):
    big = shared_data("robots-txt", "files", "docs.oracle.com").read_bytes()  # 853 KB
    host = "oversized-real.test"
    cfg = world(origins, tmp_path, host, case_routes(**{"/robots.txt": {"body": big, "type": "text/plain"}}))
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert {e["code"] for e in errors(result)} == {"robots_unreachable"}
    assert paths(origins, host) == ["/robots.txt"]
    assert hit_urls(result) == ["https://healthy.test/moraine"]


@coroutine_test
async def test_real_wikipedia_rules_and_html_instead_of_robots(origins, tmp_path):
    wiki = shared_data("robots-txt", "files", "he.wikipedia.org").read_bytes()
    html = shared_data("robots-txt", "files", "www.gov.il").read_bytes()  # an HTML page, no rules
    host = "wiki-rules.test"
    routes = case_routes(**{
        "/robots.txt": {"body": wiki, "type": "text/plain"},
        "/": {"body": "<html><body><a href='/wiki/Glacier_moraine'>glacier moraine sediment</a>"
                      "<a href='/w/index.php?title=Glacier_moraine_sediment'>glacier moraine sediment edit</a>"
                      "</body></html>"},
        "/wiki/Glacier_moraine": {"body": "<html><body><article><h1>Glacier moraine</h1><p>"
                                          + "Glacier moraine sediment is left by ice. " * 5 + "</p></article></body></html>"},
        "/w/index.php": {"body": "<html><body><p>glacier moraine sediment edit page</p></body></html>"},
    })
    cfg = world(origins, tmp_path, host, routes, extra_sites={},
                healthy=True)
    origins.add_site("healthy.test", {**origins.sites["healthy.test"].routes,
                                      "/robots.txt": {"body": html, "type": "text/plain"}})
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert f"https://{host}/wiki/Glacier_moraine" in hit_urls(result)
    assert "/w/index.php" not in [p.split("?")[0] for p in paths(origins, host)]
    assert counts(result)["robotsDenied"] == 1
    assert "https://healthy.test/moraine" in hit_urls(result)  # an HTML "robots.txt" has no rules


@coroutine_test
async def test_robots_verdicts_are_cached_across_searches(origins, tmp_path):
    host = "robots-cache.test"
    cfg = world(origins, tmp_path, host, case_routes(**{"/robots.txt": DISALLOW_A}))
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert counts(first)["robotsFetches"] == 2
    origins.reset_log()
    second = await engine.search("moraine sediment glacier")
    assert counts(second)["robotsFetches"] == 0
    assert counts(second)["robotsCacheHits"] == 2
    assert "/robots.txt" not in paths(origins, host)
    assert counts(second)["robotsDenied"] == 1  # the cached rules still apply


@coroutine_test
async def test_failed_robots_is_not_cached(origins, tmp_path):
    host = "robots-flaky.test"
    cfg = world(origins, tmp_path, host, case_routes(**{"/robots.txt": {"body": "", "status": 503}}))
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    assert {e["code"] for e in errors(first)} == {"robots_unreachable"}
    origins.add_site(host, case_routes())  # the origin recovers
    second = await engine.search(QUERY)
    assert f"https://{host}/a" in hit_urls(second)


@coroutine_test
async def test_a_file_whose_rules_are_past_their_bounds_is_read_once_and_its_block_kept(origins, tmp_path):
    """A complete robots.txt whose group for us holds more than 500 rules says the same to
    every search while it is fresh: the block is cached like rules are, so the next search
    neither fetches nor reads the file again (a 500 KiB one costs a worker's reading)."""
    host = "robots-over.test"
    body = "User-agent: *\n" + "Allow:/\n" * 501  # 501 rules in 4,021 bytes: read here, no worker
    cfg = world(origins, tmp_path, host, case_routes(**{"/robots.txt": {"body": body, "type": "text/plain"}}))
    engine = LightSearch.from_settings(cfg)
    first = await engine.search(QUERY)
    (blocked,) = errors(first)
    assert blocked["code"] == "robots_unreachable"
    assert "more than 500 rules apply to lightbot" in blocked["message"]
    assert paths(origins, host) == ["/robots.txt"]
    origins.reset_log()
    second = await engine.search("moraine sediment glacier")
    assert paths(origins, host) == []  # not fetched again, and nothing else of the origin either
    assert counts(second)["robotsFetches"] == 0
    assert counts(second)["robotsCacheHits"] == 2
    assert [e["code"] for e in errors(second)] == ["robots_unreachable"]
    assert counts(second)["robotsBlocked"] >= 1


@coroutine_test
async def test_requests_of_one_origin_leave_the_robots_stage_in_the_order_they_came():
    """Requests wait while another search fetches the origin's rules (it holds the claim),
    then go on in the order they came, though announcing the rules (``robots_parsed``, to
    a receiver that takes loop turns) pauses the first; requests that come while the
    waiters resume queue behind them. The scheduler's order is the download order."""
    from scrapy import Request, Spider, signals
    from scrapy.utils.test import get_crawler

    from lightsearch.cache.robots import RobotsRules
    from lightsearch.config import make_settings
    from lightsearch.crawl.middlewares.robotstxt import RobotsMiddleware
    from lightsearch.crawl.runtime import ensure_reactor

    ensure_reactor()  # as a search does: the signals go through Twisted
    crawler = get_crawler(Spider, dict(make_settings({})))
    mw = RobotsMiddleware.from_crawler(crawler)
    announced = []

    async def slow_receiver(robotparser, request):
        announced.append(request.url)
        for _ in range(5):
            await asyncio.sleep(0)

    crawler.signals.connect(slow_receiver, signal=signals.robots_parsed)
    origin = f"https://order-{time.time_ns()}.test"
    assert mw.cache.claim(origin, 30)  # another search is fetching the rules
    left: list[int] = []

    async def one(i: int) -> None:
        await mw.process_request(Request(f"{origin}/p{i}"))
        left.append(i)

    tasks = [asyncio.ensure_future(one(i)) for i in range(4)]
    await asyncio.sleep(0.01)
    assert not left
    mw.cache.put(origin, RobotsRules("rules", text="User-agent: *\nAllow: /\n"), time.time() + 60)
    for i in range(4, 12):
        await asyncio.sleep(0)
        tasks.append(asyncio.ensure_future(one(i)))
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert left == list(range(12))
    assert announced == [f"{origin}/p0"]  # once per crawl
    await mw.process_request(Request(f"{origin}/later"))  # the stored rules, at once
    assert not mw._gates  # no gate is kept once its waiters are through
    assert not mw._waiting
    mw.cache.release(origin)


# ------------------------------------------------------------------ hostile sizes
def _wildcards(n: int) -> bytes:
    """``n`` wildcard rules for every crawler, padded to 500 KiB."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /*%d*$\n" % i for i in range(n))
    return body + b"#" * max(0, 500 * KIB - 1 - len(body)) + b"\n"


@coroutine_test
async def test_a_huge_robots_txt_is_read_apart_and_only_the_group_that_binds_us_is_parsed(origins, tmp_path,
                                                                                          monkeypatch):
    """Behind five redirects, 500 KiB: 20,000 wildcard rules for every crawler (more than a
    group may hold: the origin is blocked), and on a second origin 9,000 groups for other
    crawlers around the 300 rules of ours (read, and applied). protego parses, in this
    process, the digests only: never more than a digest's bounds, never the 500 KiB."""
    from protego import Protego

    from lightsearch.documents.robots_digest import MAX_TEXT_BYTES

    parsed: list[int] = []
    original = Protego.parse.__func__

    def recording(cls, content):
        parsed.append(len(content))
        return original(cls, content)

    monkeypatch.setattr(Protego, "parse", classmethod(recording))
    ours = (b"".join(b"User-agent: bot%d\nDisallow: /\n" % i for i in range(9000))
            + b"User-agent: lightbot\n" + b"".join(b"Disallow: /x%d\n" % i for i in range(299)) + b"Disallow: /a\n")
    cfg = make_world(origins, tmp_path, {
        "robots-huge.test": case_routes(**_chain(5, {"body": _wildcards(20_000)})),
        "robots-groups.test": case_routes(**{"/robots.txt": {"body": ours}}),
        "healthy.test": {"/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
                         "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")}},
    }, [{"id": "case", "host": "robots-huge.test"}, {"id": "groups", "host": "robots-groups.test"},
        {"id": "healthy", "host": "healthy.test"}])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert parsed
    assert max(parsed) <= MAX_TEXT_BYTES
    (blocked,) = errors(result)
    assert blocked["code"] == "robots_unreachable"
    assert "more than 500 rules apply to lightbot" in blocked["message"]
    assert paths(origins, "robots-huge.test") == ["/robots.txt", "/r1", "/r2", "/r3", "/r4", "/r5"]
    assert "/a" not in paths(origins, "robots-groups.test")  # our group's rules apply
    assert counts(result)["robotsDenied"] >= 1
    assert "https://healthy.test/moraine" in hit_urls(result)


@coroutine_test
async def test_one_robots_file_served_by_many_origins_is_read_once(origins, tmp_path, monkeypatch):
    """Three origins serve the same file of 600 rules behind redirects, a fourth the same with
    one line more: two readings in the pool, and each origin has the verdict of its own file."""
    from lightsearch.crawl.middlewares import robotstxt
    from lightsearch.isolation import tasks

    read: list[int] = []
    parse_apart = robotstxt.parse_apart

    async def counting(lane, fn, *args, **kwargs):
        if fn is tasks.robots and len(args[0]) > 4 * KIB:
            read.append(len(args[0]))
        return await parse_apart(lane, fn, *args, **kwargs)

    monkeypatch.setattr(robotstxt, "parse_apart", counting)
    same = b"User-agent: *\n" + b"".join(b"Disallow: /*%d*$\n" % i for i in range(600))  # 12 KiB: a worker's
    other = same + b"#\n"
    sites = {f"robots-same{i}.test": case_routes(**_chain(2, {"body": same})) for i in range(3)}
    sites["robots-other.test"] = case_routes(**{"/robots.txt": {"body": other}})
    hosts = list(sites)
    sites["healthy.test"] = {"/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
                             "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")}}
    cfg = make_world(origins, tmp_path, sites, [{"id": host.split(".")[0], "host": host} for host in sites])
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert len(read) == 2
    blocked = [e for host in hosts for e in errors(result, host.split(".")[0])]
    assert [e["code"] for e in blocked] == ["robots_unreachable"] * 4
    assert all("more than 500 rules apply to lightbot" in e["message"] for e in blocked)
    assert all(paths(origins, host)[:1] == ["/robots.txt"] for host in hosts)
    assert "https://healthy.test/moraine" in hit_urls(result)
