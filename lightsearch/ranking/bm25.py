"""BM25 over the small corpus one search retrieves.

rank-bm25's Okapi idf, ``log((N - n + 0.5) / (n + 0.5))``, goes to zero or below as soon
as a term occurs in half of a handful of documents, which is the normal case here (a
two-document corpus scores everything 0: reference G9). Lucene's form,
``log(1 + (N - n + 0.5) / (n + 0.5))``, stays positive, so we subclass and swap the idf
and keep rank-bm25's scoring loop (k1=1.2, b=0.75 as in the oracle).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

from rank_bm25 import BM25Okapi


class LuceneBM25(BM25Okapi):
    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        # a list (or a list subclass that checks a stop flag as it is read) as it is
        super().__init__(corpus if isinstance(corpus, list) else list(corpus), k1=k1, b=b)

    def _calc_idf(self, nd: dict[str, int]) -> None:
        for word, freq in nd.items():
            self.idf[word] = math.log(1.0 + (self.corpus_size - freq + 0.5) / (freq + 0.5))


class Stopped(Exception):
    """``should_stop()`` said so while the corpus was being read."""


class _Checked(list):
    """The corpus, read document by document by rank-bm25, asking ``should_stop`` before each."""

    def __init__(self, docs: list[Sequence[str]], should_stop: Callable[[], bool]) -> None:
        super().__init__(docs)
        self.should_stop = should_stop

    def __iter__(self) -> Iterator[Sequence[str]]:
        for doc in super().__iter__():
            if self.should_stop():
                raise Stopped
            yield doc


def bm25_model(corpus: Sequence[Sequence[str]], should_stop: Callable[[], bool] | None = None) -> LuceneBM25 | None:
    """The model of ``corpus`` (None when there is nothing to score), built once for all
    of a search's queries; ``should_stop`` is asked per document, :class:`Stopped` raised."""
    if not corpus or not any(corpus):
        return None
    # rank-bm25 divides by the average length; an all-empty corpus is caught above.
    docs = [doc if doc else [""] for doc in corpus]
    return LuceneBM25(_Checked(docs, should_stop) if should_stop else docs)


def model_scores(model: LuceneBM25 | None, size: int, query: Sequence[str]) -> list[float]:
    """Scores of every document of ``model`` (``size`` of them) for ``query``."""
    if model is None or not query:
        return [0.0] * size
    return [float(s) for s in model.get_scores(list(query))]


def bm25_scores(corpus: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """Scores of every document for ``query``; empty corpus or query scores nothing."""
    if not corpus:
        return []
    return model_scores(bm25_model(corpus) if query else None, len(corpus), query)
