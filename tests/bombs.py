"""Hostile bodies of our own making, each within the 512 KiB response limit, whose cost
to read grows far beyond their size: the tests of untrusted work and
``benchmarks/hostile_work.py`` serve them on loopback.

Every builder is deterministic and returns ``(body, content type)``.
"""

from __future__ import annotations

import io
import zlib

from pypdf import PdfWriter
from pypdf.generic import (
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    StreamObject,
)

LIMIT = 512 * 1024
PDF = "application/pdf"
HTML = "text/html; charset=utf-8"


def _check(body: bytes, ctype: str) -> tuple[bytes, str]:
    assert len(body) <= LIMIT, f"a bomb must fit the response limit ({len(body)} bytes)"
    return body, ctype


def _font() -> DictionaryObject:
    return DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"),
    })


def _write(writer: PdfWriter) -> bytes:
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


def cmap_pdf(inflated_mb: int = 70) -> tuple[bytes, str]:
    """One page whose font's ToUnicode CMap is a Flate stream inflating to ``inflated_mb``
    MB of ``bfchar`` lines: pypdf parses all of it to map two characters (about 1.8 GiB
    of RSS for 70 MB without an inflate cap)."""
    writer = PdfWriter()
    head = (b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
            b"1 begincodespacerange\n<00> <FF>\nendcodespacerange\n")
    line = b"<41> <0041>\n"
    lines = inflated_mb * 1_000_000 // len(line)
    body = bytearray(head)
    chunk = b"100 beginbfchar\n" + line * 100 + b"endbfchar\n"
    body += chunk * (lines // 100)
    body += b"endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    cmap = StreamObject()
    cmap._data = zlib.compress(bytes(body), 9)
    cmap.update({NameObject("/Filter"): NameObject("/FlateDecode"),
                 NameObject("/Length"): NumberObject(len(cmap._data))})
    font = _font()
    font[NameObject("/ToUnicode")] = writer._add_object(cmap)
    page = writer.add_blank_page(612, 792)
    page[NameObject("/Resources")] = DictionaryObject({
        NameObject("/Font"): DictionaryObject({NameObject("/F1"): writer._add_object(font)})})
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 12 Tf 72 700 Td (AAAA) Tj ET")
    page[NameObject("/Contents")] = writer._add_object(content)
    return _check(_write(writer), PDF)


def many_pages_pdf(pages: int = 3000) -> tuple[bytes, str]:
    """Thousands of pages sharing one content stream and one font (about 80 bytes each)."""
    writer = PdfWriter()
    font = writer._add_object(_font())
    content = DecodedStreamObject()
    content.set_data(b"BT /F1 11 Tf 72 740 Td (A page of a very long report on tides.) Tj ET")
    content_ref = writer._add_object(content)
    resources = DictionaryObject({NameObject("/Font"): DictionaryObject({NameObject("/F1"): font})})
    for _ in range(pages):
        page = writer.add_blank_page(612, 792)
        page[NameObject("/Resources")] = resources
        page[NameObject("/Contents")] = content_ref
    return _check(_write(writer), PDF)


def nested_pdf(depth: int = 100_000) -> tuple[bytes, str]:
    """A page whose resources hold an array nested ``depth`` deep (``[[[[...]]]]``),
    written by hand (pypdf itself would recurse to write it)."""
    content = b"BT /F1 11 Tf 72 740 Td (Nested) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> "
        b"/Deep " + b"[" * depth + b"0" + b"]" * depth + b" >> >>",
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, obj in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return _check(bytes(out), PDF)


def paragraphs_html(count: int = 50_000) -> tuple[bytes, str]:
    """``<p>x y</p>`` again and again: trafilatura's cost grows faster than the page."""
    body = b"<!doctype html><html><head><title>Paragraphs</title></head><body>" \
        + b"<p>x y</p>" * count + b"</body></html>"
    return _check(body, HTML)


def deep_html(depth: int = 100_000) -> tuple[bytes, str]:
    """Elements nested ``depth`` deep, never closed."""
    body = (b"<!doctype html><html><head><title>Deep</title></head><body>" + b"<i>" * depth
            + b"Deep text at the bottom of the page.</body></html>")
    return _check(body, HTML)


def links_html(count: int = 20_000) -> tuple[bytes, str]:
    """A page of ``count`` distinct links."""
    anchors = b"".join(b"<a href=/p%d>w%d</a>" % (i, i) for i in range(count))
    body = b"<!doctype html><html><head><title>Links</title></head><body>" + anchors + b"</body></html>"
    return _check(body, HTML)


def feed_xml(items: int = 50_000) -> tuple[bytes, str]:
    """An RSS feed of ``items`` empty items (8 bytes each)."""
    body = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title>'
            + b"<item/>\n" * items + b"</channel></rss>")
    return _check(body, "application/rss+xml")


def sitemap_xml(entries: int = 50_000) -> tuple[bytes, str]:
    """A sitemap of ``entries`` ``<url/>`` entries (8 bytes each)."""
    body = (b'<?xml version="1.0" encoding="UTF-8"?>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + b"<url/>\n\n" * entries + b"</urlset>")
    return _check(body, "application/xml")


# ---------------------------------------------------------------------- work on the event loop
# Bodies parsed where every caller's events wait, unless they are kept apart: each is
# small, and what reading it costs grows with its shape.
def robots_wildcards(rules: int = 20_000, size: int = 500 * 1024 - 1) -> tuple[bytes, str]:
    """A robots.txt of ``size`` bytes: ``rules`` wildcard rules for every crawler, padded
    with a comment: protego's heaviest kind of rule, tens of thousands of them."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /*%d*$\n" % i for i in range(rules))
    body += b"#" * max(0, size - 1 - len(body)) + b"\n"
    return _check(body, "text/plain")


def nested_nav_home(navs: int = 2_000, links: int = 2_066, size: int = 32_750) -> tuple[bytes, str]:
    """A home page under 32 KiB: ``navs`` nested ``<nav>`` around ``links`` links (an XPath
    for the navigation around each link makes its reading cubic), padded to ``size``
    bytes."""
    body = (b"<html><body>" + b"<nav>" * navs
            + b"<a href=/a>" * links)
    return _check(body + b" " * max(0, size - len(body)), HTML)


def entity_tree_feed(levels: int = 9, fan: int = 10) -> tuple[bytes, str]:
    """An RSS feed of 600-800 bytes whose title and item are an entity expanding ``fan **
    levels`` times ("billion laughs"); an entity holding ``<x`` first hides the rest from
    feedparser's own DOCTYPE filter."""
    ents = b'<!ENTITY t "<x>">\n<!ENTITY lol "lol">\n' + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * fan)
        for i in range(1, levels + 1))
    body = (b'<?xml version="1.0"?>\n<!DOCTYPE rss [\n' + ents + b"]>\n"
            b'<rss version="2.0"><channel><title>&lol%d;</title><item><title>&lol%d;</title>'
            b"<link>/glacier-moraine</link></item></channel></rss>" % (levels, levels))
    return _check(body, "application/rss+xml")


def ddg_lite_links(links: int = 14_000) -> tuple[bytes, str]:
    """A DuckDuckGo lite answer of about 1 MiB with ``links`` result links, each snippet
    after its link (an XPath per link to find it: quadratic)."""
    row = b"<tr><td><a class=result-link href=https://r%d.bench.test/>r</a><td class=result-snippet>s</tr>"
    body = (b"<html><body><form><input name=q></form><table>" + b"".join(row % i for i in range(links))
            + b"</table></body></html>")
    assert len(body) <= 2 * 1024 * 1024, "an engine answer must fit WEB_SEARCH_RESPONSE_MAX_BYTES"
    return body, HTML


def nested_json(size: int = 2 * 1024 * 1024 - 64) -> tuple[bytes, str]:
    """An API answer of ``size`` bytes of small nested arrays: a Python object for every
    two bytes."""
    unit = b"[[[[[[[[[[]]]]]]]]]]"
    body = b'{"hits":[' + b",".join([unit] * ((size - 12) // (len(unit) + 1))) + b"]}"
    assert len(body) <= 2 * 1024 * 1024, "an engine answer must fit WEB_SEARCH_RESPONSE_MAX_BYTES"
    return body, "application/json"
