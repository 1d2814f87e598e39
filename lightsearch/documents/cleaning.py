"""What a reader never sees, removed from a page before its main text is chosen.

trafilatura decides what the article is from the markup, not from what a browser shows,
so three classes of page fooled it:

* **hidden content** -- text inside ``hidden``, ``aria-hidden="true"`` or inline
  ``display:none`` / ``visibility:hidden`` elements (collapsed menus, off-screen
  templates, duplicated mobile copies) was returned as article text;
* **page furniture** -- picture galleries and carousels, video players and their
  modals, "recommended"/"trending" rails: their captions and labels read like prose;
* **edit controls** -- a wiki's ``[edit]`` link beside every heading: the site's
  control, which trafilatura kept as a line of text (:func:`edit_controls`);
Readability.js drops the first class the same way (``_isProbablyVisible``). A read-on
link ("Read more: <other headline>") is dropped from the extracted text instead
(:func:`lightsearch.documents.sections.drop_labels`): scanning every text of the page for
one cost more than the rest of pruning and changed nothing the text step does not.

A class word alone decides nothing (a theme's ``entry share`` body, a live
ticker's ``live-match-comments`` and an editorial ``gallery-main-content`` pruned with the
article in them): an element stays when the page's evidence says it holds the article
(:class:`_Evidence`): a main marker (``<article>``, ``<main>``, ``itemprop=articleBody``,
the ``<h1>``) or the core (the container whose own paragraphs carry the most text), or a
large share of the page's paragraphs or shown text, alone, with its siblings of the same
class, or with all the blocks of its kind on the page. The caller keeps the unpruned
extraction when pruning leaves almost nothing (a page that hides its body until a script
reveals it).
"""

from __future__ import annotations

import re
from collections.abc import Collection

from lxml import etree
from lxml.html import HtmlElement

_HIDDEN_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)",
                           re.I)
_WORD_BREAK = re.compile(r"[\s_-]+")
# Class and id words of furniture trafilatura's own discard list does not know (it already
# drops share bars, related/next rails, slides, overlays, newsletters, ads), and word pairs.
_FURNITURE_WORDS = frozenset((
    "gallery", "galleries", "carousel", "slideshow", "lightbox", "modal", "popup", "jwplayer",
    "vjs", "videoplayer", "mediaplayer", "readmore", "recommended", "recommendations",
    "trending", "mostread", "youmaylike", "recirc", "recirculation", "comment", "comments",
    "disqus", "respond", "subscribe", "subscribeform", "subscription", "newsletter",
    "newsletters", "signup", "share", "sharebar", "sharebutton", "sharebuttons", "sharetools",
    "sharecompact", "sharecaption", "cookiemsg", "cookienotice", "cookiebanner", "cookiebar",
    "cookieconsent", "cookiemessage", "cookielaw", "cookiepopup", "commentlist", "commentform",
    "commentsection", "commentthread", "playerwrapper", "playercontainer", "playercontrols",
))
_FURNITURE_PAIRS = frozenset(tuple(pair.split("-")) for pair in (
    "video-player", "media-player", "player-wrapper", "player-container",
    "player-controls", "read-more", "most-read", "comment-list", "comment-form",
    "comment-section", "comment-thread", "subscribe-form", "sign-up", "share-button",
    "share-buttons", "share-tools", "share-compact", "share-caption", "cookie-msg",
    "cookie-notice", "cookie-banner", "cookie-bar", "cookie-consent", "cookie-message",
    "cookie-law", "cookie-popup",
))
# the furniture words of a comment section (not of its form), kept when comments are asked for
_COMMENT_WORDS = frozenset(("comment", "comments", "disqus", "commentlist", "commentsection", "commentthread",
                            "comment-list", "comment-section", "comment-thread"))
# A furniture word on the element that holds half the page's paragraph text names a
# feature of the article ("entry-content-read-more": a body with an expander), not furniture.
MAIN_SHARE = 0.5
TEXT_SHARE = 0.4  # ... or 40% of the text it shows (a body written in <div>s, a live ticker)
_FURNITURE_TAGS = ("div", "section", "aside", "ul", "ol", "figure", "span", "nav", "dialog")
_ALWAYS_DROPPED = ("dialog", "template")
# (a self:: test per element in XPath cost more than a second, tag-filtered pass in C; the
# attributes walked cost less than every element tested for them, and one walk for the
# hiding attributes and the main content's itemprop a third of a walk for each; that walk
# starts at the context element's own attributes, which :func:`_inside` and the hidden
# step leave out)
_HIDING_AND_MAIN = etree.XPath(".//@hidden | .//@aria-hidden | .//@style | .//@itemprop[. = 'articleBody']")
_MAIN_TAGS = ("article", "main", "h1")
_KEEP_TAGS = {"html", "body", "head", "main", "article"}
_ARTICLE_BODY = etree.XPath(".//@itemprop[. = 'articleBody']/..")


def _inside(xpath: etree.XPath, el: HtmlElement) -> list[HtmlElement]:
    """What ``xpath`` (a ``.//@name/..`` walk) finds below ``el``, not ``el`` itself."""
    return [found for found in xpath(el) if found is not el]


_TEXT_LENGTH = etree.XPath("string-length(normalize-space(.))")
# Edit controls: wiki edit-section classes (MediaWiki and its hosts, DokuWiki), and links
# by a heading whose address asks for the edit form (see edit_controls)
_EDIT_CLASSES = frozenset(("editsection", "secedit"))  # class words (mw-editsection: "mw", "editsection")
_EDIT_SECTION = "edit-section"
_EDIT_QUERIES = frozenset(("action=edit", "veaction=edit", "veaction=editsource", "action=submit", "do=edit"))
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CLOSING = {"]": "[", ")": "("}
MAX_CONTROL_CHARS = 40  # an edit control says "[edit]" or "[edit source]", never a paragraph
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

    def __init__(self, body: HtmlElement, texts: dict[HtmlElement, str] | None = None,
                 markers: list[HtmlElement] | None = None):
        """``markers``: the page's main-content markers when the caller has found them."""
        self.body = body
        self.lengths: dict[HtmlElement, int] = {}
        own: dict[HtmlElement, int] = {}
        paragraphs = ((p, len(t)) for p, t in texts.items() if p.tag == "p") if texts is not None else \
            ((p, len(p.text_content())) for p in body.iter("p"))
        for p, n in paragraphs:
            self.lengths[p] = n
            parent = p.getparent()
            if parent is not None:
                own[parent] = own.get(parent, 0) + n
        self.page_chars = sum(self.lengths.values())
        self._page_text: float | None = None
        self._shown: dict[HtmlElement, float] = {}
        self.holders: set[HtmlElement] = set()
        anchors = [*body.iter(*_MAIN_TAGS), *_inside(_ARTICLE_BODY, body)] if markers is None else list(markers)
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
        shown = sum(self.shown(el) for el in els)
        if shown <= 0:  # nothing shown is no share of anything: the page's text is not read for it
            return False
        if self._page_text is None:
            self._page_text = _shown_chars(self.body)
        return self._page_text > 0 and shown >= TEXT_SHARE * self._page_text

    def shown(self, el: HtmlElement) -> float:
        if el not in self._shown:
            self._shown[el] = _shown_chars(el)
        return self._shown[el]

    def protects(self, el: HtmlElement, by_size: bool = True) -> bool:
        """Whether removing ``el`` would remove the article, whatever its class says (a
        theme's ``entry share`` body, a ``gallery-main-content``, a live ticker's
        ``live-match-comments``): it holds the core or a main marker, or (``by_size``) a
        large share of the page's paragraphs or shown text (:meth:`large`), alone or with
        its siblings of the same class (the thirty ``gallery-section`` blocks of a list
        article)."""
        if not isinstance(el.tag, str) or el.tag in _KEEP_TAGS or el.get("itemprop") == "articleBody":
            return True
        if el in self.holders:
            return True
        if not by_size:
            return False
        if self.large([el]):
            return True
        parent = el.getparent()
        kind = (el.get("class") or "").split()[:1]
        if parent is None or not kind:
            return False
        group = [s for s in parent if s.tag == el.tag and (s.get("class") or "").split()[:1] == kind]
        return len(group) > 1 and self.large(group)


def _shown_kin(els: list[HtmlElement], hidden: set[HtmlElement]) -> bool:
    """Whether a sibling of one of ``els``, of its tag and first class, is shown."""
    for el in els:
        parent = el.getparent()
        kind = (el.get("class") or "").split()[:1]
        if parent is not None and any(s.tag == el.tag and s not in hidden and (s.get("class") or "").split()[:1] == kind
                                      for s in parent):
            return True
    return False


def _hidden_by_attribute(el: HtmlElement) -> bool:
    if el.tag in _ALWAYS_DROPPED or el.get("hidden") is not None:
        return True
    aria = el.get("aria-hidden")
    return bool(aria) and aria.strip().lower() == "true"


def _names(el: HtmlElement) -> str:
    names = el.get("class")
    ident = el.get("id")
    if ident:
        names = f"{names} {ident}" if names else ident
    return names or ""


def _furniture_word(names: str) -> str:
    """The furniture word of a class and id string ("gallery", "comments"), or "".

    The string is split into words (at spaces, hyphens and underscores) and the words
    looked up: the same matches as a pattern of furniture words between separators, at a
    third of its cost (such an alternation is tried at every position of every string);
    most strings share no word with the tables at all, which one set operation says."""
    words = _WORD_BREAK.split(names.lower())
    if _FIRST_WORDS.isdisjoint(words):
        return ""
    for i, word in enumerate(words):
        if word in _FURNITURE_WORDS:
            return word
        if word in _EDIT_CLASSES:
            return _EDIT_SECTION
        nxt = words[i + 1] if i + 1 < len(words) else ""
        if nxt and (word, nxt) in _FURNITURE_PAIRS:
            return f"{word}-{nxt}"
        if word == "you" and words[i + 1:i + 3] == ["may", "like"]:
            return "you-may-like"
    return ""


# every word a match of :func:`_furniture_word` starts with
_FIRST_WORDS = _FURNITURE_WORDS | _EDIT_CLASSES | {first for first, _ in _FURNITURE_PAIRS} | {"you"}


def _kind_of(el: HtmlElement) -> str:
    """Blocks of one kind: the tag and first class name (or the tag alone)."""
    return f"{el.tag}.{(el.get('class') or '').split(' ', 1)[0]}"


def _drop(el: HtmlElement, unbracket: bool = False) -> None:
    """Remove ``el`` but keep its tail text, which belongs to the parent; ``unbracket``:
    with the brackets around it ("[<a>edit</a>]")."""
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    previous = el.getprevious()
    if unbracket and tail and tail.lstrip()[:1] in _CLOSING:
        before = previous.tail if previous is not None else parent.text
        opening = _CLOSING[tail.lstrip()[0]]
        if before and before.rstrip().endswith(opening):
            stripped = before.rstrip()[:-1]
            if previous is not None:
                previous.tail = stripped
            else:
                parent.text = stripped
            tail = tail.lstrip()[1:]
    if tail:
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def prune_unseen(tree: HtmlElement, skip: Collection[str] = (),
                 texts: dict[HtmlElement, str] | None = None, comments: bool = False,
                 threads: list[HtmlElement] | None = None) -> dict[str, int]:
    """Remove hidden elements and furniture from ``tree`` in place (a kind named in
    ``skip`` stays; ``comments``: comment sections stay too); the counts say what went
    (the caller reports them). ``threads`` receives the page's comment sections (the
    outermost, removed or not, in page order).

    ``texts``, the caller's paragraph-like elements with their normalised text (read
    once for every step), lends its paragraph lengths to the evidence and loses the
    entries of what was removed."""
    counts = {"hidden": 0, "furniture": 0, "edits": 0}
    stale: set[HtmlElement] = set()
    for kind, el in find_unseen(tree, skip, texts, comments, threads):
        if texts:
            for inner in el.iter():
                texts.pop(inner, None)
            stale.update(a for a in el.iterancestors() if a in texts)
        _drop(el, unbracket=kind == "edits")
        counts[kind] += 1
    for el in stale:  # a paragraph that lost a hidden span reads differently now
        texts[el] = " ".join(el.text_content().split())
    return counts


def find_unseen(tree: HtmlElement, skip: Collection[str] = (),
                texts: dict[HtmlElement, str] | None = None, comments: bool = False,
                threads: list[HtmlElement] | None = None) -> list[tuple[str, HtmlElement]]:
    """The hidden elements and furniture of ``tree`` that do not hold the article
    (:meth:`_Evidence.protects`), and its edit controls, with their kinds (outermost only)."""
    body = tree.find("body") if tree.tag == "html" else tree
    if body is None:
        return []
    edits: list[HtmlElement] = []
    tagged = _Tagged(body)
    found = _hidden_and_furniture(body, skip, texts, edits, tagged, comments, threads)
    if "edits" in skip:
        return found
    edits.extend(_edit_links(tagged.headings))
    if not edits:
        return found
    chosen = {el: kind for kind, el in found}
    for el in edits:
        if _TEXT_LENGTH(el) <= MAX_CONTROL_CHARS:
            chosen.setdefault(el, "edits")
    return [(kind, el) for el, kind in chosen.items() if not any(a in chosen for a in el.iterancestors())]


def edit_controls(body: HtmlElement) -> list[HtmlElement]:
    """The page's controls for editing it, outermost only (what the ``edits`` step
    removes): a wiki's ``[edit]`` beside each heading is the site's control, never the
    article's words. An element with a wiki's edit-section class (MediaWiki's
    ``mw-editsection``, DokuWiki's ``secedit``), or a link in or just after a heading whose
    address asks for the edit form (``action=edit``, ``veaction=edit``, ``do=edit``: a wiki
    in any language)."""
    return [el for kind, el in find_unseen(body, skip=("hidden", "furniture")) if kind == "edits"]


class _Tagged:
    """The elements of a page's body that pruning looks at by their tag, in document
    order, from one tag-filtered walk (not a walk for each): what is
    always dropped, the markers of the main content, the headings."""

    def __init__(self, body: HtmlElement):
        self.dropped: list[HtmlElement] = []
        self.markers: list[HtmlElement] = []
        self.headings: list[HtmlElement] = []
        for el in body.iter(*_ALWAYS_DROPPED, *_MAIN_TAGS, *_HEADINGS):
            tag = el.tag
            if tag in _ALWAYS_DROPPED:
                self.dropped.append(el)
                continue
            if tag in _MAIN_TAGS:
                self.markers.append(el)
            if tag in _HEADINGS:
                self.headings.append(el)


def _edit_links(headings: list[HtmlElement]) -> list[HtmlElement]:
    """Links in or right after a heading that ask for the edit form (the headings found
    by a tag-filtered walk: an XPath over every link of the page cost a millisecond a page)."""
    out = []
    for heading in headings:
        after = heading.getnext()
        links = [*heading.iter("a"), *([after] if after is not None and after.tag == "a" else [])]
        for a in links:
            query = (a.get("href") or "").lower().partition("#")[0].partition("?")[2]
            if query and any(pair in _EDIT_QUERIES for pair in query.split("&")):
                out.append(a)
    return out


def _hidden_and_furniture(body: HtmlElement, skip: Collection[str], texts: dict[HtmlElement, str] | None,
                          edits: list[HtmlElement], tagged: _Tagged, comments: bool = False,
                          threads: list[HtmlElement] | None = None) -> list[tuple[str, HtmlElement]]:
    """What :func:`find_unseen` removes as hidden or furniture; the elements of an edit
    section class are added to ``edits`` (found in the same walk over classes)."""
    markers: list[HtmlElement] | None = None  # found with the hidden ones, when they are looked for
    doomed: list[tuple[str, str, HtmlElement]] = []  # (kind, group, element)
    doomed_words: list[tuple[str, HtmlElement]] = []  # furniture again, grouped by its word
    # Candidates chosen in C (an XPath, a tag filter), the precise tests in Python on the
    # few they return: one Python pass over every element cost twice as much.
    if "hidden" not in skip:
        by_attribute: dict[HtmlElement, None] = {}  # in document order, each once
        by_style: list[HtmlElement] = []
        markers = list(tagged.markers)
        for value in _HIDING_AND_MAIN(body):
            el = value.getparent()
            name = value.attrname
            if name == "itemprop":
                if el is not body:
                    markers.append(el)
            elif name == "style":
                # inline styles read as strings, the few that can hide looked at closely
                low = value.lower()
                if ("none" in low or "hidden" in low) and _HIDDEN_STYLE.search(value):
                    by_style.append(el)
            elif el is not body:
                by_attribute[el] = None
        for el in (*by_attribute, *tagged.dropped):
            if _hidden_by_attribute(el):
                doomed.append(("hidden", _kind_of(el), el))
        for el in by_style:
            if not _hidden_by_attribute(el):  # found above already
                doomed.append(("hidden", _kind_of(el), el))
    words: dict[str, str] = {}  # class strings repeat ("item", "col-4"): each split once
    seen_threads: set[HtmlElement] = set()  # the outermost comment sections
    commented: dict[HtmlElement, bool] = {}  # elements named for comments
    furniture, editing = "furniture" not in skip, "edits" not in skip
    for el in body.iter(*_FURNITURE_TAGS) if furniture or editing else ():
        names = _names(el)
        if not names:
            continue
        word = words.get(names)
        if word is None:
            word = words[names] = _furniture_word(names)
        if word == _EDIT_SECTION:
            if editing:
                edits.append(el)
        elif word and furniture:
            if word in _COMMENT_WORDS:
                commented[el] = True
                if threads is not None and not any(a in seen_threads for a in el.iterancestors()):
                    threads.append(el)
                    seen_threads.add(el)
                if comments:
                    continue
            doomed.append(("furniture", _kind_of(el), el))
            doomed_words.append((word.rstrip("s"), el))
    if not doomed:
        return []
    evidence = _Evidence(body, texts, markers)
    # Blocks of one kind that together make up most of the page are the page (a live
    # ticker's thirty "comment" entries, the hidden slides of a list article): they stay.
    members: dict[str, list[HtmlElement]] = {}
    for _, group, el in doomed:
        members.setdefault(group, []).append(el)
    for word, el in doomed_words:  # the parts of an editorial "gallery" page, whatever their classes
        members.setdefault(word, []).append(el)
    hidden = {el for kind, _, el in doomed if kind == "hidden"}
    large = set()
    for group, els in members.items():
        inside = set(els)
        if len(inside) < 2:
            continue  # a block alone is judged alone, below
        outer = [el for el in dict.fromkeys(els) if not any(a in inside for a in el.iterancestors())]
        # hidden blocks are the page only beside a shown one of their kind (the first
        # section of a list article); a hidden slideshow beside an article is not
        if len(outer) > 1 and evidence.large(outer) and (
                not inside <= hidden or _shown_kin(outer, hidden)):
            large.add(group)
    kept = {el for word, el in doomed_words if word in large}
    chosen: dict[HtmlElement, str] = {}
    for kind, group, el in doomed:
        # a hidden element is kept for what it holds (the core, a main marker), never for
        # its size alone: a hidden slideshow can outweigh the article beside it
        if el not in chosen and el not in kept and group not in large and \
                not evidence.protects(el, by_size=kind != "hidden"):
            chosen[el] = kind
    # a comment section that stays keeps its parts named for comments (their authors, dates)
    kept_threads = {el for el in seen_threads if el not in chosen}
    if kept_threads:
        for el in [el for el in chosen if commented.get(el) and any(a in kept_threads for a in el.iterancestors())]:
            del chosen[el]
    # outermost only: an element inside another doomed one goes with it
    return [(kind, el) for el, kind in chosen.items() if not any(a in chosen for a in el.iterancestors())]
