"""PDFs of our own writing, built with pypdf for the reader's tests.

Each page is a content stream drawing lines of text in a standard Type 1 font (no font
file to embed); a "scanned" page draws only an image, so it has no text layer.
"""

from __future__ import annotations

import io

from pypdf import PdfWriter
from pypdf.generic import (
    DecodedStreamObject,
    DictionaryObject,
    NameObject,
    NumberObject,
    TextStringObject,
)


def _escape(line: str) -> str:
    return line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _font() -> DictionaryObject:
    return DictionaryObject({
        NameObject("/Type"): NameObject("/Font"), NameObject("/Subtype"): NameObject("/Type1"),
        NameObject("/BaseFont"): NameObject("/Helvetica"), NameObject("/Encoding"): NameObject("/WinAnsiEncoding"),
    })


def _image(writer: PdfWriter) -> object:
    image = DecodedStreamObject()
    image.set_data(bytes([0, 255, 255, 0] * 16))
    image.update({
        NameObject("/Type"): NameObject("/XObject"), NameObject("/Subtype"): NameObject("/Image"),
        NameObject("/Width"): NumberObject(8), NameObject("/Height"): NumberObject(8),
        NameObject("/ColorSpace"): NameObject("/DeviceGray"), NameObject("/BitsPerComponent"): NumberObject(8),
    })
    return writer._add_object(image)  # pypdf 7.1: the public add_object is not exposed for streams


def make_pdf(pages: list[str | None], *, title: str | None = None, author: str | None = None,
             created: str | None = None, lang: str | None = None) -> bytes:
    """A PDF with one page per entry: its text, or an image only (``None``)."""
    writer = PdfWriter()
    font = writer._add_object(_font())
    for text in pages:
        page = writer.add_blank_page(612, 792)
        content = DecodedStreamObject()
        resources = DictionaryObject()
        if text is None:
            resources[NameObject("/XObject")] = DictionaryObject({NameObject("/Im0"): _image(writer)})
            content.set_data(b"q 400 0 0 400 100 200 cm /Im0 Do Q")
        else:
            resources[NameObject("/Font")] = DictionaryObject({NameObject("/F1"): font})
            ops = ["BT", "/F1 11 Tf", "14 TL", "72 740 Td"]
            for line in text.split("\n"):
                ops.append(f"({_escape(line)}) Tj T*")
            ops.append("ET")
            content.set_data("\n".join(ops).encode("cp1252"))
        page[NameObject("/Resources")] = resources
        page[NameObject("/Contents")] = writer._add_object(content)
    meta = {}
    if title:
        meta["/Title"] = title
    if author:
        meta["/Author"] = author
    if created:
        meta["/CreationDate"] = created
    if meta:
        writer.add_metadata(meta)
    if lang:
        writer._root_object[NameObject("/Lang")] = TextStringObject(lang)
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()

