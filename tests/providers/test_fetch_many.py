"""web_fetch with several URLs (``web_read`` in other tools): each page its own result or
error, in the caller's order, fetched concurrently within one deadline and the
per-origin limit, and one bounded text for the model."""

from __future__ import annotations

import asyncio
import itertools
import json

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.evidence.render import utf8_len
from lightsearch.providers.fetch import WebFetch
from lightsearch.surfaces.toolbox import Toolbox
from lightsearch.surfaces.tools import check_arguments, tool_specs
from tests.conftest import ROBOTS_ALLOW, coroutine_test

WALLS = "https://walls.example"
SLOW_A, SLOW_B = "slow-a.many.test", "slow-b.many.test"


def _page(word: str) -> dict:
    return {"body": "<!doctype html><html><head><title>" + word + "</title></head><body><article>"
                    + f"<p>{word} paragraph about harbour tides, long enough to be an article.</p>" * 40
                    + "</article></body></html>", "delay": 0.6}


@pytest.fixture
def settings(origins):
    for host in (SLOW_A, SLOW_B):
        origins.add_site(host, {"/robots.txt": ROBOTS_ALLOW, "/one": _page("one"), "/two": _page("two"),
                                "/stuck": {"body": "<p>late</p>", "delay": 5.0}})
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


@coroutine_test
async def test_each_url_has_its_own_result_or_error_in_the_order_given(settings):
    urls = [f"{WALLS}/notes.txt", f"{WALLS}/private/page", f"{WALLS}/article", "http://169.254.169.254/"]
    out = await WebFetch.from_settings(settings).fetch_many(urls, max_chars=500)
    assert [r.get("originalUrl", r["url"]) for r in out["results"]] == urls
    codes = [r["error"]["code"] if "error" in r else "ok" for r in out["results"]]
    assert codes == ["ok", "robots_disallowed", "ok", "blocked_address"]
    assert (out["count"], out["fetched"], out["failed"]) == (4, 2, 2)
    assert out["results"][2]["title"] == "How tide tables are computed"
    assert len(out["results"][2]["content"]) <= 500  # maxChars bounds each page's window
    text = out["text"]
    assert text.startswith("web_fetch read 4 URLs")
    assert text.index("[1/4]") < text.index("[2/4]") < text.index("[3/4]") < text.index("[4/4]")
    assert "robots_disallowed" in text
    assert "Second line of the notes." in text


@coroutine_test
async def test_the_model_text_of_all_pages_is_one_bounded_text(settings):
    limit = 6000
    urls = [f"{WALLS}/article", f"https://{SLOW_A}/one", f"https://{SLOW_B}/two"]
    out = await WebFetch.from_settings({**settings, "RESULT_TEXT_MAX_BYTES": limit}).fetch_many(urls)
    assert out["fetched"] == 3
    assert utf8_len(out["text"]) <= limit
    # every page keeps its own closed fence: cutting the whole would cut a fence
    assert out["text"].count("BEGIN>>>") == out["text"].count("END>>>") == 3


@coroutine_test
async def test_pages_of_different_origins_are_fetched_together_and_one_origin_one_at_a_time(settings, origins):
    urls = [f"https://{SLOW_A}/one", f"https://{SLOW_A}/two", f"https://{SLOW_B}/one", f"https://{SLOW_B}/two"]
    out = await WebFetch.from_settings(settings).fetch_many(urls)
    assert out["fetched"] == 4
    assert origins.open_max[SLOW_A] == 1  # counted at the server
    assert origins.open_max[SLOW_B] == 1
    a = [e["time"] for e in origins.requests_for(SLOW_A) if e["path"] != "/robots.txt"]
    b = [e["time"] for e in origins.requests_for(SLOW_B) if e["path"] != "/robots.txt"]
    # the two origins overlapped: B's first page was requested before A's second was done
    assert min(b) < max(a)


@coroutine_test
async def test_the_pages_crawls_start_each_in_a_turn_of_the_event_loop(settings, monkeypatch):
    """Setting a crawl up is tens of milliseconds of the event loop every caller shares: the
    pages' crawls start one a turn, so another caller's events run between them, not after
    all of them."""
    events: list[str] = []
    real = WebFetch._crawl_settings

    def recording(self, *args, **kwargs):
        events.append("crawl")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(WebFetch, "_crawl_settings", recording)

    async def another_caller() -> None:
        while True:
            events.append("other")
            await asyncio.sleep(0)

    other = asyncio.ensure_future(another_caller())
    try:
        out = await WebFetch.from_settings(settings).fetch_many(
            [f"{WALLS}/article", f"{WALLS}/notes.txt", f"{WALLS}/article?again"])
    finally:
        other.cancel()
    assert out["fetched"] == 3
    starts = [i for i, event in enumerate(events) if event == "crawl"][:3]
    assert len(starts) == 3
    assert all("other" in events[a:b] for a, b in itertools.pairwise(starts))


@coroutine_test
async def test_one_deadline_for_the_call_a_stuck_page_costs_only_itself(settings):
    # the third page waits for its origin's turn behind the stuck one: it has what is left
    # of the call's deadline, not a deadline of its own
    urls = [f"https://{SLOW_A}/one", f"https://{SLOW_B}/stuck", f"https://{SLOW_B}/stuck?again"]
    out = await WebFetch.from_settings({**settings, "WEB_FETCH_DEADLINE_SECS": 2.5}).fetch_many(urls)
    assert "error" not in out["results"][0]
    assert out["results"][1]["error"]["code"] == "timeout"
    assert out["results"][2]["error"]["code"] == "timeout"
    assert out["elapsedMs"] < 5000  # the stuck page did not hold the call past its deadline


@coroutine_test
async def test_a_repeated_url_is_fetched_once(settings, origins):
    url = f"https://{SLOW_A}/one"
    out = await WebFetch.from_settings(settings).fetch_many([url, url])
    assert out["count"] == 2
    assert out["results"][0]["content"] == out["results"][1]["content"]
    assert [e["path"] for e in origins.requests_for(SLOW_A)].count("/one") == 1


@pytest.mark.parametrize(("urls", "message"), [([], "non-empty"), ("https://walls.example/article", "list"),
                                               ([f"{WALLS}/article"] * 6, "at most 5")])
@coroutine_test
async def test_bad_url_lists_are_invalid_input_naming_urls(settings, urls, message):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch_many(urls)
    assert info.value.code == "invalid_input"
    assert info.value.details["parameter"] == "urls"
    assert message in info.value.message


def test_the_tool_takes_url_and_more_urls_five_in_all():
    fetch = {t.name: t for t in tool_specs()}["web_fetch"]
    assert fetch.input_schema["required"] == ["url"]
    assert fetch.input_schema["properties"]["urls"]["maxItems"] == 4  # and url: five in all
    a, b = "https://a.example/", "https://b.example/"
    assert check_arguments(fetch, {"urls": [a, b]})["urls"] == [a, b]  # the list alone: its first is the url
    assert check_arguments(fetch, {"url": a, "urls": [b]})["urls"] == [a, b]
    assert check_arguments(fetch, {"urls": [a]})["urls"] == [a]  # a list of one is still read as a list
    assert "urls" not in check_arguments(fetch, {"url": a})
    with pytest.raises(LightSearchError) as info:
        check_arguments(fetch, {})
    assert info.value.details["errors"][0]["field"] == "url"
    for args in ({"urls": [f"https://{i}.example/" for i in range(6)]},
                 {"url": a, "urls": [f"https://{i}.example/" for i in range(5)]}):
        with pytest.raises(LightSearchError) as info:
            check_arguments(fetch, args)
        assert info.value.details["parameter"] == "urls"
        assert "5" in info.value.message


@coroutine_test
async def test_the_toolbox_reads_urls_through_the_tool_call(settings):
    async with Toolbox(settings) as box:
        out = await box.call("web_fetch", {"urls": [f"{WALLS}/article", f"{WALLS}/notes.txt"], "maxChars": 300})
    assert out["fetched"] == 2
    assert "[2/2]" in out["text"]


def test_scrapy_read_takes_several_urls_and_exits_1_when_one_failed(tmp_path, read):
    proc = read("-o", "json", "--max-chars", "200", f"{WALLS}/article", f"{WALLS}/nope", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    out = json.loads(proc.stdout)
    assert out["fetched"] == 1
    assert out["results"][1]["error"]["code"] == "http_status"
    # the read-on hint of a page read together with others speaks command-line words too
    assert "--start-index" in out["results"][0]["text"]
    assert "--start-index" in out["text"]


@coroutine_test
async def test_a_calls_pages_are_crawled_at_most_its_share_of_the_pool_at_once(origins):
    """A crawl is event-loop work every caller shares: the pages of one call are crawled at
    most half the pool's workers at once (the call's share of the pool), the next page when
    one is done."""
    from tests.held_origins import HeldPages

    pages = HeldPages(origins, 4)
    fetcher = WebFetch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR", "LIGHT_POOL_WORKERS": 4})
    call = asyncio.ensure_future(fetcher.fetch_many(pages.urls))
    try:
        await pages.until_held(2)
        for _ in range(25):  # a moment for a third page to reach its origin, if it could
            await asyncio.sleep(0.02)
        held = sorted(pages.arrived)
    finally:
        pages.let_go()
    out = await call
    await fetcher.aclose()
    assert held == ["held0", "held1"]
    assert out["fetched"] == 4
