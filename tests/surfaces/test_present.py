"""What the commands print for people and for models, from real results.

A search and a page are read from the offline origins once (through the front door, as
every command does) and rendered in-process by :func:`show` into text streams that say
whether they are a terminal. The subprocess tests in test_cli.py and test_exits.py run
the real commands where a real terminal, pipe or signal matters.
"""

from __future__ import annotations

import io
import json

import pytest

from lightsearch.surfaces.present import STOP_WORDS, search_failure, show
from lightsearch.surfaces.toolbox import Toolbox
from tests.conftest import coroutine_test

RESULTS: dict[str, dict] = {}


class Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def render(command: str, result: dict, output: str = "table", *, terminal: bool = False,
           verbose: bool = False) -> tuple[int, str, str]:
    out, err = Stream(terminal), Stream(terminal)
    status = show(command, result, output, verbose=verbose, out=out, err=err)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def results(offline_settings):
    """One real search (a single hit, stopped by its hop budget) and one real page."""
    if not RESULTS:
        @coroutine_test
        async def read() -> None:
            async with Toolbox({**offline_settings, "LIGHT_MAX_HOPS": 8}) as box:
                RESULTS["search"] = await box.search("solar maximum auroras", max_results=1)
                RESULTS["fetch"] = await box.fetch("https://www.nasa.gov/", max_chars=600)

        read()
    return RESULTS


def test_people_get_words_whole_urls_and_plurals(results):
    result = results["search"]
    assert len(result["hits"]) == 1
    url = result["hits"][0]["url"]
    status, piped, _ = render("search", result)
    assert status == 0
    assert url in piped.splitlines()[1]  # whole, with its scheme, when not a terminal
    summary = piped.splitlines()[-1]
    assert summary.startswith("1 hit | ")
    assert "shown to a model: 1 with page text" in summary
    assert "(LIGHT_" not in piped
    assert "content" not in summary
    words, setting = STOP_WORDS[result["stopReason"]]
    assert setting is not None  # eight hops: the search stops at a bound
    assert f"stop: {words}\n" in piped
    _, verbose, _ = render("search", result, verbose=True)
    assert f"stop: {words} ({setting})\n" in verbose


def test_a_terminal_gets_urls_that_fit_its_width(results, monkeypatch):
    monkeypatch.setenv("COLUMNS", "60")
    result = results["search"]
    _, shown, _ = render("search", result, terminal=True)
    line = shown.splitlines()[1]
    assert "…" in line
    assert "://" not in line
    assert len(line) <= 60
    assert "\r" not in shown


def test_a_page_for_people_is_plain_text_and_for_models_fenced(results):
    page = results["fetch"]
    status, people, _ = render("fetch", page)
    assert status == 0
    assert people.startswith("url: https://www.nasa.gov/\ntitle: ")
    assert "EXTERNAL_DATA" not in people
    assert "<<<" not in people
    assert page["content"][:80] in people
    _, model, _ = render("fetch", page, "text")
    assert "EXTERNAL_DATA" in model
    _, as_json, _ = render("fetch", page, "json")
    both = json.loads(as_json)
    assert both["content"]
    assert "EXTERNAL_DATA" in both["text"]


NO_NETWORK = {
    "query": "grid storage", "provider": "none", "hits": [], "stopReason": "all_engines_failed",
    "coverage": {"score": 0.0, "level": "none"}, "notes": ["news: provider_network_error: ..."], "text": "...",
    "meta": {"engines": {
        "news": {"status": "failed", "error": {"code": "provider_network_error", "reason": "connect",
                                               "message": "could not connect to news: refused"}},
        "light": {"status": "skipped", "error": {"code": "out_of_scope", "message": "..."}}}},
}


@pytest.mark.parametrize("output", ["table", "json", "jsonl", "text"])
def test_a_search_nothing_answered_is_an_error_in_every_form(output):
    status, out, err = render("news", NO_NETWORK, output)
    assert status == 1
    line = "ERROR: provider_network_error: no network: no search engine could be reached (news: could not connect)"
    if output in ("json", "jsonl"):
        assert json.loads(out)["error"]["message"].startswith("no network: ")
        assert err == ""
    else:
        assert err.strip() == line
        assert out == ("...\n" if output == "text" else "")  # -o text: what a model reads


def test_a_failure_that_is_not_the_network_says_what_failed():
    blocked = json.loads(json.dumps(NO_NETWORK))
    blocked["meta"]["engines"]["news"]["error"] = {"code": "provider_blocked", "message": "news: a captcha page"}
    error = search_failure(blocked)
    assert error["code"] == "provider_blocked"
    assert error["message"] == "no search engine answered (news: a captcha page)"
    assert search_failure({"provider": "news", "stopReason": "completed", "hits": []}) is None  # zero hits: an answer


@pytest.mark.parametrize("output", ["json", "jsonl"])
def test_json_printed_for_a_terminal_carries_no_control_character(output):
    """A site's title with a C1 control sequence, a bidi override and a line separator:
    JSON escapes none of them by itself; what is printed writes each as an escape and
    reads back the same."""
    from lightsearch.surfaces.present import show_sources

    title = "News\x9b2J\x9d0;pwned\x9c \u202eevil\u2028end"
    result = {"query": "q", "hits": [{"title": title, "url": "https://example.org/"}], "notes": []}
    out = io.StringIO()
    show("search", result, output, out=out, err=io.StringIO())
    printed = out.getvalue()
    assert not any(ch in printed for ch in "\x9b\x9c\x9d\u202e\u2028")
    rows = [json.loads(line) for line in printed.splitlines()] if output == "jsonl" else [json.loads(printed)]
    assert title in {row.get("title") for row in rows} | {h["title"] for row in rows for h in row.get("hits", [])}
    out = io.StringIO()
    show_sources("list", {"sources": [{"id": "x", "name": title}]}, "json", out=out)
    assert "\x9b" not in out.getvalue()
    assert json.loads(out.getvalue())["sources"][0]["name"] == title
