"""Candidate scores for the discovery frontier: BM25's idf over the candidates seen so far.

The share of query terms a link's text covers treats every term alike, so a long query's
common words ("flow", "effect") decide what is fetched as much as its rare ones. Ranking
scores documents with BM25 (ranking/); the frontier scores candidates the same way over
what it can see of them (anchor text, feed title and summary, link title, URL slug words),
with document frequencies from the candidate pool of this crawl, so the rare query terms
decide. The pool grows as discovery reads more, so a score given at admission goes stale:
the scorer remembers each candidate's query terms (every text seen for it, united) and the
frontier rescores its pending candidates with the pool as it stands whenever the pool has
changed (``version``), before it picks the next one (plan/frontier.py, crawl/scheduler.py).

The score is the matched terms' idf over the idf of all the query's terms, in 0..1, so it
stays comparable with the discovery priorities. Candidate texts are a few
words, so term frequency and length normalisation are left out (each is 1 or near it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence

from lightsearch.cache.memo import TEXT_CHARS, short_memo
from lightsearch.documents.discovered_links import candidate_terms, slug_terms
from lightsearch.ranking.tokenize import tokenize


@short_memo(16384, TEXT_CHARS)
def _ordered_terms(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(tokenize(text)))


def entry_terms(texts: Iterable[str], url: str | None = None) -> list[str]:
    """A listed entry's terms for its source's description: its texts' (title first), then
    its URL slug's, each once, in that order (a description keeps the first few)."""
    out: dict[str, None] = {}
    for text in texts:
        if text:
            out.update(dict.fromkeys(_ordered_terms(text)))
    if url:
        out.update(dict.fromkeys(slug_terms(url)))
    return list(out)


class CandidateScorer:
    def __init__(self, query_terms: Sequence[set[str]]) -> None:
        self.query_terms = [set(t) for t in query_terms]
        self.wanted = set().union(*self.query_terms) if self.query_terms else set()
        self.df: Counter[str] = Counter()
        self.pool = 0
        self.seen: set[str] = set()
        # candidate key -> the query terms any of its texts carried (only these matter)
        self.terms_of: dict[str, frozenset[str]] = {}
        self.version = 0  # bumped whenever a score could change
        self._weighed = -1
        self._idf: dict[str, float] = {}
        self._totals: list[float] = []

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0)
        return math.log(1.0 + (self.pool - df + 0.5) / (df + 0.5))

    def observe(self, key: str, tokens: set[str]) -> None:
        """Count one candidate's terms in the pool once (only the query's terms matter)."""
        wanted = tokens & self.wanted
        if key in self.seen:
            known = self.terms_of.get(key, frozenset())
            if not wanted <= known:  # another text of the same page: a better description
                self.terms_of[key] = known | wanted
                self.df.update(wanted - known)
                self.version += 1
            return
        self.seen.add(key)
        self.pool += 1
        self.df.update(wanted)
        self.terms_of[key] = frozenset(wanted)
        self.version += 1

    tokens = staticmethod(candidate_terms)

    def score(self, key: str, texts: Iterable[str], url: str | None = None) -> tuple[float, int]:
        """The best query's idf-weighted share of its terms the candidate covers, and its index."""
        return self.score_many([(key, texts, url)])[0]

    def score_many(self, items: Sequence[tuple[str, Iterable[str], str | None]]) -> list[tuple[float, int]]:
        """Score the candidates of one document after counting all of them in the pool, so
        the first links of the first page are not scored against a pool of one."""
        keys = []
        for key, texts, url in items:
            self.observe(key, self.tokens(texts, url))
            keys.append(key)
        return [self._best(self.terms_of.get(key, frozenset())) for key in keys]

    def rescore(self, key: str) -> tuple[float, int]:
        """The candidate's score against the pool as it stands now."""
        return self._best(self.terms_of.get(key, frozenset()))

    def _weights(self) -> tuple[dict[str, float], list[float]]:
        """Every query term's idf and each query's total, computed once per pool version
        (the frontier rescores hundreds of candidates against the same pool)."""
        if self._weighed != self.version:
            # A query term the pool has not seen is as rare as a term can be.
            self._idf = {t: self.idf(t) for t in self.wanted}
            self._totals = [sum(self._idf[t] for t in terms) for terms in self.query_terms]
            self._weighed = self.version
        return self._idf, self._totals

    def _best(self, tokens: frozenset[str] | set[str]) -> tuple[float, int]:
        best, index = 0.0, 0
        if not tokens:
            return best, index
        idf, totals = self._weights()
        for i, terms in enumerate(self.query_terms):
            matched = terms & tokens
            if not matched or totals[i] <= 0:
                continue
            share = sum(idf[t] for t in matched) / totals[i]
            if share > best:
                best, index = min(1.0, share), i
        return best, index
