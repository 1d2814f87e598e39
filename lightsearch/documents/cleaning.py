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
from collections.abc import Collection

from lxml import etree
from lxml.html import HtmlElement

from lightsearch.documents.boilerplate import READ_ON

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
# A furniture word on the element that holds half the page's paragraph text names a
# feature of the article ("entry-content-read-more": a body with an expander), not furniture.
MAIN_SHARE = 0.5
TEXT_SHARE = 0.4  # ... or 40% of the text it shows (a body written in <div>s, a live ticker)
_FURNITURE_TAGS = {"div", "section", "aside", "ul", "ol", "figure", "span", "nav", "dialog"}
_ALWAYS_DROPPED = ("dialog", "template")
_READ_ON = READ_ON
READ_ON_MAX_CHARS = 300
# Every styled element, tested in Python: lowercasing @style in XPath for each element of
# the page cost twice as much (1.98 against 0.88 ms a page on the shared set).
_HIDDEN_CANDIDATES = etree.XPath(".//*[@hidden or @aria-hidden or @style] | .//dialog | .//template")
_FURNITURE_CANDIDATES = etree.XPath(
    ".//*[self::div or self::section or self::aside or self::ul or self::ol or self::figure or self::span"
    " or self::nav or self::dialog][@class or @id]")
_TEXTS = etree.XPath(".//text()[normalize-space()]")
_KEEP_TAGS = {"html", "body", "head", "main", "article"}
_MAIN_MARKERS = etree.XPath(".//article | .//main | .//*[@itemprop='articleBody'] | .//h1")


_TEXT_LENGTH = etree.XPath("string-length(normalize-space(.))")
_UNSHOWN = ("script", "style", "noscript", "template")


def _shown_chars(el: HtmlElement) -> float:
    """Characters of text ``el`` shows (scripts and styles do not count)."""
    n = _TEXT_LENGTH(el)
    for hidden in el.iter(*_UNSHOWN):
        n -= _TEXT_LENGTH(hidden)
    return n


class _Evidence:
    """Where the page's article is, read once for every pruning decision: each
    paragraph's length and the page's paragraph text, the page's shown text, the *core*
    (the element whose own paragraphs carry the most text: the candidate article's
    container) and every element that holds the core or a marker of the main content
    (``<article>``, ``<main>``, ``itemprop=articleBody``, the ``<h1>``)."""

    def __init__(self, body: HtmlElement):
        self.lengths: dict[HtmlElement, int] = {}
        own: dict[HtmlElement, int] = {}
        for p in body.iter("p"):
            n = len(p.text_content())
            self.lengths[p] = n
            parent = p.getparent()
            if parent is not None:
                own[parent] = own.get(parent, 0) + n
        self.page_chars = sum(self.lengths.values())
        self.page_text = _shown_chars(body)
        self.holders: set[HtmlElement] = set()
        anchors = list(_MAIN_MARKERS(body))
        if own:
            anchors.append(max(own, key=own.__getitem__))
        for anchor in anchors:
            if anchor in self.holders:
                continue
            self.holders.add(anchor)
            self.holders.update(anchor.iterancestors())

    def paragraph_chars(self, el: HtmlElement) -> int:
        return sum(self.lengths.get(p, 0) for p in el.iter("p"))

    def large(self, els: list[HtmlElement]) -> bool:
        """Whether ``els`` together hold ``MAIN_SHARE`` of the page's paragraph text or
        ``TEXT_SHARE`` of the text it shows."""
        if self.page_chars and sum(self.paragraph_chars(el) for el in els) >= MAIN_SHARE * self.page_chars:
            return True
        return self.page_text > 0 and sum(_shown_chars(el) for el in els) >= TEXT_SHARE * self.page_text

    def protects(self, el: HtmlElement) -> bool:
        """Whether removing ``el`` would remove the article, whatever its class says (a
        theme's ``entry share`` body, a ``gallery-main-content``, a live ticker's
        ``live-match-comments``): it holds the core or a main marker, or a large share of
        the page's paragraphs or shown text (:meth:`large`), alone or with its siblings of
        the same class (the thirty ``gallery-section`` blocks of a list article)."""
        if not isinstance(el.tag, str) or el.tag in _KEEP_TAGS or el.get("itemprop") == "articleBody":
            return True
        if el in self.holders or self.large([el]):
            return True
        parent = el.getparent()
        kind = (el.get("class") or "").split()[:1]
        if parent is None or not kind:
            return False
        group = [s for s in parent if s.tag == el.tag and (s.get("class") or "").split()[:1] == kind]
        return len(group) > 1 and self.large(group)


def _hidden(el: HtmlElement) -> bool:
    if el.get("hidden") is not None or (el.get("aria-hidden") or "").strip().lower() == "true":
        return True
    style = el.get("style")
    return bool(style) and bool(_HIDDEN_STYLE.search(style))


def _furniture_word(el: HtmlElement) -> str:
    """The furniture word of ``el``'s class or id ("gallery", "comments"), or ""."""
    if el.tag not in _FURNITURE_TAGS:
        return ""
    names = f"{el.get('class') or ''} {el.get('id') or ''}"
    found = _FURNITURE.search(names) if names.strip() else None
    return found.group(0).strip(" _-").lower() if found else ""


def _kind_of(el: HtmlElement) -> str:
    """Blocks of one kind: the tag and first class name (or the tag alone)."""
    return f"{el.tag}.{(el.get('class') or '').split(' ', 1)[0]}"


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


def prune_unseen(tree: HtmlElement, skip: Collection[str] = ()) -> dict[str, int]:
    """Remove hidden elements, furniture and read-on links from ``tree`` in place (a
    kind named in ``skip`` stays); the counts say what went (the caller reports them)."""
    counts = {"hidden": 0, "furniture": 0, "readOn": 0}
    for kind, el in find_unseen(tree, skip):
        _drop(el)
        counts[kind] += 1
    return counts


def find_unseen(tree: HtmlElement, skip: Collection[str] = ()) -> list[tuple[str, HtmlElement]]:
    """The hidden elements, furniture and read-on links of ``tree`` (outermost only) that
    do not hold the article (:meth:`_Evidence.protects`), with their kinds."""
    body = tree.find("body") if tree.tag == "html" else tree
    if body is None:
        return []
    doomed: list[tuple[str, str, HtmlElement]] = []  # (kind, group, element)
    doomed_words: list[tuple[str, HtmlElement]] = []  # furniture again, grouped by its word
    # candidates chosen in XPath (C), the precise test in Python on the few it returns
    for el in _HIDDEN_CANDIDATES(body) if "hidden" not in skip else ():
        if el.tag in _ALWAYS_DROPPED or _hidden(el):
            doomed.append(("hidden", _kind_of(el), el))
    for el in _FURNITURE_CANDIDATES(body) if "furniture" not in skip else ():
        word = _furniture_word(el)
        if word:
            doomed.append(("furniture", _kind_of(el), el))
            doomed_words.append((word.rstrip("s"), el))
    for piece in _TEXTS(body) if "readOn" not in skip else ():
        if not _READ_ON.search(piece):
            continue
        # "Read more:" starts a text node of the read-on block, its link or a <strong> in it
        el = piece.getparent()
        for _ in range(3):
            if el is None:
                break
            if _read_on(el):
                doomed.append(("readOn", _kind_of(el), el))
                break
            el = el.getparent()
    if not doomed:
        return []
    evidence = _Evidence(body)
    # Blocks of one kind that together make up most of the page are the page (a live
    # ticker's thirty "comment" entries, the hidden slides of a list article): they stay.
    members: dict[str, list[HtmlElement]] = {}
    for _, group, el in doomed:
        members.setdefault(group, []).append(el)
    for word, el in doomed_words:  # the parts of an editorial "gallery" page, whatever their classes
        members.setdefault(word, []).append(el)
    large = set()
    for group, els in members.items():
        inside = set(els)
        outer = [el for el in dict.fromkeys(els) if not any(a in inside for a in el.iterancestors())]
        if len(outer) > 1 and evidence.large(outer):
            large.add(group)
    kept = {el for word, el in doomed_words if word in large}
    chosen: dict[HtmlElement, str] = {}
    for kind, group, el in doomed:
        if el not in chosen and el not in kept and group not in large and not evidence.protects(el):
            chosen[el] = kind
    # outermost only: an element inside another doomed one goes with it
    return [(kind, el) for el, kind in chosen.items() if not any(a in chosen for a in el.iterancestors())]
