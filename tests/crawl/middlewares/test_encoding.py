"""Declared encodings through the allowlist: correct Hebrew or a recorded error, never
mojibake. The Hebrew text is a real Hebrew Wikipedia paragraph from the HeQ set."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.providers.light import LightSearch
from tests.conftest import coroutine_test, shared_data
from tests.hygiene_world import counts, errors, hit_urls, paths, slug, world

QUERY = "שמעון בר יוחאי מערה"


def _paragraph() -> tuple[str, str]:
    data = json.loads(shared_data("hebrew-qa", "heq", "heq_val_v1.1.json").read_text("utf-8"))
    article = data["data"][0]
    return article["title"], article["paragraphs"][0]["context"]


def _page(title: str, text: str, head: str = "") -> str:
    paras = "".join(f"<p>{p}</p>" for p in text.split(". ") if p)
    return (f'<!doctype html><html lang="he" dir="rtl"><head>{head}<title>{title}</title></head>'
            f"<body><article><h1>{title}</h1>{paras}</article></body></html>")


def _home() -> dict:
    body = '<html><head><meta charset="utf-8"></head><body><a href="/a">רבי שמעון בר יוחאי במערה</a></body></html>'
    return {"body": body}


def _cases() -> list[tuple[str, dict, bool, str | None]]:
    title, text = _paragraph()
    plain = _page(title, text)
    return [
        ("header windows-1255", {"body": plain.encode("cp1255"), "type": "text/html; charset=windows-1255"},
         True, None),
        ("meta charset windows-1255", {"body": _page(title, text, '<meta charset="windows-1255">').encode("cp1255"),
                                       "type": "text/html"}, True, None),
        ("http-equiv iso-8859-8", {"body": _page(title, text, '<meta http-equiv="Content-Type" '
                                                 'content="text/html; charset=iso-8859-8">').encode("iso-8859-8"),
                                   "type": "text/html"}, True, None),
        ("utf-16 with a byte-order mark", {"body": b"\xff\xfe" + plain.encode("utf-16-le"), "type": "text/html"},
         True, None),
        ("undeclared utf-8", {"body": plain.encode("utf-8"), "type": "text/html"}, True, None),
        ("undeclared windows-1255", {"body": plain.encode("cp1255"), "type": "text/html"},
         False, "undeclared_encoding"),
        ("declared koi8-r", {"body": plain.encode("cp1255"), "type": "text/html; charset=koi8-r"},
         False, "unsupported_encoding"),
        ("unknown label", {"body": plain.encode("cp1255"), "type": "text/html; charset=x-martian"},
         False, "unsupported_encoding"),
        ("declared utf-8 but windows-1255 bytes", {"body": plain.encode("cp1255"),
                                                   "type": "text/html; charset=utf-8"},
         False, "encoding_mismatch"),
    ]


# The names alone at collection time: building a case reads shared data, which may be absent.
CASE_NAMES = ["header windows-1255", "meta charset windows-1255", "http-equiv iso-8859-8",
              "utf-16 with a byte-order mark", "undeclared utf-8", "undeclared windows-1255",
              "declared koi8-r", "unknown label", "declared utf-8 but windows-1255 bytes"]


def test_case_names_match_cases():
    assert [c[0] for c in _cases()] == CASE_NAMES


@pytest.mark.parametrize("case_name", CASE_NAMES)
@coroutine_test
async def test_declared_encoding(origins, tmp_path, case_name):
    name, route, listed, code = next(c for c in _cases() if c[0] == case_name)
    title, _text = _paragraph()
    host = f"enc-{slug(name)}.test"
    cfg = world(origins, tmp_path, host, {"/": _home(), "/a": route}, language="he")
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert "/a" in paths(origins, host)
    url = f"https://{host}/a"
    assert (url in hit_urls(result)) is listed
    if listed:
        hit = next(h for h in result["hits"] if h["url"] == url)
        assert hit["title"] == title
        assert "שמעון" in hit["snippet"]
        assert all(ch not in hit["snippet"] for ch in "\ufffdÃ×ðî")  # no replacement chars, no mojibake
        assert counts(result)["encodingRefused"] == 0
    else:
        assert [e["code"] for e in errors(result)] == [code]
        assert counts(result)["encodingRefused"] == 1
        assert all("שמעון" not in h["snippet"] or h["url"] != url for h in result["hits"])


@pytest.mark.parametrize(("value", "label"), [
    ('text/html; charset="windows-1255"', "windows-1255"),
    ("text/html;charset=UTF-8", "utf-8"),
    ("text/html; charset = iso-8859-8", "iso-8859-8"),
    ("text/html; charset='utf-8'", "utf-8"),
    ("text/html; charset*=utf-8''iso-8859-8", "iso-8859-8"),
    ("text/html; charset=", None),
    ("text/html", None),
])
def test_the_charset_parameter_is_read_as_mime_writes_it(value, label):
    from lightsearch.crawl.middlewares.encoding import charset_param

    assert charset_param(value) == label


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.text(max_size=300))
def test_the_charset_parameter_reader_never_raises(value):
    from lightsearch.crawl.middlewares.encoding import charset_param

    label = charset_param(value)
    assert label is None or (isinstance(label, str) and label == label.lower())


def test_the_charset_is_read_in_the_content_types_first_kib():
    """The mail parser's work grows with the square of the parameters; a head may be 64 KiB
    of them. The charset is read where real servers write it, in the value's first KiB."""
    from lightsearch.crawl.middlewares.encoding import MAX_CONTENT_TYPE_CHARS, charset_param

    noise = ";a" * 30_000
    assert charset_param("text/html; charset=windows-1255" + noise) == "windows-1255"
    assert charset_param("text/html" + noise + "; charset=windows-1255") is None
    assert charset_param("text/html;" + " " * (MAX_CONTENT_TYPE_CHARS - 30) + "charset=utf-8") == "utf-8"
