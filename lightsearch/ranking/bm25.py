"""BM25 over the small corpus one search retrieves (k1=1.2, b=0.75, as in the oracle).

The idf is Lucene's, ``log(1 + (N - n + 0.5) / (n + 0.5))``, which stays positive: the
classic Okapi form, ``log((N - n + 0.5) / (n + 0.5))``, goes to zero or below as soon as a
term occurs in half of a handful of documents, the normal case here (a two-document corpus
would score everything 0). Written here rather than taken from rank-bm25: its scoring loop
is these few lines, visiting only the documents that hold a term, and rank-bm25 would bring
numpy into every install and every start (docs/DESIGN_CHANGES.md has the measurements);
tests/ranking/test_bm25_reference.py holds the scores to rank-bm25's.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence


class LuceneBM25:
    """``vocabulary``: the only terms that will be asked (a search's query terms). The
    postings of every other term are not built: over the few hundred pages a search ranks
    they would be most of the ranking's time (docs/EVALUATION.md), for the same scores."""

    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75,
                 vocabulary: Collection[str] | None = None) -> None:
        self.k1 = k1
        self.b = b
        self.doc_len = [len(doc) for doc in corpus]
        self.corpus_size = len(self.doc_len)
        self.avgdl = sum(self.doc_len) / self.corpus_size if self.corpus_size else 0.0
        # term -> [(document, term frequency)]: a query term visits only its documents
        self.postings: dict[str, list[tuple[int, int]]] = {}
        asked = None if vocabulary is None else tuple(set(vocabulary))
        for i, doc in enumerate(corpus):
            counts = Counter(doc)
            held = counts.items() if asked is None else ((t, counts[t]) for t in asked if t in counts)
            for term, tf in held:
                self.postings.setdefault(term, []).append((i, tf))
        n = self.corpus_size
        self.idf = {term: math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
                    for term, docs in self.postings.items()}

    def weigh(self, idf: Mapping[str, float]) -> None:
        """Weigh these terms by ``idf`` instead of their rarity in this corpus: the
        collection's statistics, where the corpus is a search's few pages of it."""
        for term, value in idf.items():
            if term in self.postings:
                self.idf[term] = value

    def get_scores(self, query: Sequence[str]) -> list[float]:
        """Each document's score for ``query``; a term repeated in the query counts again."""
        scores = [0.0] * self.corpus_size
        if not self.avgdl:
            return scores
        k1, b, avgdl, lengths = self.k1, self.b, self.avgdl, self.doc_len
        for term in query:
            idf = self.idf.get(term)
            if not idf:
                continue
            for i, tf in self.postings[term]:
                scores[i] += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths[i] / avgdl))
        return scores


class Stopped(Exception):
    """``should_stop()`` said so while the corpus was being read."""


class _Checked(list):
    """The corpus, read document by document as the model is built, asking ``should_stop``
    before each."""

    def __init__(self, docs: list[Sequence[str]], should_stop: Callable[[], bool]) -> None:
        super().__init__(docs)
        self.should_stop = should_stop

    def __iter__(self) -> Iterator[Sequence[str]]:
        for doc in super().__iter__():
            if self.should_stop():
                raise Stopped
            yield doc


def bm25_model(corpus: Sequence[Sequence[str]], should_stop: Callable[[], bool] | None = None,
               vocabulary: Collection[str] | None = None) -> LuceneBM25 | None:
    """The model of ``corpus`` (None when there is nothing to score), built once for all
    of a search's queries (``vocabulary``: their terms, when known); ``should_stop`` is
    asked per document, :class:`Stopped` raised."""
    if not corpus or not any(corpus):
        return None
    # an empty document counts as one empty word, so it lengthens the average as the
    # evaluation figures were measured with; an all-empty corpus is caught above
    docs = [doc if doc else [""] for doc in corpus]
    return LuceneBM25(_Checked(docs, should_stop) if should_stop else docs, vocabulary=vocabulary)


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
