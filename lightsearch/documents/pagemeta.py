"""A page's declared metadata for web_fetch: byline, date, site name, description.

trafilatura's ``extract_metadata`` reads everything it knows (categories, tags, licence,
the registered domain, a body-wide author search on a copy of the page), a large share
of the reader's time (docs/EVALUATION.md). The reader needs five fields, so it reads
the page's meta tags once (with trafilatura's tables of their names), the page's JSON-LD
once (headlines, authors, publisher), and goes to a body-wide search only for a field the
page does not declare: the date through htmldate (fast mode: no free-text dates, see
``readable.py``), the title through trafilatura's search only when no heading,
``<title>`` or meta title exists at all (:func:`lightsearch.documents.titles.choose_title`
decides the title otherwise).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from htmldate import find_date
from lxml import etree
from lxml.html import HtmlElement
from trafilatura.metadata import (
    METANAME_AUTHOR,
    METANAME_DESCRIPTION,
    METANAME_PUBLISHER,
    METANAME_TITLE,
    OG_AUTHOR,
    PROPERTY_AUTHOR,
    TWITTER_ATTRS,
    extract_sitename,
    extract_title,
)
from trafilatura.settings import set_date_params

from lightsearch.documents.titles import page_iter

_META_URL = re.compile(r"https?://(?:www\.|w[0-9]+\.)?([^/]+)")


@dataclass
class PageMeta:
    title: str | None = None
    author: str | None = None
    sitename: str | None = None
    description: str | None = None
    url: str | None = None
    headlines: list[str] = field(default_factory=list)  # JSON-LD headlines, for the title
    metas: dict[str, str] = field(default_factory=dict)  # every meta tag (:func:`meta_tags`)
    published: str | None = None  # JSON-LD datePublished / dateModified, as written
    modified: str | None = None


def declared(tree: HtmlElement, url: str | None) -> PageMeta:
    """What the head declares: its meta tags (read once, :func:`meta_tags`, and looked up
    with trafilatura's tables of names: OpenGraph first, then the first of the others in
    page order), then the page's JSON-LD for what they leave out (read once, here, for the
    title's headlines too)."""
    tags, scripts = _head_tags(tree)
    metas = meta_tags(tree, tags)
    author = _first(metas, _OG_AUTHOR) or _first(metas, _AUTHOR)
    if author and " " not in author:
        author = None  # trafilatura's rule: a one-word author tag is a handle, not a name
    headlines, authors, publishers, published, modified = [], [], [], [], []
    for node in _json_ld(tree, scripts):
        kind = node.get("@type")
        kinds = " ".join(k for k in (kind if isinstance(kind, list) else [kind]) if isinstance(k, str))
        headline = node.get("headline")
        if isinstance(headline, str) and headline.strip():
            headlines.append(headline.strip())
        if _ARTICLE_TYPES.search(kinds):
            authors.extend(_names(node.get("author")))
            publishers.extend(_names(node.get("publisher")))
            published.extend(v for v in [node.get("datePublished")] if isinstance(v, str))
            modified.extend(v for v in [node.get("dateModified")] if isinstance(v, str))
    title = _first(metas, {"property=og:title"}) or _first(metas, _TITLE)
    sitename = _first(metas, {"property=og:site_name"}) or _first(metas, _PUBLISHER) or _first(metas, _BACKUP_SITE)
    return PageMeta(title=title or (headlines[0] if headlines else None),
                    author=author or (", ".join(dict.fromkeys(authors)) or None),
                    sitename=sitename or (publishers[0] if publishers else None),
                    description=_first(metas, {"property=og:description"}) or _first(metas, _DESCRIPTION),
                    url=url, headlines=headlines[:3], metas=metas,
                    published=published[0].strip() if published else None,
                    modified=modified[0].strip() if modified else None)


# trafilatura's tables of meta tag names, as "attribute=name" keys of :func:`meta_tags`
_OG_AUTHOR = frozenset(f"property={n}" for n in OG_AUTHOR)
_AUTHOR = frozenset({f"name={n}" for n in METANAME_AUTHOR} | {f"property={n}" for n in PROPERTY_AUTHOR}
                    | {"itemprop=author"})
_TITLE = frozenset({f"name={n}" for n in METANAME_TITLE} | {"itemprop=headline"})
_DESCRIPTION = frozenset({f"name={n}" for n in METANAME_DESCRIPTION} | {"itemprop=description"})
_PUBLISHER = frozenset({f"name={n}" for n in METANAME_PUBLISHER} | {"property=article:publisher"})
_BACKUP_SITE = frozenset(f"name={n}" for n in TWITTER_ATTRS)
_TAGS = re.compile(r"<[^>]+>")


def _first(metas: dict[str, str], keys: frozenset[str] | set[str]) -> str | None:
    """The first (in page order) non-empty meta tag among ``keys``, tags stripped."""
    for key, value in metas.items():
        if key in keys:
            value = " ".join(_TAGS.sub("", value).split())
            if value:
                return value
    return None


_TEXT_NODES = etree.XPath("text()")
_ARTICLE_TYPES = re.compile(r"Article|Posting|Report|Review|Recipe|WebPage", re.IGNORECASE)
MAX_LD_SCRIPTS = 5
MAX_LD_NODES = 200
MAX_NAMES = 10


def _head_tags(tree: HtmlElement) -> tuple[list[HtmlElement], list[str]]:
    """The page's named ``<meta>`` tags with a content, and the texts of its JSON-LD
    scripts, in document order, found in one walk of the page (an XPath for each walked
    it once each)."""
    metas: list[HtmlElement] = []
    scripts: list[str] = []
    for el in page_iter(tree, "meta", "script"):
        if el.tag == "meta":
            if el.get("content") is not None and (el.get("property") is not None or el.get("name") is not None
                                                  or el.get("itemprop") is not None):
                metas.append(el)
        elif el.get("type") == "application/ld+json":
            scripts.extend(str(v) for v in _TEXT_NODES(el))
    return metas, scripts


def _json_ld(tree: HtmlElement, scripts: list[str] | None = None) -> list[dict]:
    """The JSON-LD objects of the page (its first scripts, ``@graph`` and ``mainEntity``
    followed), at most ``MAX_LD_NODES`` looked at: the bytes are the page's. ``scripts``:
    the scripts' texts when the caller has read them (:func:`_head_tags`)."""
    found: list[dict] = []
    for raw in (_head_tags(tree)[1] if scripts is None else scripts)[:MAX_LD_SCRIPTS]:
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        stack, seen = [data], 0
        while stack and seen < MAX_LD_NODES:
            node = stack.pop()
            seen += 1
            if isinstance(node, list):
                stack.extend(reversed(node[:20]))
            elif isinstance(node, dict):
                found.append(node)
                stack.extend(v for k, v in node.items() if k in ("@graph", "mainEntity"))
    return found


def _names(value: object) -> list[str]:
    """Person or organisation names in a JSON-LD ``author``/``publisher`` value."""
    out: list[str] = []
    for item in (value if isinstance(value, list) else [value])[:MAX_NAMES]:
        name = item.get("name") if isinstance(item, dict) else item
        if isinstance(name, str) and name.strip() and len(name) <= 200:
            out.append(" ".join(name.split()))
    return out


def meta_tags(tree: HtmlElement, tags: list[HtmlElement] | None = None) -> dict[str, str]:
    """The page's ``<meta>`` tags in one pass, the first of each, in page order:
    ``"property=og:title"``, ``"name=description"``, ``"itemprop=datepublished"`` (names
    lower-cased, as trafilatura reads them). Every reader of a meta tag looks it up here
    (not a pass over the page for each lookup). ``tags``: the tags when the caller
    has found them (:func:`_head_tags`)."""
    found: dict[str, str] = {}
    for el in _head_tags(tree)[0] if tags is None else tags:
        content = el.get("content")
        for attr in ("property", "name", "itemprop"):
            key = el.get(attr)
            if key:
                found.setdefault(f"{attr}={key.strip().lower()}", content)
    return found


def searched_title(tree: HtmlElement) -> str | None:
    return extract_title(tree)


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
