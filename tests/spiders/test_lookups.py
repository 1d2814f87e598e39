"""Lookup page names from a query (spiders/lookups.py): a short query is a name, a long
one is searched for the names it holds, the site's own name is never part of a title."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.spiders.lookups import MAX_TITLES, lookup_titles

WIKI = ["ויקיפדיה", "hebrew", "wikipedia", "english"]


@pytest.mark.parametrize(("query", "first"), [
    ("Ada Lovelace", "Ada_Lovelace"),
    ("what is photosynthesis", "Photosynthesis"),
    ("great barrier reef", "Great_barrier_reef"),
    ("דבורת הדבש – ויקיפדיה", "דבורת_הדבש"),  # a page title copied with its site suffix
    ("honey bee wikipedia", "Honey_bee"),  # the site's name typed after the subject
    ("מדוע השמיים כחולים?", "השמיים_כחולים"),
])
def test_the_likeliest_name_comes_first(query, first):
    assert lookup_titles(query, WIKI)[0] == first


def test_a_long_query_is_searched_for_the_names_it_holds():
    titles = lookup_titles("how did ada lovelace describe the analytical engine", WIKI)
    assert "Analytical_engine" in titles
    assert "Ada_lovelace" in titles  # a verb after a name is cut away
    assert len(titles) <= MAX_TITLES


@pytest.mark.parametrize("query", ["the", "what is the", "2026", "wikipedia", "?!"])
def test_no_content_word_no_lookup(query):
    assert lookup_titles(query, WIKI) == []


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=120), st.lists(st.text(max_size=12), max_size=4))
def test_any_query_gives_at_most_three_names_without_spaces(query, site):
    titles = lookup_titles(query, site)
    assert len(titles) <= MAX_TITLES
    assert len(set(titles)) == len(titles)
    assert all(t and not any(c.isspace() for c in t) for t in titles)
