"""Readable main text of one page for web_fetch: title, byline, language, dates, text.

Light's :mod:`lightsearch.documents.extract` favours precision (ranking snippets); a
reader wants the whole article, so this extractor runs trafilatura in its balanced
default mode, which scored best on the shared article-extraction benchmark
(``benchmarks/extraction.py``), keeps tables, and can emit Markdown. Dates come from
the page's own metadata first, as in Light.
"""

from __future__ import annotations

from dataclasses import dataclass

import trafilatura
from parsel import Selector

from lightsearch.documents.extract import (
    _MODIFIED_XPATHS,
    _PUBLISHED_XPATHS,
    _fallback_text,
    _first,
    guarded,
)
from lightsearch.documents.xmlsafe import scrub_surrogates

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
    return guarded("extraction", lambda: _main_text(html, url, markdown))


def _main_text(html: str, url: str | None, markdown: bool) -> str:
    text = trafilatura.extract(
        html,
        url=url,
        output_format="markdown" if markdown else "txt",
        include_comments=False,
        include_tables=True,
        include_formatting=markdown,
        include_links=False,
        deduplicate=False,
    )
    if text and text.strip():
        return text.strip()
    return _fallback_text(Selector(text=html or "<html/>"))


def extract_readable(html: str, url: str | None = None, *, markdown: bool = False) -> Readable:
    """Everything web_fetch reports about an HTML page; ``text`` may be empty.

    Raises ExtractionError (``extraction_failed``) when the page cannot be read at all."""
    html = scrub_surrogates(html)
    return guarded("extraction", lambda: _extract_readable(html, url, markdown))


def _extract_readable(html: str, url: str | None, markdown: bool) -> Readable:
    sel = Selector(text=html or "<html/>")
    # extensive=False: htmldate's extensive search hands free-text dates to dateparser,
    # whose first use resolves every locale (seconds: issue 18 measured 1.6-5.8 s on one
    # page). The page's declared dates (meta tags, <time datetime>) are read in fast mode;
    # a date written only in running text in an unusual language is the price.
    meta = trafilatura.extract_metadata(html, default_url=url, extensive=False)
    text = _main_text(html, url, markdown)
    title = _clean(meta.title if meta else None)
    if not title:
        for xp in ("//meta[@property='og:title']/@content", "//title/text()", "//h1//text()"):
            title = _clean(" ".join(sel.xpath(xp).getall()))
            if title:
                break
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
