"""Rank documents for the queries of one invocation: BM25 per query, fused by RRF.

A document that matches none of a query's terms is not a hit for it, however the
statistics fall: a healthy search with no match must return zero hits.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

from lightsearch.documents import Document
from lightsearch.ranking.bm25 import bm25_scores
from lightsearch.ranking.fusion import reciprocal_rank_fusion
from lightsearch.ranking.snippets import best_passage
from lightsearch.ranking.tokenize import tokenize


@dataclass
class RankedDocument:
    document: Document
    score: float
    bm25: float
    matched: float  # best share of one query's terms found in the document
    # the same share weighted by each term's idf over the ranked documents: a hit carrying
    # only a query's common words shares little of what the query is about
    weighted: float = 0.0
    terms: frozenset[str] = field(default=frozenset(), repr=False)
    snippet_chars: int = 280

    @cached_property
    def snippet(self) -> str:
        """The densest passage, found when asked: a search ranks a few hundred documents
        (its own and the cache's) and shows eight."""
        return best_passage(self.document.text, set(self.terms), self.snippet_chars)


def rank_documents(
    documents: Sequence[Document], queries: Sequence[str], *, snippet_chars: int = 280,
    terms: Sequence[Sequence[str]] | None = None,
) -> list[RankedDocument]:
    """``terms``: each query's index terms when the caller has them (a SearchRequest's)."""
    docs = _dedupe(documents)
    if not docs:
        return []
    corpus = [d.tokens or tokenize(f"{d.title}\n{d.text}") for d in docs]
    token_sets = [set(toks) for toks in corpus]
    rankings: list[list[int]] = []
    best_bm25 = [0.0] * len(docs)
    matched = [0.0] * len(docs)
    weighted = [0.0] * len(docs)
    n_docs = len(docs)
    doc_freq: dict[str, int] = {}
    all_terms: set[str] = set()
    per_query = terms if terms is not None else [tokenize(q) for q in queries]
    for query_terms in per_query:
        unique = set(query_terms)
        all_terms |= unique
        if not unique:
            continue
        scores = bm25_scores(corpus, list(query_terms))
        for t in unique - doc_freq.keys():
            doc_freq[t] = sum(1 for ts in token_sets if t in ts)
        idf = {t: math.log(1.0 + (n_docs - doc_freq[t] + 0.5) / (doc_freq[t] + 0.5)) for t in unique}
        total_idf = sum(idf.values())
        hits = []
        for i, score in enumerate(scores):
            found = unique & token_sets[i]
            share = len(found) / len(unique)
            if share <= 0 or score <= 0:
                continue
            hits.append(i)
            best_bm25[i] = max(best_bm25[i], score)
            matched[i] = max(matched[i], share)
            weighted[i] = max(weighted[i], sum(idf[t] for t in found) / total_idf)
        hits.sort(key=lambda i: (-scores[i], docs[i].url))
        rankings.append(hits)
    fused = reciprocal_rank_fusion(rankings)
    frozen_terms = frozenset(all_terms)
    order = sorted(fused, key=lambda i: (-fused[i], -best_bm25[i], docs[i].url))
    return [
        RankedDocument(
            document=docs[i],
            score=round(fused[i], 6),
            bm25=round(best_bm25[i], 4),
            matched=round(matched[i], 3),
            weighted=round(weighted[i], 3),
            terms=frozen_terms,
            snippet_chars=snippet_chars,
        )
        for i in order
    ]


def _dedupe(documents: Sequence[Document]) -> list[Document]:
    """One document per URL (and per original URL): the first complete copy wins."""
    seen: dict[str, Document] = {}
    for doc in documents:
        key = doc.url.split("#", 1)[0]
        if key not in seen or (seen[key].partial and not doc.partial):
            seen[key] = doc
    return list(seen.values())
