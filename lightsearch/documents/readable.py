"""Readable main text of one page for web_fetch: title, byline, language, dates, text.

Light's :mod:`lightsearch.documents.extract` favours precision (ranking snippets); a
reader wants the whole article, so this extractor runs trafilatura in its balanced
default mode, which scored best on the shared article-extraction benchmark
(``benchmarks/extraction.py``), keeps tables, and can emit Markdown. Dates come from
the page's own metadata first, as in Light.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection
from dataclasses import dataclass

import trafilatura
from lxml import etree
from lxml.html import HtmlElement, document_fromstring
from parsel import Selector
from trafilatura.utils import load_html

from lightsearch.documents.cleaning import prune_unseen
from lightsearch.documents.extract import (
    _MODIFIED_XPATHS,
    _PUBLISHED_XPATHS,
    _fallback_text,
    _first,
    guarded,
)
from lightsearch.documents.pagemeta import (
    PageMeta,
    declared,
    searched_author,
    searched_date,
    searched_title,
    site_name,
)
from lightsearch.documents.repeats import restore_repeats
from lightsearch.documents.sections import (
    block_texts,
    drop_copies,
    drop_labels,
    join_sections,
    strip_head,
    strip_tail,
)
from lightsearch.documents.structure import restore_structure, space_fences
from lightsearch.documents.titles import choose_title
from lightsearch.documents.xmlsafe import scrub_surrogates

THIN_CHARS = 200  # pruned text shorter than this is compared with the unpruned page's
# The cleaning steps around trafilatura, each of which can be switched off (``skip=``) so
# benchmarks/extraction.py measures what each one is worth on every set.
STEPS = ("hidden", "furniture", "readOn", "repeats", "copies", "sections", "lead", "head", "tail", "labels")

_BYLINE_XPATHS = (
    "//meta[@name='author']/@content",
    "//meta[@property='article:author']/@content",
    "//*[@rel='author'][1]//text()",
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' byline ')][1]//text()",
)


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


def _clean(value: str | None) -> str | None:
    text = " ".join((value or "").split())
    return text or None


def main_text(html: str, url: str | None = None, *, markdown: bool = False,
              skip: Collection[str] = ()) -> str:
    """Just the main text; ExtractionError when the page cannot be read at all.
    ``skip`` names cleaning steps (:data:`STEPS`) to leave out."""
    html = scrub_surrogates(html)
    skip = _checked(skip)
    def read() -> str:
        tree = _parsed(html)
        return _main_text(html, tree, url, markdown, skip, declared(tree, url) if tree is not None else None)[0]

    return guarded("extraction", read)


def _checked(skip: Collection[str]) -> frozenset[str]:
    unknown = set(skip) - set(STEPS)
    if unknown:
        raise ValueError(f"skip: unknown cleaning steps {sorted(unknown)} (known: {', '.join(STEPS)})")
    return frozenset(skip)


def _parsed(html: str) -> HtmlElement | None:
    """The page as one tree for metadata, pruning and extraction (parsed once).
    trafilatura's loader refuses a bare fragment (one element, no ``<html>``); lxml's
    document parser wraps it instead, as a browser would."""
    if not html or not html.strip():
        return None
    tree = load_html(html)
    if tree is None:
        with contextlib.suppress(etree.ParserError, ValueError):
            tree = document_fromstring(html)
    return tree


def _trafilatura(tree: HtmlElement, url: str | None, markdown: bool) -> str:
    text = trafilatura.extract(
        tree,
        url=url,
        output_format="markdown" if markdown else "txt",
        include_comments=False,
        include_tables=True,
        include_formatting=markdown,
        include_links=markdown,
        deduplicate=False,
    )
    return (text or "").strip()


def _main_text(html: str, tree: HtmlElement | None, url: str | None, markdown: bool,
               skip: frozenset[str], meta: PageMeta | None) -> tuple[str, str | None]:
    """(text, title): trafilatura on the page as a reader sees it (hidden elements and
    furniture pruned, :mod:`lightsearch.documents.cleaning`), with the page's repeated
    paragraphs restored. ``tree`` is pruned in place."""
    if tree is None or meta is None:
        return "", None
    pruned = prune_unseen(tree, skip=skip)
    # pruned: a hidden <h1> is no title
    title = choose_title(Selector(root=tree), url, meta.title) or _clean(searched_title(tree))
    text = _trafilatura(tree, url, markdown)
    if any(pruned.values()) and len(text) < THIN_CHARS:
        # a page that hides its body until a script shows it: read it as marked up
        text = max(text, _trafilatura(_parsed(html), url, markdown), key=len)
    if text:
        blocks = block_texts(tree)
        if "repeats" not in skip:
            text = restore_repeats(text, tree)
        if "copies" not in skip:
            text = drop_copies(text)
        if "sections" not in skip or "lead" not in skip:
            text = join_sections(text, tree, blocks, sections="sections" not in skip, lead="lead" not in skip)
        if "head" not in skip:
            text = strip_head(text, tree, blocks, title)
        if "tail" not in skip:
            text = strip_tail(text, tree, blocks)
        if "labels" not in skip:
            text = drop_labels(text, tree, blocks)
        return (space_fences(restore_structure(text, tree, url)) if markdown else text), title
    return _fallback_text(Selector(root=tree)), title


def extract_readable(html: str, url: str | None = None, *, markdown: bool = False,
                     skip: Collection[str] = ()) -> Readable:
    """Everything web_fetch reports about an HTML page; ``text`` may be empty.
    ``skip`` names cleaning steps (:data:`STEPS`) to leave out (for measuring them).

    Raises ExtractionError (``extraction_failed``) when the page cannot be read at all."""
    html = scrub_surrogates(html)
    skip = _checked(skip)
    return guarded("extraction", lambda: _extract_readable(html, url, markdown, skip))


def _extract_readable(html: str, url: str | None, markdown: bool, skip: frozenset[str]) -> Readable:
    tree = _parsed(html)
    if tree is None:
        return Readable(title=None, text="")
    meta = declared(tree, url)
    sel = Selector(root=tree)
    # Dates are read before pruning (a date in a collapsed header still dates the page).
    # htmldate in fast mode: its extensive search hands free-text dates to dateparser,
    # whose first use resolves every locale (seconds: issue 18 measured 1.6-5.8 s on one
    # page). The page's declared dates (meta tags, <time datetime>) are read in fast mode;
    # a date written only in running text in an unusual language is the price.
    published = _first(sel, _PUBLISHED_XPATHS) or searched_date(tree, meta.url)
    modified = _first(sel, _MODIFIED_XPATHS)
    language = sel.xpath("/html/@lang").get() or sel.xpath("/html/@xml:lang").get()
    if not language:
        language = sel.xpath("//meta[@http-equiv='content-language']/@content").get()
    language = (language or "").strip().split("-")[0].split("_")[0].lower() or None
    text, title = _main_text(html, tree, url, markdown, skip, meta)
    sel = Selector(root=tree)  # pruned: a hidden byline is no byline
    byline = _clean(meta.author)
    if not byline:
        for xp in _BYLINE_XPATHS:
            byline = _clean(" ".join(sel.xpath(xp).getall()))
            if byline:
                break
    if not byline:
        byline = _clean(searched_author(tree))
    return Readable(
        title=title,
        text=text,
        byline=byline[:200] if byline else None,
        language=language,
        published_at=published,
        modified_at=modified,
        site_name=_clean(site_name(tree, meta)),
        description=_clean(meta.description),
    )
