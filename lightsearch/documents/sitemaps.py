"""Sitemaps (sitemaps.org ``urlset`` and ``sitemapindex``), plain or gzip, entry by entry.

Discovery used :class:`scrapy.utils.sitemap.Sitemap`, which yields entries lazily from
one lxml ``iterparse``: an undecodable ``<loc>`` or ``xhtml:link`` href (a lone surrogate
written as ``&#xD800;`` survives lxml's recovery as bytes it cannot decode later) raises
out of the iteration, and every entry after it is lost with it. Here each entry is read
on its own: a bad one is dropped and counted, the rest of the document still counts,
and a document that cannot be read at all raises :class:`SitemapError` with a code.
"""

from __future__ import annotations

import gzip
import io
import struct
import zlib
from dataclasses import dataclass, field

from lxml import etree

from lightsearch.documents.discovered_links import absolute_url
from lightsearch.errors import LightSearchError, quote_untrusted

GZIP_MAGIC = b"\x1f\x8b"
MAX_ENTRIES = 50_000  # the protocol's own bound per sitemap file
MAX_BYTES = 10 * 1024 * 1024
_KINDS = ("urlset", "sitemapindex")
_CHUNK = 64 * 1024
# What lxml raises on hostile XML besides its own errors (an undecodable text or name).
_XML_ERRORS = (etree.LxmlError, ValueError, UnicodeError, LookupError, TypeError)


class SitemapError(LightSearchError):
    """A sitemap that cannot be read at all.

    ``code`` is ``decode_error`` (a gzip body that does not inflate), ``too_large`` (it
    inflates past the byte limit) or ``parse_error`` (not a sitemap document); the
    discovery spider reports it as the source error of that sitemap.
    """

    def __init__(self, code: str, message: str, **details: object) -> None:
        super().__init__(code, message, dict(details))


@dataclass(frozen=True)
class SitemapEntry:
    loc: str  # absolute, vetted by links.absolute_url
    lastmod: str | None = None
    alternates: tuple[str, ...] = ()  # xhtml:link hrefs (hreflang versions)


@dataclass
class SitemapDocument:
    type: str  # urlset | sitemapindex
    entries: list[SitemapEntry] = field(default_factory=list)
    dropped: int = 0  # entries without a usable <loc>
    links_dropped: int = 0  # unusable xhtml:link hrefs (their entry is kept)
    truncated: bool = False  # cut at max_entries, or the XML ended early
    unread: int = 0  # entries past max_entries: counted, not read


def gunzip_bounded(body: bytes, max_bytes: int) -> bytes:
    """A gzip body inflated up to ``max_bytes``.

    Like Scrapy's ``gunzip``, a stream that breaks after some output keeps that output
    (origins truncate .gz files); one that yields nothing is a ``decode_error``, never
    an EOFError out of the spider.
    """
    out = io.BytesIO()
    reader = gzip.GzipFile(fileobj=io.BytesIO(body))
    try:
        while chunk := reader.read1(_CHUNK):
            if out.tell() + len(chunk) > max_bytes:
                raise SitemapError("too_large", f"the gzip sitemap inflates past {max_bytes} bytes",
                                   maxBytes=max_bytes)
            out.write(chunk)
    except (OSError, EOFError, struct.error, zlib.error) as exc:
        if out.tell() == 0:
            raise SitemapError("decode_error", f"the gzip sitemap does not inflate "
                               f"({type(exc).__name__}: {quote_untrusted(str(exc), 40, sentence=True)})",
                               encodedBytes=len(body)) from None
    return out.getvalue()


def _local(element: etree._Element) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return ""  # comments, processing instructions, entities
    return tag.rpartition("}")[2]


def _entry(element: etree._Element, base_url: str) -> tuple[SitemapEntry | None, int]:
    """One ``<url>``/``<sitemap>`` element: the entry (None when its loc is unusable) and
    how many of its alternate links were unusable."""
    loc: str | None = None
    lastmod: str | None = None
    alternates: list[str] = []
    bad_links = 0
    for child in element:
        try:
            name = _local(child)
            if name == "link":
                href = child.get("href")
                url = absolute_url(base_url, href) if href else None
                if url is None:
                    bad_links += 1
                else:
                    alternates.append(url)
            elif name == "loc" and loc is None:
                loc = absolute_url(base_url, child.text or "") or ""
            elif name == "lastmod" and lastmod is None:
                lastmod = (child.text or "").strip()[:64] or None
        except _XML_ERRORS:
            if loc is None and _safe_local(child) == "loc":
                loc = ""  # an undecodable loc: the entry goes
            elif _safe_local(child) == "link":
                bad_links += 1
    if not loc:
        return None, bad_links
    return SitemapEntry(loc, lastmod, tuple(alternates)), bad_links


def _safe_local(element: etree._Element) -> str:
    try:
        return _local(element)
    except _XML_ERRORS:
        return ""


def read_sitemap(body: bytes, base_url: str, *, max_bytes: int = MAX_BYTES,
                 max_entries: int = MAX_ENTRIES) -> SitemapDocument:
    """The entries of one sitemap or sitemap index; raises :class:`SitemapError`.

    ``base_url`` is the sitemap's own URL: relative locations resolve against it and
    every location is vetted (http(s), parseable host and port). A gzip body (by its
    magic bytes, whatever the headers said) is inflated within ``max_bytes``.
    """
    if body[:2] == GZIP_MAGIC:
        body = gunzip_bounded(body, max_bytes)
    if not body.strip():
        raise SitemapError("parse_error", "the sitemap is empty")
    events = etree.iterparse(
        io.BytesIO(body), events=("start", "end"), recover=True, resolve_entities=False,
        no_network=True, huge_tree=False, remove_comments=True, remove_pis=True,
        remove_blank_text=True, collect_ids=False,
    )
    doc: SitemapDocument | None = None
    try:
        for event, element in events:
            if doc is None:
                kind = _local(element)
                if kind not in _KINDS:
                    raise SitemapError("parse_error", "not a sitemap: the root element is "
                                       f"{quote_untrusted(kind)}")
                doc = SitemapDocument(kind)
                continue
            if event != "end" or _safe_local(element) not in ("url", "sitemap"):
                continue
            if len(doc.entries) >= max_entries:
                doc.truncated = True
                doc.unread += 1
            else:
                entry, bad_links = _entry(element, base_url)
                doc.links_dropped += bad_links
                if entry is None:
                    doc.dropped += 1
                else:
                    doc.entries.append(entry)
            # Keep memory flat on a 50,000-entry file, as Scrapy's Sitemap does.
            element.clear()
            parent = element.getparent()
            if parent is not None:
                while element.getprevious() is not None:
                    del parent[0]
    except SitemapError:
        raise
    except _XML_ERRORS as exc:
        if doc is None:
            raise SitemapError("parse_error", f"the sitemap is not XML ({type(exc).__name__}: "
                               f"{quote_untrusted(str(exc), 40, sentence=True)})") from None
        doc.truncated = True  # what was read before the break still counts
    if doc is None:
        raise SitemapError("parse_error", "the sitemap has no XML root element")
    return doc
