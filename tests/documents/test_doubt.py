"""The reader's second reading: only where the first is doubtful, and then it decides.

The doubtful page is our own writing: an article whose first paragraph sits in a container
trafilatura's fast rules know by its class (``post-content``) and whose other paragraphs sit
in a sibling they do not: the first reading is that one paragraph."""

from __future__ import annotations

from lightsearch.documents.doubt import BLOCK_LEFT, FRAGMENTED, THIN, better, doubt_of
from lightsearch.documents.readable import _parsed, extract_readable
from lightsearch.documents.sections import block_texts
from lightsearch.documents.xmlsafe import scrubbed_utf8

URL = "https://news.example.org/2026/12/wall"
PARAGRAPHS = "".join(f"<p>Paragraph {n} of the report tells how the harbour wall was rebuilt after the winter "
                     "storms, stone by stone, by the same masons who built it forty years ago.</p>" for n in range(8))
LEAD = ("The harbour wall is whole again. The last stones were cut on Friday in the masons' yard by the quay and set "
        "in place on Saturday morning, a week ahead of the date the harbour board had given, and the board's engineer "
        "walked the length of the wall in the afternoon with the foreman to check every joint.")
SPLIT = (f"<html><head><title>The harbour wall</title></head><body><div id='page'><div class='post-content'><p>{LEAD}"
         f"</p></div><div class='more'>{PARAGRAPHS}</div><div class='side'><p>Subscribe to the harbour newsletter."
         "</p></div></div></body></html>")


def _blocks(html: str):
    return block_texts(_parsed(*scrubbed_utf8(html)))


def test_a_doubtful_first_reading_is_replaced_by_the_second():
    first = extract_readable(SPLIT, URL, skip=("second",)).text
    assert "Paragraph 7 of the report" not in first  # the premise: the first reading is the lead alone
    assert doubt_of(first, _blocks(SPLIT)) in (THIN, BLOCK_LEFT)
    text = extract_readable(SPLIT, URL).text
    assert text.startswith("The harbour wall is whole again")
    assert "Paragraph 0 of the report" in text
    assert "Paragraph 7 of the report" in text
    assert "Subscribe" not in text


def test_an_ordinary_article_is_not_doubted():
    html = f"<html><body><article><h1>The harbour wall</h1>{PARAGRAPHS}</article></body></html>"
    text = extract_readable(html, URL).text
    assert doubt_of(text, _blocks(html)) is None


def test_what_makes_a_reading_doubtful():
    html = (f"<html><body><div class='story'>{PARAGRAPHS}</div><div class='side'><p>A short line of the page "
            "that is not the story.</p></div></body></html>")
    blocks = _blocks(html)
    assert doubt_of("Paragraph 1 of the report.", blocks) == THIN
    side = "A short line of the page that is not the story. " * 12  # long enough, the story left out
    assert doubt_of(side, blocks) == BLOCK_LEFT
    cut = "\n".join(["The wall was rebuilt by the", "masons who built it", ", stone by stone", "after the storms"] * 5
                    + ["A sentence that ends. " * 10])
    assert doubt_of(cut, blocks) == FRAGMENTED


def test_the_second_reading_must_read_more_or_read_whole_sentences():
    first = "a reading of four hundred characters " * 11
    assert not better(first, first[:300], THIN)
    assert better(first, first * 2, THIN)
    fragmented = "\n".join(["The wall was rebuilt by the", "masons who built it", ", stone by stone"] * 20)
    whole = "The wall was rebuilt by the masons who built it, stone by stone. " * 12
    assert better(fragmented, whole, FRAGMENTED)
    assert not better(fragmented, whole[:100], FRAGMENTED)


def test_a_short_article_in_chinese_or_japanese_is_not_thin():
    # three hundred Han and kana characters are a short news item, a hundred words or more
    japanese = ("港の防波堤は金曜日に最後の石が切り出され、土曜日の朝に据え付けられた。"
                "港湾局の技師は午後、職長と一緒に防波堤の全長を歩き、継ぎ目を一つずつ確かめた。") * 4
    hangul = "항구의 방파제가 다시 완성되었다. 마지막 돌은 금요일에 잘라 토요일 아침에 놓였다. " * 8
    assert 250 < len(japanese) < 500
    assert 250 < len(hangul) < 500
    assert doubt_of(japanese, {}) is None
    assert doubt_of(hangul, {}) is None
    # the same count of Latin letters is a reading that missed the article
    assert doubt_of("a" * len(japanese), {}) == THIN
