"""The ``lightsearch`` console script, run as a process."""

from __future__ import annotations

import json
import subprocess

import pytest
from jsonschema import Draft202012Validator

from tests.surfaces.test_mcp_server import CLI, clean_env


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=clean_env(**env), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tools_formats(fmt):
    done = run("tools", "--format", fmt)
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)
    assert len(tools) == 3
    for tool in tools:
        schema = {"openai": lambda t: t["function"]["parameters"], "anthropic": lambda t: t["input_schema"],
                  "mcp": lambda t: t["inputSchema"]}[fmt](tool)
        Draft202012Validator.check_schema(schema)


def test_tools_follow_the_environment_and_command_line():
    assert json.loads(run("tools", LIGHTSEARCH_NO_WEB="1").stdout) == []
    tools = json.loads(run("tools", "-s", "WEB_SEARCH_MAX_RESULTS=4", WEB_SEARCH_MAX_RESULTS="3").stdout)
    assert tools[0]["inputSchema"]["properties"]["maxResults"]["default"] == 4  # command line > environment
    bad = run("tools", WEB_FETCH_TIMEOUT_MS="fast")
    assert bad.returncode == 2
    assert "WEB_FETCH_TIMEOUT_MS" in bad.stderr


def test_search_outputs():
    as_json = run("search", "--offline", "-o", "json", "--max-results", "2", "NASA artemis moon")
    assert as_json.returncode == 0, as_json.stderr
    result = json.loads(as_json.stdout)
    assert 1 <= len(result["hits"]) <= 2
    assert as_json.stderr == ""  # no progress when stdout is not a terminal
    lines = run("search", "--offline", "-o", "jsonl", "NASA artemis moon").stdout.splitlines()
    assert lines
    assert all("url" in json.loads(line) for line in lines)
    table = run("search", "--offline", "NASA artemis moon")
    assert "sources consulted" in table.stdout
    assert "hops" in table.stdout


def test_fetch_and_errors():
    text = run("fetch", "--offline", "https://www.nasa.gov/", "--max-chars", "80")
    assert text.returncode == 0
    assert "EXTERNAL_DATA" in text.stdout
    raw = json.loads(run("fetch", "--offline", "--raw", "-o", "json", "https://www.nasa.gov/robots.txt").stdout)
    assert "User-agent" in raw["content"]
    blocked = run("fetch", "-o", "json", "http://127.0.0.1/")
    assert blocked.returncode == 1
    assert json.loads(blocked.stdout)["error"]["code"] in ("blocked_address", "invalid_url")
    news = run("news", "storm")
    assert news.returncode in (0, 1)
    if news.returncode:  # no network here: every engine failed, and the command says why
        assert news.stderr.startswith("ERROR: ")


def test_help_has_examples_and_defaults():
    for command in ("search", "news", "fetch", "tools", "mcp", "serve"):
        done = run(command, "--help")
        assert done.returncode == 0
        assert "examples:" in done.stdout
    assert "(default: 127.0.0.1)" in run("serve", "--help").stdout
    assert "examples:" in run("--help").stdout


# ---------------------------------------------------------------- commands that never guess
def test_version_and_help_show_real_defaults():
    version = run("--version")
    assert version.returncode == 0
    assert version.stdout.startswith("lightsearch ")
    for command in ("search", "news", "fetch", "tools", "serve"):
        shown = run(command, "--help").stdout
        assert "(default: None)" not in shown
        assert "(default: [])" not in shown
    assert "(default: WEB_SEARCH_MAX_RESULTS, 8)" in " ".join(run("search", "--help").stdout.split())
    assert "(default: WEB_FETCH_MAX_CHARS, 8000)" in " ".join(run("fetch", "--help").stdout.split())


def test_an_unknown_flag_is_a_usage_error_of_its_command():
    done = run("search", "--bogus", "x")
    assert done.returncode == 2
    assert "usage: lightsearch search" in done.stderr
    assert "unrecognized arguments: --bogus" in done.stderr


def test_messages_name_the_flag_and_the_variable_in_plain_words():
    zero = run("news", "--offline", "--max-results", "0", "x")
    assert zero.returncode == 1
    assert "--max-results must be between 1 and 20" in zero.stderr
    assert "maxResults" not in zero.stderr
    six = run("search", "--offline", "a", "b", "c", "d", "e", "f")
    assert "the queries: give at most 5, not 6" in six.stderr
    off = run("search", "--offline", "x", LIGHTSEARCH_NO_WEB="1")
    assert off.returncode == 1
    assert "LIGHTSEARCH_NO_WEB" in off.stderr
    assert "WEB_RETRIEVAL_ENABLED" not in off.stderr


@pytest.mark.parametrize(("url", "words"), [
    ("javascript:alert(1)", "must be an http or https URL, not 'javascript'"),
    ("not a url", "must be a whole http(s) URL"),
])
def test_url_errors_are_in_our_own_words(url, words):
    done = run("fetch", "--offline", "-o", "table", url)
    assert done.returncode == 1
    assert words in done.stderr
    assert "Missing scheme" not in done.stderr
    assert "%20" not in done.stderr


def test_a_search_nothing_answered_exits_non_zero_with_the_reason():
    """Every engine failing is not an answer: exit 1, the reason on stderr (here no engine
    is in the offline world and the catalog's news sources are not asked)."""
    done = run("news", "-o", "json", "-s", "LIGHT_HOST_MAP_ONLY=true", "-s", "WEB_NEWS_LIGHT=false", "x")
    assert done.returncode == 1
    assert json.loads(done.stdout)["provider"] == "none"
    assert done.stderr.startswith("ERROR: no provider answered")


def test_news_reads_the_offline_origins():
    done = run("news", "--offline", "-o", "json", "--when", "1y", "europa clipper")
    result = json.loads(done.stdout)
    assert result["provider"] in ("news", "none")
    assert all("127.0.0.1" not in (e.get("message") or "") for e in result.get("meta", {}).get("engines", {}).values()
               if isinstance(e, dict))


def test_the_list_for_people_says_what_was_dropped_and_why_it_stopped():
    done = run("search", "--offline", "--recency", "week", "heatwave power grid")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("note: ") and "outside the window" in line for line in lines)
    assert any(line.startswith("stop: ") for line in lines)
    assert lines[-1].count(" | ") >= 3  # the summary line
