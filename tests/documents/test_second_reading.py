"""The second reading of a doubtful page: the other readers on the tree the first read,
without reading it again by trafilatura's own rules.

The page is test_doubt's: an article whose lead sits in a container trafilatura's fast
rules know (``post-content``) and whose other paragraphs sit in a sibling they do not."""

from __future__ import annotations

import trafilatura
from lxml.html import tostring

from lightsearch.documents import readable
from lightsearch.documents.cleaning import prune_unseen
from lightsearch.documents.doubt import FRAGMENTED, THIN
from lightsearch.documents.readable import _parsed, extract_readable
from lightsearch.documents.second_reading import second_reading
from lightsearch.documents.sections import block_texts
from tests.documents.test_doubt import LEAD, SPLIT, URL


def test_a_doubtful_page_is_read_once_by_trafilatura_s_rules(monkeypatch):
    calls = []
    extract = trafilatura.extract

    def counted(*args, **kwargs):
        calls.append(kwargs.get("fast"))
        return extract(*args, **kwargs)

    monkeypatch.setattr(readable.trafilatura, "extract", counted)
    text = extract_readable(SPLIT, URL).text
    # the second reading is taken (the whole article), and trafilatura's own rules read the
    # page once, in fast mode: its standard mode would read it again before the others
    assert "Paragraph 0 of the report" in text
    assert "Paragraph 7 of the report" in text
    assert calls == [True]


def test_the_other_readers_find_the_article_and_leave_the_tree_as_it_was():
    tree = _parsed(SPLIT)
    prune_unseen(tree, texts=block_texts(tree))
    before = tostring(tree)
    text = second_reading(tree, LEAD, THIN, URL, markdown=False)
    assert tostring(tree) == before
    assert "Paragraph 0 of the report" in text
    assert "Paragraph 7 of the report" in text
    assert all(line == line.strip() and line for line in text.split("\n"))


def test_a_comment_section_is_no_part_of_the_second_reading():
    comments = "".join(f"<div class='comment'><p>Comment {n}: the masons did fine work on the wall and the "
                       "board should thank them properly at the next meeting of the harbour board.</p></div>"
                       for n in range(12))
    html = SPLIT.replace("<div class='side'>", f"<div class='reader-talk'>{comments}</div><div class='side'>")
    tree = _parsed(html)
    prune_unseen(tree, texts=block_texts(tree))
    section = tree.xpath("//div[@class='reader-talk']")[0]
    text = second_reading(tree, LEAD, THIN, URL, markdown=False, leave=[section])
    assert "Comment 3" not in text
    assert "Paragraph 7 of the report" in text
    assert tree.xpath("//div[@class='reader-talk']") == [section]  # left in the page itself


def test_jusText_is_not_run_where_readability_read_most_of_the_page(monkeypatch):
    from lightsearch.documents import second_reading as module

    asked = []
    justext_rescue = module.justext_rescue

    def counted(*args, **kwargs):
        asked.append(1)
        return justext_rescue(*args, **kwargs)

    monkeypatch.setattr(module, "justext_rescue", counted)
    tree = _parsed(SPLIT)
    prune_unseen(tree, texts=block_texts(tree))
    assert "Paragraph 7 of the report" in second_reading(tree, LEAD, THIN, URL, markdown=False)
    assert asked == []  # readability read the article, most of the page: jusText cannot read three times that
    # a first reading that cut its sentences into lines, as long as readability's: jusText
    # is asked which of the two reads them whole
    cut = "\n".join(LEAD.split(", ")) * 6
    second_reading(tree, cut, FRAGMENTED, URL, markdown=False)
    assert asked == [1]


def test_jusText_is_not_asked_past_its_bound_on_paragraphs(monkeypatch):
    """Its time grows with the square of a run of short paragraphs: a page of more
    paragraph elements than the bound is read by the others alone, whatever it holds."""
    from lightsearch.documents import second_reading as module

    asked = []
    justext = module._justext

    def counted(*args, **kwargs):
        asked.append(True)
        return justext(*args, **kwargs)

    monkeypatch.setattr(module, "_justext", counted)
    # a list of links: readability's scoring keeps none of it, so jusText would be asked
    short = "<li><a href='/r'>tide gauge reading</a></li>"
    for count, expected in ((module.JUSTEXT_MAX_BLOCKS, [True]), (module.JUSTEXT_MAX_BLOCKS + 1, [])):
        asked.clear()
        tree = _parsed(f"<html><body><ul>{short * count}</ul></body></html>")
        text = second_reading(tree, "", THIN, URL, markdown=False)
        assert asked == expected, count
        assert isinstance(text, str)
