"""The BM25 model a search builds holds its query terms' postings only: the same scores
as the model of every term, on any corpus and query."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.ranking.bm25 import LuceneBM25, bm25_model

words = st.sampled_from(["wing", "flow", "heat", "shock", "the", "of", "layer", "mach", ""])
corpora = st.lists(st.lists(words, max_size=30), min_size=1, max_size=12)
queries = st.lists(words, max_size=6)


@settings(max_examples=60, deadline=None)
@given(corpora, queries, st.lists(words, max_size=4))
def test_a_model_of_the_query_terms_scores_as_the_model_of_every_term(corpus, query, other):
    full = LuceneBM25(corpus)
    asked = LuceneBM25(corpus, vocabulary=set(query) | set(other))
    assert asked.get_scores(query) == full.get_scores(query)
    assert set(asked.postings) <= set(query) | set(other)
    for term in asked.postings:
        assert asked.postings[term] == full.postings[term]


def test_a_term_outside_the_vocabulary_scores_nothing():
    model = bm25_model([["wing", "flow"], ["heat"]], vocabulary={"wing"})
    assert model.get_scores(["flow"]) == [0.0, 0.0]
    assert model.get_scores(["wing"])[0] > 0
