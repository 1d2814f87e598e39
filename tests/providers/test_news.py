"""web_news and the engine command-line options, against the engine engine_replay."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers.news import NewsSearch
from tests.conftest import coroutine_test


@coroutine_test
async def test_news_is_google_news_newest_first_with_publishers(engine_replay):
    engine_replay.reset()
    news = NewsSearch.from_settings(merge_settings(engine_replay.settings(), {"WEB_NEWS_LIGHT": False}))
    result = await news.news("統一教会", when="7d", max_results=20)
    assert result["provider"] == "news"
    assert engine_replay.requests_for("news")[0]["params"]["q"] == "統一教会 when:7d"
    hits = result["hits"]
    assert all(h["engines"] == ["news"] for h in hits)
    assert all(h.get("publisher") for h in hits)
    top_band = [h for h in hits if h["score"] > 2 / 3]
    dates = [h["publishedAt"] for h in top_band]
    assert dates == sorted(dates, reverse=True)  # recency within relevance
    assert result["results"][0]["publishedAt"] == hits[0]["publishedAt"]


@coroutine_test
async def test_news_survives_a_failing_light_member(engine_replay):
    engine_replay.reset()
    settings = merge_settings(engine_replay.settings(), {"LIGHT_CATALOG": "/no/such/catalog.json", "LOG_LEVEL": "ERROR"})
    result = await NewsSearch.from_settings(settings).news("elections", when="1d")
    assert result["provider"] == "news"
    assert result["meta"]["engines"]["news"]["status"] == "ok"
    assert result["meta"]["engines"]["light"]["status"] == "failed"
    assert any(n.startswith("light:") for n in result["notes"])


@coroutine_test
async def test_news_rejects_an_unknown_window():
    with pytest.raises(LightSearchError) as info:
        await NewsSearch.from_settings({}).news("x", when="2w")
    assert info.value.code == "invalid_input"


def run(*args, cwd):
    """``scrapy *args`` as a process: the news command's smoke test."""
    return subprocess.run([sys.executable, "-m", "scrapy", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=120, check=False)


def settings_args(engine_replay):
    return ["-s", f"LIGHT_HOST_MAP={json.dumps(engine_replay.host_map())}", "-s",
            f"WEB_SEARCH_TLS_CA_FILE={engine_replay.ca_file}"]


def test_search_command_with_provider_region_and_engine_table(engine_replay, tmp_path, scrapy):
    proc = scrapy(*settings_args(engine_replay), "--provider", "auto", "--region", "de-de", "rust oxide colour",
                  cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "· duckduckgo" in proc.stdout or "· wikipedia" in proc.stdout
    assert "provider fused" in proc.stdout
    assert engine_replay.requests_for("ddg_html")[-1]["params"]["kl"] == "de-de"
    as_json = scrapy(*settings_args(engine_replay), "--provider", "wikipedia", "-o", "json", "rust", cwd=tmp_path)
    envelope = json.loads(as_json.stdout)
    assert envelope.get("provider") == "wikipedia", envelope
    assert envelope["results"]


def test_news_command(engine_replay, tmp_path, scrapy):
    proc = run("news", *settings_args(engine_replay), "-s", "WEB_NEWS_LIGHT=False", "--when", "1h", "-o", "json",
               "markets", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    envelope = json.loads(proc.stdout)
    assert envelope["provider"] == "news"
    assert engine_replay.requests_for("news")[-1]["params"]["q"] == "markets when:1h"
    bad = scrapy("--when", "2w", "x", cwd=tmp_path, name="news")
    assert bad.returncode != 0
    assert "--when" in bad.stderr


@pytest.mark.parametrize(("title", "publisher", "expected"), [
    ("Storm hits coast - The Times", "The Times", "Storm hits coast"),
    ("Storm hits coast - Times - Herald", "Times - Herald", "Storm hits coast"),  # a name with " - "
    ("Left - right split widens - Daily", "Daily", "Left - right split widens"),
    ("Left - right split widens", "Daily", "Left - right split widens"),  # no suffix: kept whole
    ("Left - right split widens", "", "Left - right split widens"),
    ("The Times", "The Times", "The Times"),
])
def test_only_the_publishers_own_suffix_leaves_a_google_news_title(title, publisher, expected):
    from lightsearch.providers.engines.google_news import without_publisher

    assert without_publisher(title, publisher) == expected
