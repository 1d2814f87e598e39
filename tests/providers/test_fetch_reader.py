"""The optional reader fallback: a hosted reader such as r.jina.ai asked when
local extraction is thin. It is off unless WEB_FETCH_READER_URL names one, because it
sends the URL to a third party; here the reader is a loopback replay of r.jina.ai's
answer layout, reached through LIGHT_HOST_MAP like every origin."""

from __future__ import annotations

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import WebFetch
from tests.conftest import ROBOTS_ALLOW, coroutine_test

WALLS = "https://walls.example"
READER = "reader.replay.test"
SITE = "thin.reader.test"
RENDERED = ("Title: Tide Explorer\n\nURL Source: https://walls.example/js-shell\n\nPublished Time: 2026-11-02T08:00:00Z\n\n"
            "Markdown Content:\n# Tide Explorer\n\n" + "The explorer shows predicted tides for every harbour. " * 30)


@pytest.fixture
def settings(origins):
    origins.add_site(SITE, {
        "/robots.txt": ROBOTS_ALLOW,
        "/stub": {"body": "<!doctype html><html><head><title>Stub page</title></head><body><article>"
                          "<p>Only a line.</p></article></body></html>"},
        "/full": {"body": "<!doctype html><html><head><title>Full</title></head><body><article>"
                          + "<p>A complete article about harbour tides and gauges.</p>" * 20
                          + "</article></body></html>"},
    })
    origins.add_site(READER, {
        f"/{WALLS}/js-shell": {"body": RENDERED, "type": "text/plain; charset=utf-8"},
        f"/https://{SITE}/stub": {"body": "Stub page\n\n" + "What the script adds to the stub page. " * 20,
                                  "type": "text/markdown"},
        f"/https://{SITE}/full": {"body": "should never be asked", "type": "text/plain"},
        f"/{WALLS}/cookie-wall": {"body": "should never be asked", "type": "text/plain"},
        f"/https://{SITE}/huge": {"body": "x" * 300_000, "type": "text/plain"},
    })
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


def reader_on(settings, **more):
    # reading a page takes a worker under a second; on a busy machine, more than the default limit
    return WebFetch.from_settings({**settings, "WEB_FETCH_READER_URL": f"https://{READER}/",
                                   "LIGHT_POOL_TASK_SECS": 60.0, "WEB_FETCH_DEADLINE_SECS": 60.0, **more})


def asked(origins):
    return [e["path"] for e in origins.requests_for(READER)]


@coroutine_test
async def test_the_reader_is_off_by_default_and_nothing_is_sent_to_it(settings, origins):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings(settings).fetch(f"{WALLS}/js-shell")
    assert info.value.code == "javascript_required"
    assert asked(origins) == []


@coroutine_test
async def test_a_javascript_shell_is_read_through_the_reader_when_one_is_set(settings, origins):
    page = await reader_on(settings).fetch(f"{WALLS}/js-shell")
    assert asked(origins) == [f"/{WALLS}/js-shell"]
    assert page["extractedBy"] == "reader"
    assert page["url"] == f"{WALLS}/js-shell"  # the page's URL, not the reader's
    assert page["title"] == "Tide Explorer"
    assert page["publishedAt"] == "2026-11-02T08:00:00Z"
    assert page["content"].startswith("# Tide Explorer")
    assert "URL Source:" not in page["content"]  # the reader's header lines are metadata
    assert page["notes"] == [f"local extraction was thin; text from the reader service {READER}"]
    assert f"Note: local extraction was thin; text from the reader service {READER}" in page["text"]
    assert "EXTERNAL_DATA" in page["text"]  # the reader's words are fenced like the page's


@coroutine_test
async def test_thin_local_text_is_replaced_only_by_a_longer_answer_keeping_the_pages_own_title(settings, origins):
    page = await reader_on(settings).fetch(f"https://{SITE}/stub")
    assert page["extractedBy"] == "reader"
    assert page["title"] == "Stub page"
    full = await reader_on(settings).fetch(f"https://{SITE}/full")
    assert "extractedBy" not in full
    assert f"/https://{SITE}/full" not in asked(origins)


@coroutine_test
async def test_a_wall_or_a_robots_refusal_is_never_sent_to_the_reader(settings, origins):
    for path, code in (("/cookie-wall", "paywall_or_cookie_wall"), ("/private/page", "robots_disallowed")):
        with pytest.raises(LightSearchError) as info:
            await reader_on(settings).fetch(f"{WALLS}{path}")
        assert info.value.code == code
    assert asked(origins) == []


@coroutine_test
async def test_a_failing_reader_leaves_the_local_result_and_says_why(settings, origins):
    origins.add_site(SITE, {"/robots.txt": ROBOTS_ALLOW, "/huge": {"body": "<html><body><p>tiny</p></body></html>"}})
    page = await reader_on(settings, WEB_FETCH_MAX_BYTES=64 * 1024).fetch(f"https://{SITE}/huge")
    assert "extractedBy" not in page  # the reader's 300 kB answer is over the byte limit
    assert page["notes"] == ["local extraction was thin; the reader failed (too_large)"]
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings({**settings, "WEB_FETCH_READER_URL": f"https://{READER}/missing/"}).fetch(
            f"{WALLS}/js-shell")
    assert info.value.code == "javascript_required"
    assert info.value.details["reader"] == "the reader failed (http_status)"


@coroutine_test
async def test_the_readers_answer_is_windowed_by_max_chars(settings):
    page = await reader_on(settings).fetch(f"{WALLS}/js-shell", max_chars=100)
    assert len(page["content"]) == 100
    assert page["truncated"] is True
