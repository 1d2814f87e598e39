"""The URL, text and word memos keep short arguments only: a page's long URLs and words
are computed each time and never held, so a memo's memory is bounded by its entries
whatever the pages say; short ones are still memoised."""

from __future__ import annotations

from lightsearch.cache.memo import URL_CHARS, short_memo
from lightsearch.documents import discovered_links as links
from lightsearch.documents.pagescan import scan_page
from lightsearch.documents.urlkey import canonical_url
from lightsearch.plan.catalog import origin_of
from lightsearch.ranking import tokenize

LONG = "https://wide.test/" + "d" * 1900 + "/"
MEMOS = (canonical_url, origin_of, links._requestable, links.looks_like_page, links._slug_terms, links.text_terms,
         tokenize._term, tokenize._english)


def sizes() -> list[int]:
    return [memo.cache_info().currsize for memo in MEMOS]


def test_a_page_of_long_links_and_words_leaves_the_memos_as_they_were():
    body = "<html><body>" + "".join(f"<a href={'x' * 70}{i:x}>{'w' * 300}{i} glacier</a>" for i in range(500)) + "</body></html>"
    tokenize.tokenize("glacier")  # the one short word, memoised before
    before = sizes()
    page = scan_page(body, LONG).links
    for link in page.links:
        canonical_url(link.url)
        origin_of(link.url)
        links.looks_like_page(link.url)
        links.slug_terms(link.url)
        links.text_terms(link.anchor * 2)
    tokenize.tokenize(" ".join(link.anchor for link in page.links))
    assert len(page.links) == 500
    assert sizes() == before


def test_short_arguments_are_memoised():
    calls = []

    @short_memo(16, URL_CHARS)
    def double(text: str) -> str:
        calls.append(text)
        return text * 2

    assert double("ab") == double("ab") == "abab"
    assert double("x" * 300) == double("x" * 300)
    assert calls == ["ab", "x" * 300, "x" * 300]
    assert canonical_url("https://a.test/b?y=1&x=2") == "https://a.test/b?x=2&y=1"
