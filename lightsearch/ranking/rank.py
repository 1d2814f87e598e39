"""Rank documents for the queries of one invocation: BM25 per query, fused by RRF.

The idf of each query term is the catalog's, estimated from what the sources publish and
the pages ranked (ranking/statistics.py), not the ranked pages' alone: a search that read
mostly pages on its topic would otherwise weigh its topic's own words at nothing.

A document that matches none of a query's terms is not a hit for it, however the
statistics fall: a healthy search with no match must return zero hits. Nor is one that
shares only function words with it (``what``, ``does``: tokenize.FUNCTION_TERMS), or
scores under ``RELATIVE_FLOOR`` of the query's best hit: a page matching one common word
of a four-word query next to one matching all four is not evidence for it, and showing
it as a hit told the model it was (the withheld are counted, ``Ranking.withheld``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from itertools import islice, pairwise

from lightsearch.documents import Document
from lightsearch.ranking.bm25 import Stopped, bm25_model, model_scores
from lightsearch.ranking.fusion import reciprocal_rank_fusion
from lightsearch.ranking.snippets import best_passage
from lightsearch.ranking.statistics import Background, collection_idf, observe, title_share
from lightsearch.ranking.tokenize import content_terms, tokenize

# A hit scoring under this share of its query's best BM25 score is far below it: a page
# matching one common word of a four-word query next to one matching all four. The term
# weights are the catalog's (ranking/statistics.py), so a page is judged far below by what
# it carries of the query, not because the search happened to read many pages on its topic
# (docs/EVALUATION.md measures how rarely a relevant page is withheld).
RELATIVE_FLOOR = 0.25
# Pages whose share of title words sets the prior of a term's title visibility.
PRIOR_PAGES = 64


class Ranking(list):
    """Ranked documents, and how many were withheld and why (``unrelated``: they share
    only function words with every query; ``far_below``: under ``RELATIVE_FLOOR`` of every
    query's best hit)."""

    withheld: dict[str, int]


@dataclass
class RankedDocument:
    """One hit and what it carries of its best query (each share in 0..1): ``matched``, the
    share of the query's terms it holds; ``weighted``, the same with each term weighed by
    its idf (a hit carrying only a query's common words shares little of what the query is
    about); ``strength``, its BM25 score over that of a page of average length holding each
    query term once; ``titled``, the idf-weighted share of the query's terms in its title;
    ``phrased``, the idf-weighted share of the query's adjacent word pairs it holds in the
    same order (found when asked). Coverage reads them (evidence/coverage.py)."""

    document: Document
    score: float
    bm25: float
    matched: float
    weighted: float = 0.0
    terms: frozenset[str] = field(default=frozenset(), repr=False)
    snippet_chars: int = 280
    strength: float = 0.0
    titled: float = 0.0
    # each query's adjacent term pairs and their weights (shared by the hits of a ranking)
    pairs: tuple[dict[tuple[str, str], float], ...] = field(default=(), repr=False)

    @cached_property
    def snippet(self) -> str:
        """The densest passage, found when asked: a search ranks a few hundred documents
        (its own and the cache's) and shows eight."""
        return best_passage(self.document.text, set(self.terms), self.snippet_chars)

    @cached_property
    def phrased(self) -> float:
        if not any(self.pairs):
            return 0.0
        tokens = self.document.tokens or tokenize(f"{self.document.title}\n{self.document.text}")
        held = set(pairwise(tokens))
        best = 0.0
        for pairs in self.pairs:
            total = sum(pairs.values())
            if total > 0:
                best = max(best, sum(w for pair, w in pairs.items() if pair in held) / total)
        return round(best, 3)


# ``should_stop()`` was true: the caller's deadline passed while ranking ran (raised by the
# BM25 model as it reads the corpus, and here between documents).
RankingStopped = Stopped


def rank_documents(
    documents: Sequence[Document], queries: Sequence[str], *, snippet_chars: int = 280,
    terms: Sequence[Sequence[str]] | None = None, relative_floor: float = RELATIVE_FLOOR,
    background: Background | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Ranking:
    """``terms``: each query's index terms when the caller has them (a SearchRequest's).
    ``background``: what the sources publish, as the described entries carrying each query
    term and their number (plan/estimates.py); with the ranked documents it gives each
    term's idf in the catalog as a whole (ranking/statistics.py), which weighs both the
    BM25 scores and ``RankedDocument.weighted``. Without it the ranked documents' own
    statistics decide.

    ``should_stop`` is asked before each document is read (a thread cannot be killed):
    once it is true, :class:`RankingStopped` is raised."""
    stop = should_stop or _never
    docs = _dedupe(documents)
    out = Ranking()
    out.withheld = {"unrelated": 0, "far_below": 0}
    if not docs:
        return out
    corpus = []
    for d in docs:
        if stop():
            raise RankingStopped
        corpus.append(d.tokens or tokenize(f"{d.title}\n{d.text}"))
    per_query = terms if terms is not None else [tokenize(q) for q in queries]
    vocabulary = {t for query_terms in per_query for t in query_terms}
    # one model for every query (it depends on the corpus), holding their terms' postings
    model = bm25_model(corpus, stop, vocabulary)
    # the query terms each document holds, and those its title carries
    token_sets: list[set[str]] = [set() for _ in docs]
    for term, postings in (model.postings.items() if model is not None else ()):
        for i, _ in postings:
            token_sets[i].add(term)
    titles = [_title_terms(d.title) for d in docs]
    title_sets = [title & vocabulary for title in titles]
    # a term's title visibility is judged against the pages' own share of title words
    # (pooled over a few dozen pages: a ratio, steady long before the few hundred a
    # stream search ranks)
    prior = title_share((len(set(tokens)), len(title)) for tokens, title
                        in islice(zip(corpus, titles, strict=True), PRIOR_PAGES))
    idf = collection_idf(vocabulary, observe(token_sets, title_sets, vocabulary), background, prior)
    if model is not None:
        model.weigh(idf)
    rankings: list[list[int]] = []
    best_bm25 = [0.0] * len(docs)
    matched = [0.0] * len(docs)
    weighted = [0.0] * len(docs)
    strength = [0.0] * len(docs)
    titled = [0.0] * len(docs)
    pairs: list[dict[tuple[str, str], float]] = []
    all_terms: set[str] = set()
    matching: set[int] = set()  # matched a term of some query
    unrelated: set[int] = set()  # ... but only function words of each query it matched
    far_below: set[int] = set()
    for query_terms in per_query:
        unique = set(query_terms)
        all_terms |= unique
        if not unique:
            continue
        if stop():
            raise RankingStopped
        about = content_terms(unique) or unique
        scores = model_scores(model, len(corpus), list(query_terms))
        total_idf = sum(idf[t] for t in unique)
        # the score of a page of average length holding each query term once
        unit = sum(idf[t] for t in query_terms)
        pairs.append({(a, b): idf[a] + idf[b] for a, b in pairwise(query_terms) if a != b})
        candidates = []
        for i, score in enumerate(scores):
            found = unique & token_sets[i]
            if not found or score <= 0:
                continue
            matching.add(i)
            if not about & found:
                unrelated.add(i)
                continue
            candidates.append((i, found, score))
        best = max((score for _, _, score in candidates), default=0.0)
        hits = []
        for i, found, score in candidates:
            if score < relative_floor * best:
                far_below.add(i)
                continue
            hits.append(i)
            best_bm25[i] = max(best_bm25[i], score)
            matched[i] = max(matched[i], len(found) / len(unique))
            weighted[i] = max(weighted[i], sum(idf[t] for t in found) / total_idf)
            strength[i] = max(strength[i], min(1.0, score / unit))
            titled[i] = max(titled[i], sum(idf[t] for t in found & title_sets[i]) / total_idf)
        hits.sort(key=lambda i: (-scores[i], docs[i].url))
        rankings.append(hits)
    fused = reciprocal_rank_fusion(rankings)
    frozen_terms = frozenset(all_terms)
    shared_pairs = tuple(pairs)
    order = sorted(fused, key=lambda i: (-fused[i], -best_bm25[i], docs[i].url))
    left_out = matching - set(fused)
    out.withheld = {"unrelated": len(left_out & unrelated - far_below), "far_below": len(left_out & far_below)}
    out.extend(
        RankedDocument(
            document=docs[i],
            score=round(fused[i], 6),
            bm25=round(best_bm25[i], 4),
            matched=round(matched[i], 3),
            weighted=round(weighted[i], 3),
            terms=frozen_terms,
            snippet_chars=snippet_chars,
            strength=round(strength[i], 3),
            titled=round(titled[i], 3),
            pairs=shared_pairs,
        )
        for i in order
    )
    return out


def _never() -> bool:
    return False


@lru_cache(maxsize=4096)
def _title_terms(title: str) -> frozenset[str]:
    """A title's index terms (cached: a stream's searches rank the same cached pages)."""
    return frozenset(tokenize(title)) if title else frozenset()


def _dedupe(documents: Sequence[Document]) -> list[Document]:
    """One document per URL (and per original URL): the first complete copy wins."""
    seen: dict[str, Document] = {}
    for doc in documents:
        key = doc.url.split("#", 1)[0]
        if key not in seen or (seen[key].partial and not doc.partial):
            seen[key] = doc
    return list(seen.values())
