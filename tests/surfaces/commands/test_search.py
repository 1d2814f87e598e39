"""``scrapy search`` as a user runs it, from outside the project, through
``scrapy.cmdline.execute`` in this process (the ``scrapy`` fixture), at a fraction of a
process start each; its runs as a process of its own are tests/surfaces/test_exits.py's
(Ctrl-C) and tests/test_config.py's (the kill switch)."""

from __future__ import annotations

import json

import pytest


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("",), "query must not be empty"),
        (("x" * 401,), "400 characters"),
        ((" ".join(["w"] * 51),), "50 words"),
        (("--max-results", "99", "ok"), "--max-results must be between 1 and 20"),
    ],
)
def test_bad_queries_exit_with_a_clear_error(tmp_path, args, needle, scrapy):
    proc = scrapy("--offline", *args, cwd=tmp_path)
    assert proc.returncode == 2  # a value the command cannot take: nothing was done
    assert "invalid_input" in proc.stderr
    assert needle in proc.stderr


def test_unknown_recency_is_a_usage_error(tmp_path, scrapy):
    proc = scrapy("--recency", "decade", "ok", cwd=tmp_path)
    assert proc.returncode == 2
    assert "--recency must be one of" in proc.stderr


def test_json_output_matches_the_contract(tmp_path, scrapy):
    proc = scrapy("--offline", "-o", "json", "photosynthesis chlorophyll", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    for key in ("query", "provider", "hits", "coverage", "stopReason", "notes", "meta", "text"):
        assert key in result
    assert result["provider"] == "light"
    assert result["trust"] == "volatile_external"
    assert result["carryPolicy"] == "never"
    meta = result["meta"]["lightSearch"]
    assert meta["counts"]["requests"] <= 24
    assert result["hits"], result["meta"]
    for hit in result["hits"]:
        for key in ("title", "url", "snippet", "source", "retrievedAt", "score"):
            assert key in hit
        assert meta["retrievedAt"][hit["url"]] == hit["retrievedAt"]
    receipt = result["meta"]["webSources"]
    assert receipt["version"] == 1
    assert [e["url"] for e in receipt["entries"]] == [h["url"] for h in result["hits"]]
    assert receipt["entries"][0]["presentation"] == "content"


def test_text_output_is_the_bounded_model_text(tmp_path, scrapy):
    proc = scrapy("--offline", "-o", "text", "-s", "LIGHT_TEXT_MAX_BYTES=1024",
                  "photosynthesis chlorophyll", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout.removesuffix("\n")
    assert len(text.encode("utf-8")) <= 1024
    assert text.startswith("Web search results for: photosynthesis chlorophyll")
    assert "<<<EXTERNAL_DATA " in text


def test_table_output_has_hits_and_a_summary(tmp_path, scrapy):
    proc = scrapy("--offline", "photosynthesis chlorophyll", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith("1. ")
    assert "hops" in lines[-1]
    assert "sources consulted" in lines[-1]
    assert "shown " in lines[-1]


@pytest.mark.parametrize("command", ["search", "news", "read"])
def test_an_unknown_flag_is_refused_not_searched(tmp_path, command, scrapy):
    proc = scrapy("--offline", "--bogus-flag", "europa", cwd=tmp_path, name=command)
    assert proc.returncode == 2
    assert "unknown option --bogus-flag" in proc.stderr


def test_a_query_starting_with_a_dash_goes_after_the_double_dash(tmp_path, scrapy):
    proc = scrapy("--offline", "-o", "json", "--", "-photosynthesis calvin", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["query"] == "-photosynthesis calvin"


def test_scrapy_news_takes_offline(tmp_path, scrapy):
    proc = scrapy("--offline", "-o", "json", "--when", "1y", "europa clipper", cwd=tmp_path, name="news")
    result = json.loads(proc.stdout)
    assert "--offline" not in result["query"]
    assert result["query"] == "europa clipper"


def test_the_list_shows_notes_the_stop_reason_and_unwrapped_urls(tmp_path, scrapy):
    """The width of a standard output that is no terminal."""
    proc = scrapy("--offline", "--recency", "week", "heatwave power grid", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert any(line.startswith("note: ") and "dropped" in line for line in lines)
    stop = [line for line in lines if line.startswith("stop: ")]
    assert stop
    assert stop[0] != "stop: completed"  # in words, not the code
    proc = scrapy("--offline", "photosynthesis calvin cycle", cwd=tmp_path)
    urls = [line for line in proc.stdout.splitlines() if " · " in line and ("http" in line or ".org" in line)]
    assert urls
    assert all(len(line) <= 100 for line in urls)  # the terminal is 100 wide when not a tty
