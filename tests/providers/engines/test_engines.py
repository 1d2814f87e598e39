"""The keyless engines, one by one, against recorded responses on a loopback engine_replay."""

from __future__ import annotations

import json

import pytest

from lightsearch.documents import serp
from lightsearch.isolation.limits import SMALL_BODY_BYTES
from lightsearch.offline_origins.engine_replay import (
    CHALLENGE,
    DDG_EMPTY,
    SEARXNG_403,
    SPA,
)
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from tests import bombs
from tests.conftest import coroutine_test


@pytest.fixture
def fresh(engine_replay):
    engine_replay.reset()
    return engine_replay


def provider(engine_replay, mode, **settings):
    # Suspension and the answer cache have tests of their own (tests/providers/engines/test_modes.py).
    return load_provider(merge_settings(engine_replay.settings(), {
        "WEB_SEARCH_PROVIDER": mode, "LOG_LEVEL": "ERROR", "WEB_SEARCH_SUSPENSION": None,
        "WEB_SEARCH_CACHE": None, **settings}), environ={})


async def search(engine_replay, mode, query="rust programming", **kw):
    settings = kw.pop("settings", {})
    return await provider(engine_replay, mode, **settings).search(query, **kw)


def engine_error(result, engine):
    return result["meta"]["engines"][engine].get("error") or {}


# ----------------------------------------------------------------------------- DuckDuckGo html
@coroutine_test
async def test_ddg_html_direct_links(fresh):
    result = await search(fresh, "ddg_html", max_results=10)
    assert result["provider"] == "ddg_html"
    assert len(result["hits"]) == 10
    assert result["hits"][0]["url"] == "https://github.com/cloudwego/eino"
    assert result["hits"][0]["engines"] == ["ddg_html"]
    assert result["results"][0] == {"title": result["hits"][0]["title"], "url": result["hits"][0]["url"],
                                    "snippet": result["hits"][0]["snippet"]}
    (request,) = fresh.requests_for("ddg_html")
    assert request["method"] == "POST"
    assert request["params"]["q"] == "rust programming"
    assert request["params"]["kl"] == "wt-wt"
    assert request["headers"]["Sec-Fetch-Mode"] == "navigate"
    assert "Mozilla/5.0" in request["headers"]["User-Agent"]
    assert "Cookie" not in request["headers"]


@coroutine_test
async def test_ddg_html_uddg_links_are_unwrapped_and_ads_dropped(fresh):
    fresh.script("ddg_html", file="duckduckgo_html/glassfox56_html-weather-Jakarta.html")
    result = await search(fresh, "ddg_html", max_results=20, settings={"WEB_SEARCH_REGION": "id-id"},
                          recency="week")
    urls = [h["url"] for h in result["hits"]]
    assert len(urls) == 10  # 11 blocks, one of them an ad
    assert not any("duckduckgo.com" in u for u in urls)
    assert all(u.startswith("http") for u in urls)
    params = fresh.requests_for("ddg_html")[0]["params"]
    assert params["kl"] == "id-id"
    assert params["df"] == "w"


@coroutine_test
async def test_ddg_challenge_page_is_blocked_not_empty(fresh):
    fresh.script("ddg_html", status=202, file=CHALLENGE)
    result = await search(fresh, "ddg_html")
    assert result["provider"] == "none"
    assert result["hits"] == []
    error = engine_error(result, "ddg_html")
    assert error["code"] == "provider_blocked"
    assert error["reason"] == "captcha"
    # the same page with a 200 is still a challenge
    fresh.script("ddg_html", status=200, file=CHALLENGE)
    result = await search(fresh, "ddg_html", query="another query")
    assert engine_error(result, "ddg_html")["reason"] == "captcha"


@coroutine_test
async def test_ddg_js_shell_and_unknown_markup_are_bad_responses(fresh):
    fresh.script("ddg_html", file=SPA)
    result = await search(fresh, "ddg_html")
    assert engine_error(result, "ddg_html") | {"message": ""} == {
        "code": "provider_bad_response", "reason": "js_shell", "message": ""}
    fresh.script("ddg_html", body=b"<html><body><p>Something else entirely</p></body></html>")
    result = await search(fresh, "ddg_html", query="q2")
    assert engine_error(result, "ddg_html")["code"] == "provider_bad_response"
    assert result["provider"] == "none"


@pytest.mark.parametrize("status", [403, 418, 429])
@coroutine_test
async def test_ddg_refusal_statuses_are_errors(fresh, status):
    fresh.script("ddg_html", status=status, body=b"")
    result = await search(fresh, "ddg_html", query=f"status {status}")
    code = engine_error(result, "ddg_html")["code"]
    assert code == ("provider_rate_limited" if status == 429 else "provider_blocked")


@coroutine_test
async def test_ddg_empty_result_page_is_a_healthy_empty_answer(fresh):
    fresh.script("ddg_html", file=DDG_EMPTY)
    fresh.script("ddg_lite", body=b"<html><body><form><input name='q'></form>"
                                  b"<table><tr><td>No results.</td></tr></table></body></html>")
    result = await search(fresh, "duckduckgo", query="zzqxv")
    assert result["hits"] == []
    assert result["provider"] != "none"
    assert result["meta"]["engines"]["ddg_html"]["status"] == "empty"


# ----------------------------------------------------------------------------- DuckDuckGo lite
@coroutine_test
async def test_ddg_lite_single_quoted_markup(fresh):
    result = await search(fresh, "ddg_lite", max_results=10)
    assert len(result["hits"]) == 10
    first = result["hits"][0]
    assert first["url"].startswith("https://weather.com/weather/tenday/")
    assert first["title"] == "10 Day Weather - Downtown, San Francisco, California"
    assert first["snippet"]


# ----------------------------------------------------------------------------- other engines
@coroutine_test
async def test_google_news_rss(fresh):
    result = await search(fresh, "news", query='"統一教会" site:asahi.com -sports', recency="week",
                          settings={"WEB_SEARCH_REGION": "jp-ja"})
    first = result["hits"][0]
    assert first["title"] == "盛山文科相、旧統一教会系から選挙支援 21年衆院選 関係者が証言：朝日新聞デジタル"
    assert first["sourceName"] == "朝日新聞デジタル"
    assert first["publishedAt"] == "2024-02-05T19:00:00Z"
    params = fresh.requests_for("news")[0]["params"]
    assert params["q"] == '"統一教会" site:asahi.com -sports when:7d'  # operators passed through
    assert (params["hl"], params["gl"], params["ceid"]) == ("ja-JP", "JP", "JP:ja")


@coroutine_test
async def test_wikipedia_snippets_and_language_from_script(fresh):
    result = await search(fresh, "wikipedia", query="rust")
    assert len(result["hits"]) == 2
    assert result["hits"][0]["url"] == "https://en.wikipedia.org/wiki/Rust"
    assert "<span" not in result["hits"][0]["snippet"]
    assert result["hits"][0]["snippet"].startswith("Rust is an iron oxide")
    await search(fresh, "wikipedia", query="לונדון")
    assert fresh.requests_for("wikipedia")[-1]["host"] == "he.wikipedia.org"


@coroutine_test
async def test_hacker_news_and_recency(fresh):
    result = await search(fresh, "hn", query="javascript")
    assert result["hits"][0]["title"] == "Yarn – A new package manager for JavaScript"
    assert result["hits"][0]["publishedAt"] == "2016-10-11T15:00:38Z"
    await search(fresh, "hn", query="javascript", recency="day")
    last = fresh.requests_for("hn")[-1]
    assert last["path"].endswith("/search_by_date")
    assert last["params"]["numericFilters"].startswith("created_at_i>")


@coroutine_test
async def test_reddit_listing_and_login_wall(fresh):
    result = await search(fresh, "reddit", query="praw")
    assert len(result["hits"]) == 6
    assert "lightsearch" in fresh.requests_for("reddit")[0]["headers"]["User-Agent"]
    fresh.script("reddit", status=403, body=b"<html>blocked</html>")
    walled = await search(fresh, "reddit", query="praw 2")
    assert walled["provider"] == "none"
    assert engine_error(walled, "reddit")["code"] == "provider_blocked"


@coroutine_test
async def test_searxng_results_notes_and_json_disabled(fresh):
    result = await search(fresh, "searxng", query="rust ownership")
    assert len(result["hits"]) == 2
    assert any("google" in n and "CAPTCHA" in n for n in result["notes"])
    fresh.script("searxng", status=403, file=SEARXNG_403)
    refused = await search(fresh, "searxng", query="rust ownership 2")
    error = engine_error(refused, "searxng")
    assert error["code"] == "provider_blocked"
    assert "formats: [json]" in error["message"]


@coroutine_test
async def test_tavily_needs_a_key_and_sends_it(fresh):
    skipped = await search(fresh, "tavily")
    assert skipped["provider"] == "none"
    assert skipped["meta"]["engines"]["tavily"]["status"] == "skipped"
    assert fresh.count("tavily") == 0
    result = await search(fresh, "tavily", settings={"WEB_SEARCH_TAVILY_API_KEY": "tv-key"})
    assert len(result["hits"]) == 5
    request = fresh.requests_for("tavily")[0]
    assert request["headers"]["Authorization"] == "Bearer tv-key"
    assert request["params"]["json"]["query"] == "rust programming"


@coroutine_test
async def test_openrouter_annotations_are_authoritative_for_urls(fresh):
    result = await search(fresh, "openrouter", settings={"WEB_SEARCH_OPENROUTER_API_KEY": "or-key"})
    urls = [h["url"] for h in result["hits"]]
    assert urls == ["https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
                    "https://blog.rust-lang.org/ownership"]  # the uncited, invented URL is dropped
    assert result["hits"][0]["snippet"].startswith("Ownership rules")  # the model's better snippet
    body = fresh.requests_for("openrouter")[0]["params"]["json"]
    assert body["model"].endswith(":online")


# ----------------------------------------------------------------------------- the client
@coroutine_test
async def test_endpoints_off_the_map_are_refused_before_any_connection(fresh):
    result = await search(fresh, "ddg_html", settings={"WEB_SEARCH_DDG_HTML_URL": f"https://127.0.0.1:{fresh.port}/html/"})
    error = engine_error(result, "ddg_html")
    assert error["code"] == "provider_network_error"
    assert error["reason"] == "blocked_address"
    assert fresh.count("unknown") == 0
    assert fresh.count("ddg_html") == 0


# ----------------------------------------------------------------------------- hostile answers
# An answer over the in-process size is read in a worker of the pool; here each parser is
# broken in this process for such bodies (a worker has its own modules), so an answer read
# where every caller's events wait fails the test.
def broken_when_large(original):
    def parse(body, *args, **kwargs):
        if len(body) > SMALL_BODY_BYTES:
            raise AssertionError("an answer over the in-process size was parsed in the event loop's process")
        return original(body, *args, **kwargs)

    return parse


@pytest.fixture
def apart(monkeypatch):
    """Every parser an engine's answer may meet, broken in this process for large bodies."""
    import json

    import feedparser
    import parsel

    import lightsearch.providers.engines.duckduckgo as duckduckgo

    monkeypatch.setattr(json, "loads", broken_when_large(json.loads))
    monkeypatch.setattr(feedparser, "parse", broken_when_large(feedparser.parse))
    monkeypatch.setattr(parsel, "Selector", broken_when_large(parsel.Selector))
    monkeypatch.setattr(duckduckgo, "Selector", broken_when_large(parsel.Selector), raising=False)
    monkeypatch.setattr(serp, "read_ddg", broken_when_large(serp.read_ddg))


@coroutine_test
async def test_a_lite_answer_of_14000_links_is_read_apart_in_one_walk(fresh, apart):
    body, ctype = bombs.ddg_lite_links()
    fresh.script("ddg_lite", body=body, headers={"Content-Type": ctype})
    result = await search(fresh, "ddg_lite", max_results=20)
    assert [h["url"] for h in result["hits"]] == [f"https://r{i}.bench.test/" for i in range(20)]


@coroutine_test
async def test_a_json_answer_of_2_mib_is_loaded_apart_and_cut(fresh, apart):
    hit = {"title": "Rust compiler notes", "url": "https://h.test/{i}", "objectID": "{i}", "points": 1,
           "created_at": "2024-01-01T00:00:00Z", "story_text": "x" * 40}
    hits = ",".join(json.dumps(hit).replace("{i}", str(i)) for i in range(10_000))  # 1.7 MB
    fresh.script("hn", body=('{"hits":[' + hits + "]}").encode(), headers={"Content-Type": "application/json"})
    result = await search(fresh, "hn", query="rust programming compiler", max_results=20)
    assert [h["url"] for h in result["hits"]] == [f"https://h.test/{i}" for i in range(20)]


@coroutine_test
async def test_a_json_answer_that_would_make_a_million_objects_is_refused_unread(fresh, apart):
    body, ctype = bombs.nested_json()
    fresh.script("hn", body=body, headers={"Content-Type": ctype})
    result = await search(fresh, "hn", query="rust programming compiler")
    assert engine_error(result, "hn") | {"message": ""} == {
        "code": "provider_bad_response", "reason": "json_values", "status": 200, "message": ""}


@coroutine_test
async def test_a_news_feed_is_read_apart_with_no_entity_expanded(fresh, apart):
    body, ctype = bombs.entity_tree_feed(levels=5)  # 100,000 copies, within expat's own allowance
    fresh.script("news", body=body.replace(b"<link>/glacier-moraine</link>", b"<link>https://n.test/a</link>"),
                 headers={"Content-Type": ctype})
    result = await search(fresh, "news", query="glacier news")
    (hit,) = result["hits"]
    assert hit["url"] == "https://n.test/a"
    assert len(hit["title"]) < 100  # the entity stays a reference


@coroutine_test
async def test_an_answer_too_deep_to_load_is_a_bad_response(fresh):
    fresh.script("hn", body=b"[" * 100_000, headers={"Content-Type": "application/json"})
    result = await search(fresh, "hn", query="rust programming compiler")
    assert engine_error(result, "hn") | {"message": ""} == {
        "code": "provider_bad_response", "reason": "unparseable", "status": 200, "message": ""}
