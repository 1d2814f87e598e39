"""The ``lightsearch`` console script: each command once as a process (the smoke tests
marked so below), everything else through its own ``main`` in this process (:func:`cli`),
which parses, runs and prints as the process does at a fraction of its start-up."""

from __future__ import annotations

import argparse
import io
import json
import socket
import subprocess

import pytest
from jsonschema import Draft202012Validator

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.cli import main
from tests.conftest import coroutine_test
from tests.surfaces.test_mcp_server import CLI, clean_env


def run(*args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=clean_env(**env), capture_output=True, text=True, timeout=120)


@pytest.fixture
def cli(in_process):
    return in_process


def test_tools_as_a_process():
    done = run("tools", "--format", "mcp")
    assert done.returncode == 0, done.stderr
    assert [tool["name"] for tool in json.loads(done.stdout)] == ["web_search", "web_news", "web_fetch"]


@pytest.mark.parametrize("fmt", ["openai", "anthropic", "mcp"])
def test_tools_formats(cli, fmt):
    done = cli("tools", "--format", fmt)
    assert done.returncode == 0, done.stderr
    tools = json.loads(done.stdout)
    assert len(tools) == 3
    for tool in tools:
        schema = {"openai": lambda t: t["function"]["parameters"], "anthropic": lambda t: t["input_schema"],
                  "mcp": lambda t: t["inputSchema"]}[fmt](tool)
        Draft202012Validator.check_schema(schema)


def test_tools_follow_the_environment_and_command_line(cli):
    assert json.loads(cli("tools", LIGHTSEARCH_NO_WEB="1").stdout) == []
    tools = json.loads(cli("tools", "-s", "WEB_SEARCH_MAX_RESULTS=4", WEB_SEARCH_MAX_RESULTS="3").stdout)
    assert tools[0]["inputSchema"]["properties"]["maxResults"]["default"] == 4  # command line > environment
    bad = cli("tools", WEB_FETCH_TIMEOUT_MS="fast")
    assert bad.returncode == 2
    assert "WEB_FETCH_TIMEOUT_MS" in bad.stderr


def test_search_as_a_process():
    as_json = run("search", "--offline", "-o", "json", "--max-results", "2", "NASA artemis moon")
    assert as_json.returncode == 0, as_json.stderr
    result = json.loads(as_json.stdout)
    assert 1 <= len(result["hits"]) <= 2
    assert as_json.stderr == ""  # no progress when stdout is not a terminal


def test_search_outputs(cli):
    lines = cli("search", "--offline", "-o", "jsonl", "NASA artemis moon").stdout.splitlines()
    assert lines
    assert all("url" in json.loads(line) for line in lines)
    table = cli("search", "--offline", "NASA artemis moon")
    assert "sources consulted" in table.stdout
    assert "hops" in table.stdout
    assert " · https://www.nasa.gov/" in table.stdout  # whole URLs into a pipe
    assert "…" not in "".join(line for line in table.stdout.splitlines() if "://" in line)


def test_fetch_as_a_process():
    text = run("fetch", "--offline", "-o", "text", "https://www.nasa.gov/", "--max-chars", "80")
    assert text.returncode == 0, text.stderr
    assert "EXTERNAL_DATA" in text.stdout  # what a model reads


def test_fetch_and_errors(cli):
    raw = json.loads(cli("fetch", "--offline", "--raw", "-o", "json", "https://www.nasa.gov/robots.txt").stdout)
    assert "User-agent" in raw["content"]
    blocked = cli("fetch", "-o", "json", "http://127.0.0.1/")
    assert blocked.returncode == 1
    assert json.loads(blocked.stdout)["error"]["code"] in ("blocked_address", "invalid_url")


def test_help_has_examples_and_defaults(cli):
    for command in ("search", "news", "fetch", "tools", "mcp", "serve"):
        done = cli(command, "--help")
        assert done.returncode == 0
        assert "examples:" in done.stdout
    assert "(default: 127.0.0.1)" in cli("serve", "--help").stdout
    assert "examples:" in cli("--help").stdout


# ---------------------------------------------------------------- commands that never guess
def test_version_and_help_show_real_defaults(cli):
    version = run("--version")  # as a process: the console script's own start
    assert version.returncode == 0
    assert version.stdout.startswith("lightsearch ")
    for command in ("search", "news", "fetch", "tools", "serve"):
        shown = cli(command, "--help").stdout
        assert "(default: None)" not in shown
        assert "(default: [])" not in shown
    assert "(default: WEB_SEARCH_MAX_RESULTS, 8)" in " ".join(cli("search", "--help").stdout.split())
    assert "(default: WEB_FETCH_MAX_CHARS, 8000)" in " ".join(cli("fetch", "--help").stdout.split())


def test_an_unknown_flag_is_a_usage_error_of_its_command(cli):
    done = cli("search", "--bogus", "x")
    assert done.returncode == 2
    assert "usage: lightsearch search" in done.stderr
    assert "unrecognized arguments: --bogus" in done.stderr


def test_messages_name_the_flag_and_the_variable_in_plain_words(cli):
    zero = cli("news", "--offline", "--max-results", "0", "x")
    assert zero.returncode == 2
    assert "--max-results must be between 1 and 20" in zero.stderr
    assert "maxResults" not in zero.stderr
    six = cli("search", "--offline", "a", "b", "c", "d", "e", "f")
    assert "the queries: give at most 5, not 6" in six.stderr
    off = cli("search", "--offline", "x", LIGHTSEARCH_NO_WEB="1")
    assert off.returncode == 1
    assert "LIGHTSEARCH_NO_WEB" in off.stderr
    assert "WEB_RETRIEVAL_ENABLED" not in off.stderr


@pytest.mark.parametrize(("url", "words"), [
    ("javascript:alert(1)", "must be an http or https URL, not 'javascript'"),
    ("not a url", "must be a whole http(s) URL"),
])
def test_url_errors_are_in_our_own_words(cli, url, words):
    done = cli("fetch", "--offline", "-o", "table", url)
    assert done.returncode == 2  # a URL the command cannot take
    assert words in done.stderr
    assert "Missing scheme" not in done.stderr
    assert "%20" not in done.stderr


def test_a_search_nothing_answered_exits_non_zero_with_the_reason():
    """Every engine failing is not an answer: exit 1 and the error (here no engine is in
    the offline world and the catalog's news sources are not asked); as a process, the
    news command's smoke test."""
    done = run("news", "-o", "json", "-s", "LIGHT_HOST_MAP_ONLY=true", "-s", "WEB_NEWS_LIGHT=false", "x")
    assert done.returncode == 1
    error = json.loads(done.stdout)["error"]
    assert error["message"].startswith("no search engine answered")
    assert error["details"]["stopReason"] == "all_engines_failed"


def test_news_reads_the_offline_origins(cli):
    done = cli("news", "--offline", "-o", "json", "--when", "1y", "europa clipper")
    result = json.loads(done.stdout)
    assert result["provider"] in ("news", "none")
    assert all("127.0.0.1" not in (e.get("message") or "") for e in result.get("meta", {}).get("engines", {}).values()
               if isinstance(e, dict))


def test_the_list_for_people_says_what_was_dropped_and_why_it_stopped(cli):
    done = cli("search", "--offline", "--recency", "week", "heatwave power grid")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith("note: ") and "outside the window" in line for line in lines)
    assert any(line.startswith("stop: ") for line in lines)
    assert lines[-1].count(" | ") >= 3  # the summary line


# ---------------------------------------------------------------- called in-process: what a person is told
def test_settings_on_the_command_line_are_checked_before_anything_runs(capsys):
    assert main(["fetch", "-s", "WEB_FETCH_MAX_CHARS=abc", "https://example.org/"]) == 2
    assert capsys.readouterr().err == "ERROR: invalid_settings: setting WEB_FETCH_MAX_CHARS: must be an integer, " \
                                      "got 'abc'\n"
    assert main(["search", "-o", "json", "-s", "LIGHT_MAX_HOPPS=3", "x"]) == 2
    error = json.loads(capsys.readouterr().out)["error"]
    assert (error["code"], error["details"]["didYouMean"]) == ("invalid_settings", "LIGHT_MAX_HOPS")
    assert main(["tools", "-s", "NOT_A_SETTING=1"]) == 2
    assert "unknown setting 'NOT_A_SETTING'" in capsys.readouterr().err
    assert main(["fetch", "-s", "LIGHT_ALLOWED_PORTS=80,http", "https://example.org/"]) == 2
    assert "LIGHT_ALLOWED_PORTS: must be a list of integers between 1 and 65535" in capsys.readouterr().err


def test_setting_values_are_read_as_their_rows_take_them():
    from scrapy.settings import Settings

    from lightsearch.surfaces.commands import engine_overrides
    from lightsearch.surfaces.environment import command_line

    read = command_line([("LIGHT_ALLOWED_PORTS", "[80, 443, 8099]"), ("LIGHT_MAX_HOPS", " 12 "),
                         ("LIGHT_HOST_MAP_ONLY", "yes"), ("LIGHT_HOST_MAP", '{"a.test": {"http": "127.0.0.1:1"}}'),
                         ("LOG_LEVEL", "DEBUG")])
    assert read == {"LIGHT_ALLOWED_PORTS": [80, 443, 8099], "LIGHT_MAX_HOPS": 12, "LIGHT_HOST_MAP_ONLY": True,
                    "LIGHT_HOST_MAP": {"a.test": {"http": "127.0.0.1:1"}}, "LOG_LEVEL": "DEBUG"}
    scrapy_settings = Settings()
    scrapy_settings.set("WEB_FETCH_MAX_CHARS", "abc", priority="cmdline")  # scrapy read -s WEB_FETCH_MAX_CHARS=abc
    with pytest.raises(LightSearchError) as err:
        engine_overrides(scrapy_settings)
    assert err.value.details["key"] == "WEB_FETCH_MAX_CHARS"


def test_provider_is_the_same_flag_on_both_commands(capsys):
    from lightsearch.surfaces.cli import provider_setting

    assert provider_setting("auto", offline=False) == {"WEB_SEARCH_PROVIDER": "auto"}
    assert main(["search", "--offline", "--provider", "auto", "tidal power"]) == 2
    assert capsys.readouterr().err.startswith("ERROR: invalid_input: --provider 'auto': --offline searches the "
                                              "bundled offline origins with Light only")


def test_evaluate_takes_the_options_of_scrapy_evaluate(capsys):
    with pytest.raises(SystemExit) as usage:
        main(["evaluate", "--world", "cranfield", "--max-queries", "20", "--data", "/nonexistent"])
    assert usage.value.code == 2
    assert "lightsearch evaluate: error: --data /nonexistent: no such folder" in capsys.readouterr().err
    assert main(["evaluate", "--queries", "/dev/null", "--qrels", "/dev/null", "--runs", "light"]) == 2
    assert capsys.readouterr().err == ("ERROR: invalid_input: the query set /dev/null holds no queries: there is "
                                       "nothing to evaluate\n")


@pytest.mark.parametrize("command", ["evaluate", "search", "news", "read"])
def test_scrapy_help_underlines_only_its_sections(command, monkeypatch):
    """Scrapy takes any help line ending in a colon for a heading ("--profiles ... light:"
    would become "Light" and a rule); at every width only the real sections are."""
    import importlib

    from scrapy.settings import Settings

    module = importlib.import_module(f"lightsearch.surfaces.commands.{command}")
    for width in (60, 80, 100, 140):
        monkeypatch.setenv("COLUMNS", str(width))
        parser = argparse.ArgumentParser(prog=f"scrapy {command}")
        cmd = module.Command()
        cmd.settings = Settings(cmd.default_settings, priority="command")  # as scrapy's execute() does
        cmd.add_options(parser)
        text = parser.format_help()
        headings = [line for line, under in zip(text.splitlines(), text.splitlines()[1:], strict=False)
                    if under and set(under) <= {"=", "-"}]
        assert headings == ["Usage", "Options", "Global Options"], (width, headings)


def dark_map(origins) -> dict:
    """Every engine and every catalog site mapped to a closed port on loopback: a machine
    whose network is down (nothing is asked of the internet)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"127.0.0.1:{sock.getsockname()[1]}"
    hosts = [*origins.host_map(), "news.google.com", "html.duckduckgo.com", "lite.duckduckgo.com",
             "en.wikipedia.org", "hn.algolia.com"]
    return {"LIGHT_HOST_MAP": {host: {"http": closed, "https": closed} for host in hosts}, "LIGHT_HOST_MAP_ONLY": True,
            "WEB_SEARCH_SUSPENSION": None, "WEB_SEARCH_CACHE": None}


def test_no_network_is_said_plainly(origins, cli):
    dark = [arg for key, value in dark_map(origins).items()
            for arg in ("-s", f"{key}={json.dumps(value) if isinstance(value, dict) else value or ''}")]
    engines = cli("search", "--provider", "auto", *dark, "tidal power")  # the engines, as USING.md shows
    assert engines.returncode == 1
    assert engines.stdout == ""
    assert engines.stderr.startswith("ERROR: provider_network_error: no network: no search engine could be reached")


@pytest.mark.parametrize(("domains", "why"), [
    (None, "news: could not connect; light: none of its sites could be reached"),
    (["reuters.com"], "news: could not connect"),  # Light has no source there: not an empty answer
])
def test_news_with_no_network_is_an_error_in_plain_words(origins, domains, why):
    """`lightsearch news "grid storage"` with no network, and with `--include-domain
    reuters.com` (Google could not be reached, Light has nothing to search): no engine
    answered, exit 1, "no network" in the line and in the JSON."""
    from lightsearch.surfaces.present import show
    from lightsearch.surfaces.toolbox import Toolbox

    @coroutine_test
    async def news() -> None:
        async with Toolbox({**origins.settings(), **dark_map(origins), "LOG_LEVEL": "ERROR"}) as box:
            found.update(await box.news("grid storage", include_domains=domains))

    found: dict = {}
    news()
    assert (found["provider"], found["stopReason"]) == ("none", "all_engines_failed")
    out, err = io.StringIO(), io.StringIO()
    assert show("news", found, "table", out=out, err=err) == 1
    line = f"ERROR: provider_network_error: no network: no search engine could be reached ({why})"
    assert (out.getvalue(), err.getvalue()) == ("", line + "\n")
    out = io.StringIO()
    assert show("news", found, "json", out=out, err=err) == 1
    assert json.loads(out.getvalue())["error"]["message"] == line.split(": ", 2)[2]
