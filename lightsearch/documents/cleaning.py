"""What a reader never sees, removed from a page before its main text is chosen.

trafilatura decides what the article is from the markup, not from what a browser shows,
so three classes of page fooled it (issue 18):

* **hidden content** -- text inside ``hidden``, ``aria-hidden="true"`` or inline
  ``display:none`` / ``visibility:hidden`` elements (collapsed menus, off-screen
  templates, duplicated mobile copies) was returned as article text;
* **page furniture** -- picture galleries and carousels, video players and their
  modals, "recommended"/"trending" rails: their captions and labels read like prose;
* **read-on links** -- a paragraph that is only "Read more: <other headline>".

Readability.js drops the first class the same way (``_isProbablyVisible``). The rules
are structural and never remove the element that holds the article (``<article>``,
``<main>``, ``itemprop=articleBody``, or anything containing the page's ``<h1>``); the
caller keeps the unpruned extraction when pruning leaves almost nothing (a page that
hides its body until a script reveals it).
"""

from __future__ import annotations

import re

from lxml import etree
from lxml.html import HtmlElement

_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)",
                           re.I)
# Class/id words of furniture trafilatura's own discard list does not know (it already
# drops share bars, related/next rails, slides, overlays, newsletters, ads).
_FURNITURE = re.compile(
    r"(?:^|[\s_-])(?:gallery|galleries|carousel|slideshow|lightbox|modal|popup|jwplayer|vjs|"
    r"video-?player|media-?player|player-?(?:wrapper|container|controls)|"
    r"read-?more|readmore|recommended|recommendations|trending|most-?read|you-?may-?like|"
    r"recirc|recirculation|comments?|comment-?(?:list|form|section|thread)|disqus(?:_thread)?|respond|"
    r"subscribe(?:-?form)?|subscription|newsletters?|sign-?up|share(?:bar|-?buttons?|-?tools|-?compact|-?caption)?|"
    r"cookie-?(?:msg|notice|banner|bar|consent|message|law|popup))(?:$|[\s_-])",
    re.I,
)
# A furniture word on the element that holds most of the page's paragraph text names a
# feature of the article ("entry-content-read-more": a body with an expander), not furniture.
MAIN_SHARE = 0.6
_FURNITURE_TAGS = {"div", "section", "aside", "ul", "ol", "figure", "span", "nav", "dialog"}
_ALWAYS_DROPPED = ("dialog", "template")
_READ_ON = re.compile(
    r"^\W*(?:read|see|watch|listen)\s+(?:more|also|next)\b|^\W*continue\s+reading\b|^\W*also\s+read\b|"
    r"^\W*related(?:\s+(?:articles?|stories|coverage|content))?\b|^\W*more\s*:|^\W*more\s+(?:from|on|must-reads)\b|"
    r"^\W*you\s+(?:may|might)\s+also\s+like\b|^\W*(?:קראו|קרא|ראו)\s+(?:עוד|גם)|^\W*לכתבה\s+המלאה|"
    r"^\W*(?:כתבות\s+נוספות|עוד\s+בנושא)|^\W*เรื่องที่เกี่ยวข้อง",
    re.I,
)
READ_ON_MAX_CHARS = 300
# Every styled element, tested in Python: lowercasing @style in XPath for each element of
# the page cost twice as much (1.98 against 0.88 ms a page on the shared set).
_HIDDEN_CANDIDATES = etree.XPath(".//*[@hidden or @aria-hidden or @style] | .//dialog | .//template")
_FURNITURE_CANDIDATES = etree.XPath(
    ".//*[self::div or self::section or self::aside or self::ul or self::ol or self::figure or self::span"
    " or self::nav or self::dialog][@class or @id]")
_TEXTS = etree.XPath(".//text()[normalize-space()]")
_KEEP_TAGS = {"html", "body", "head", "main", "article"}
_MAIN_MARKERS = ".//article | .//main | .//*[@itemprop='articleBody'] | .//h1"


def _paragraph_chars(el: HtmlElement) -> int:
    return sum(len(p.text_content()) for p in el.iter("p"))


def _protected(el: HtmlElement, kind: str = "", page_chars: int = 0) -> bool:
    if not isinstance(el.tag, str) or el.tag in _KEEP_TAGS or el.get("itemprop") == "articleBody":
        return True
    if el.xpath(_MAIN_MARKERS):
        return True
    return kind == "furniture" and page_chars > 0 and _paragraph_chars(el) >= MAIN_SHARE * page_chars


def _hidden(el: HtmlElement) -> bool:
    if el.get("hidden") is not None or (el.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = el.get("style")
    return bool(style) and bool(_HIDDEN_STYLE.search(style))


def _furniture(el: HtmlElement) -> bool:
    if el.tag not in _FURNITURE_TAGS:
        return False
    names = f"{el.get('class') or ''} {el.get('id') or ''}"
    return bool(names.strip()) and bool(_FURNITURE.search(names))


def _read_on(el: HtmlElement) -> bool:
    if el.tag not in {"p", "li", "div", "h3", "h4", "strong", "a"} or len(el) > 12:
        return False
    text = _short_text(el, READ_ON_MAX_CHARS)
    if not text or not _READ_ON.search(text):
        return False
    linked = sum(len(" ".join(a.text_content().split())) for a in el.iter("a"))
    return linked >= 0.6 * len(text)


def _short_text(el: HtmlElement, limit: int) -> str:
    """The element's text when it has at most ``limit`` characters, else "" (without
    reading a big subtree to the end)."""
    size, parts = 0, []
    for piece in el.itertext():
        size += len(piece)
        if size > 4 * limit:
            return ""
        parts.append(piece)
    text = " ".join("".join(parts).split())
    return text if len(text) <= limit else ""


def _drop(el: HtmlElement) -> None:
    """Remove ``el`` but keep its tail text, which belongs to the parent."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    previous = el.getprevious()
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def prune_unseen(tree: HtmlElement) -> dict[str, int]:
    """Remove hidden elements, furniture and read-on links from ``tree`` in place; the
    counts say what went (the caller reports them)."""
    counts = {"hidden": 0, "furniture": 0, "readOn": 0}
    body = tree.find("body") if tree.tag == "html" else tree
    if body is None:
        return counts
    doomed: list[tuple[str, HtmlElement]] = []
    # candidates chosen in XPath (C), the precise test in Python on the few it returns
    for el in _HIDDEN_CANDIDATES(body):
        if el.tag in _ALWAYS_DROPPED or _hidden(el):
            doomed.append(("hidden", el))
    for el in _FURNITURE_CANDIDATES(body):
        if _furniture(el):
            doomed.append(("furniture", el))
    for piece in _TEXTS(body):
        if not _READ_ON.search(piece):
            continue
        # "Read more:" starts a text node of the read-on block, its link or a <strong> in it
        el = piece.getparent()
        for _ in range(3):
            if el is None:
                break
            if _read_on(el):
                doomed.append(("readOn", el))
                break
            el = el.getparent()
    removed: set[HtmlElement] = set()
    page_chars = _paragraph_chars(body) if any(kind == "furniture" for kind, _ in doomed) else 0
    for kind, el in doomed:
        if any(a in removed for a in el.iterancestors()) or _protected(el, kind, page_chars):
            continue
        _drop(el)
        removed.add(el)
        counts[kind] += 1
    return counts
