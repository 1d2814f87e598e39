"""What discovery reads of a page, in one pass over its elements: the robots meta tags
addressed to us, its links (and whether each sits in the page's navigation), the feeds it
declares and its ``rel=next`` link.

A page is attacker-controlled markup, and how much reading it costs must follow its
size, never its shape. Queries per link (an XPath for the navigation around each anchor,
the text under each anchor) cost the page's nesting once per link: thousands of nested
``<nav>`` around thousands of links are millions of steps. Here the page is parsed once and
walked once, start and end of every element, keeping the few facts the walk needs: how
many navigation containers are open, which anchor is open (its text goes to the
innermost one only, so nested anchors cost their text once), and the first ``rel=next``.
The walk stops after :data:`MAX_ELEMENTS` elements (``cut``), an anchor keeps at most
:data:`MAX_ANCHOR_CHARS` of text, and at most ``max_links`` links are read (the anchors
past it are counted as dropped). lxml's parser keeps its own depth limit (no
``huge_tree``): a document nested deeper than libxml2's 256 levels ends there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from lxml import etree

from lightsearch.documents.discovered_links import URL_ERRORS, Link, PageLinks, absolute_url
from lightsearch.documents.xmlsafe import scrubbed_utf8

MAX_ELEMENTS = 50_000  # elements walked, as the extraction's input cap
MAX_ANCHOR_CHARS = 1_000
MAX_TEXT_NODES = 400  # of the body, kept for a page's script when it declares no language
MAX_FACT_CHARS = 200  # of a declared language or name
# Discovery reads at most this many links of a page: each is scored in the crawl's own
# process, and the frontier keeps the best 256 candidates of a search anyway.
MAX_PAGE_LINKS = 2_000
_FEED_TYPES = ("rss", "atom", "feed+json")
_SKIPPED_HREFS = ("#", "javascript:", "mailto:", "tel:")
_XML_SPACE = str.maketrans("\t\n\r", "   ")
_PARSER = etree.HTMLParser(recover=True, no_network=True, remove_comments=True, remove_pis=True,
                           collect_ids=False, default_doctype=False, encoding="utf-8")


@dataclass
class PageScan:
    """What one walk of a page found. ``visited`` counts the elements walked; ``cut`` says
    the walk stopped at :data:`MAX_ELEMENTS`."""

    metas: list[str] = field(default_factory=list)  # content of robots meta tags that bind us
    links: PageLinks = field(default_factory=PageLinks)
    next_href: str = ""  # the first rel=next href, as written
    visited: int = 0
    cut: bool = False
    # What the page says of itself: <html lang> (else its content-language meta), its
    # og:site_name (else its <title>), and its first text nodes inside <body>.
    language: str | None = None
    name: str | None = None
    text: str = ""


def _tokens(value: str) -> list[str]:
    """An attribute's space-separated tokens, as XPath's ``normalize-space`` splits them."""
    return value.translate(_XML_SPACE).split(" ")


def _attr(element: etree._Element, name: str) -> str:
    # By name: an attribute whose name is a control character makes a dict of all of them raise.
    value = element.get(name)
    return value if isinstance(value, str) else ""


def _read(element: etree._Element, which: str) -> str | None:
    """An element's text or tail; None when it cannot be decoded (a lone surrogate from a
    character reference survives the parser as bytes that do not decode)."""
    try:
        return getattr(element, which)
    except URL_ERRORS:
        return None


def parse_page(html: str | bytes) -> etree._Element | None:
    """The page's element tree (None for a page with no element at all)."""
    data = html if isinstance(html, bytes) else scrubbed_utf8(html)[1]
    if not data.strip():
        return None
    try:
        return etree.fromstring(data, _PARSER)
    except (etree.LxmlError, ValueError):
        return None


class _Anchor:
    __slots__ = ("chars", "element", "href", "in_nav", "parts")

    def __init__(self, element: etree._Element, href: str, in_nav: bool) -> None:
        self.element = element
        self.href = href
        self.in_nav = in_nav
        self.parts: list[str] = []
        self.chars = 0

    def add(self, text: str | None) -> None:
        if text and self.chars < MAX_ANCHOR_CHARS:
            text = text[: MAX_ANCHOR_CHARS - self.chars]
            self.parts.append(text)
            self.chars += len(text)


def scan_page(html: str | bytes | etree._Element | None, base_url: str, agents: Iterable[str] = (), *,
              max_links: int | None = MAX_PAGE_LINKS) -> PageScan:
    """Walk a page (its text, its UTF-8 bytes, or its parsed root) once; see the module."""
    root = html if isinstance(html, etree._Element) or html is None else parse_page(html)
    scan = PageScan()
    if root is None:
        return scan
    agents = frozenset(agents)
    links = scan.links
    nav_depth = 0
    navs: list[bool] = []  # per open element: whether it opened a navigation container
    anchors: list[_Anchor] = []  # open anchors, innermost last
    facts = _Facts()
    if root.tag == "html":
        facts.lang = _fact(_attr(root, "lang"))
    for event, element in etree.iterwalk(root, events=("start", "end")):
        if event == "end":
            if element is facts.body:
                facts.body = None
            if navs.pop():
                nav_depth -= 1
            if anchors and anchors[-1].element is element:
                _finish(anchors.pop(), base_url, links)
            tail = _read(element, "tail")
            if anchors:
                anchors[-1].add(tail)
            if facts.body is not None:
                facts.add(tail)
            continue
        scan.visited += 1
        if scan.visited > MAX_ELEMENTS:
            scan.cut = True
            break
        opens_nav = False
        tag = element.tag
        if isinstance(tag, str):  # not an entity or a leftover comment
            try:
                opens_nav = tag in ("nav", "header") or element.get("role") == "navigation"
                if tag == "a" and element.get("href") is not None:
                    _anchor(element, nav_depth > 0, anchors, links, max_links, scan)
                elif tag == "link":
                    _link(element, base_url, links, scan)
                elif tag == "meta":
                    _meta(element, agents, scan, facts)
                elif tag == "title" and facts.title is None:
                    facts.title = _fact(_read(element, "text")) or ""
                elif tag == "body" and facts.body is None and not facts.nodes:
                    facts.body = element
            except URL_ERRORS:  # an attribute that cannot be decoded: that element only
                links.dropped += tag == "a"
        navs.append(opens_nav)
        nav_depth += opens_nav
        text = _read(element, "text")
        if anchors:
            anchors[-1].add(text)
        if facts.body is not None:
            facts.add(text)
    for anchor in anchors:  # open when the walk stopped
        _finish(anchor, base_url, links)
    scan.language = facts.lang or facts.content_language
    scan.name = facts.site_name or facts.title or None
    scan.text = " ".join(facts.nodes)
    return scan


class _Facts:
    """What the walk notes of the page itself on its way."""

    def __init__(self) -> None:
        self.lang: str | None = None
        self.content_language: str | None = None
        self.site_name: str | None = None
        self.title: str | None = None
        self.body: etree._Element | None = None  # the <body> the walk is inside
        self.nodes: list[str] = []

    def add(self, text: str | None) -> None:
        if text is not None and len(self.nodes) < MAX_TEXT_NODES:
            self.nodes.append(text[:MAX_ANCHOR_CHARS])


def _fact(value: str | None) -> str | None:
    """A declared value as a page fact: whitespace collapsed, bounded; None when blank."""
    if not value or not value.strip():
        return None
    return " ".join(value[: 4 * MAX_FACT_CHARS].split())[:MAX_FACT_CHARS]


def _anchor(element: etree._Element, in_nav: bool, anchors: list[_Anchor], links: PageLinks,
            max_links: int | None, scan: PageScan) -> None:
    try:
        href = _attr(element, "href").strip()
        if not scan.next_href and "next" in _tokens(_attr(element, "rel")):
            scan.next_href = _attr(element, "href")
    except URL_ERRORS:
        links.dropped += 1
        return
    if not href or href.startswith(_SKIPPED_HREFS):
        return
    if max_links is not None and len(links.links) + len(anchors) >= max_links:
        links.dropped += 1  # past the cap: counted, not read
        return
    anchors.append(_Anchor(element, href, in_nav))


def _finish(anchor: _Anchor, base_url: str, links: PageLinks) -> None:
    element = anchor.element
    try:
        url = absolute_url(base_url, anchor.href)
        if url is None:
            links.dropped += 1
            return
        rel = _attr(element, "rel").lower().split()
        text = " ".join(" ".join(anchor.parts).split())
        links.links.append(Link(url=url.split("#", 1)[0], anchor=text, title=_attr(element, "title"),
                                nofollow="nofollow" in rel, in_nav=anchor.in_nav))
    except URL_ERRORS:
        links.dropped += 1


def _link(element: etree._Element, base_url: str, links: PageLinks, scan: PageScan) -> None:
    try:
        if element.get("href") is None:
            return
        rel = _attr(element, "rel")
        if not scan.next_href and "next" in _tokens(rel):
            scan.next_href = _attr(element, "href")
        if "alternate" not in rel.lower().split():
            return
        kind = _attr(element, "type").lower()
        if not any(t in kind for t in _FEED_TYPES):
            return
        url = absolute_url(base_url, _attr(element, "href"))
    except URL_ERRORS:
        url = None
    if url is None:
        links.dropped += 1
    else:
        links.feeds.append(url)


def _meta(element: etree._Element, agents: frozenset[str], scan: PageScan, facts: _Facts) -> None:
    try:
        name = element.get("name")
        content = element.get("content")
        if content is not None and facts.content_language is None and element.get("http-equiv") == "content-language":
            facts.content_language = _fact(content)
        if content is not None and facts.site_name is None and element.get("property") == "og:site_name":
            facts.site_name = _fact(content)
    except URL_ERRORS:
        return
    if name is None or content is None:
        return
    name = name.strip().lower()
    if name == "robots" or name in agents:
        scan.metas.append(content)
