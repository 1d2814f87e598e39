"""The Brave provider against a loopback brave_replay of recorded Brave API responses."""

from __future__ import annotations

import asyncio
import gzip
import json

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.offline_origins.brave_replay import BraveReplay
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.brave import BraveSearch
from tests.conftest import cancel_once_reached, coroutine_test

CONTRACT_KEYS = {"query", "provider", "hits", "coverage", "stopReason", "notes", "meta", "text",
                 "trust", "carryPolicy"}
HIT_KEYS = {"title", "url", "snippet", "source", "retrievedAt", "score"}


def brave(brave_replay: BraveReplay, key: str, **settings) -> BraveSearch:
    provider = load_provider({**brave_replay.settings(key), "BRAVE_SOURCE_FETCH": False,
                              "LOG_LEVEL": "ERROR", **settings}, environ={})
    assert isinstance(provider, BraveSearch)
    return provider


def recorded(brave_replay: BraveReplay) -> list[dict]:
    return brave_replay.recording()["web"]["results"]


# ----------------------------------------------------------------------------- mapping
@coroutine_test
async def test_hits_map_onto_the_common_contract(brave_replay):
    result = await brave(brave_replay, "map").search("hello world", max_results=20)
    assert set(result) >= CONTRACT_KEYS
    assert result["provider"] == "brave"
    assert result["query"] == "hello world"
    assert result["trust"] == "volatile_external"
    assert result["carryPolicy"] == "never"
    raw = recorded(brave_replay)
    assert [h["url"] for h in result["hits"]] == [r["url"] for r in raw]
    for hit, item in zip(result["hits"], raw, strict=True):
        assert set(hit) >= HIT_KEYS
        assert "<strong>" not in hit["snippet"]
        assert "&quot;" not in hit["snippet"]
        assert "&#x27;" not in hit["title"]
        assert hit["source"] == item["meta_url"]["hostname"].removeprefix("www.")
        if item.get("page_age"):
            assert hit["publishedAt"] == item["page_age"] + "Z"
        else:
            assert "publishedAt" not in hit
    first = result["hits"][0]
    assert first["title"] == '"Hello, World!" program'  # the site's name stripped, as web_fetch does
    assert first["snippet"].startswith('A "Hello, World!" program is usually a simple computer program')
    assert first["sourceName"] == "Wikipedia"
    scores = [h["score"] for h in result["hits"]]
    assert scores == sorted(scores, reverse=True)
    assert result["sourceFetchErrors"] == []
    assert result["coverage"]["level"] == "weak"  # snippets only
    assert first["url"] in result["text"]
    receipts = result["meta"]["webSources"]
    assert receipts["version"] == 1
    assert {r["retrieval"] for r in receipts["entries"]} == {"search_result"}
    assert receipts["entries"][0]["presentation"] == "snippet"
    assert set(result["meta"]) == {"braveSearch", "webSources"}


@coroutine_test
async def test_request_parameters(brave_replay):
    provider = brave(brave_replay, "params", USER_AGENT="lightsearch-test", BRAVE_COUNTRY="il")
    result = await provider.search("hello world", max_results=5, recency="week")
    assert len(result["hits"]) == 5
    (request,) = brave_replay.requests_for("params")
    assert request["params"] == {"q": "hello world", "count": "5", "freshness": "pw",
                                 "extra_snippets": "true", "country": "il"}
    assert request["headers"]["Accept"] == "application/json"
    assert "Cookie" not in request["headers"]
    await provider.search("hello world", recency="hour")
    assert brave_replay.requests_for("params")[-1]["params"]["freshness"] == "pd"
    assert brave_replay.requests_for("params")[-1]["params"]["count"] == "8"


@coroutine_test
async def test_extra_snippets_are_used(brave_replay):
    def add_extra(payload):
        payload["web"]["results"][0]["extra_snippets"] = [
            "Traditionally it is the <strong>first program</strong> people write.",
            "It dates from a 1972 tutorial by Brian Kernighan.",
        ]
        return payload

    brave_replay.script("extra", transform=add_extra)
    result = await brave(brave_replay, "extra", BRAVE_SNIPPET_CHARS=2000).search("hello world")
    snippet = result["hits"][0]["snippet"]
    assert "first program people write" in snippet
    assert "Brian Kernighan" in snippet
    assert snippet.startswith('A "Hello, World!" program')
    short = await brave(brave_replay, "extra", BRAVE_SNIPPET_CHARS=120).search("hello world")
    assert len(short["hits"][0]["snippet"]) <= 120


@coroutine_test
async def test_several_queries_are_fused_and_deduplicated(brave_replay):
    result = await brave(brave_replay, "multi").search(queries=["hello world", "hello world program"],
                                                max_results=10)
    urls = [h["url"] for h in result["hits"]]
    assert len(urls) == len(set(urls)) == 10
    assert len(brave_replay.requests_for("multi")) == 2


@coroutine_test
async def test_untrusted_payload_items_are_skipped(brave_replay):
    def hostile(payload):
        results = payload["web"]["results"]
        results.insert(0, {"title": "x", "url": "javascript:alert(1)"})
        results.insert(0, "not an object")
        results.append(dict(results[2]))  # a duplicate URL
        return payload

    brave_replay.script("hostile", transform=hostile)
    result = await brave(brave_replay, "hostile").search("hello world", max_results=20)
    urls = [h["url"] for h in result["hits"]]
    assert all(u.startswith("http") for u in urls)
    assert len(urls) == len(set(urls))


@coroutine_test
async def test_no_results_is_a_healthy_empty_search(brave_replay):
    brave_replay.script("empty", body=json.dumps({"type": "search", "query": {"original": "zz"}}).encode())
    result = await brave(brave_replay, "empty").search("zzqx")
    assert result["hits"] == []
    assert result["coverage"] == {"score": 0.0, "level": "none"}


@coroutine_test
async def test_gzip_response_is_decoded(brave_replay):
    body = gzip.compress(json.dumps(brave_replay.recording()).encode())
    brave_replay.script("gzip", body=body, headers={"Content-Encoding": "gzip"})
    provider = brave(brave_replay, "gzip")
    assert len((await provider.search("hello world", max_results=20))["hits"]) == 20
    # the raw body has all 20 results; the provider still returns only maxResults
    assert len((await provider.search("hello world"))["hits"]) == 8


@coroutine_test
async def test_chunked_response_is_read_and_capped(brave_replay):
    brave_replay.script("chunked", chunked=True, body=json.dumps(brave_replay.recording()).encode())
    result = await brave(brave_replay, "chunked").search("hello world", max_results=20)
    assert len(result["hits"]) == 20
    err = await failure(brave_replay, "chunked", requests=2, BRAVE_RESPONSE_MAX_BYTES=10_000)
    assert err.details["reason"] == "too_large"


@coroutine_test
async def test_invalid_light_settings_do_not_affect_brave(brave_replay):
    provider = brave(brave_replay, "light-bad", LIGHT_MAX_HOPS="lots", LIGHT_DEADLINE_SECS=-5,
                     LIGHT_CATALOG="/no/such/catalog.json")
    result = await provider.search("hello world", max_results=3)
    assert len(result["hits"]) == 3


@coroutine_test
async def test_query_limits_are_lights(brave_replay):
    provider = brave(brave_replay, "limits")
    for kwargs, bound in (({"query": "x" * 401}, "max_chars"), ({"query": "  "}, "non_empty"),
                          ({"query": "ok", "max_results": 21}, "maxResults"),
                          ({"queries": ["a", "b", "c", "d", "e", "f"]}, "max_queries"),
                          ({"query": "ok", "recency": "decade"}, "recency")):
        with pytest.raises(LightSearchError) as info:
            await provider.search(**kwargs)
        assert info.value.code == "invalid_input"
        assert info.value.details["bound"] == bound
    assert brave_replay.requests_for("limits") == []


# ----------------------------------------------------------------------------- failures
async def failure(brave_replay: BraveReplay, key: str, requests: int = 1, **settings) -> LightSearchError:
    with pytest.raises(LightSearchError) as info:
        await brave(brave_replay, key, **settings).search("hello world")
    assert info.value.details["provider"] == "brave"
    assert len(brave_replay.requests_for(key)) == requests  # no retry
    return info.value


@coroutine_test
async def test_bad_key(brave_replay):
    body = b'{"type":"ErrorResponse","error":{"code":"SUBSCRIPTION_TOKEN_INVALID","detail":"The provided subscription token is invalid."}}'
    brave_replay.script("bad-401", status=401, body=body)
    brave_replay.script("bad-403", status=403, body=b"{}")
    err = await failure(brave_replay, "bad-401")
    assert err.code == "provider_auth"
    assert err.details["status"] == 401
    assert err.details["detail"] == "The provided subscription token is invalid."
    assert (await failure(brave_replay, "bad-403")).code == "provider_auth"


@coroutine_test
async def test_rate_limited_reports_the_reset_time(brave_replay):
    brave_replay.script("limited", status=429, body=b'{"error":{"code":"RATE_LIMITED"}}', headers={
        "X-RateLimit-Limit": "1, 15000", "X-RateLimit-Policy": "1;w=1, 15000;w=2592000",
        "X-RateLimit-Remaining": "1, 0", "X-RateLimit-Reset": "1, 86400",
    })
    err = await failure(brave_replay, "limited")
    assert err.code == "provider_rate_limited"
    assert err.details["resetSecs"] == 86400  # the exhausted (monthly) window
    assert err.details["resetAt"].endswith("Z")
    assert err.details["windows"][1] == {"limit": 15000, "remaining": 0, "resetSecs": 86400}
    assert "86400" in err.message


@coroutine_test
async def test_rate_limited_per_second(brave_replay):
    brave_replay.script("limited-1s", status=429, body=b"", headers={
        "X-RateLimit-Remaining": "0, 900", "X-RateLimit-Reset": "1, 400000",
    })
    assert (await failure(brave_replay, "limited-1s")).details["resetSecs"] == 1


@coroutine_test
async def test_rate_limited_with_retry_after_only(brave_replay):
    brave_replay.script("retry-after", status=429, body=b"", headers={"Retry-After": "30"})
    err = await failure(brave_replay, "retry-after")
    assert err.details["resetSecs"] == 30
    assert err.details["windows"] == []


@coroutine_test
async def test_server_errors_and_unreadable_bodies(brave_replay):
    brave_replay.script("e500", status=500, body=b"oops")
    brave_replay.script("e503", status=503, body=b"")
    brave_replay.script("garbage", body=b"<html>not json</html>")
    brave_replay.script("wrong-shape", body=b'{"web": {"results": "nope"}}')
    brave_replay.script("e418", status=418, body=b"")
    assert (await failure(brave_replay, "e500")).code == "provider_unavailable"
    assert (await failure(brave_replay, "e503")).details["status"] == 503
    garbage = await failure(brave_replay, "garbage")
    assert garbage.code == "provider_bad_response"
    assert garbage.details["reason"] == "unparseable"
    assert (await failure(brave_replay, "wrong-shape")).code == "provider_bad_response"
    assert (await failure(brave_replay, "e418")).code == "provider_bad_response"


@coroutine_test
async def test_response_size_is_capped(brave_replay):
    err = await failure(brave_replay, "big", BRAVE_RESPONSE_MAX_BYTES=4096)
    assert err.code == "provider_bad_response"
    assert err.details["reason"] == "too_large"
    bomb = gzip.compress(b"[" + b"0," * 200_000 + b"0]")
    brave_replay.script("bomb", body=bomb, headers={"Content-Encoding": "gzip"})
    err = await failure(brave_replay, "bomb", BRAVE_RESPONSE_MAX_BYTES=64 * 1024)
    assert err.details["reason"] == "too_large"


@coroutine_test
async def test_no_redirect_off_the_api_origin(brave_replay):
    brave_replay.script("moved", status=302, body=b"",
                  headers={"Location": "https://evil.example/res/v1/web/search"})
    err = await failure(brave_replay, "moved")
    assert err.code == "provider_bad_response"
    assert err.details["reason"] == "redirect_off_origin"


@coroutine_test
async def test_tls_is_verified(brave_replay):
    err = await failure(brave_replay, "untrusted", requests=0, BRAVE_TLS_CA_FILE=None)
    assert err.code == "provider_network_error"
    assert err.details["reason"] == "tls"


@coroutine_test
async def test_api_timeout_is_a_failure_without_fallback(brave_replay, origins):
    brave_replay.script("slow", delay=600)  # never answers in the test's time
    origins.reset_log()
    err = await asyncio.wait_for(failure(brave_replay, "slow", BRAVE_TIMEOUT_SECS=0.5,
                                         **merge_settings(origins.settings(), brave_replay.settings("slow"))), 60)
    assert err.code == "provider_timeout"
    assert origins.log == []  # no Light crawl took over


@coroutine_test
async def test_overall_deadline_fails_the_search(brave_replay):
    brave_replay.script("deadline", delay=3)
    err = await failure(brave_replay, "deadline", BRAVE_TIMEOUT_SECS=10, BRAVE_DEADLINE_SECS=0.5)
    assert err.code == "deadline_exceeded"


@coroutine_test
async def test_cancelled_call(brave_replay):
    brave_replay.script("cancel", delay=3)
    task = asyncio.ensure_future(brave(brave_replay, "cancel").search("hello world"))
    await cancel_once_reached(task, lambda: bool(brave_replay.requests_for("cancel")))


@coroutine_test
async def test_response_head_bounds_apply_to_the_api(brave_replay):
    """The API client bounds the response head like the crawl (header fields,
    head bytes, stacked content encodings), each a provider_bad_response."""
    brave_replay.script("many-headers", headers={f"X-{i}": "v" for i in range(150)})
    err = await failure(brave_replay, "many-headers")  # aiohttp's own max_headers, or the client's check
    assert err.code == "provider_bad_response"
    assert err.details["reason"] == "headers_too_large"
    brave_replay.script("big-head", headers={f"X-Pad-{i}": "a" * 4000 for i in range(20)})
    err = await failure(brave_replay, "big-head")
    assert err.code == "provider_bad_response"
    assert err.details["reason"] == "headers_too_large"
    brave_replay.script("long-line", headers={"X-Long": "a" * 9000})
    err = await failure(brave_replay, "long-line")
    assert (err.code, err.details["reason"]) == ("provider_bad_response", "headers_too_large")
    body = gzip.compress(gzip.compress(gzip.compress(json.dumps(brave_replay.recording()).encode())))
    brave_replay.script("layers", body=body, headers={"Content-Encoding": "gzip, gzip, gzip"})
    err = await failure(brave_replay, "layers")
    assert (err.code, err.details["reason"], err.details["layers"]) == (
        "provider_bad_response", "encoding_layers", 3)
    brave_replay.script("few-headers", headers={f"X-{i}": "v" for i in range(50)})
    assert (await brave(brave_replay, "few-headers").search("hello world"))["hits"]


@coroutine_test
async def test_counts_in_rate_limit_headers_are_ascii_digits(brave_replay):
    """"²" is a digit to ``str.isdigit`` and nothing to ``int``: read as no count, not a raw
    ValueError out of the search; a count of thousands of digits is no count either."""
    brave_replay.script("odd-digits", status=429, body=b"", headers={
        "X-RateLimit-Remaining": "0, 0", "X-RateLimit-Reset": "\u00b2, " + "9" * 5000, "Retry-After": "\u00b2"})
    err = await failure(brave_replay, "odd-digits")
    assert err.code == "provider_rate_limited"
    assert err.details["resetSecs"] is None


@coroutine_test
async def test_an_answer_over_the_in_process_size_is_loaded_apart(brave_replay, monkeypatch):
    """An answer of 100 KB is loaded and cut in a worker: ``json.loads`` is broken in this
    process for any body over the in-process size (the replay server's own text is left
    alone)."""
    from lightsearch.isolation.limits import SMALL_BODY_BYTES

    payload = brave_replay.recording()
    payload["padding"] = "x" * 80_000  # a field Brave may add: read past, never looked at
    brave_replay.script("apart", body=json.dumps(payload).encode())
    loads = json.loads

    def here(body, *args, **kwargs):
        assert not isinstance(body, bytes) or len(body) <= SMALL_BODY_BYTES, "an answer was loaded here"
        return loads(body, *args, **kwargs)

    monkeypatch.setattr(json, "loads", here)
    result = await brave(brave_replay, "apart").search("hello world", max_results=20)
    assert [h["url"] for h in result["hits"]] == [r["url"] for r in recorded(brave_replay)][:20]
