"""Fallback, fused, suspension, the answer cache and retries, against the engine engine_replay."""

from __future__ import annotations

import asyncio
import time

import pytest

from lightsearch.cache.suspension import MemorySuspensions, suspension_secs
from lightsearch.offline_origins.engine_replay import CHALLENGE
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.engines.base import EngineHit
from lightsearch.providers.engines.modes import Outcome, fuse
from lightsearch.ranking.normalize import dedupe_key
from tests.conftest import coroutine_test


@pytest.fixture
def fresh(engine_replay):
    engine_replay.reset()
    return engine_replay


def provider(engine_replay, mode, **settings):
    return load_provider(merge_settings(engine_replay.settings(), {"WEB_SEARCH_PROVIDER": mode, "LOG_LEVEL": "ERROR",
                                                            **settings}), environ={})


# ----------------------------------------------------------------------------- fallback
@coroutine_test
async def test_fallback_without_keys_falls_from_blocked_html_to_lite(fresh):
    fresh.script("ddg_html", status=202, file=CHALLENGE)
    result = await provider(fresh, "fallback").search("weather san francisco")
    assert result["provider"] == "ddg_lite"
    assert len(result["hits"]) == 8
    engines = result["meta"]["engines"]
    assert [engines[e]["status"] for e in ("tavily", "brave", "openrouter")] == ["skipped"] * 3
    assert engines["ddg_html"]["error"]["code"] == "provider_blocked"
    assert engines["ddg_lite"]["status"] == "ok"
    assert any(n.startswith("ddg_html: provider_blocked") for n in result["notes"])
    assert fresh.count("tavily") == fresh.count("openrouter") == 0


@coroutine_test
async def test_fallback_with_every_engine_failing_is_provider_none(fresh):
    for engine in ("ddg_html", "ddg_lite", "tavily", "openrouter"):
        fresh.script(engine, status=500, body=b"down", repeat=True)
    result = await provider(fresh, "fallback", WEB_SEARCH_TAVILY_API_KEY="t",
                            WEB_SEARCH_OPENROUTER_API_KEY="o").search("anything at all")
    assert result["provider"] == "none"
    assert result["hits"] == []
    assert result["results"] == []
    assert result["stopReason"] == "all_engines_failed"
    order = ["tavily", "brave", "openrouter", "ddg_html", "ddg_lite"]
    assert list(result["meta"]["engines"]) == order
    for engine in order:  # one note per engine
        assert sum(n.startswith(f"{engine}:") for n in result["notes"]) == 1


@coroutine_test
async def test_fallback_never_raises_on_garbage_or_a_dead_endpoint(fresh):
    fresh.script("ddg_html", body=b"\x00\xff not html at all", headers={"Content-Type": "text/html"})
    result = await provider(fresh, "fallback", WEB_SEARCH_DDG_LITE_URL="https://dead.replay.test/lite/",
                            WEB_SEARCH_FALLBACK_ORDER=["ddg_html", "ddg_lite"]).search("garbage")
    assert result["provider"] == "none"
    assert result["meta"]["engines"]["ddg_lite"]["error"]["code"] == "provider_network_error"


# ----------------------------------------------------------------------------- fused
@coroutine_test
async def test_fused_survives_a_timing_out_engine_within_the_deadline(fresh):
    fresh.script("wikipedia", delay=600)  # never answers in the test's time
    # the engines that answer get time for a busy machine; the search ends at its deadline
    # at the latest, not when the slow engine would answer
    result = await asyncio.wait_for(provider(fresh, "auto", WEB_SEARCH_ENGINE_TIMEOUT_SECS=4.0,
                                             WEB_SEARCH_DEADLINE_SECS=8.0).search("python asyncio news",
                                                                                  max_results=20), 60)
    assert result["provider"] == "fused"
    engines = result["meta"]["engines"]
    assert set(engines) == {"duckduckgo", "wikipedia", "hn", "news"}  # technical and newsy
    assert engines["wikipedia"]["error"]["code"] == "provider_timeout"
    assert [engines[e]["status"] for e in ("duckduckgo", "hn", "news")] == ["ok"] * 3
    tags = {t for h in result["hits"] for t in h["engines"]}
    assert {"duckduckgo", "news"} <= tags <= {"duckduckgo", "hn", "news"}  # 20 best by weighted rank
    assert result["coverage"]["level"] in ("weak", "none")  # snippets only


@coroutine_test
async def test_fused_plain_query_asks_ddg_and_wikipedia_only(fresh):
    result = await provider(fresh, "fused").search("iron oxide colour")
    assert set(result["meta"]["engines"]) == {"duckduckgo", "wikipedia"}
    assert fresh.count("hn") == fresh.count("news") == 0


def test_dedupe_removes_utm_and_trailing_slash_twins():
    a = [EngineHit("A", "http://example.com/page/?utm_source=x&id=3"), EngineHit("B", "https://b.example/x")]
    b = [EngineHit("A2", "https://example.com/page?id=3&fbclid=zz", snippet="longer snippet here")]
    hits = fuse([Outcome("duckduckgo", "ok", hits=a), Outcome("wikipedia", "ok", hits=b)], {}, 10)
    assert len(hits) == 2
    first = hits[0]
    assert first.url == "https://example.com/page?id=3"  # https preferred, trackers gone
    assert first.engines == ["duckduckgo", "wikipedia"]
    assert first.snippet == "longer snippet here"
    assert dedupe_key("HTTP://Example.com/a/") == dedupe_key("https://example.com/a?utm_medium=m")


def test_weights_order_the_fusion():
    hits = fuse([Outcome("x", "ok", hits=[EngineHit("1", "https://one.example/")]),
                 Outcome("y", "ok", hits=[EngineHit("2", "https://two.example/")])], {"x": 0.5, "y": 1.0}, 5)
    assert [h.title for h in hits] == ["2", "1"]


@coroutine_test
async def test_dedupe_applies_across_engines_in_fused_mode(fresh):
    twin = (b'<html><body><div class="results"><div class="result web-result"><h2><a class="result__a" '
            b'href="http://en.wikipedia.org/wiki/Rust/?utm_source=ddg">Rust</a></h2>'
            b'<a class="result__snippet">iron oxide</a></div></div></body></html>')
    fresh.script("ddg_html", body=twin)
    result = await provider(fresh, "fused").search("iron oxide colour")
    rust = [h for h in result["hits"] if dedupe_key(h["url"]) == dedupe_key("https://en.wikipedia.org/wiki/Rust")]
    assert len(rust) == 1
    assert rust[0]["url"] == "https://en.wikipedia.org/wiki/Rust"
    assert rust[0]["engines"] == ["duckduckgo", "wikipedia"]


# ----------------------------------------------------------------------------- suspension, cache, retry
@coroutine_test
async def test_after_a_captcha_the_engine_is_not_called_until_its_time_is_up(fresh):
    fresh.script("ddg_html", status=202, file=CHALLENGE)
    engine = provider(fresh, "ddg_html", WEB_SEARCH_CACHE=None)
    first = await engine.search("first query")
    assert first["meta"]["engines"]["ddg_html"]["error"]["reason"] == "captcha"
    second = await engine.search("second query")
    assert fresh.count("ddg_html") == 1
    held = second["meta"]["engines"]["ddg_html"]
    assert held["status"] == "suspended"
    assert held["error"]["reason"] == "captcha"
    assert 3500 < held["error"]["secsLeft"] <= 3600
    assert any("suspended after captcha" in n for n in second["notes"])
    # when the time is up the engine is asked again, and a success resets it
    engine.suspensions.clock = lambda: time.monotonic() + 3601
    third = await engine.search("third query")
    assert third["provider"] == "ddg_html"
    assert fresh.count("ddg_html") == 2


def test_suspension_times_follow_searxng():
    assert suspension_secs("captcha", 1) == 3600
    assert suspension_secs("too_many_requests", 1, 42) == 42
    assert suspension_secs("too_many_requests", 1) == 180
    assert suspension_secs("access_denied", 3) == 180
    assert [suspension_secs("error", n) for n in (1, 2, 30)] == [5, 10, 120]
    store = MemorySuspensions(clock=lambda: 100.0)
    store.failed("x", "error")
    assert store.failed("x", "error").failures == 2
    store.succeeded("x")
    assert store.active("x") is None


@coroutine_test
async def test_a_second_identical_query_within_the_ttl_makes_no_request(fresh):
    engine = provider(fresh, "ddg_html")
    first = await engine.search("cached query")
    assert first["cached"] is False
    second = await engine.search("cached query")
    assert fresh.count("ddg_html") == 1
    assert second["cached"] is True
    assert second["cacheAgeSecs"] >= 0
    assert second["hits"] == first["hits"]
    await engine.search("cached query", recency="day")  # another key
    assert fresh.count("ddg_html") == 2


@coroutine_test
async def test_429_retry_after_is_honoured_inside_the_deadline(fresh):
    fresh.script("wikipedia", status=429, body=b"", headers={"Retry-After": "1"})
    started = time.monotonic()
    result = await provider(fresh, "wikipedia").search("rust")
    assert result["provider"] == "wikipedia"
    assert fresh.count("wikipedia") == 2
    assert time.monotonic() - started >= 1.0
    fresh.script("wikipedia", status=503, body=b"", headers={"Retry-After": "600"}, times=2)
    # ten minutes is over the cap: no wait (the test would fail long before), a typed failure
    result = await asyncio.wait_for(provider(fresh, "wikipedia").search("rust again"), 60)
    assert result["meta"]["engines"]["wikipedia"]["error"]["code"] == "provider_unavailable"
