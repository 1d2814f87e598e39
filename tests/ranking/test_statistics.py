"""The collection's statistics a search ranks with: what the sources publish, blended with
the pages it read (ranking/statistics.py). Properties of the blend, on any counts."""

from __future__ import annotations

import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lightsearch.ranking.bm25 import LuceneBM25
from lightsearch.ranking.statistics import (
    Background,
    Observed,
    collection_idf,
    collection_share,
    lucene_idf,
    observe,
    title_share,
)

# (ranked pages, described entries): a search's pages, and a catalog's sampled entries
sizes = st.tuples(st.integers(1, 400), st.integers(0, 20_000))
priors = st.floats(0.01, 0.9)


@st.composite
def counts(draw):
    n, entries = draw(sizes)
    pages = draw(st.integers(0, n))
    titled = draw(st.integers(0, pages))
    rows = draw(st.integers(0, entries))
    return Observed(pages, titled, n), rows, entries


@settings(max_examples=50, deadline=None)
@given(counts(), priors)
def test_the_share_is_a_share_and_the_idf_positive(case, prior):
    observed, rows, entries = case
    share = collection_share(observed, rows, entries, prior)
    assert 0.0 < share <= 1.0
    assert lucene_idf(share * (entries + observed.ranked), entries + observed.ranked) > 0


@settings(max_examples=32, deadline=None)
@given(counts(), priors, st.integers(1, 50))
def test_more_described_entries_carrying_a_term_never_make_it_rarer(case, prior, more):
    observed, rows, entries = case
    assume(rows + more <= entries)
    before = collection_share(observed, rows, entries, prior)
    after = collection_share(observed, rows + more, entries, prior)
    assert after >= before * (1 - 1e-3)


@settings(max_examples=32, deadline=None)
@given(counts(), priors)
def test_more_ranked_pages_holding_a_term_never_make_it_rarer(case, prior):
    observed, rows, entries = case
    assume(observed.pages < observed.ranked)
    more = Observed(observed.pages + 1, observed.titled, observed.ranked)
    assert collection_share(more, rows, entries, prior) >= collection_share(observed, rows, entries, prior) * (1 - 1e-3)


@settings(max_examples=32, deadline=None)
@given(counts(), priors)
def test_a_term_in_the_titles_of_the_pages_that_hold_it_is_a_topic_word_not_prose(case, prior):
    """The same pages hold it; carried in more of their titles, it is more visible in the
    described entries, so the entries' count means fewer pages hold it."""
    observed, rows, entries = case
    assume(observed.titled < observed.pages)
    titled = Observed(observed.pages, observed.titled + 1, observed.ranked)
    assert collection_share(titled, rows, entries, prior) <= collection_share(observed, rows, entries, prior) * (1 + 1e-3)


@settings(max_examples=50, deadline=None)
@given(sizes, priors, st.floats(0.0, 0.02))
def test_pages_all_on_the_topic_keep_most_of_its_words_weight(size, prior, rate):
    """The lens case: every page the search read holds the term, in its title. Counted
    over those pages it would weigh nothing; here it keeps at least 0.4 of the weight the
    described entries alone give it (a term in at most 2% of the catalog's entries, with
    ten times as many entries described as pages read)."""
    n, entries = size
    assume(entries >= 10 * n)
    rows = math.floor(rate * entries)
    total = entries + n
    alone = collection_share(Observed(0, 0, n), rows, entries, prior)
    on_topic = collection_share(Observed(n, n, n), rows, entries, prior)
    assert lucene_idf(on_topic * total, total) >= 0.4 * lucene_idf(alone * total, total)


corpora = st.lists(st.lists(st.sampled_from(["lens", "human", "flow", "wing", "the"]), max_size=20),
                   min_size=1, max_size=12)


@settings(max_examples=32, deadline=None)
@given(corpora)
def test_without_a_description_the_ranked_pages_own_statistics_decide(corpus):
    terms = {"lens", "human", "flow", "absent"}
    sets = [set(doc) & terms for doc in corpus]
    idf = collection_idf(terms, observe(sets, [set()] * len(sets), terms), None, 0.1)
    model = LuceneBM25([doc or [""] for doc in corpus])
    for term in terms:
        if term in model.idf:
            assert idf[term] == model.idf[term]
    idf_empty = collection_idf(terms, observe(sets, [set()] * len(sets), terms), Background({}, 0.0), 0.1)
    assert idf_empty == idf


def test_the_prior_is_the_pages_share_of_title_words():
    assert title_share([(100, 10), (50, 5)]) == 0.1
    assert title_share([]) == 0.1
    assert title_share([(4, 4)]) == 0.9  # bounded: a page that is all title says little
