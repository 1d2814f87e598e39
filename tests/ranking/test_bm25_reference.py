"""lightsearch's BM25 against rank-bm25, the BM25 package the product card names.

The ranking keeps its own scoring (ranking/bm25.py says why: Lucene's idf, postings per
asked term, no numpy at run time); rank-bm25 is the reference it is held to. Given the
same document frequencies, the two score every document alike: rank-bm25's ``BM25Okapi``
counts the corpus (document lengths, term frequencies, document frequencies), its idf is
replaced by Lucene's over those counts, and its own loop scores the query. Only the plain
model is compared here: whatever statistics the ranking blends into its idf, the scoring
given an idf is this one.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.ranking.bm25 import LuceneBM25, bm25_model, bm25_scores, model_scores

rank_bm25 = pytest.importorskip("rank_bm25")

K1, B = 1.2, 0.75
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "wing", "flow", "heat", "שלום", "a", ""])
DOCS = st.lists(st.lists(WORDS, max_size=30), min_size=1, max_size=25).filter(any)
QUERY = st.lists(st.one_of(WORDS, st.just("absent")), min_size=1, max_size=6)


def lucene_idf(corpus_size: int, df: int) -> float:
    return math.log(1.0 + (corpus_size - df + 0.5) / (df + 0.5))


def reference(corpus: list[list[str]]) -> rank_bm25.BM25Okapi:
    """rank-bm25's model of ``corpus``, its idf Lucene's over the document frequencies it
    counted itself."""
    ref = rank_bm25.BM25Okapi(corpus, k1=K1, b=B)
    df: dict[str, int] = {}
    for counts in ref.doc_freqs:
        for term in counts:
            df[term] = df.get(term, 0) + 1
    ref.idf = {term: lucene_idf(ref.corpus_size, n) for term, n in df.items()}
    return ref


def close(ours: list[float], theirs: list[float]) -> bool:
    return len(ours) == len(theirs) and all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
                                            for a, b in zip(ours, theirs, strict=True))


@settings(max_examples=50, deadline=None)
@given(DOCS, QUERY)
def test_the_scores_are_rank_bm25s_given_the_same_document_frequencies(corpus, query):
    ours = LuceneBM25(corpus).get_scores(query)
    theirs = [float(s) for s in reference(corpus).get_scores(query)]
    assert close(ours, theirs), (ours, theirs)


@settings(max_examples=50, deadline=None)
@given(DOCS, QUERY)
def test_the_document_frequencies_and_lengths_are_rank_bm25s(corpus, query):
    model, ref = LuceneBM25(corpus), reference(corpus)
    assert model.doc_len == ref.doc_len
    assert math.isclose(model.avgdl, ref.avgdl)
    assert model.idf.keys() == ref.idf.keys()
    assert all(math.isclose(model.idf[t], ref.idf[t]) for t in model.idf)


@settings(max_examples=24, deadline=None)
@given(DOCS, QUERY)
def test_postings_for_the_asked_terms_only_score_the_same(corpus, query):
    """A search builds postings only for its query terms: the same scores as the full model."""
    asked = bm25_model(corpus, vocabulary=set(query))
    full = bm25_model(corpus)
    assert close(model_scores(asked, len(corpus), query), model_scores(full, len(corpus), query))


@settings(max_examples=24, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=30), min_size=1, max_size=25), QUERY)
def test_an_empty_document_counts_as_one_empty_word(corpus, query):
    """``bm25_scores`` reads an empty document as one empty word (it lengthens the average
    as rank-bm25 would over that corpus); a corpus of empty documents scores nothing, where
    rank-bm25 divides by its zero average length."""
    scores = bm25_scores(corpus, query)
    if not any(corpus):
        assert scores == [0.0] * len(corpus)
        return
    padded = [doc if doc else [""] for doc in corpus]
    assert close(scores, [float(s) for s in reference(padded).get_scores(query)])
