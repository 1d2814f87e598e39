"""Readable main text of one page for web_fetch: title, byline, language, dates, text.

Light's :mod:`lightsearch.documents.html_extract` favours precision (ranking snippets); a
reader wants the whole article, so this extractor runs trafilatura in its balanced
default mode, which scored best on the shared article-extraction benchmark
(``benchmarks/extraction.py``), keeps tables, and can emit Markdown. Dates come from
the page's own metadata first, as in Light.

The page is parsed once; metadata, pruning (:mod:`~lightsearch.documents.cleaning`),
trafilatura and the text steps (:mod:`~lightsearch.documents.sections`,
:mod:`~lightsearch.documents.repeats`) all read that one tree, whose paragraph texts are
read once too. Each cleaning step has a name in :data:`STEPS` and can be left out
(``skip=``), which is how the benchmark measures what each is worth on every set.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

import trafilatura
from lxml import etree
from lxml.html import (
    HtmlComment,
    HtmlElement,
    HtmlEntity,
    HTMLParser,
    HtmlProcessingInstruction,
    document_fromstring,
    fromstring,
)
from parsel import Selector
from trafilatura.utils import DOCTYPE_TAG, FAULTY_HTML, is_dubious_html, repair_faulty_html

from lightsearch.documents.anchors import escaped_ampersands, resolve_links
from lightsearch.documents.cleaning import prune_unseen
from lightsearch.documents.doubt import better, doubt_of
from lightsearch.documents.html_extract import (
    _ISO_DATE,
    _fallback_text,
    guarded,
)
from lightsearch.documents.loose_text import restore_loose_text
from lightsearch.documents.lost_lists import restore_lists
from lightsearch.documents.pagekinds import ARTICLE, THREAD, THREAD_RATIO, decide
from lightsearch.documents.pagemeta import (
    PageMeta,
    declared,
    searched_date,
    searched_title,
    site_name,
)
from lightsearch.documents.repeats import restore_repeats
from lightsearch.documents.second_reading import second_reading
from lightsearch.documents.sections import (
    block_texts,
    drop_copies,
    drop_labels,
    head_of,
    join_sections,
    restore_standfirst,
    strip_head,
    strip_tail,
)
from lightsearch.documents.structure import restore_structure, space_fences
from lightsearch.documents.tables import unwrap_layout_tables
from lightsearch.documents.threads import read_thread, thread_chars
from lightsearch.documents.titles import choose_title, headings
from lightsearch.documents.xmlsafe import scrubbed_utf8

THIN_CHARS = 200  # pruned text shorter than this is compared with the page's read with its hidden parts
# The cleaning steps around trafilatura, in the order they run, each of which can be
# switched off (``skip=``) so benchmarks/extraction.py measures what each is worth.
STEPS = ("hidden", "furniture", "edits", "tables", "second", "repeats", "loose", "lists", "copies", "sections", "lead",
         "standfirst", "title", "head", "tail", "labels", "kinds")

# The page's own byline markup, in order, when its head declares no author (trafilatura's
# body-wide author search costs more than the rest of the metadata together on many
# pages, docs/EVALUATION.md, and is left out).
# (the attributes walked, not every element tested: half the time, the same elements in
# document order)
_BYLINES = etree.XPath("//@rel[. = 'author']/.. | //@itemprop[. = 'author']/.. | //@class[contains(., 'byline')]/..")
_LANGUAGE = tuple(etree.XPath(xp) for xp in (
    "/html/@lang", "/html/@xml:lang", "//meta[@http-equiv='content-language']/@content"))


@dataclass
class Readable:
    title: str | None
    text: str
    byline: str | None = None
    language: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    site_name: str | None = None
    description: str | None = None
    # what the page is (lightsearch.documents.pagekinds): "article", "thread", "entry", or
    # "listing" (links to other pages and no main content of its own: ``text`` is empty)
    kind: str = ARTICLE


def _clean(value: str | None) -> str | None:
    text = " ".join((value or "").split())
    return text or None


def main_text(html: str, url: str | None = None, *, markdown: bool = False,
              skip: Collection[str] = (), comments: bool = False) -> str:
    """Just the main text; ExtractionError when the page cannot be read at all.
    ``skip`` names cleaning steps (:data:`STEPS`) to leave out; ``comments`` keeps a
    thread under an article."""
    html, data = scrubbed_utf8(html)
    skip = _checked(skip)
    def read() -> str:
        tree = _parsed(html, data)
        meta = declared(tree, url) if tree is not None else None
        return _main_text(html, tree, url, markdown, skip, meta, comments)[0]

    return guarded("extraction", read)


def _checked(skip: Collection[str]) -> frozenset[str]:
    unknown = set(skip) - set(STEPS)
    if unknown:
        raise ValueError(f"skip: unknown cleaning steps {sorted(unknown)} (known: {', '.join(STEPS)})")
    return frozenset(skip)


# trafilatura's parser settings, with lxml's C-level class lookup (every element an
# HtmlElement) in place of lxml.html's Python one, which runs for every element object made:
# trafilatura reads the tree faster, to the same text (docs/EVALUATION.md).
_PARSER = HTMLParser(collect_ids=False, default_doctype=False, encoding="utf-8", remove_comments=True,
                     remove_pis=True)
_PARSER.set_element_class_lookup(etree.ElementDefaultClassLookup(
    element=HtmlElement, comment=HtmlComment, pi=HtmlProcessingInstruction, entity=HtmlEntity))


def _parsed(html: str, data: bytes | None = None) -> HtmlElement | None:
    """The page as one tree for metadata, pruning and extraction (parsed once), the way
    trafilatura's loader parses it. A bare fragment (one element, no ``<html>``), which
    that loader refuses, is wrapped in a document instead, as a browser would.

    The parser reads UTF-8 bytes (``data``: ``html`` encoded, when the caller has them),
    faster than the string, to the same tree."""
    if not html or not html.strip():
        return None
    beginning = html[:50].lower()
    data = _repaired(html, beginning, data)
    tree = None
    with contextlib.suppress(etree.ParserError, ValueError):
        tree = fromstring(data, parser=_PARSER)
    if tree is None or (is_dubious_html(beginning) and len(tree) < 2):
        tree = None
        with contextlib.suppress(etree.ParserError, ValueError):
            tree = document_fromstring(html, parser=_PARSER)
    return tree


# the characters trafilatura's repair removes (INVALID_XML_CHARS), each looked for alone
_REMOVED_CHARS = (*(chr(c) for c in range(0x20) if c not in (0x9, 0xA, 0xD)), "\ufffe", "\uffff")


def _repaired(html: str, beginning: str, data: bytes | None) -> bytes:
    """The UTF-8 bytes of trafilatura's ``repair_faulty_html(html, beginning)`` (``data``,
    ``html``'s own, when the repair changes nothing). A page without a character the repair removes (all
    but a few) is repaired here without the repair's regular expression over the whole
    page (a search for each such character is cheaper than the expression), by
    the repair's own other two steps, which touch only its first lines."""
    if data is None or any(c in html for c in _REMOVED_CHARS):
        return repair_faulty_html(html, beginning).encode("utf-8", "surrogatepass")
    text = html
    if "doctype" in beginning:
        first, newline, rest = html.partition("\n")
        fixed = DOCTYPE_TAG.sub("", first, count=1)
        if fixed != first or not newline:
            text = fixed + "\n" + rest
    for line in text[:4096].splitlines()[:4]:
        if "<html" in line and line.endswith("/>"):
            text = FAULTY_HTML.sub(r"\1>", text, count=1)
            break
    return data if text is html else text.encode("utf-8", "surrogatepass")


def _trafilatura(tree: HtmlElement, url: str | None, markdown: bool) -> str:
    return _reading(tree, markdown, lambda: _trafilatura_once(tree, url, markdown))


def _second(tree: HtmlElement, first: str, why: str, url: str | None, markdown: bool,
            sections: list[HtmlElement]) -> str:
    """The second reading of a page whose first reading ``first`` is doubtful for ``why``
    (:mod:`lightsearch.documents.second_reading`), on the same tree as it was read, without
    its comment sections ``sections``."""
    return _reading(tree, markdown, lambda: second_reading(tree, first, why, url, markdown, sections))


def _reading(tree: HtmlElement, markdown: bool, read: Callable[[], str]) -> str:
    """``read()`` with the page's scripts set aside, its ``<time>`` elements read as the
    text they are (and, for Markdown, its bare ampersands escaped)."""
    with _scripts_set_aside(tree), _times_as_text(tree):
        if markdown:
            with escaped_ampersands(tree):
                return read()
        return read()


_PROSE_BLOCKS = ("p", "li", "dd", "blockquote", "td")
_WORD = re.compile(r"\w{2,}")


@contextlib.contextmanager
def _times_as_text(tree: HtmlElement) -> Iterator[None]:
    """The page's ``<time>`` elements inside a sentence as plain inline elements while
    trafilatura reads it, then as they were. trafilatura deletes every ``<time>`` with its
    text, which cuts the date out of a sentence ("The council met on <time>2
    November</time> and voted" read as "met on and voted"). A ``<time>`` is in a
    sentence when words stand before it and after it in its paragraph; a dateline's
    ("Published: <time>..</time>") has none after it and is left as trafilatura takes it."""
    times = [el for el in tree.iter("time") if _in_sentence(el)]
    for el in times:
        el.tag = "span"
    try:
        yield
    finally:
        for el in times:
            el.tag = "time"


def _in_sentence(el: HtmlElement) -> bool:
    """Whether words stand before and after ``el`` within its paragraph."""
    if not _WORD.search(el.tail or ""):
        return False
    holders = set(el.iterancestors())
    block = next((a for a in el.iterancestors() if a.tag in _PROSE_BLOCKS), None)
    if block is None:
        return False
    for node in block.iter():  # the text before it, in document order
        if node is el:
            return False
        if isinstance(node.tag, str) and node.text and _WORD.search(node.text):
            return True
        if node is not block and node not in holders and node.tail and _WORD.search(node.tail):
            return True
    return False


@contextlib.contextmanager
def _scripts_set_aside(tree: HtmlElement) -> Iterator[None]:
    """The page without its scripts (but JSON-LD) and styles while trafilatura reads it,
    then as it was. trafilatura reads none of them: its extraction deletes them before it
    reads (keeping their tails, as here), readability drops them first, justext, the
    baseline and the page measure read trees cleaned of them, and of scripts it reads
    JSON-LD alone; but it copies the page first, and inline scripts and styles are often
    most of a page's bytes. Each goes back where it was, with its tail, and the text its
    tail was joined to is as it was."""
    places = []
    # holder -> (attribute, its value before, the tails joined to it): where trafilatura's
    # deletion joins each tail; written once per holder, as a tail appended at a time makes
    # many sibling scripts quadratic (so would finding each one's index)
    joins: dict[HtmlElement, tuple[str, str | None, list[str]]] = {}
    for el in [el for el in tree.iter("script", "style") if el.get("type") != "application/ld+json"]:
        parent = el.getparent()
        if parent is None:
            continue
        previous = el.getprevious()  # its place is kept by its neighbour, not its index
        if el.tail:
            holder, attribute = (parent, "text") if previous is None else (previous, "tail")
            if holder not in joins:
                joins[holder] = (attribute, getattr(holder, attribute), [])
            joins[holder][2].append(el.tail)
        places.append((parent, previous, el))
        parent.remove(el)  # its tail goes with it, and comes back with it
    for holder, (attribute, before, tails) in joins.items():
        setattr(holder, attribute, (before or "") + "".join(tails))
    try:
        yield
    finally:
        # the last set aside goes back first, so each one's neighbour is in place again
        for parent, previous, el in reversed(places):
            if previous is None:
                parent.insert(0, el)
            else:
                previous.addnext(el)
        for holder, (attribute, before, _) in joins.items():
            setattr(holder, attribute, before)


def _trafilatura_once(tree: HtmlElement, url: str | None, markdown: bool) -> str:
    """trafilatura's main text in its fast mode: its own rules, without the comparison with
    readability-lxml's scoring and jusText that its default mode runs on every page; the
    reader asks for those only where the first reading is doubtful
    (:mod:`lightsearch.documents.doubt`, :mod:`lightsearch.documents.second_reading`)."""
    text = trafilatura.extract(
        tree,
        url=url,
        output_format="markdown" if markdown else "txt",
        include_comments=False,
        include_tables=True,
        fast=True,
        include_formatting=markdown,
        include_links=markdown,
        deduplicate=False,
    )
    return (text or "").strip()


def _main_text(html: str, tree: HtmlElement | None, url: str | None, markdown: bool,
               skip: frozenset[str], meta: PageMeta | None, comments: bool = False) -> tuple[str, str | None, str]:
    """(text, title, kind): trafilatura on the page as a reader sees it (hidden elements
    and furniture pruned, :mod:`lightsearch.documents.cleaning`), with the page's repeated
    paragraphs restored, and what of it is main content for the page's kind
    (:func:`lightsearch.documents.pagekinds.decide`; a listing's text is empty).
    ``comments``: a thread under an article is kept. ``tree`` is pruned in place."""
    if tree is None or meta is None:
        return "", None, ARTICLE
    blocks = block_texts(tree)  # read once, for pruning's evidence and every step after it
    sections: list[HtmlElement] = []  # the page's comment sections
    pruned = prune_unseen(tree, skip=skip, texts=blocks, comments=comments, threads=sections)
    if "tables" not in skip:
        unwrap_layout_tables(tree)
    # pruned: a hidden <h1> is no title
    found = headings(tree)  # <title> and <h1> elements, for the title and the head strip
    title = choose_title(Selector(root=tree), url, meta.title, meta.headlines, meta.metas, found) or \
        _clean(searched_title(tree))
    head = head_of(meta.metas, found[0])
    # Markdown keeps links: each resolved against the page (trafilatura joins to the root)
    base = resolve_links(tree, url) if markdown else url
    text = _trafilatura(tree, url, markdown)
    if pruned["hidden"] and len(text) < THIN_CHARS:
        # a page that hides its body until a script shows it: read it with what it hides
        # (its furniture still pruned: a thin post is not read as its share and sign-up boxes)
        whole = _parsed(html)
        if whole is not None:
            whole_blocks = block_texts(whole)
            prune_unseen(whole, skip={*skip, "hidden"}, texts=whole_blocks, comments=comments)
            if "tables" not in skip:
                unwrap_layout_tables(whole)
            if markdown:
                resolve_links(whole, url)
            marked_up = _trafilatura(whole, url, markdown)
            if len(marked_up) > len(text):
                text, tree, blocks = marked_up, whole, whole_blocks
    discussion = bool(sections) and thread_chars(sections) >= THREAD_RATIO * len(text)
    # a page whose discussion is its content is read as that; otherwise a doubtful first
    # reading is read again (a comment section left out is no article left out)
    doubt = doubt_of(text, blocks, markdown, sections) if "second" not in skip and not discussion else None
    if doubt is not None:
        second = _second(tree, text, doubt, url, markdown, sections)
        if better(text, second, doubt):
            text = second
            discussion = bool(sections) and thread_chars(sections) >= THREAD_RATIO * len(text)
    thread: list[str] = []
    if sections and (comments or discussion):
        # comments asked for, or a discussion that outweighs the post above it: the page's
        # content, after the post (the text steps below are the post's)
        thread = read_thread(sections, {" ".join(line.split()) for line in text.split("\n")})
    if text:
        if "repeats" not in skip:
            text = restore_repeats(text, tree, blocks)
        if "loose" not in skip:
            text = restore_loose_text(text, blocks, markdown)
        if "lists" not in skip:
            text = restore_lists(text, blocks, markdown)
        if "copies" not in skip:
            text = drop_copies(text)
        if "sections" not in skip or "lead" not in skip:
            text = join_sections(text, tree, blocks, sections="sections" not in skip, lead="lead" not in skip,
                                 head=head)
        if "standfirst" not in skip:
            text = restore_standfirst(text, tree, blocks, head)
        if "title" not in skip or "head" not in skip:
            # title: a line repeating the title; head: datelines, labels, the URL on top
            text = strip_head(text, tree, blocks, title, head, repeats="title" not in skip,
                              others="head" not in skip)
        if "tail" not in skip:
            text = strip_tail(text, tree, blocks)
        if "labels" not in skip:
            text = drop_labels(text, tree, blocks)
    elif not thread:
        text = _fallback_text(Selector(root=tree))
    kind = ARTICLE
    if text and "kinds" not in skip:
        text, kind = decide(text, blocks, markdown=markdown, comments=comments, thread=discussion, tree=tree)
    if text and markdown:
        text = space_fences(restore_structure(text, tree, base))
    if thread:
        text = ("\n\n" if markdown else "\n").join([text, *thread]).strip()
    return text, title, THREAD if discussion else kind


_PUBLISHED_KEYS = ("property=article:published_time", "name=article:published_time", "itemprop=datepublished",
                   "name=date", "name=dc.date", "name=dc.date.issued")
_MODIFIED_KEYS = ("property=article:modified_time", "property=og:updated_time", "itemprop=datemodified",
                  "name=last-modified")
_ARTICLE_TIME = etree.XPath("//article//time[@datetime][1]/@datetime")


def _first_date(tree: HtmlElement, meta: PageMeta, keys: tuple[str, ...]) -> str | None:
    """The first ISO date among the page's date meta tags, in ``keys`` order (the same
    order as Light's ``_PUBLISHED_XPATHS``/``_MODIFIED_XPATHS``), then its JSON-LD date,
    then, for the published date, an ``<article>``'s ``<time datetime>`` (htmldate's
    search of the whole page is left for a page that states none of these)."""
    values = [meta.metas.get(key) for key in keys]
    values.append(meta.published if keys is _PUBLISHED_KEYS else meta.modified)
    for value in values:
        if value and _ISO_DATE.match(value.strip()):
            return value.strip()
    if keys is _PUBLISHED_KEYS:  # a walk of the page, only when the head dates nothing
        for value in _ARTICLE_TIME(tree)[:1]:
            if _ISO_DATE.match(str(value).strip()):
                return str(value).strip()
    return None


def _byline(tree: HtmlElement, metas: dict[str, str]) -> str | None:
    """The byline the page's markup states: an author meta tag (a one-word one too), then
    the first ``rel=author``, ``itemprop=author`` or ``byline``-class element (in that
    order)."""
    for key in ("name=author", "property=article:author"):
        text = _clean(metas.get(key))
        if text:
            return text
    found = _BYLINES(tree)
    for test in (lambda el: el.get("rel") == "author",
                 lambda el: el.get("itemprop") == "author",
                 lambda el: "byline" in (el.get("class") or "").split()):
        for el in found:
            if test(el):
                text = _clean(" ".join(el.itertext()))
                if text:
                    return text
    return None


def extract_readable(html: str, url: str | None = None, *, markdown: bool = False,
                     skip: Collection[str] = (), comments: bool = False) -> Readable:
    """Everything web_fetch reports about an HTML page; ``text`` may be empty.
    ``skip`` names cleaning steps (:data:`STEPS`) to leave out (for measuring them);
    ``comments`` keeps a thread under an article (the reader's comments, after it).

    Raises ExtractionError (``extraction_failed``) when the page cannot be read at all."""
    html, data = scrubbed_utf8(html)
    skip = _checked(skip)
    return guarded("extraction", lambda: _extract_readable(html, url, markdown, skip, data, comments))


def _extract_readable(html: str, url: str | None, markdown: bool, skip: frozenset[str],
                      data: bytes | None = None, comments: bool = False) -> Readable:
    tree = _parsed(html, data)
    if tree is None:
        return Readable(title=None, text="")
    meta = declared(tree, url)
    # Dates are read before pruning (a date in a collapsed header still dates the page).
    # htmldate in fast mode: its extensive search hands free-text dates to dateparser,
    # whose first use resolves every locale (seconds on one page: docs/EVALUATION.md).
    # The page's declared dates (meta tags, <time datetime>) are read in fast mode;
    # a date written only in running text in an unusual language is the price.
    metas = meta.metas
    published = _first_date(tree, meta, _PUBLISHED_KEYS) or searched_date(tree, meta.url)
    modified = _first_date(tree, meta, _MODIFIED_KEYS)
    language = next((str(v) for xp in _LANGUAGE for v in xp(tree)[:1] if str(v).strip()), "")
    language = language.strip().split("-")[0].split("_")[0].lower() or None
    text, title, kind = _main_text(html, tree, url, markdown, skip, meta, comments)
    byline = _clean(meta.author) or _byline(tree, metas)  # the pruned page: a hidden byline is none
    return Readable(
        title=title,
        text=text,
        byline=byline[:200] if byline else None,
        language=language,
        published_at=published,
        modified_at=modified,
        site_name=_clean(site_name(tree, meta)),
        description=_clean(meta.description),
        kind=kind,
    )
