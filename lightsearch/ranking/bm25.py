"""BM25 over the small corpus one search retrieves (k1=1.2, b=0.75, as in the oracle).

The idf is Lucene's, ``log(1 + (N - n + 0.5) / (n + 0.5))``, which stays positive: the
classic Okapi form, ``log((N - n + 0.5) / (n + 0.5))``, goes to zero or below as soon as a
term occurs in half of a handful of documents, the normal case here (a two-document corpus
would score everything 0). Written here rather than taken from rank-bm25: its scoring loop
is these few lines, and it would bring numpy (tens of megabytes, a tenth of a second to
import) into every install and every start.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence


class LuceneBM25:
    def __init__(self, corpus: Sequence[Sequence[str]], k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self.doc_len = [len(doc) for doc in corpus]
        self.corpus_size = len(self.doc_len)
        self.avgdl = sum(self.doc_len) / self.corpus_size if self.corpus_size else 0.0
        # term -> [(document, term frequency)]: a query term visits only its documents
        self.postings: dict[str, list[tuple[int, int]]] = {}
        for i, doc in enumerate(corpus):
            for term, tf in Counter(doc).items():
                self.postings.setdefault(term, []).append((i, tf))
        n = self.corpus_size
        self.idf = {term: math.log(1.0 + (n - len(docs) + 0.5) / (len(docs) + 0.5))
                    for term, docs in self.postings.items()}

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


def bm25_scores(corpus: Sequence[Sequence[str]], query: Sequence[str]) -> list[float]:
    """Scores of every document for ``query``; empty corpus or query scores nothing."""
    if not corpus:
        return []
    if not query or not any(corpus):
        return [0.0] * len(corpus)
    # an empty document counts as one empty word, so it lengthens the average like rank-bm25's
    # (the scores the evaluation figures were measured with)
    return LuceneBM25([doc if doc else [""] for doc in corpus]).get_scores(list(query))
