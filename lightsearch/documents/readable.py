"""Readable main text of one page for web_fetch: title, byline, language, dates, text.

Light's :mod:`lightsearch.documents.extract` favours precision (ranking snippets); a
reader wants the whole article, so this extractor runs trafilatura in its balanced
default mode, which scored best on the shared article-extraction benchmark
(``benchmarks/extraction.py``), keeps tables, and can emit Markdown. Dates come from
the page's own metadata first, as in Light.
"""

from __future__ import annotations

import contextlib
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
from lightsearch.documents.repeats import restore_repeats
from lightsearch.documents.sections import (
    block_texts,
    drop_copies,
    join_sections,
    strip_head,
    strip_tail,
)
from lightsearch.documents.structure import restore_structure, space_fences
from lightsearch.documents.titles import choose_title
from lightsearch.documents.xmlsafe import scrub_surrogates

THIN_CHARS = 200  # pruned text shorter than this is compared with the unpruned page's

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


def main_text(html: str, url: str | None = None, *, markdown: bool = False) -> str:
    """Just the main text (the benchmark scores this function); ExtractionError when
    the page cannot be read at all."""
    html = scrub_surrogates(html)
    return guarded("extraction", lambda: _main_text(html, _parsed(html), url, markdown))


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


def _main_text(html: str, tree: HtmlElement | None, url: str | None, markdown: bool) -> str:
    """trafilatura on the page as a reader sees it (hidden elements and furniture pruned,
    :mod:`lightsearch.documents.cleaning`), with the page's repeated paragraphs restored.
    ``tree`` is pruned in place."""
    if tree is None:
        return ""
    pruned = prune_unseen(tree)
    text = _trafilatura(tree, url, markdown)
    if any(pruned.values()) and len(text) < THIN_CHARS:
        # a page that hides its body until a script shows it: read it as marked up
        text = max(text, _trafilatura(_parsed(html), url, markdown), key=len)
    if text:
        blocks = block_texts(tree)
        text = join_sections(drop_copies(restore_repeats(text, tree)), tree, blocks)
        text = strip_tail(strip_head(text, tree, blocks), tree, blocks)
        return space_fences(restore_structure(text, tree, url)) if markdown else text
    return _fallback_text(Selector(root=tree))


def extract_readable(html: str, url: str | None = None, *, markdown: bool = False) -> Readable:
    """Everything web_fetch reports about an HTML page; ``text`` may be empty.

    Raises ExtractionError (``extraction_failed``) when the page cannot be read at all."""
    html = scrub_surrogates(html)
    return guarded("extraction", lambda: _extract_readable(html, url, markdown))


def _extract_readable(html: str, url: str | None, markdown: bool) -> Readable:
    tree = _parsed(html)
    if tree is None:
        return Readable(title=None, text="")
    # extensive=False: htmldate's extensive search hands free-text dates to dateparser,
    # whose first use resolves every locale (seconds: issue 18 measured 1.6-5.8 s on one
    # page). The page's declared dates (meta tags, <time datetime>) are read in fast mode;
    # a date written only in running text in an unusual language is the price.
    meta = trafilatura.extract_metadata(tree, default_url=url, extensive=False)
    text = _main_text(html, tree, url, markdown)
    sel = Selector(root=tree)  # pruned: a hidden <h1> is no title
    title = choose_title(sel, url, meta.title if meta else None)
    byline = _clean(meta.author if meta else None)
    if not byline:
        for xp in _BYLINE_XPATHS:
            byline = _clean(" ".join(sel.xpath(xp).getall()))
            if byline:
                break
    language = sel.xpath("/html/@lang").get() or sel.xpath("/html/@xml:lang").get()
    if not language:
        language = sel.xpath("//meta[@http-equiv='content-language']/@content").get()
    language = (language or "").strip().split("-")[0].split("_")[0].lower() or None
    return Readable(
        title=title,
        text=text,
        byline=byline[:200] if byline else None,
        language=language,
        published_at=_first(sel, _PUBLISHED_XPATHS) or (meta.date if meta else None),
        modified_at=_first(sel, _MODIFIED_XPATHS),
        site_name=_clean(meta.sitename if meta else None),
        description=_clean(meta.description if meta else None),
    )
