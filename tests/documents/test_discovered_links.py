"""A discovered link's terms before it is fetched (documents/discovered_links.py)."""

from __future__ import annotations

from lightsearch.documents import discovered_links
from lightsearch.documents.discovered_links import SLUG_CHARS, slug_terms


def test_a_long_path_is_read_for_its_slug_from_its_last_characters_only(monkeypatch):
    """The frontier scores up to 2,000 links of a page in the event loop, each by its slug:
    a path of 2,000 characters is read no further than a short one (such a URL is never
    memoised, so it is read again at every score), and the words at its end still count."""
    read: list[int] = []
    real = discovered_links.tokenize

    def recording(text: str) -> list[str]:
        read.append(len(text))
        return real(text)

    monkeypatch.setattr(discovered_links, "tokenize", recording)
    terms = slug_terms("https://a.test/" + "sediment-" * 200 + "glacier-moraine")
    assert read
    assert max(read) <= SLUG_CHARS
    assert terms[-2:] == ("glacier", "morain")
    assert "sediment" in terms
    assert slug_terms("https://a.test/2024/05/glacier-moraine-sediment") == (
        "2024", "05", "glacier", "morain", "sediment")
