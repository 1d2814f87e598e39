"""The ``lightsearch`` console script, run as a process."""

from __future__ import annotations

import json
import subprocess

import pytest
from jsonschema import Draft202012Validator

from tests.test_surface_mcp import CLI, clean_env


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
    if news.returncode:
        assert news.stderr.startswith("ERROR: unavailable")


def test_help_has_examples_and_defaults():
    for command in ("search", "news", "fetch", "tools", "mcp", "serve"):
        done = run(command, "--help")
        assert done.returncode == 0
        assert "examples:" in done.stdout
    assert "(default: 127.0.0.1)" in run("serve", "--help").stdout
    assert "examples:" in run("--help").stdout
