"""The per-call filters on every surface: the ``lightsearch`` and ``scrapy`` command lines
(repeatable or comma-listed flags, errors naming the flag; each command's entry point in this
process) and the synchronous Client, each reaching the provider as the call's own (the
region never becomes the process's)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from urllib.parse import urlsplit

import pytest

from tests.conftest import coroutine_test
from tests.surfaces.test_mcp_server import clean_env, memory_session, setting_args


@pytest.fixture
def lightsearch(in_process):
    """The ``lightsearch`` command through its main in this process (the processes are
    test_cli.py's smoke tests)."""
    return in_process


# The replayed engines answer at once; on a busy machine the default engine timeouts can
# still pass before a process has read the answer.
PATIENT_ENGINES = {"WEB_SEARCH_ENGINE_TIMEOUT_SECS": 60, "WEB_SEARCH_DEADLINE_SECS": 120}


def replay_args(engine_replay) -> list[str]:
    return setting_args({"LIGHT_HOST_MAP": engine_replay.host_map(), "WEB_SEARCH_TLS_CA_FILE": engine_replay.ca_file,
                         **PATIENT_ENGINES})


def test_lightsearch_search_flags_reach_light_and_the_table_says_what_they_did(lightsearch):
    done = lightsearch("search", "--offline", "-o", "json", "--include-domain", "nasa.gov,example.org",
                       "--include-domain", "https://www.esa.int/", "--after", "2020-01-01", "europa clipper flyby")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["meta"]["filters"] == {"includeDomains": ["nasa.gov", "example.org", "esa.int"],
                                         "after": "2020-01-01"}
    assert result["hits"]
    assert all(urlsplit(h["url"]).hostname.endswith("nasa.gov") for h in result["hits"])
    table = lightsearch("search", "--offline", "--include-domain", "example.org", "europa clipper")
    assert "note: example.org is not in Light's catalog" in table.stdout


@pytest.mark.parametrize(("flags", "words"), [
    (["--after", "2024-02-30"], "--after must be a day written YYYY-MM-DD"),
    (["--region", "english"], "--region must be country-language such as us-en"),
    (["--exclude-domain", "bad-.com"], "--exclude-domain: 'bad-.com' is not a domain"),
    (["--include-domain", "nasa.gov", "--exclude-domain", "gov"], "--include-domain: nasa.gov is excluded too"),
])
def test_lightsearch_filter_errors_name_the_flag(lightsearch, flags, words):
    done = lightsearch("search", *flags, "x")
    assert done.returncode == 2  # a value the command cannot take: nothing was done
    assert words in done.stderr, done.stderr
    assert "includeDomains" not in done.stderr
    assert "excludeDomains" not in done.stderr


def test_lightsearch_news_flags_reach_google_news(lightsearch, engine_replay):
    engine_replay.reset()
    done = lightsearch("news", *replay_args(engine_replay), "-s", "WEB_NEWS_LIGHT=false", "--exclude-domain", "asahi.com",
                       "--region", "jp-ja", "--after", "2024-02-01", "--before", "2024-02-10", "-o", "json", "選挙")
    assert done.returncode == 0, done.stderr
    params = engine_replay.requests_for("news")[-1]["params"]
    assert params["q"] == "選挙 -site:asahi.com after:2024-01-31 before:2024-02-11"
    assert params["ceid"] == "JP:ja"
    result = json.loads(done.stdout)
    assert result["hits"]
    assert not any("asahi.com" in h.get("publisherUrl", "") for h in result["hits"])


def test_scrapy_search_and_news_take_the_flags(engine_replay, tmp_path, scrapy):
    engine_replay.reset()
    done = scrapy(*replay_args(engine_replay), "--provider", "ddg_html", "--include-domain", "cloudwego.io",
                  "--region", "de-de", "-o", "json", "eino", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    params = engine_replay.requests_for("ddg_html")[-1]["params"]
    assert (params["q"], params["kl"]) == ("eino site:cloudwego.io", "de-de")
    assert all(urlsplit(h["url"]).hostname.endswith("cloudwego.io") for h in json.loads(done.stdout)["hits"])
    news = scrapy(*replay_args(engine_replay), "-s", "WEB_NEWS_LIGHT=false", "--exclude-domain", "nhk.or.jp",
                  "--before", "2024-02-10", "-o", "json", "markets", cwd=tmp_path, name="news")
    assert news.returncode == 0, news.stderr
    assert engine_replay.requests_for("news")[-1]["params"]["q"] == "markets -site:nhk.or.jp before:2024-02-11"
    bad = scrapy("--offline", "--before", "soon", "x", cwd=tmp_path)
    assert bad.returncode != 0
    assert "--before must be a day written YYYY-MM-DD" in bad.stdout + bad.stderr


CLIENT = textwrap.dedent("""
    import json, sys
    from lightsearch import Client

    settings = json.loads(sys.argv[1])
    with Client(settings, environ={}) as client:
        first = client.search("eino", max_results=10, exclude_domains=["github.com"], region="il-he")
        second = client.search("eino again")
        news = client.news("markets", include_domains=("nhk.or.jp",), after="2024-02-01")
    print(json.dumps({"first": [h["url"] for h in first["hits"]], "filters": first["meta"]["filters"],
                      "second": second["meta"].get("filters"), "news": news["meta"]["filters"]}))
""")


def test_the_client_takes_the_filters_per_call(engine_replay):
    engine_replay.reset()
    settings = {"LIGHT_HOST_MAP": engine_replay.host_map(), "WEB_SEARCH_TLS_CA_FILE": engine_replay.ca_file,
                "WEB_SEARCH_PROVIDER": "ddg_html", "WEB_SEARCH_CACHE": None, "WEB_NEWS_LIGHT": False,
                "LOG_LEVEL": "ERROR", **PATIENT_ENGINES}
    done = subprocess.run([sys.executable, "-c", CLIENT, json.dumps(settings)], env=clean_env(),
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["first"]
    assert not any(urlsplit(u).hostname.endswith("github.com") for u in out["first"])
    assert out["filters"] == {"excludeDomains": ["github.com"], "region": "il-he"}
    assert out["second"] is None
    assert out["news"] == {"includeDomains": ["nhk.or.jp"], "after": "2024-02-01"}
    kl = [r["params"]["kl"] for r in engine_replay.requests_for("ddg_html")]
    assert kl == ["il-he", "wt-wt"]  # the call's region, then none: never the process's
    assert engine_replay.requests_for("news")[-1]["params"]["q"] == "markets site:nhk.or.jp after:2024-01-31"


@coroutine_test
async def test_mcp_lists_the_filters_and_a_call_takes_them():
    async with memory_session({}, offline=True) as session:
        listed = {t.name: t for t in (await session.list_tools()).tools}
        for name in ("web_search", "web_news"):
            assert {"includeDomains", "excludeDomains", "region", "after", "before"} <= set(
                listed[name].input_schema["properties"])
        found = await session.call_tool("web_search", {"query": "europa clipper earth flyby",
                                                       "includeDomains": ["www.nasa.gov"],
                                                       "excludeDomains": ["science.nasa.gov"]})
        bad = await session.call_tool("web_search", {"query": "x", "before": "2024-02-30"})
    assert found.is_error is False
    data = found.structured_content
    assert data["meta"]["filters"] == {"includeDomains": ["nasa.gov"], "excludeDomains": ["science.nasa.gov"]}
    assert data["hits"]
    assert all(urlsplit(h["url"]).hostname == "www.nasa.gov" for h in data["hits"])
    assert bad.is_error is True
    assert bad.structured_content["error"]["details"]["parameter"] == "before"
