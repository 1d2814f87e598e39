"""Links handed out are http(s) only and none the transport guard would refuse.

:func:`lightsearch.evidence.outbound_links.safe_links` against ``tests/links_checker.py`` (markdown-it-py,
the standard library's HTML tokenizer and the GFM autolink forms, written apart): for any
text made of link constructs around hostile and ordinary targets, no link a renderer would
make of the output is refused; a refused link keeps its text; links the guard allows and
text without links are left exactly as written.
"""

from __future__ import annotations

import html

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lightsearch.evidence.outbound_links import LinkJudge, safe_links
from tests.links_checker import ALLOWED, DANGEROUS, DISGUISED, forms, refused, refused_links, texts

BASE = "https://site.example/docs/page"
FAST = settings(derandomize=True, database=None, max_examples=40, deadline=None)

def judge() -> LinkJudge:
    return LinkJudge(base=BASE)


@pytest.mark.parametrize("target", DANGEROUS + DISGUISED)
def test_each_refused_target_loses_its_link_in_every_form(target):
    assert refused(html.unescape(target), BASE), target  # the checker agrees the target is refused
    for form in forms(target, "label"):
        out = safe_links(form, judge())
        assert refused_links(out, BASE) == [], (form, out)


@pytest.mark.parametrize("target", ALLOWED)
def test_allowed_links_are_left_as_written(target):
    for form in forms(target, "label"):
        assert safe_links(form, judge()) == form


def test_a_refused_link_keeps_its_text():
    text = ("Read [the tide tables](javascript:alert(1)) and ![a chart](http://169.254.169.254/c.png); "
            "<a href=\"http://127.0.0.1:6379/\">the cache</a>; raw: http://127.0.0.1:6379/ and <file:///etc/passwd>.")
    assert safe_links(text, judge()) == (
        "Read the tide tables and a chart; <a >the cache</a>; raw: http[://]127.0.0.1:6379/ and file[://]/etc/passwd.")


def test_ordinary_text_is_left_alone():
    text = ("for (i = 0; i < n; i++) callbacks[i](event); x = a[b](c) ? 1 : 2; see https://example.com/a_(b), "
            "www.example.org and mail@example.com at 10:30; [note](#fn1) <https://example.com/> a <= b >= c "
            "‏שלום עולם‏ 東京 ≪ » «")
    assert safe_links(text, judge()) == text


@FAST
@given(text=texts)
@example(text="[a]](javascript:y)(http://127.0.0.1/)")
@example(text="[x](<javascript:a>)(javascript:b)")
@example(text="http:/&#47;127.0.0.1/")
def test_no_link_handed_out_is_refused(text):
    out = safe_links(text, judge())
    assert refused_links(out, BASE) == [], (text, out)
    assert safe_links(out, judge()) == out  # the cleaning is stable


@settings(FAST, max_examples=24)
@given(text=st.lists(st.one_of(st.builds(lambda t, i: forms(t, "x")[i % 17], st.sampled_from(ALLOWED),
                                         st.integers(0, 16)), st.text(alphabet="abc ,.;\n", max_size=8)),
                     max_size=6).map("".join))
def test_text_whose_links_are_allowed_is_unchanged(text):
    if refused_links(text, BASE):  # glue can join two forms into a link that is refused
        return
    assert safe_links(text, judge()) == text


def test_the_host_map_and_ports_do_not_make_loopback_links_allowed():
    """The offline origins map names to 127.0.0.1:<port>; a link there is still refused."""
    mapped = LinkJudge(allowed_ports=(80, 443, 8080, 8443, 41234), base="https://www.nasa.gov/")
    out = safe_links("[a](http://127.0.0.1:41234/) [b](https://www.nasa.gov/x) [c](http://intranet/)", mapped)
    assert out == "a [b](https://www.nasa.gov/x) c"


def test_judging_is_bounded_per_text():
    """A text naming more authorities than the judge asks about has the rest refused."""
    from lightsearch.evidence import outbound_links as mod

    text = " ".join(f"[l](https://h{i}.example/)" for i in range(mod.MAX_JUDGED + 50))
    mod._VERDICTS.clear()
    out = safe_links(text, judge())
    assert out.count("](") == mod.MAX_JUDGED
    assert out.endswith(" ".join(["l"] * 50))  # past the bound, links are refused: their text stays


def test_a_window_holds_a_bounded_number_of_links():
    """web_fetch ends a window early rather than judge more than MAX_LINKS links in it."""
    from lightsearch.evidence import outbound_links as mod

    text = "".join(f"see [l{i}](https://h{i}.example/) " for i in range(2000))
    end = mod.links_end(text, 0, len(text))
    assert 0 < end < len(text)
    assert text[end - 1] == " "
    assert len(mod._markers(text, 0, end)) <= mod.MAX_LINKS
    start = mod.links_start(text, 0, len(text))
    assert 0 < start < len(text)
    assert len(mod._markers(text, start, len(text))) <= mod.MAX_LINKS
    assert mod.links_end("plain words " * 100, 0, 1200) == 1200
    assert mod.links_end("](" * 1000, 0, 2000) == 2 * mod.MAX_LINKS  # no space to cut at: the marker itself
