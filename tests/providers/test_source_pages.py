"""Brave's optional source-page fetches: through web_fetch, in parallel, failures kept local."""

from __future__ import annotations

import asyncio

from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from tests.conftest import ROBOTS_ALLOW, article_html, cancel_once_reached, coroutine_test

HOSTS = ("hello-a.test", "hello-b.test", "hello-c.test")


def page(title: str) -> dict:
    return {"body": article_html(title, [
        f"{title}: the hello world program prints a greeting and nothing else.",
        "Writing hello world first checks that the compiler, the editor and the console work.",
        "Brian Kernighan's 1972 tutorial is the earliest known hello world program.",
    ])}


def serve(origins, routes_by_host: dict[str, dict]) -> dict:
    for host, routes in routes_by_host.items():
        origins.add_site(host, {"/robots.txt": ROBOTS_ALLOW, **routes})
    origins.reset_log()
    return origins.settings()


def point_top_hits_at(hosts) -> callable:
    """Rewrite the recording so its top results are pages of our offline hosts."""
    def transform(payload):
        results = payload["web"]["results"]
        for item, host in zip(results, hosts, strict=False):
            item["url"] = f"https://{host}/hello"
            item["meta_url"]["hostname"] = host
        return payload
    return transform


# Generous for a page that answers at once: a busy machine is slow, never stuck.
PATIENT = {"BRAVE_SOURCE_FETCH_TIMEOUT_SECS": 60.0, "BRAVE_DEADLINE_SECS": 120.0}
# What a test that waits on a held page allows the search before failing it: well under
# the page timeout it would wait out if the page timeout or the deadline did not hold.
WITHIN = 60.0


def provider(brave_replay, origins_settings, key, **settings):
    """Brave on its replay, reading pages from ``origins_settings``; a page that answers is
    given all the time a busy machine needs unless the test sets its own timeout."""
    return load_provider(merge_settings(origins_settings, brave_replay.settings(key), {
        "LOG_LEVEL": "ERROR", "BRAVE_SOURCE_FETCH": True, **PATIENT, **settings}), environ={})


@coroutine_test
async def test_top_pages_are_read_in_parallel(brave_replay, origins, gates):
    # each page is held until all three are asked for: read one after another, the first
    # would wait out its timeout and come back as a fetch error
    together = gates(len(HOSTS))
    routes = {host: {"/hello": {**page(f"Hello from {host}"), "gate": together}} for host in HOSTS}
    settings = serve(origins, routes)
    brave_replay.script("parallel", transform=point_top_hits_at(HOSTS))
    result = await provider(brave_replay, settings, "parallel", BRAVE_SOURCE_FETCH_PAGES=3).search(
        "hello world program", max_results=5)
    assert result["provider"] == "brave"
    assert result["sourceFetchErrors"] == []
    hits = result["hits"]
    assert [h["url"] for h in hits[:3]] == [f"https://{h}/hello" for h in HOSTS]
    assert len(hits) == 5
    for host in HOSTS:
        assert [r["path"] for r in origins.requests_for(host)] == ["/robots.txt", "/hello"]
    assert result["coverage"]["level"] == "strong"
    receipts = result["meta"]["webSources"]["entries"]
    assert [r["retrieval"] for r in receipts] == ["fetched"] * 3 + ["search_result"] * 2
    assert [r["presentation"] for r in receipts[:3]] == ["content"] * 3
    assert all(h["content"] for h in hits[:3])
    assert "content" not in hits[3]
    assert result["meta"]["braveSearch"]["sourceFetches"] == {
        "enabled": True, "attempted": 3, "retrieved": 3, "failed": 0}


@coroutine_test
async def test_a_page_that_hangs_keeps_its_hit(brave_replay, origins, gates):
    hang = "hello-hang.test"
    settings = serve(origins, {hang: {"/hello": {**page("Hello hang"), "gate": gates()}}})  # never answers
    brave_replay.script("hang", transform=point_top_hits_at([hang]))
    # the top page alone is read: its timeout is what the hang costs, whatever the load
    result = await asyncio.wait_for(provider(brave_replay, settings, "hang", BRAVE_SOURCE_FETCH_PAGES=1,
                                             BRAVE_SOURCE_FETCH_TIMEOUT_SECS=2.0).search("hello world program"), WITHIN)
    assert result["hits"][0]["url"] == f"https://{hang}/hello"  # the hit stays
    (error,) = result["sourceFetchErrors"]
    assert error["url"] == f"https://{hang}/hello"
    assert error["code"] == "timeout"
    assert result["hits"][0]["snippet"]  # the snippet is still there
    assert "content" not in result["hits"][0]
    receipts = {r["url"]: r for r in result["meta"]["webSources"]["entries"]}
    hung = receipts[f"https://{hang}/hello"]
    assert hung["retrieval"] == "failed"
    assert hung["error"] == "timeout"
    assert hung["presentation"] == "snippet"
    assert receipts[result["hits"][1]["url"]]["retrieval"] == "search_result"
    assert f"https://{hang}/hello" in result["text"]


@coroutine_test
async def test_a_page_whose_reading_is_stuck_times_out_and_its_reading_is_stopped(brave_replay, origins, monkeypatch):
    """The page arrives at once but its reading never ends (a real worker that sleeps, sent
    in place of the reader): the page timeout stops the reading itself (its worker is
    killed), not only the wait for it."""
    from lightsearch.config import make_settings
    from lightsearch.isolation import tasks
    from lightsearch.isolation.lanes import Lane
    from tests import stuck as never

    monkeypatch.setattr(tasks, "read_body", never.forever)
    stuck = "hello-stuck.test"
    settings = serve(origins, {stuck: {"/hello": page("Hello stuck")}})
    brave_replay.script("stuck", transform=point_top_hits_at([stuck]))
    pool = Lane(make_settings(settings)).pool
    killed = pool.stats.killed_time + pool.stats.killed_cancelled
    # the pool's own limit is far beyond what the test waits: only the page timeout ends it
    result = await asyncio.wait_for(provider(
        brave_replay, settings, "stuck", BRAVE_SOURCE_FETCH_PAGES=1, LIGHT_POOL_TASK_SECS=120,
        BRAVE_SOURCE_FETCH_TIMEOUT_SECS=2.0).search("hello world program"), WITHIN)
    assert f"https://{stuck}/hello" in [h["url"] for h in result["hits"]]
    errors = {e["url"]: e["code"] for e in result["sourceFetchErrors"]}
    assert errors[f"https://{stuck}/hello"] == "timeout"
    # the pool's own thread kills the worker once the reading is given up
    for _ in range(int(WITHIN / 0.05)):
        if pool.stats.killed_time + pool.stats.killed_cancelled >= killed + 1:
            break
        await asyncio.sleep(0.05)
    assert pool.stats.killed_time + pool.stats.killed_cancelled >= killed + 1


@coroutine_test
async def test_coverage_reports_the_evidence_actually_retrieved(brave_replay, origins, gates):
    hang = "hello-only.test"
    routes = {"/hello": {**page("Hello only"), "gate": gates()}}  # held: never answers in time
    settings = serve(origins, {hang: routes})
    brave_replay.script("only", transform=point_top_hits_at([hang]))
    timed_out = await provider(brave_replay, settings, "only", BRAVE_SOURCE_FETCH_PAGES=1,
                               BRAVE_SOURCE_FETCH_TIMEOUT_SECS=2.0).search("hello world program")
    del routes["/hello"]["gate"]
    read = await provider(brave_replay, settings, "only", BRAVE_SOURCE_FETCH_PAGES=1).search("hello world program")
    assert [h["url"] for h in timed_out["hits"]] == [h["url"] for h in read["hits"]]
    assert timed_out["sourceFetchErrors"][0]["code"] == "timeout"
    assert read["sourceFetchErrors"] == []
    assert timed_out["coverage"]["level"] == "weak"  # only snippets came back
    assert read["coverage"]["level"] in ("partial", "strong")
    assert read["coverage"]["score"] > timed_out["coverage"]["score"]


@coroutine_test
async def test_failed_pages_are_recorded_with_their_code(brave_replay, origins):
    settings = serve(origins, {
        "hello-404.test": {},
        "hello-robots.test": {"/robots.txt": {"body": "User-agent: *\nDisallow: /\n",
                                              "type": "text/plain"}},
    })
    brave_replay.script("fails", transform=point_top_hits_at(["hello-404.test", "hello-robots.test",
                                                        "unmapped.example"]))
    result = await provider(brave_replay, settings, "fails").search("hello world")
    codes = {e["url"]: e["code"] for e in result["sourceFetchErrors"]}
    assert codes["https://hello-404.test/hello"] == "http_status"
    assert codes["https://hello-robots.test/hello"] == "robots_disallowed"
    assert "https://unmapped.example/hello" in codes
    assert len(result["hits"]) == 8


@coroutine_test
async def test_source_fetches_can_be_switched_off(brave_replay, origins):
    settings = serve(origins, {HOSTS[0]: {"/hello": page("Hello A")}})
    brave_replay.script("off", transform=point_top_hits_at(HOSTS[:1]))
    result = await provider(brave_replay, settings, "off", BRAVE_SOURCE_FETCH=False).search("hello world")
    assert origins.requests_for(HOSTS[0]) == []
    assert result["sourceFetchErrors"] == []
    assert result["coverage"]["level"] == "weak"


@coroutine_test
async def test_disabled_web_fetch_means_no_source_fetches(brave_replay, origins):
    settings = serve(origins, {HOSTS[0]: {"/hello": page("Hello A")}})
    brave_replay.script("nofetch", transform=point_top_hits_at(HOSTS[:1]))
    result = await provider(brave_replay, settings, "nofetch", WEB_FETCH_ENABLED=False).search("hello world")
    assert origins.requests_for(HOSTS[0]) == []
    assert any("web_fetch is disabled" in n for n in result["notes"])
    assert result["hits"]


@coroutine_test
async def test_cancelling_during_source_fetches(brave_replay, origins, gates):
    hang = "hello-cancel.test"
    settings = serve(origins, {hang: {"/hello": {**page("Hello cancel"), "gate": gates()}}})
    brave_replay.script("cancel-fetch", transform=point_top_hits_at([hang]))
    search = provider(brave_replay, settings, "cancel-fetch", BRAVE_SOURCE_FETCH_PAGES=1).search("hello world")
    task = asyncio.ensure_future(search)
    await cancel_once_reached(task, lambda: any(r["path"] == "/hello" for r in origins.requests_for(hang)))


@coroutine_test
async def test_search_deadline_bounds_the_page_timeouts(brave_replay, origins, gates):
    hang = "hello-deadline.test"
    settings = serve(origins, {hang: {"/hello": {**page("Hello deadline"), "gate": gates()}}})
    brave_replay.script("deadline-fetch", transform=point_top_hits_at([hang]))
    # a page timeout of two minutes, a search deadline of a few seconds: the search ends
    # with the deadline (the test fails it long before the page timeout would)
    result = await asyncio.wait_for(provider(
        brave_replay, settings, "deadline-fetch", BRAVE_SOURCE_FETCH_PAGES=1, BRAVE_SOURCE_FETCH_TIMEOUT_SECS=120,
        BRAVE_DEADLINE_SECS=4.5).search("hello world"), WITHIN)
    assert result["sourceFetchErrors"][0]["code"] == "timeout"


@coroutine_test
async def test_a_read_page_shows_its_best_passage(brave_replay, origins):
    host = "hello-long.test"
    filler = [f"Paragraph {i} is about gardening, tomatoes and the weather in spring." for i in range(60)]
    body = article_html("Long page", [*filler, "The hello world program is the first program a "
                                      "learner writes, printing a greeting.", *filler])
    settings = serve(origins, {host: {"/hello": {"body": body}}})
    brave_replay.script("long", transform=point_top_hits_at([host]))
    result = await provider(brave_replay, settings, "long", BRAVE_SOURCE_FETCH_PAGES=1,
                            RESULT_CONTENT_MAX_CHARS=400).search("hello world program")
    hit = result["hits"][0]
    assert "hello world program is the first program" in hit["content"]
    assert len(hit["content"]) <= 400
    receipt = result["meta"]["webSources"]["entries"][0]
    assert receipt["retrieval"] == "fetched"
    assert "perSource" in receipt["contentTruncated"]


@coroutine_test
async def test_a_page_cut_short_is_evidence_marked_in_its_receipt(brave_replay, origins):
    host = "hello-cut.test"
    body = article_html("Hello cut", ["The hello world program prints a greeting. " * 40])
    settings = serve(origins, {host: {"/hello": {"body": body, "truncate": 4000}}})
    brave_replay.script("cut", transform=point_top_hits_at([host]))
    result = await provider(brave_replay, settings, "cut", BRAVE_SOURCE_FETCH_PAGES=1).search("hello world")
    assert result["sourceFetchErrors"] == []
    assert "hello world program" in result["hits"][0]["content"]
    receipt = result["meta"]["webSources"]["entries"][0]
    assert receipt["retrieval"] == "fetched"
    assert "extraction" in receipt["contentTruncated"]
