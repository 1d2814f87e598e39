"""``scrapy search`` with a Brave key: the provider is chosen at load, the JSON shape is Light's.
Run by Scrapy's entry point in this process (the ``scrapy`` fixture), the key in its
environment."""

from __future__ import annotations

import json

import pytest

from lightsearch.offline_origins.brave_replay import BraveReplay


@pytest.fixture
def search(scrapy):
    """``search(*args, cwd=..., key=...)``: ``scrapy search`` with ``BRAVE_SEARCH_API_KEY=key``."""
    def command(*args: str, cwd, key: str):
        return scrapy(*args, cwd=cwd, BRAVE_SEARCH_API_KEY=key)

    return command


def brave_args(brave_replay: BraveReplay) -> list[str]:
    return ["-s", f"BRAVE_API_URL={brave_replay.url}", "-s", f"BRAVE_TLS_CA_FILE={brave_replay.ca_file}",
            "-s", f"LIGHT_HOST_MAP={json.dumps(brave_replay.host_map())}", "-s", "BRAVE_SOURCE_FETCH=False"]


def test_json_output_has_brave_hits_in_lights_shape(brave_replay, tmp_path, search):
    proc = search(*brave_args(brave_replay), "-o", "json", "hello world", cwd=tmp_path, key=" k ")
    assert proc.returncode == 0, proc.stderr
    brave = json.loads(proc.stdout)
    assert brave["provider"] == "brave"
    assert brave["hits"][0]["url"] == brave_replay.recording()["web"]["results"][0]["url"]
    assert len(brave["hits"]) == 8
    (request,) = brave_replay.requests_for("k")  # the key was trimmed
    assert request["params"]["q"] == "hello world"

    light_proc = search("--offline", "-o", "json", "photosynthesis chlorophyll",
                        cwd=tmp_path, key="  ")  # a blank key selects Light
    assert light_proc.returncode == 0, light_proc.stderr
    light = json.loads(light_proc.stdout)
    assert light["provider"] == "light"
    assert set(brave) - set(light) == {"sourceFetchErrors"}  # Brave's one optional addition
    assert set(light) <= set(brave)
    light_hit_keys = set.intersection(*(set(h) for h in light["hits"]))
    for hit in brave["hits"]:
        assert {"title", "url", "snippet", "source", "retrievedAt", "score"} <= set(hit)
        assert set(hit) - light_hit_keys <= {"publishedAt", "modifiedAt", "language", "originalUrl"}
    assert set(brave["meta"]["webSources"]) == set(light["meta"]["webSources"])
    assert set(brave["coverage"]) == set(light["coverage"])


def test_table_and_text_output(brave_replay, tmp_path, search):
    table = search(*brave_args(brave_replay), "hello world", cwd=tmp_path, key="k")
    assert table.returncode == 0, table.stderr
    lines = table.stdout.strip().splitlines()
    assert lines[0].startswith("1. ")
    assert "provider brave" in lines[-1]
    text = search(*brave_args(brave_replay), "-o", "text", "hello world", cwd=tmp_path, key="k")
    assert text.returncode == 0, text.stderr
    assert "brave" in text.stdout


def test_brave_failure_is_an_error_not_a_light_search(brave_replay, tmp_path, search):
    brave_replay.script("cli-bad", status=401, body=b"{}")
    proc = search(*brave_args(brave_replay), "hello world", cwd=tmp_path, key="cli-bad")
    assert proc.returncode == 1
    assert "provider_auth" in proc.stderr
    assert proc.stdout == ""
    as_json = search(*brave_args(brave_replay), "-o", "json", "hello world", cwd=tmp_path, key="cli-bad")
    assert json.loads(as_json.stdout)["error"]["code"] == "provider_auth"


def test_explicit_light_provider_ignores_the_key(brave_replay, tmp_path, search):
    proc = search(*brave_args(brave_replay), "-s", "WEB_SEARCH_PROVIDER=light", "--offline", "-o", "json",
                  "photosynthesis chlorophyll", cwd=tmp_path, key="explicit")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["provider"] == "light"
    assert brave_replay.requests_for("explicit") == []
