"""PDF to text with page markers, title and metadata, within web_fetch's bounds.

A writing assistant must "check what a cited paper actually says", and papers
are PDFs. pypdf reads them: it is pure Python (no system library on a fresh machine),
BSD-licensed and kept, and it caps what one stream may inflate to; pdfminer.six extracts
layout more faithfully but is several times slower per page, and the agent needs the
words, not the layout.

pypdf's own cap is 75 MB per stream, and a 200 KiB file whose font character map
(ToUnicode CMap) inflates to 70 MB took 1.8 GiB of memory and 8 s of CPU to parse. Here
every decoder is capped at :data:`INFLATE_MAX_BYTES` (pypdf's public ``Configuration``,
applied to this read only): a page's content stream or character map is rarely over a
megabyte, so a real document never meets the cap, and the bomb above stops at its first
8 MB. The cap is a first line only: PDFs are read in the worker pool, under a memory and
a time limit the operating system enforces (lightsearch/isolation).

The body is already bounded by ``WEB_FETCH_MAX_BYTES``; what is bounded here is the
work: at most ``max_pages`` pages, and no page started after ``deadline`` (a monotonic
time). Pages left unread are counted, never silently dropped. A PDF is a hostile
document like any page: whatever pypdf raises becomes ``extraction_failed``, and one
page that cannot be read costs that page, not the document.
"""

from __future__ import annotations

import io
import logging
import re
import time
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from lightsearch.documents.xmlsafe import scrub_surrogates
from lightsearch.ranking.tokenize import is_hebrew
from lightsearch.timestamps import utc_stamp

MAX_TEXT_CHARS = 2_000_000  # past this the rest of the document is counted, not read
INFLATE_MAX_BYTES = 8 * 1024 * 1024  # per stream and per decoder (pypdf's default: 75 MB)
_DECODE_WORK_MAX_BYTES = 4 * INFLATE_MAX_BYTES  # all the filters of one stream together
_BLANK_RUNS = re.compile(r"\n{3,}")
_TRAILING = re.compile(r"[ \t]+\n")


@dataclass
class PdfText:
    """One PDF's text (pages joined with ``[Page n of N]`` markers) and what it declares."""

    text: str
    title: str | None = None
    author: str | None = None
    language: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    pages: int = 0
    pages_read: int = 0
    pages_failed: int = 0
    stopped: str | None = None  # "max_pages" | "deadline" | "max_chars" when pages were left unread
    notes: list[str] = field(default_factory=list)


def is_pdf(body: bytes) -> bool:
    """A PDF begins with ``%PDF-`` within its first 1024 bytes (the spec allows junk before)."""
    return b"%PDF-" in body[:1024]


def read_pdf(body: bytes, *, max_pages: int = 100, deadline: float | None = None) -> PdfText:
    """The text of the PDF in ``body``, or ExtractionError with a ``reason``."""
    from pypdf import apply_configuration

    from lightsearch.documents.html_extract import guarded

    caps = {name: INFLATE_MAX_BYTES for name in (
        "zlib_maximum_output_length", "lzw_maximum_output_length", "run_length_maximum_output_length",
        "array_based_stream_maximum_output_length", "jbig2_maximum_output_length",
        "brotli_maximum_output_length", "image_maximum_buffer_size")}
    with apply_configuration(stream_decoding_work_maximum_length=_DECODE_WORK_MAX_BYTES, **caps):
        return guarded("PDF extraction", lambda: _read_pdf(body, max_pages, deadline))


def _read_pdf(body: bytes, max_pages: int, deadline: float | None) -> PdfText:
    from pypdf import PdfReader

    from lightsearch.documents.html_extract import (
        ExtractionError,  # trafilatura: where a PDF is read
    )

    # pypdf logs every repaired xref and odd operator as a warning: noise for hostile files.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    reader = PdfReader(io.BytesIO(body), strict=False)
    if reader.is_encrypted and not _decrypt(reader):
        raise ExtractionError("the PDF is encrypted and cannot be read without a password",
                              reason="encrypted")
    total = len(reader.pages)
    out = PdfText(text="", pages=total)
    _metadata(reader, out)
    parts: list[str] = []
    chars = 0
    for index in range(total):
        if index >= max_pages:
            out.stopped = "max_pages"
            break
        if deadline is not None and index and time.monotonic() >= deadline:
            out.stopped = "deadline"
            break
        if chars >= MAX_TEXT_CHARS:
            out.stopped = "max_chars"
            break
        try:
            page_text = _clean(reader.pages[index].extract_text() or "")
        except MemoryError:
            raise  # the worker's memory limit: the document, not the page
        except Exception:  # one bad page costs that page (see the module docstring)
            out.pages_failed += 1
            page_text = ""
        out.pages_read += 1
        if page_text:
            parts.append(f"[Page {index + 1} of {total}]\n\n{page_text}")
            chars += len(page_text)
    out.text = "\n\n".join(parts)
    if not out.text.strip():
        if out.pages_failed and out.pages_failed == out.pages_read:
            raise ExtractionError("no page of the PDF could be read", reason="unreadable",
                                  pages=total)
        raise ExtractionError("the PDF has no text layer (a scanned document?); "
                              "text would need OCR, which web_fetch does not do",
                              reason="no_text_layer", pages=total)
    if out.stopped:
        out.notes.append(f"read {out.pages_read} of {total} pages (stopped by {out.stopped})")
    if out.pages_failed:
        out.notes.append(f"{out.pages_failed} page(s) could not be read")
    if not out.title:
        out.title = _first_line(out.text)
    if not out.language:
        out.language = "he" if is_hebrew(out.text[:2000]) else None
    return out


def _decrypt(reader: Any) -> bool:
    """Many public PDFs are encrypted with an empty user password (print/copy flags only)."""
    try:
        return bool(reader.decrypt(""))
    except Exception:  # an unsupported cipher (AES without `cryptography`) or a broken dictionary
        return False


def _metadata(reader: Any, out: PdfText) -> None:
    """Title, author, dates and language from the document information and the catalog;
    a malformed entry is left out, it does not cost the text."""
    try:
        info = reader.metadata
    except Exception:
        info = None
    if info is not None:
        out.title = _text(info, "title")
        out.author = _text(info, "author")
        out.published_at = _date(info, "creation_date")
        out.modified_at = _date(info, "modification_date")
    try:
        lang = reader.trailer["/Root"].get("/Lang")
    except Exception:
        lang = None
    if isinstance(lang, str) and lang.strip():
        out.language = lang.strip().split("-")[0].lower()[:8]


def _text(info: Any, name: str) -> str | None:
    try:
        value = getattr(info, name)
    except Exception:
        return None
    if not isinstance(value, str):
        return None
    value = " ".join(scrub_surrogates(value).split())
    return value[:300] or None


def _date(info: Any, name: str) -> str | None:
    try:
        value = getattr(info, name)
    except Exception:  # pypdf raises on a date string it cannot parse
        return None
    if not isinstance(value, datetime):
        return None
    try:
        return utc_stamp(value)
    except OverflowError:  # a zone that carries the date off the calendar
        return None


def _clean(text: str) -> str:
    text = scrub_surrogates(text).replace("\r\n", "\n").replace("\r", "\n").replace("\x00", "")
    return _BLANK_RUNS.sub("\n\n", _TRAILING.sub("\n", text)).strip()


def _first_line(text: str) -> str | None:
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("[Page "):
            return line[:200]
    return None
