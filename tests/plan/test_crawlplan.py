"""The crawl plan (plan/crawlplan.py): which selected sources the hop budget reads in
depth and which it keeps in reserve."""

from __future__ import annotations

from lightsearch.plan.catalog import Source
from lightsearch.plan.crawlplan import ARTICLE_HOPS_PER_SOURCE, OPENING_HOPS, affordable
from lightsearch.plan.selection import SelectedSource


def selected(*languages):
    return [SelectedSource(Source(id=f"s{i}", name=f"S{i}", language=lang, kind="news",
                                  origins=(f"https://s{i}.example",), seeds=(f"https://s{i}.example/",)),
                           score=1.0, rank=i) for i, lang in enumerate(languages)]


def test_cold_sources_past_what_the_hops_can_read_go_to_the_reserve_lowest_ranked_first():
    sources = selected("en", "en", "en", "en")
    kept = affordable(sources, 1, 24, opened=lambda sel: False)
    # 24 hops: 2 cold sources cost 8 to open and leave 16 >= 6 * 2 for articles; 3 do not
    assert [sel.source.id for sel in kept] == ["s0", "s1"]
    assert 24 - OPENING_HOPS * 2 >= ARTICLE_HOPS_PER_SOURCE * 2


def test_warm_sources_cost_no_opening_and_are_all_kept():
    sources = selected("en", "en", "en", "en")
    assert affordable(sources, 1, 24, opened=lambda sel: True) == sources


def test_the_first_sources_floor_is_kept_whatever_the_budget():
    sources = selected("en", "en", "en", "en")
    assert len(affordable(sources, 3, 8, opened=lambda sel: False)) == 3
    assert len(affordable(sources, 0, 8, opened=lambda sel: False)) == 1


def test_each_query_language_keeps_a_source():
    sources = selected("en", "he", "en", "en")
    kept = affordable(sources, 1, 8, opened=lambda sel: False)
    assert {sel.source.language for sel in kept} == {"en", "he"}
