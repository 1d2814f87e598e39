"""One walk over a page for discovery (documents/pagescan.py): its links, navigation,
robots meta tags, declared feeds and rel=next, in work that follows the page's elements,
never their nesting.

The properties drive the walk with the shapes that made the per-link queries quadratic
(navigation containers nested around the links, anchors nested in anchors, deep nesting
with text at every level) and with wide ones (thousands of links, meta tags, long
attributes): every element is visited once (``visited`` is the number of elements, up
to :data:`MAX_ELEMENTS`), an anchor keeps at most :data:`MAX_ANCHOR_CHARS`, at most
``max_links`` links are read and the rest counted.
"""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree

from lightsearch.documents.pagescan import MAX_ANCHOR_CHARS, MAX_ELEMENTS, parse_page, scan_page

PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BASE = "https://p.test/dir/page.html"


def elements(html: str) -> int:
    root = parse_page(html)
    return 0 if root is None else sum(1 for _ in root.iter())


@st.composite
def hostile_page(draw: st.DrawFn) -> str:
    """Nesting (navigation around links, anchors in anchors, plain depth) and width (many
    links, metas, feeds, long attributes), mixed."""
    parts = ["<html><head>"]
    parts += ['<meta name="robots" content="nofollow">'] * draw(st.integers(0, 50))
    parts += ['<link rel="alternate next" type="application/rss+xml" href="/feed">'] * draw(st.integers(0, 30))
    parts.append("</head><body>")
    navs = draw(st.integers(0, 400))
    wrapper = draw(st.sampled_from(["nav", "header", 'div role="navigation"', "div", "a href=/outer"]))
    parts.append(f"<{wrapper}>" * navs)
    links = draw(st.integers(0, 3000))
    nested = draw(st.booleans())
    title = "t" * draw(st.sampled_from([0, 10, 5000]))
    for i in range(links):
        parts.append(f'<a href="/p{i % 500}" title="{title}">w{i}' + ("" if nested else "</a>"))
    parts.append("x " * draw(st.integers(0, 3000)))
    return "".join(parts)


@PROPERTY
@given(hostile_page())
@example("<html><body>" + "<nav>" * 2000 + "".join(f'<a href="/p{i}">l{i}</a>' for i in range(2066)))
@example("<html><body>" + "".join(f"<a href=/{i}>t" for i in range(3000)))
def test_the_walk_visits_each_element_once_and_keeps_within_its_caps(html):
    scan = scan_page(html, BASE, {"lightbot"}, max_links=500)
    assert scan.visited == min(elements(html), MAX_ELEMENTS) or scan.cut
    assert len(scan.links.links) <= 500
    assert all(len(link.anchor) <= MAX_ANCHOR_CHARS for link in scan.links.links)
    anchors = html.count("<a href=")
    assert len(scan.links.links) + scan.links.dropped <= anchors + html.count("<link ")


def test_the_walk_stops_at_its_element_cap():
    html = "<html><body>" + "<p>x" * (MAX_ELEMENTS + 100)
    scan = scan_page(html, BASE)
    assert scan.cut
    assert scan.visited == MAX_ELEMENTS + 1


def test_links_in_and_out_of_navigation():
    html = ('<html><head><meta name="Robots" content="noindex"><meta name="lightbot" content="nofollow">'
            '<meta name="otherbot" content="none"><link rel="alternate" type="application/atom+xml" href="/atom">'
            '<link rel="next" href="/page/2"></head><body><header><a href="/h">Home</a></header>'
            '<nav><ul><li><a href="/n1">One <b>bold</b> two</a></li></ul></nav>'
            '<div role="navigation"><a href="/r">R</a></div><div role="navigationx"><a href="/x">X</a></div>'
            '<article><a href="/a#frag" rel="nofollow author" title="T">Article</a><a href="#top">top</a>'
            '<a href="javascript:void(0)">js</a><a href="http://[">bad</a><a rel="next" href="/page/3">3</a>'
            "</article></body></html>")
    scan = scan_page(html, BASE, {"lightbot"})
    got = [(link.url, link.anchor, link.in_nav, link.nofollow, link.title) for link in scan.links.links]
    assert got == [("https://p.test/h", "Home", True, False, ""),
                   ("https://p.test/n1", "One bold two", True, False, ""),
                   ("https://p.test/r", "R", True, False, ""),
                   ("https://p.test/x", "X", False, False, ""),
                   ("https://p.test/a", "Article", False, True, "T"),
                   ("https://p.test/page/3", "3", False, False, "")]
    assert scan.links.dropped == 1  # http://[
    assert scan.links.feeds == ["https://p.test/atom"]
    assert scan.metas == ["noindex", "nofollow"]
    assert scan.next_href == "/page/2"  # the first in document order


def test_nested_anchors_give_their_text_to_the_innermost_only():
    """libxml2 closes an open anchor at the next one; a tree built otherwise (another
    parser's) may nest them, and then each text goes to one anchor only."""
    root = etree.Element("html")
    outer = etree.SubElement(etree.SubElement(root, "body"), "a", href="/o")
    outer.text = "outer "
    inner = etree.SubElement(outer, "a", href="/i")
    inner.text, inner.tail = "inner", " tail"
    scan = scan_page(root, BASE)
    assert {link.url: link.anchor for link in scan.links.links} == {"https://p.test/o": "outer tail",
                                                            "https://p.test/i": "inner"}


def test_a_root_from_another_parser_is_walked_too():
    root = etree.fromstring("<html><body><nav><a href='/n'>n</a></nav></body></html>", etree.HTMLParser())
    assert [link.in_nav for link in scan_page(root, BASE).links.links] == [True]


def test_page_facts_for_a_source_description():
    scan = scan_page('<html lang="he-IL"><head><title> Site  name </title></head><body><p>שלום</p></body></html>',
                     BASE)
    assert (scan.language, scan.name, scan.text) == ("he-IL", "Site name", "שלום")
    scan = scan_page('<html><head><meta http-equiv="content-language" content="en">'
                     '<meta property="og:site_name" content="OG"><title>T</title></head><body>x</body></html>', BASE)
    assert (scan.language, scan.name) == ("en", "OG")
