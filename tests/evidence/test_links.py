"""Links handed out are http(s) only and none the transport guard would refuse.

:func:`lightsearch.evidence.links.safe_links` against ``tests/links_checker.py`` (markdown-it-py,
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

from lightsearch.evidence.links import LinkJudge, safe_links
from tests.links_checker import links, refused, refused_links

BASE = "https://site.example/docs/page"
FAST = settings(derandomize=True, database=None, max_examples=300, deadline=None)

# The six, and the forms the guard and browsers read alike.
DANGEROUS = ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)",
             "file:///etc/passwd", "http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:6379/"]
DISGUISED = ["JaVaScRiPt:alert(1)", " javascript:x", "java\tscript:x", "jav&#x61;script:x", "jav&#97;script:x",
             "javascript&colon;x", "http://[::1]/", "http://0x7f.1/", "http://2130706433/",
             "http://localhost/admin", "https://user:pass@example.com/", "http://example.com:6379/",
             "//127.0.0.1/", "/\\127.0.0.1/", "http:\\\\127.0.0.1\\", "http:/127.0.0.1/", "HTTP://127.0.0.1",
             "http://metadata.google.internal/", "mailto:a@example.com", "ftp://files.example.com/a",
             "http&#58;//127.0.0.1/", "http://127.0.0.1&#47;x",
             "http://10.0.0.1/", "https://intranet.corp.internal/x", "http://[::ffff:127.0.0.1]/",
             "tel:+100", "http://127.1/", "https://%31%32%37.0.0.1/"]
ALLOWED = ["https://example.com/a", "http://www.example.org/x_(y)", "/relative", "../up", "#frag", "?q=1",
           "https://example.com:8443/x", "https://xn--bcher-kva.example/", "https://he.wikipedia.org/wiki/%D7%90"]
TARGETS = DANGEROUS + DISGUISED + ALLOWED


def forms(target: str, text: str) -> list[str]:
    return [f"[{text}]({target})", f"[{text}](<{target}>)", f"![{text}]({target})", f'[{text}]({target} "t")',
            f"<{target}>", f"\n[{text}]: {target}\n", f'<a href="{target}">{text}</a>', f"<a href='{target}'>",
            f"<a href={target}>{text}</a>", f'<img src="{target}">', f'<img srcset="{target} 1x, /a.png 2x">',
            f'<meta http-equiv="refresh" content="0; url={target}">', f" {target} ", f'<div style="background:url({target})">',
            f"[{text}]({target})[{text}](/ok)", f"[[{text}]]({target})", f"[{text} [x]]({target})"]


glue = st.lists(st.sampled_from([*"ab [](){}<>!\\&#;:/ \n\"'=.-_*`", "www.", "://", "&#58;", "\n\n"]),
                max_size=12).map("".join)
construct = st.builds(lambda target, text, i: forms(target, text)[i % 17],
                      st.sampled_from(TARGETS) | st.text(alphabet="hjtps:/.\\&#x[]()<>@0127ab ", max_size=24),
                      st.text(alphabet="ab [](!\\ /:.&#", max_size=6), st.integers(0, 16))
texts = st.lists(st.one_of(construct, glue), max_size=8).map("".join)


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


@FAST
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
    from lightsearch.evidence import links as mod

    text = " ".join(f"[l](https://h{i}.example/)" for i in range(mod.MAX_JUDGED + 50))
    mod._VERDICTS.clear()
    out = safe_links(text, judge())
    assert out.count("](") == mod.MAX_JUDGED
    assert links(out)
    assert refused_links(out, BASE) == []
