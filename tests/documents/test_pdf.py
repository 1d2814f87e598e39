"""web_fetch reads PDFs: text with page markers, the document's own metadata, the same
bounds as a page, and a structured error for what cannot be read (no text layer, a
password, a broken file). The PDFs are our own, written with pypdf (tests/pdfs.py).
"""

from __future__ import annotations

import io

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from jsonschema import validate
from pypdf import PdfReader, PdfWriter

from lightsearch.documents.html_extract import ExtractionError
from lightsearch.documents.pdf import PdfText, read_pdf
from lightsearch.errors import LightSearchError
from lightsearch.providers.fetch import WebFetch
from lightsearch.surfaces.tools import FETCH_OUTPUT
from tests.conftest import ROBOTS_ALLOW, coroutine_test
from tests.pdfs import make_pdf

HOST = "papers.pdf.test"
PAPER_PAGES = [
    "Tidal Gauges of the Northern Harbour\nA survey of sea level records, 1950-2020.",
    "Method\nEach gauge was read at noon (local time) and compared with the harbour datum.",
    "Results\nThe mean sea level rose by 21 centimetres over the seventy years of records.",
]
PAPER = make_pdf(PAPER_PAGES, title="Tidal Gauges of the Northern Harbour", author="R. Marsh",
                 created="D:20190305101500Z", lang="en-GB")
LONG = make_pdf([f"Chapter {i}\nThe survey continues with gauge number {i}." for i in range(1, 13)])


def _encrypted(user_password: str) -> bytes:
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(PAPER)))
    writer.encrypt(user_password=user_password, owner_password="owner-secret", algorithm="RC4-128")
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


@pytest.fixture
def settings(origins):
    origins.add_site(HOST, {
        "/robots.txt": ROBOTS_ALLOW,
        "/paper.pdf": {"body": PAPER, "type": "application/pdf"},
        "/bucket/paper.pdf": {"body": PAPER, "type": "binary/octet-stream"},
        "/download": {"body": PAPER, "type": ""},
        "/long.pdf": {"body": LONG, "type": "application/pdf"},
        "/scan.pdf": {"body": make_pdf([None, None, None]), "type": "application/pdf"},
        "/locked.pdf": {"body": _encrypted("letmein"), "type": "application/pdf"},
        "/print-only.pdf": {"body": _encrypted(""), "type": "application/pdf"},
        "/broken.pdf": {"body": PAPER[: len(PAPER) // 3], "type": "application/pdf"},
    })
    origins.reset_log()
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


async def fetch(settings, path, **kwargs):
    return await WebFetch.from_settings(settings).fetch(f"https://{HOST}{path}", **kwargs)


async def fetch_error(settings, path, **kwargs) -> LightSearchError:
    with pytest.raises(LightSearchError) as info:
        await fetch(settings, path, **kwargs)
    return info.value


@coroutine_test
async def test_a_pdf_reads_as_text_with_page_markers_and_its_metadata(settings):
    page = await fetch(settings, "/paper.pdf")
    validate(page, FETCH_OUTPUT)
    assert page["contentType"] == "application/pdf"
    assert page["title"] == "Tidal Gauges of the Northern Harbour"
    assert page["byline"] == "R. Marsh"
    assert page["publishedAt"] == "2019-03-05T10:15:00Z"
    assert page["language"] == "en"
    assert page["pdfPages"] == page["pdfPagesRead"] == 3
    content = page["content"]
    for n in (1, 2, 3):
        assert f"[Page {n} of 3]" in content
    assert content.index("[Page 2 of 3]") < content.index("harbour datum") < content.index("[Page 3 of 3]")
    assert "compared with the harbour datum" in content
    assert "(local time)" in content
    assert "21 centimetres" in page["text"]  # the fenced model text carries it too
    assert page["partial"] is False
    assert "notes" not in page


@pytest.mark.parametrize("path", ["/bucket/paper.pdf", "/download"])
@coroutine_test
async def test_a_pdf_served_as_octet_stream_or_untyped_is_known_by_its_signature(settings, path):
    page = await fetch(settings, path)
    assert page["contentType"] == "application/pdf" or page["contentType"].endswith("octet-stream")
    assert "[Page 1 of 3]" in page["content"]


@coroutine_test
async def test_pages_past_the_page_limit_are_counted_not_dropped_silently(settings):
    page = await WebFetch.from_settings({**settings, "WEB_FETCH_PDF_MAX_PAGES": 4}).fetch(f"https://{HOST}/long.pdf")
    assert page["pdfPages"] == 12
    assert page["pdfPagesRead"] == 4
    assert "[Page 4 of 12]" in page["content"]
    assert "[Page 5 of 12]" not in page["content"]
    assert page["partial"] is True
    assert page["notes"] == ["read 4 of 12 pages (stopped by max_pages)"]


@coroutine_test
async def test_max_chars_windows_a_pdf_like_a_page(settings):
    first = await fetch(settings, "/long.pdf", max_chars=120)
    assert len(first["content"]) == 120
    assert first["truncated"] is True
    rest = await fetch(settings, "/long.pdf", max_chars=100_000, start_index=first["nextStartIndex"])
    assert first["content"] + rest["content"] == (await fetch(settings, "/long.pdf", max_chars=100_000))["content"]


@coroutine_test
async def test_a_pdf_larger_than_the_byte_limit_is_too_large(settings):
    with pytest.raises(LightSearchError) as info:
        await WebFetch.from_settings({**settings, "WEB_FETCH_MAX_BYTES": 1024}).fetch(f"https://{HOST}/long.pdf")
    assert info.value.code == "too_large"


@coroutine_test
async def test_a_scanned_pdf_without_a_text_layer_is_extraction_failed_with_the_reason(settings):
    error = await fetch_error(settings, "/scan.pdf")
    assert error.code == "extraction_failed"
    assert error.details["reason"] == "no_text_layer"
    assert error.details["pages"] == 3
    assert "OCR" in error.message


@coroutine_test
async def test_a_password_protected_pdf_is_extraction_failed_encrypted(settings):
    error = await fetch_error(settings, "/locked.pdf")
    assert (error.code, error.details["reason"]) == ("extraction_failed", "encrypted")


@coroutine_test
async def test_a_pdf_encrypted_only_against_editing_reads(settings):
    page = await fetch(settings, "/print-only.pdf")
    assert "21 centimetres" in page["content"]


@coroutine_test
async def test_a_truncated_pdf_is_a_structured_error(settings):
    error = await fetch_error(settings, "/broken.pdf")
    assert error.code == "extraction_failed"


@coroutine_test
async def test_raw_refuses_a_pdf_instead_of_decoding_its_bytes(settings):
    error = await fetch_error(settings, "/paper.pdf", raw=True)
    assert error.code == "unsupported_content_type"


def test_a_deadline_already_past_reads_the_first_page_only():
    doc = read_pdf(LONG, deadline=0.0)
    assert (doc.pages_read, doc.stopped) == (1, "deadline")


def test_a_pdf_without_a_title_is_named_by_its_first_line():
    assert read_pdf(make_pdf(["Harbour Report\nbody"])).title == "Harbour Report"


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_damaged_pdf_is_text_or_extraction_failed_never_a_raw_exception(data):
    body = bytearray(PAPER)
    for _ in range(data.draw(st.integers(1, 12))):
        at = data.draw(st.integers(0, len(body) - 1))
        body[at] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        body = body[: data.draw(st.integers(8, len(body)))]
    try:
        doc: PdfText | str = read_pdf(bytes(body), max_pages=10)
    except ExtractionError as exc:
        doc = exc.code
    assert doc == "extraction_failed" or (isinstance(doc, PdfText) and doc.text.strip())
