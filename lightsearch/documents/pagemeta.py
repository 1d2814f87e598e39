"""A page's declared metadata for web_fetch: byline, date, site name, description.

trafilatura's ``extract_metadata`` reads everything it knows (categories, tags, licence,
the registered domain, a body-wide author search on a copy of the page) and took a quarter
of the reader's time (3.9 ms a page at the median, 17.6 ms at p95 on the shared article
set). The reader needs five fields, so it reads the head's meta tags and JSON-LD with
trafilatura's own readers of them, and goes to a body-wide search only for a field the
page does not declare: the date through htmldate (fast mode: no free-text dates, see
``readable.py``), the author through trafilatura's search when the page's own byline
markup says nothing, the title through trafilatura's search only when no heading,
``<title>`` or meta title exists at all (:func:`lightsearch.documents.titles.choose_title`
decides the title otherwise).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from htmldate import find_date
from lxml.html import HtmlElement
from trafilatura.metadata import (
    examine_meta,
    extract_author,
    extract_meta_json,
    extract_sitename,
    extract_title,
)
from trafilatura.settings import set_date_params

_META_URL = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")


@dataclass
class PageMeta:
    title: str | None = None
    author: str | None = None
    sitename: str | None = None
    description: str | None = None
    url: str | None = None


def declared(tree: HtmlElement, url: str | None) -> PageMeta:
    """What the head declares (meta tags, OpenGraph, JSON-LD), as trafilatura reads it."""
    doc = examine_meta(tree)
    if doc.author and " " not in doc.author:
        doc.author = None  # trafilatura's rule: a one-word author tag is a handle, not a name
    doc = extract_meta_json(tree, doc)
    return PageMeta(title=doc.title, author=doc.author, sitename=doc.sitename,
                    description=doc.description, url=doc.url or url)


def searched_title(tree: HtmlElement) -> str | None:
    return extract_title(tree)


def searched_author(tree: HtmlElement) -> str | None:
    return extract_author(tree)


def searched_date(tree: HtmlElement, url: str | None) -> str | None:
    return find_date(tree, url=url, **set_date_params(False))


def site_name(tree: HtmlElement, meta: PageMeta) -> str | None:
    """The declared site name, else the one ``<title>`` names, else the URL's host
    (trafilatura's order and clean-up)."""
    name = meta.sitename or extract_sitename(tree)
    if name:
        name = name.lstrip("@")
        if name and "." not in name and not name[0].isupper():
            name = name.title()
        return name or None
    if meta.url and (match := _META_URL.match(meta.url)):
        return match[1]
    return None
