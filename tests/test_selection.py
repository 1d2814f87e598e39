from lightsearch.catalog import load_catalog
from lightsearch.request import build_request
from lightsearch.selection import select_sources


def test_hebrew_query_selects_only_hebrew_sources():
    chosen = select_sources(load_catalog(), build_request("מחיר הדירות בתל אביב"), 6)
    assert chosen
    assert len(chosen) <= 6
    assert {c.source.language for c in chosen} == {"he"}


def test_english_query_selects_english_sources_up_to_the_bound():
    chosen = select_sources(load_catalog(), build_request("mars rover mission"), 6)
    assert len(chosen) == 6
    assert {c.source.language for c in chosen} == {"en"}
    assert chosen[0].source.kind == "science"  # topic words steer


def test_recency_favours_news():
    plain = select_sources(load_catalog(), build_request("election results"), 6)
    fresh = select_sources(load_catalog(), build_request("election results", recency="day"), 6)
    assert fresh[0].source.kind == "news"
    assert [c.source.kind for c in fresh].count("news") >= [c.source.kind for c in plain].count("news")


def test_mixed_languages_share_the_bound():
    chosen = select_sources(
        load_catalog(), build_request(queries=["black holes", "חורים שחורים"]), 6
    )
    langs = [c.source.language for c in chosen]
    assert langs.count("en") == 3
    assert langs.count("he") == 3


def test_kinds_are_diverse():
    chosen = select_sources(load_catalog(), build_request("history of the printing press"), 6)
    assert len({c.source.kind for c in chosen}) >= 3
