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

The pool a search sees is the part of the catalog it chose to read, so a term of its topic
fills it: the described entries of the catalog's sources (cache/descriptions.py, the same
kind of text: titles, slugs, summaries) are added to it as a background, the way the
ranking weighs terms by the catalog and not by its pages (ranking/statistics.py).

A sitemap names a page by its URL only, and a slug is a few words of its title at best.
The source's description (cache/descriptions.py) often knows the rest: the listing pages,
feeds and home page it was built from name the same page by its title and summary, and
keep those terms with the terms of the page's own URL. :class:`DescribedTitles` finds, for
a listed URL, the described entries that carry every term of its URL, and lends the
candidate the query terms they all carry: a cold search that reads only sitemaps scores
their entries as if it had read the titles too, for no hop. A description keeps no URL,
only terms, so an entry matches by its terms or not at all.

A feed's summary is a sentence or two of the page: more words than a title or a slug, so
more of any query's words, relevant or not. A term only a summary carries counts
``SUMMARY_WEIGHT`` of one its title, anchor or URL carries, and that is nothing: a feed
entry competes for the hops with sitemap entries and links, which carry no summary, and
scored on its summary too a hundred-item feed's entries outscore them for saying more, not
for being more likely relevant (docs/EVALUATION.md). The summary's terms still count in the
pool's document frequencies. (For the same reason the titles lent by descriptions are
those of listing and home pages, whose entries are titles, not those of feeds, whose
entries carry their summaries.)

The score is the matched terms' idf over the idf of all the query's terms, in 0..1, so it
stays comparable with the discovery priorities. Candidate texts are a few
words, so term frequency and length normalisation are left out (each is 1 or near it).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from lightsearch.cache.descriptions import DocumentDescription
from lightsearch.cache.memo import TEXT_CHARS, short_memo
from lightsearch.documents.discovered_links import candidate_terms, slug_terms
from lightsearch.ranking.tokenize import title_terms

# What a query term found only in a feed entry's summary counts, against one in its title
# (module text).
SUMMARY_WEIGHT = 0.0
# Described documents whose entries are titles (a sitemap's carry its URL's terms only, a
# feed's their summaries too).
_TITLED_KINDS = frozenset(["listing", "seed"])


@short_memo(16384, TEXT_CHARS)
def _ordered_terms(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(title_terms(text)))


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


class DescribedTitles:
    """The query terms the described titled entries of each source carry, found by the
    terms of an entry's URL (module text)."""

    def __init__(self, wanted: set[str], described: Mapping[str, Sequence[DocumentDescription]]) -> None:
        # per source: the described entries carrying a wanted term (all their terms), and
        # an index of them by every term they carry
        self.rows: dict[str, list[frozenset[str]]] = {}
        self.index: dict[str, dict[str, list[int]]] = {}
        self.wanted = frozenset(wanted)
        for source_id, docs in described.items():
            rows: list[frozenset[str]] = []
            index: dict[str, list[int]] = {}
            for doc in docs:
                if doc.kind not in _TITLED_KINDS:
                    continue
                for i in sorted({i for t in wanted for i in doc.postings.get(t, ())}):
                    for term in doc.rows[i]:
                        index.setdefault(term, []).append(len(rows))
                    rows.append(doc.rows[i])
            if rows:
                self.rows[source_id] = rows
                self.index[source_id] = index

    def terms(self, source_id: str | None, url: str | None) -> frozenset[str]:
        """The query terms every described entry carrying all of ``url``'s terms carries."""
        index = self.index.get(source_id or "")
        own = frozenset(slug_terms(url)) if url and index is not None else frozenset()
        if not own:
            return frozenset()
        postings = []
        for term in own:
            ids = index.get(term)  # type: ignore[union-attr]
            if ids is None:
                return frozenset()  # no described entry carrying a query term holds it
            postings.append(ids)
        rows = self.rows[source_id or ""]
        found: frozenset[str] | None = None
        for i in min(postings, key=len):
            if own <= rows[i]:
                carried = rows[i] & self.wanted
                found = carried if found is None else found & carried
        return found or frozenset()


class CandidateScorer:
    """``background``: described entries carrying each query term, and their number;
    ``described``: what the described titled entries say of a listed URL."""

    def __init__(self, query_terms: Sequence[set[str]],
                 background: tuple[Mapping[str, float], float] | None = None,
                 described: DescribedTitles | None = None) -> None:
        self.query_terms = [set(t) for t in query_terms]
        self.wanted = set().union(*self.query_terms) if self.query_terms else set()
        self.background_df, self.background_entries = background if background is not None else ({}, 0.0)
        self.described = described
        self.df: Counter[str] = Counter()
        self.pool = 0
        self.seen: set[str] = set()
        # candidate key -> the query terms any of its texts carried (only these matter), and
        # those only a summary carried
        self.terms_of: dict[str, frozenset[str]] = {}
        self.summary_of: dict[str, frozenset[str]] = {}
        self.version = 0  # bumped whenever a score could change
        self._weighed = -1
        self._idf: dict[str, float] = {}
        self._totals: list[float] = []

    def idf(self, term: str) -> float:
        df = self.df.get(term, 0) + self.background_df.get(term, 0.0)
        pool = self.pool + self.background_entries
        return math.log(1.0 + (pool - df + 0.5) / (df + 0.5))

    def observe(self, key: str, tokens: set[str], summary: set[str] | frozenset[str] = frozenset()) -> None:
        """Count one candidate's terms in the pool once (only the query's terms matter);
        ``summary``: the terms of its summary, which count less (module text)."""
        wanted = tokens & self.wanted
        lesser = (summary & self.wanted) - wanted
        if key in self.seen:
            known = self.terms_of.get(key, frozenset())
            known_lesser = self.summary_of.get(key, frozenset())
            full = known | wanted
            lesser = (known_lesser | lesser) - full
            if full != known or lesser != known_lesser:  # another text of the same page
                self.df.update((full | lesser) - known - known_lesser)
                self.terms_of[key] = full
                self.summary_of[key] = frozenset(lesser)
                self.version += 1
            return
        self.seen.add(key)
        self.pool += 1
        self.df.update(wanted | lesser)
        self.terms_of[key] = frozenset(wanted)
        if lesser:
            self.summary_of[key] = frozenset(lesser)
        self.version += 1

    tokens = staticmethod(candidate_terms)

    def score(self, key: str, texts: Iterable[str], url: str | None = None) -> tuple[float, int]:
        """The best query's idf-weighted share of its terms the candidate covers, and its index."""
        return self.score_many([(key, texts, url)])[0]

    def score_many(self, items: Sequence[tuple[str, Iterable[str], str | None]],
                   source_id: str | None = None, summaries: Sequence[str] | None = None
                   ) -> list[tuple[float, int]]:
        """Score the candidates of one document (of the source ``source_id``) after counting
        all of them in the pool, so the first links of the first page are not scored
        against a pool of one; ``summaries``: each item's summary (a feed entry's)."""
        for n, (key, texts, url) in enumerate(items):
            self.count(key, texts, url, source_id, summaries[n] if summaries is not None else "")
        return [self.rescore(key) for key, _, _ in items]

    def count(self, key: str, texts: Iterable[str], url: str | None, source_id: str | None = None,
              summary: str = "") -> None:
        """Count one candidate of a document in the pool (its texts', its URL's and what the
        source's description lends it); :meth:`rescore` scores it once the whole document is
        counted (discovery counts a document's candidates a slice at a time, isolation/turns.py)."""
        tokens = self.tokens(texts, url)
        if self.described is not None:
            tokens |= self.described.terms(source_id, url)
        self.observe(key, tokens, candidate_terms([summary]) if summary else frozenset())

    def rescore(self, key: str) -> tuple[float, int]:
        """The candidate's score against the pool as it stands now."""
        return self._best(self.terms_of.get(key, frozenset()), self.summary_of.get(key, frozenset()))

    def _weights(self) -> tuple[dict[str, float], list[float]]:
        """Every query term's idf and each query's total, computed once per pool version
        (the frontier rescores hundreds of candidates against the same pool)."""
        if self._weighed != self.version:
            # A query term the pool has not seen is as rare as a term can be.
            self._idf = {t: self.idf(t) for t in self.wanted}
            self._totals = [sum(self._idf[t] for t in terms) for terms in self.query_terms]
            self._weighed = self.version
        return self._idf, self._totals

    def _best(self, tokens: frozenset[str] | set[str], lesser: frozenset[str] = frozenset()) -> tuple[float, int]:
        best, index = 0.0, 0
        if not tokens and not lesser:
            return best, index
        idf, totals = self._weights()
        for i, terms in enumerate(self.query_terms):
            matched = terms & tokens
            summarised = terms & lesser
            if not (matched or summarised) or totals[i] <= 0:
                continue
            share = (sum(idf[t] for t in matched) + SUMMARY_WEIGHT * sum(idf[t] for t in summarised)) / totals[i]
            if share > best:
                best, index = min(1.0, share), i
        return best, index
