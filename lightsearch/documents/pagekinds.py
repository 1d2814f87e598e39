"""What kind of page the extracted lines come from, and what of them is its main content.

Each kind is a rule of its own, decided on what the page shows (the records its lines sit
in, :mod:`lightsearch.documents.record_groups`), the same way on every page:

* **teasers around an article**: lines from cards whose headlines link elsewhere (a rail of
  other stories, a feed of clips) are dropped when the page has an article of its own;
* **a listing**: when such cards are all the page has (a home page, a section front, an
  archive of clips), there is no main content, and the reader says so (:data:`LISTING`);
* **an archive with one entry**: when one card among them carries a whole dated entry and
  the rest are clips, the entry is the content;
* **comments under an article**: lines of a thread (records that name who wrote them) are
  dropped when the page has an article of its own and the thread does not outweigh it
  ``THREAD_RATIO`` times; a thread that does, that has no article above it, or whose
  opening is itself one of its entries (a forum, a list archive, a blog post of a few
  lines opening a long discussion) is the content;
* **the page's footer and navigation**: no line of the site's footer (``<footer>`` outside
  the article, ``role=contentinfo``, a ``footer`` id) is main content, nor a bar of links
  separated by pipes ("Privacy Policy | Terms | Contact"), nor a run of link texts opening
  or closing the reading (a layout table's menu);
* **a sidebar beside the post**: where the page's one ``<main>`` holds its headline, lines
  from outside it are not the post's (an image post read with its sidebar's "about me").

Where a rule cannot show its case, the lines stay as they were read.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from lxml.html import HtmlElement

from lightsearch.documents.record_groups import MAX_LEVELS, Group, Records, signature
from lightsearch.documents.sections import Blocks, _line_key, reading_lines

ARTICLE = "article"
THREAD = "thread"
ENTRY = "entry"
LISTING = "listing"

ARTICLE_MIN_CHARS = 500  # the page's own prose beside teaser cards: an article
LISTING_MAX_CHARS = 300  # ... and at most this much beside them: a listing
MIN_CARDS = 3  # lines from this many cards at least, for a listing
ENTRY_FACTOR = 4  # an entry is this many times longer than the other cards
ENTRY_MIN_CHARS = 1000
THREAD_RATIO = 30  # a thread this many times the article's length is the page's content
MIN_ARTICLE_FOR_COMMENTS = 200  # less prose than this outside a thread: no article above it
MIN_ENTRY_LINE = 80  # a line of prose (not a date or a name) of an entry opening a thread
_DISCUSSION = re.compile(r"comment|repl(?:y|ies)|respon|discussion|talkback|reaction|kommentar|komentar|"
                         r"commentaire|comentario|yourview|feedback|disqus", re.IGNORECASE)
_FOOTER_ID = re.compile(r"^(?:site|page|global|main|main-|site-|page-)?[-_]?footer(?:[-_]?(?:wrapper|container|area))?$",
                        re.IGNORECASE)
_PIPE_BAR = re.compile(r"\s[|·•]\s")
MIN_BAR_SEPARATORS = 2
BAR_LINK_SHARE = 0.6
MIN_LINK_RUN = 3  # short lines, each a link's whole text, at the start or end: navigation
LINK_LINE_CHARS = 60
PREFIX_CHARS = 60  # a line begins like a block this long: it was read from it
_MD_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MD_MARKS = re.compile(r"[*_`]+")


@dataclass
class Reading:
    """Lines of the extracted text with the page element each was read from."""

    lines: list[str]
    elements: list[HtmlElement | None]
    gap: str

    def text(self, keep: list[int] | None = None) -> str:
        return self.gap.join(self.lines if keep is None else [self.lines[i] for i in keep])


def line_key(line: str, markdown: bool) -> str:
    """A line of the extracted text as the page's block it was read from reads
    (:func:`block_key`): Markdown's links and emphasis marks left out."""
    if markdown:
        line = _MD_MARKS.sub("", _MD_LINK.sub(r"\1", line))
    return _line_key(line)


def first_lines(lines: list[str], markdown: bool) -> dict[str, int]:
    """Each line's key (:func:`line_key`) -> the first line of ``lines`` with it."""
    keys: dict[str, int] = {}
    for i, line in enumerate(lines):
        keys.setdefault(line_key(line, markdown), i)
    return keys


def block_key(value: str, markdown: bool) -> str:
    """A block's text, compared with :func:`line_key`."""
    return _MD_MARKS.sub("", value) if markdown else value


def reading_of(text: str, blocks: Blocks, markdown: bool) -> Reading:
    """``text`` as lines, each traced to the block of the page it repeats, or that it
    begins the same way (a paragraph whose trailing "→" or "[...]" was not read), or None."""
    gap, lines = reading_lines(text)
    index: dict[str, HtmlElement] = {}
    for el, value in blocks.items():
        if value:
            index.setdefault(block_key(value, markdown), el)
    keys = [line_key(line, markdown) for line in lines]
    elements = [index.get(key) for key in keys]
    if None in elements:
        starts: dict[str, HtmlElement] = {}
        for value, el in index.items():
            if len(value) >= PREFIX_CHARS:
                starts.setdefault(value[:PREFIX_CHARS], el)
        elements = [el if el is not None or len(key) < PREFIX_CHARS else starts.get(key[:PREFIX_CHARS])
                    for el, key in zip(elements, keys, strict=True)]
    return Reading(lines, elements, gap)


def _chars(reading: Reading, indexes) -> int:
    return sum(len(reading.lines[i]) for i in indexes)


def _discussion(group: Group) -> bool:
    """Whether the page names ``group`` a discussion: a comment, reply or response word in
    the class or id of its records or of their container (or the two above it)."""
    names = [group.parent, *list(group.parent.iterancestors())[:2], *group.members[:3]]
    return any(_DISCUSSION.search(f"{el.get('class') or ''} {el.get('id') or ''}") for el in names)


def _footer(el: HtmlElement) -> bool:
    """Whether ``el`` is in the site's footer (not an article's own footer)."""
    for a in (el, *el.iterancestors()):
        tag = a.tag
        if tag == "article":
            return False
        if tag == "footer" or a.get("role") == "contentinfo":
            return not any(b.tag == "article" for b in a.iterancestors())
        ident = a.get("id")
        if ident and _FOOTER_ID.match(ident):
            return True
    return False


def _link_bar(line: str, el: HtmlElement | None) -> bool:
    """A bar of links separated by pipes or dots, most of it link text in the page."""
    if len(_PIPE_BAR.findall(line)) < MIN_BAR_SEPARATORS or el is None:
        return False
    links = sum(len(" ".join(a.text_content().split())) for a in el.iter("a"))
    return links >= BAR_LINK_SHARE * len(" ".join(line.split()))


def _outside_main(reading: Reading, tree: HtmlElement | None) -> set[int]:
    """The lines read from outside the page's one ``<main>``, when that ``<main>`` holds
    the page's headline (``<h1>``) and some of the reading: a sidebar's text beside an
    image post, never the article."""
    if tree is None:
        return set()
    mains = list(tree.iter("main"))
    if len(mains) != 1 or next(mains[0].iter("h1"), None) is None:
        return set()
    main = mains[0]
    inside = {i for i, el in enumerate(reading.elements) if el is not None and
              (el is main or any(a is main for a in el.iterancestors()))}
    if not inside:
        return set()
    return {i for i, el in enumerate(reading.elements) if el is not None and i not in inside}


def _link_runs(reading: Reading, tree: HtmlElement | None) -> set[int]:
    """Runs of ``MIN_LINK_RUN`` or more short lines at the start or the end of the reading
    that are each the whole text of a link of the page: its navigation."""
    n = len(reading.lines)
    short = [len(line) <= LINK_LINE_CHARS and bool(line.strip()) for line in reading.lines]
    head = next((i for i in range(n) if not short[i]), n)
    tail = next((i for i in range(n - 1, -1, -1) if not short[i]), -1) + 1
    if (head < MIN_LINK_RUN and n - tail < MIN_LINK_RUN) or tree is None:
        return set()
    anchors = {" ".join(a.text_content().split()) for a in tree.iter("a")}
    found: set[int] = set()
    for run in (range(0, head), range(n - 1, tail - 1, -1)):
        linked = []
        for i in run:
            if " ".join(reading.lines[i].split()).lstrip("-* ") not in anchors:
                break
            linked.append(i)
        if len(linked) >= MIN_LINK_RUN:
            found.update(linked)
    return found


def decide(text: str, blocks: Blocks, *, markdown: bool = False, comments: bool = False,
           thread: bool = False, tree: HtmlElement | None = None) -> tuple[str, str]:
    """(main text, kind) of a page whose extracted text is ``text``: the kind is
    :data:`ARTICLE`, :data:`THREAD`, :data:`ENTRY` or :data:`LISTING` (the text is then
    empty: the page has no main content). ``comments``: a thread under an article stays;
    ``thread``: the page's discussion is its content (the caller has measured it)."""
    reading = reading_of(text, blocks, markdown)
    drop: set[int] = set()
    for i, (line, el) in enumerate(zip(reading.lines, reading.elements, strict=True)):
        if el is not None and (_footer(el) or _link_bar(line, el)):
            drop.add(i)
    drop.update(_link_runs(reading, tree))
    drop.update(_outside_main(reading, tree))
    records = Records(reading.elements)
    teasers = records.with_role("teasers")
    threads = records.with_role("thread")
    in_cards = {i for g in teasers for i in g.line_indexes()} - drop
    in_threads = {i for g in threads for i in g.line_indexes()} - drop
    outside = [i for i in range(len(reading.lines)) if i not in drop and i not in in_cards and i not in in_threads]
    article = _chars(reading, outside)
    kind = ARTICLE
    if in_cards:
        kept_cards, kind = _cards(reading, teasers, article, drop)
        if kind == LISTING:
            return "", LISTING
        if kind == ENTRY:
            return reading.text(kept_cards), ENTRY
        drop.update(in_cards - set(kept_cards))
    if in_threads or thread:
        if thread or article < MIN_ARTICLE_FOR_COMMENTS or _chars(reading, in_threads) >= THREAD_RATIO * article \
                or _opened_by_an_entry(reading, outside, threads):
            kind = THREAD
        elif not comments:
            drop.update(i for g in threads if _discussion(g) for i in g.line_indexes())
    if not drop:
        return text, kind
    return reading.text([i for i in range(len(reading.lines)) if i not in drop]), kind


def _opened_by_an_entry(reading: Reading, outside: list[int], threads: list[Group]) -> bool:
    """Whether the prose before a thread is itself one of its entries (a mailing list's
    first message, a forum's opening post, marked up as the replies are): the page is
    the thread."""
    kinds = {group.kind for group in threads}
    for i in outside:
        el = reading.elements[i]
        if el is not None and len(reading.lines[i]) >= MIN_ENTRY_LINE and \
                any(signature(a) in kinds for a in itertools.islice(el.iterancestors(), MAX_LEVELS)):
            return True
    return False


def _cards(reading: Reading, groups: list[Group], article: int, drop: set[int]) -> tuple[list[int], str]:
    """The lines of teaser cards to keep, and the page's kind. Beside an article (or a
    card that carries a whole one, ``ARTICLE_MIN_CHARS`` of lines), the clips go; with
    nothing beside them, one card ``ENTRY_FACTOR`` times longer than the others is the
    archive's :data:`ENTRY`, and cards alone are a :data:`LISTING`. Too few cards to tell
    keep their lines."""
    cards: list[tuple[int, list[int]]] = []
    for group in groups:
        for indexes in group.lines.values():
            live = [i for i in indexes if i not in drop]
            if live:
                cards.append((_chars(reading, live), live))
    every = sorted(i for _, live in cards for i in live)
    if article < ARTICLE_MIN_CHARS and len(cards) >= MIN_CARDS:
        cards.sort(key=lambda card: card[0], reverse=True)
        longest, rest = cards[0], [chars for chars, _ in cards[1:]]
        median = rest[len(rest) // 2]
        if longest[0] >= ENTRY_MIN_CHARS and longest[0] >= ENTRY_FACTOR * max(1, median):
            return sorted(longest[1]), ENTRY
        if article <= LISTING_MAX_CHARS and longest[0] < ARTICLE_MIN_CHARS:
            return [], LISTING
    whole = sorted(i for chars, live in cards if chars >= ARTICLE_MIN_CHARS for i in live)
    if article >= ARTICLE_MIN_CHARS or whole:
        return whole, ARTICLE
    return every, ARTICLE
