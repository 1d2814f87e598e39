"""Reach: what a search read of its frontier's best candidates, bounded and monotone."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.evidence.reach import TOP, Reach, reach_of

URLS = [f"https://site.test/paper-{i}" for i in range(30)]
# any float, hostile ones too: a score out of range or NaN is clipped, never raised on
scores = st.dictionaries(st.sampled_from(URLS), st.floats(allow_nan=True, allow_infinity=True), max_size=30)
read_sets = st.sets(st.sampled_from(URLS), max_size=30)
PROPS = settings(max_examples=30, deadline=None, derandomize=True, database=None)


def measures(r: Reach) -> list[float]:
    return [r.read_share(3), r.read_share(), r.read_share(TOP), r.unread_lead, r.best]


@PROPS
@given(scores, read_sets, st.lists(st.sampled_from(URLS), max_size=10))
def test_every_measure_is_in_0_1(pool, read, hits):
    r = reach_of(pool, read, hits=hits)
    for value in [*measures(r), *r.hits]:
        assert 0.0 <= value <= 1.0  # NaN fails this too
    assert len(r.top) <= TOP
    assert len(r.hits) == len(hits)
    assert [s for s, _ in r.top] == sorted((s for s, _ in r.top), reverse=True)
    assert len(r.top) <= r.scored


@PROPS
@given(scores, read_sets, st.sampled_from(URLS))
def test_reading_one_more_candidate_never_lowers_the_share_nor_raises_the_lead(pool, read, more):
    before = reach_of(pool, read)
    after = reach_of(pool, read | {more})
    for k in (1, 3, 10, TOP):
        assert after.read_share(k) >= before.read_share(k) - 1e-12
    assert after.unread_lead <= before.unread_lead + 1e-12
    assert after.best == before.best  # what the sources offer does not depend on what was read


def test_a_search_that_left_its_best_candidates_unread_shows_it():
    pool = {URLS[0]: 0.9, URLS[1]: 0.8, URLS[2]: 0.2, URLS[3]: 0.1}
    r = reach_of(pool, [URLS[2], URLS[3]], hits=[URLS[2], URLS[9]])
    assert r.read_share() == (0.2 + 0.1) / 2.0
    assert math.isclose(r.unread_lead, 0.7)
    assert r.best == 0.9
    assert r.hits == (0.2, 0.0)  # a hit it never scored: 0
    done = reach_of(pool, URLS[:4])
    assert (done.read_share(), done.unread_lead) == (1.0, 0.0)


@PROPS
@given(st.integers(-5, 5000), st.integers(-5, 5000))
def test_pages_seen_and_kept_are_counts_reported_as_given(pages, kept):
    r = reach_of({}, [], pages=pages, kept=kept)
    assert (r.pages, r.kept) == (max(0, pages), max(0, kept))
    assert (r.as_dict()["pages"], r.as_dict()["kept"]) == (r.pages, r.kept)


def test_urls_match_by_their_canonical_form_and_unscored_candidates_are_left_out():
    pool = {"https://site.test/p?b=2&a=1": 0.5, URLS[1]: 0.0, URLS[2]: -3.0}
    r = reach_of(pool, ["https://site.test/p?a=1&b=2"])
    assert (r.top, r.scored) == (((0.5, True),), 1)


def test_no_scored_candidate_leaves_nothing_unread():
    r = reach_of({}, [])
    assert (r.read_share(), r.unread_lead, r.best) == (1.0, 0.0, 0.0)
    assert r.as_dict()["top"] == []
