"""BM25 over the small corpus one search retrieves.

rank-bm25's Okapi idf, ``log((N - n + 0.5) / (n + 0.5))``, goes to zero or below as soon
as a term occurs in half of a handful of documents, which is the normal case here (a
two-document corpus scores everything 0: reference G9). Lucene's form,
``log(1 + (N - n + 0.5) / (n + 0.5))``, stays positive, so we subclass and swap the idf
and keep rank-bm25's scoring loop (k1=1.2, b=0.75 as in the oracle).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from rank_bm25 import BM25Okapi


class LuceneBM25(BM25Okapi):
    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        super().__init__(list(corpus), k1=k1, b=b)

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


def bm25_scores(corpus: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """Scores of every document for ``query``; empty corpus or query scores nothing."""
    if not corpus:
        return []
    if not query or not any(corpus):
        return [0.0] * len(corpus)
    # rank-bm25 divides by the average length; an all-empty corpus is caught above.
    model = LuceneBM25([doc if doc else [""] for doc in corpus])
    return [float(s) for s in model.get_scores(list(query))]
