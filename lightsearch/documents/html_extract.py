"""HTML to title, main text, language and declared dates.

trafilatura finds the main text (it leads the extraction benchmarks in
reference/figures.md); declared dates come from the page's own metadata first, because
feed and sitemap dates are only discovery hints, not page publication dates.

Pages are hostile markup. Lone surrogates are replaced before lxml sees the text (it
refuses such a string outright), and whatever else trafilatura, htmldate or lxml raise
on a page becomes :class:`ExtractionError` (``extraction_failed``): the caller reports
that page as a source error instead of losing it to a log line.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

import trafilatura
from parsel import Selector

from lightsearch.documents.titles import choose_title
from lightsearch.documents.xmlsafe import scrub_surrogates
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.ranking.tokenize import is_hebrew

T = TypeVar("T")


class ExtractionError(LightSearchError):
    """A page whose text could not be extracted at all (code ``extraction_failed``)."""

    def __init__(self, message: str, **details: object) -> None:
        super().__init__("extraction_failed", message, dict(details))


def guarded(what: str, fn: Callable[[], T]) -> T:
    """``fn()``, with any exception of the extraction libraries as ExtractionError.

    trafilatura, htmldate, justext and lxml document no exception set for malformed
    markup, and the page is attacker-controlled, so none of them may escape raw.
    """
    try:
        return fn()
    except (LightSearchError, MemoryError):
        raise  # a MemoryError is the worker's memory limit (lightsearch/isolation), not the page
    except Exception as exc:  # see the docstring
        raise ExtractionError(f"{what} failed on this page ({type(exc).__name__}: "
                              f"{quote_untrusted(str(exc), 40, sentence=True)})", exception=type(exc).__name__) from None

_PUBLISHED_XPATHS = (
    "//meta[@property='article:published_time']/@content",
    "//meta[@name='article:published_time']/@content",
    "//meta[@itemprop='datePublished']/@content",
    "//meta[@name='date']/@content",
    "//meta[@name='dc.date']/@content",
    "//meta[@name='DC.date.issued']/@content",
    "//article//time[@datetime][1]/@datetime",
)
_MODIFIED_XPATHS = (
    "//meta[@property='article:modified_time']/@content",
    "//meta[@property='og:updated_time']/@content",
    "//meta[@itemprop='dateModified']/@content",
    "//meta[@name='last-modified']/@content",
)
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _first(sel: Selector, xpaths: tuple[str, ...]) -> str | None:
    for xp in xpaths:
        value = sel.xpath(xp).get()
        if value and _ISO_DATE.match(value.strip()):
            return value.strip()
    return None


def _title(sel: Selector, url: str, extracted: str | None) -> str:
    """The page's title as web_fetch chooses it (the site's name stripped), else the first
    stated one (``og:title``, the ``<h1>``, ``<title>``)."""
    chosen = choose_title(sel, url, extracted)
    if chosen:
        return chosen
    for xp in ("//meta[@property='og:title']/@content", "//h1//text()", "//title/text()"):
        parts = sel.xpath(xp).getall()
        text = " ".join(" ".join(parts).split())
        if text:
            return text
    return (extracted or "").strip()


def _fallback_text(sel: Selector) -> str:
    for xp in ("//article", "//main", "//*[@id='content']", "//body"):
        node = sel.xpath(xp)
        if node:
            blocks = node[0].xpath(
                ".//*[self::p or self::li or self::h2 or self::h3 or self::td]"
                "[not(ancestor::nav or ancestor::footer or ancestor::header or ancestor::script)]"
            )
            lines = [" ".join(" ".join(b.xpath(".//text()").getall()).split()) for b in blocks]
            text = "\n".join(line for line in lines if line)
            if text:
                return text
    return ""


def extract_html(html: str, url: str) -> dict[str, str | None]:
    """Title, text, language and dates of one HTML page; text may be empty.

    Raises ExtractionError when the page cannot be read at all."""
    html = scrub_surrogates(html)
    return guarded("extraction", lambda: _extract_html(html, url))


def _extract_html(html: str, url: str) -> dict[str, str | None]:
    sel = Selector(text=html or "<html/>")
    doc = trafilatura.bare_extraction(
        html,
        url=url,
        include_comments=False,
        include_tables=True,
        with_metadata=True,
        favor_precision=True,
        date_extraction_params={"extensive_search": False, "original_date": True},
    )
    text = ""
    meta_title = meta_date = meta_lang = None
    if doc is not None:
        text = (doc.text or "").strip()
        meta_title, meta_date, meta_lang = doc.title, doc.date, doc.language
    if not text:
        text = _fallback_text(sel)
    lang = sel.xpath("/html/@lang").get() or meta_lang
    if lang:
        lang = lang.split("-")[0].lower()
    elif text:
        lang = "he" if is_hebrew(text[:2000]) else "en"
    published = _first(sel, _PUBLISHED_XPATHS) or meta_date
    return {
        "title": _title(sel, url, meta_title),
        "text": text,
        "language": lang,
        "published_at": published,
        "modified_at": _first(sel, _MODIFIED_XPATHS),
    }
