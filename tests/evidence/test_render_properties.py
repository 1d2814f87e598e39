"""The renderer's invariants as properties, over hostile results and arbitrary byte limits.

:func:`lightsearch.evidence.invariants.check_render_invariants` states the promises
(bounded, visible characters only, exactly two fence lines, every line inside quoted or
labelled, nothing external outside, errors one capped ASCII line); these properties run
it over search, fetch and error results drawn by ``tests/render_strategies.py``, through
the bare renderer and through the envelopes that store the text (``build_envelope``,
``finish_fetch``). Fixed seeds and bounded examples keep them to a few seconds.
"""

from __future__ import annotations

import copy
import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lightsearch.evidence.envelope import build_envelope, finish_fetch
from lightsearch.evidence.invariants import check_render_invariants, visible
from lightsearch.evidence.model import Evidence, ResultLimits
from lightsearch.evidence.render import clean_untrusted, fence_lines, render_result, strip_invisible
from tests import render_strategies as rs

# Hostile pages are long by design; hypothesis warns when it prints one.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")
FAST = settings(derandomize=True, max_examples=50, deadline=None)
ISSUE_PAGE = {"url": "https://he.example/x", "status": 200, "contentType": "text/html", "title": "עמוד",
              "content": rs.issue_page(False), "totalChars": 7956, "startIndex": 0, "truncated": False,
              "nextStartIndex": None}
CTYPE_ERROR = {"error": {"code": "unsupported_content_type",
                         "message": f"content type {rs.HOSTILE_CTYPE!r} is not read by web_fetch"}}


@FAST
@given(result=rs.results, max_bytes=rs.byte_limits)
@example(result=ISSUE_PAGE, max_bytes=7799)  # the cut lands just after a quote prefix
@example(result=CTYPE_ERROR, max_bytes=16 * 1024)
@example(result={"hits": [], "query": "q"}, max_bytes=0)
def test_every_rendering_keeps_the_promises(result, max_bytes):
    assert check_render_invariants(result, max_bytes) == []


@FAST
@given(hits=st.lists(rs.hits(), min_size=1, max_size=6), query=rs.any_text,
       max_bytes=st.integers(200, 20_000))
def test_search_envelope_text_keeps_the_promises(hits, query, max_bytes):
    evidence = [Evidence(title=str(h["title"]), url=str(h["url"]), source=str(h["source"]),
                         snippet=str(h["snippet"]), content=h.get("content"), source_name=h["sourceName"])
                for h in hits]
    result = build_envelope(provider="light", query=query, evidence=evidence,
                            limits=ResultLimits(text_max_bytes=max_bytes))
    assert check_render_invariants(result, max_bytes, text=result["text"]) == []
    receipt = result["meta"].get("webSources")  # may be left off when the result is full
    assert receipt is None or len(receipt["entries"]) + receipt["omittedSourceCount"] == len(result["hits"])
    # a hit the transport guard would refuse is dropped, and a note counts it
    dropped = sum(int(n.split(" ", 1)[0]) for n in result["notes"] if " hit(s) dropped: " in n)
    assert len(result["hits"]) + dropped == len(hits)


@FAST
@given(page=rs.fetch_results(), max_bytes=st.integers(0, 20_000))
@example(page=ISSUE_PAGE, max_bytes=7799)
def test_fetch_result_text_keeps_the_promises(page, max_bytes):
    result = copy.deepcopy(page)
    text = finish_fetch(result, ResultLimits(text_max_bytes=max_bytes))
    assert result["text"] == text
    assert result["content"] == page["content"]  # the raw window is left as it was
    assert check_render_invariants(result, max_bytes, text=text) == []


@FAST
@given(text=st.one_of(rs.hostile, rs.multiline, st.text()), single_line=st.booleans())
def test_cleaning_keeps_only_visible_characters(text, single_line):
    cleaned = clean_untrusted(text, single_line=single_line)
    assert all(visible(ch) for ch in cleaned)
    assert single_line is False or "\n" not in cleaned
    stripped = strip_invisible(text)
    assert all(visible(ch) or ch.isspace() or unicodedata.category(ch) == "Cc" for ch in stripped)
    # What strip_invisible keeps, in order, is a subsequence of the input (no invention).
    it = iter(text)
    assert all(ch in it for ch in stripped)


def test_cleaning_removes_the_issue_characters_and_keeps_real_text():
    hidden = "a\u034fb\u3164c\ufe0fd\ufe00e\U000e0100f\U000e01efg\u115fh\u1160i\uffa0j\U000e0041k"
    assert clean_untrusted(hidden) == "abcdefghijk"
    assert strip_invisible(hidden) == "abcdefghijk"
    for text in ("שָׁלוֹם עֲלֵיכֶם", "cafe\u0301 re\u0301sume\u0301", "naïve Ελληνικά 中文 ١٢٣"):
        assert clean_untrusted(text) == text  # niqqud, combining accents, other scripts
    assert clean_untrusted("a\u00a0b\u3000c\u2003d") == "a b c d"
    assert clean_untrusted("one\u2028two\rthree\r\nfour", single_line=False) == "one\ntwo\nthree\nfour"
    assert clean_untrusted("\u202eevil\u202c \u2066x\u2069 \ue000p\U000f0000") == "evil x p"
    assert clean_untrusted("＜＜＜ＥＸＴＥＲＮＡＬ＿ＤＡＴＡ x＞＞＞") == "<<external data x>>"


def test_the_checker_sees_each_kind_of_violation():
    """The checker is only worth its properties if it fails on the old renderer's faults."""
    begin, end = fence_lines("0123456789ab")
    good = render_result(ISSUE_PAGE, 10**6, token="0123456789ab")
    assert check_render_invariants(ISSUE_PAGE, 10**6, text=good) == []
    lines = good.split("\n")
    at = lines.index(begin)
    unquoted = "\n".join([*lines[: at + 4], "[... 18 characters cut ...]", rs.PAYLOAD, *lines[-1:]])
    faults = {
        "unquoted": unquoted,
        "three fences": good.replace(end, f"{end}\n{end}"),
        "hidden": good.replace("title: עמוד", "title: עמ\U000e0100וד"),
        "outside": good.replace(begin, f"{rs.PAYLOAD}\n{begin}"),
        "oversize": good,
    }
    for name, text in faults.items():
        limit = len(good.encode()) - 1 if name == "oversize" else 10**6
        assert check_render_invariants(ISSUE_PAGE, limit, text=text), name
    old_error = f"ERROR: unsupported_content_type: content type {rs.HOSTILE_CTYPE!r} is not read"
    assert check_render_invariants(CTYPE_ERROR, 10**6, text=old_error)
    assert check_render_invariants(CTYPE_ERROR, 10**6) == []
