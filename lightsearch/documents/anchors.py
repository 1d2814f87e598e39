"""A page's links made absolute against the page's own address before its Markdown is written.

trafilatura joins a relative link to the site's root, not to the page: a footnote
``#cite_note-1`` on ``/wiki/Photosynthesis`` came out as ``https://en.wikipedia.org#cite_note-1``
and ``../guide.html`` lost its directory. A browser resolves each ``href`` against the
document's base URL: the page's URL, or the page's first ``<base href>`` resolved against it
(HTML's "document base URL"). An ``href`` that cannot be resolved (a hostile one urllib
refuses) stays as written.

trafilatura also HTML-unescapes its whole Markdown, link targets too, and ``&sect``,
``&para``, ``&not`` and ``&copy`` are entities even without a semicolon: a link to
``?a=1&section=2`` came out as ``?a=1§ion=2``. :func:`escaped_ampersands` writes each
``&`` of an ``href`` as ``&amp;`` while trafilatura reads the tree, which that unescape turns
back into the ``&`` of the address.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urljoin

from lxml import etree
from lxml.html import HtmlElement

from lightsearch.documents.discovered_links import MAX_URL_CHARS, URL_ERRORS

_BASE = etree.XPath("//base[@href][1]/@href")
_ANCHORS = etree.XPath("//a[@href]")


def base_url(tree: HtmlElement, url: str | None) -> str | None:
    """The document's base URL: its first ``<base href>`` against ``url``, else ``url``."""
    found = _BASE(tree)
    if not found:
        return url
    declared = str(found[0]).strip()
    if not declared or len(declared) > MAX_URL_CHARS:
        return url
    try:
        return urljoin(url or "", declared)
    except URL_ERRORS:
        return url


def resolve_links(tree: HtmlElement, url: str | None) -> str | None:
    """Every ``<a href>`` of ``tree`` made absolute in place; returns the base URL used."""
    base = base_url(tree, url)
    if not base:
        return base
    for a in _ANCHORS(tree):
        href = a.get("href", "").strip()
        if not href or len(href) > MAX_URL_CHARS:
            continue
        try:
            a.set("href", urljoin(base, href))
        except URL_ERRORS:
            continue
    return base


@contextmanager
def escaped_ampersands(tree: HtmlElement) -> Iterator[None]:
    """Within the block, each ``&`` of an ``<a href>`` written ``&amp;`` (see above);
    the addresses are as they were after it."""
    changed = []
    for a in _ANCHORS(tree):
        href = a.get("href")
        if "&" in href:
            a.set("href", href.replace("&", "&amp;"))
            changed.append((a, href))
    try:
        yield
    finally:
        for a, href in changed:
            a.set("href", href)
