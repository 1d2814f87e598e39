"""How many likely relevant pages a source, and each of its discovery documents, names.

Resource selection in federated search ranks collections by a description of what they
hold. CORI scores the query's terms against each collection's term statistics; ReDDE
(Si and Callan, 2003) estimates how many relevant documents each collection holds by
ranking a sample of its documents and scaling every sampled hit by the collection's size
over its sample's. A source's description here is such a sample: the terms of entries its
feeds, sitemaps and listing pages name (cache/descriptions.py), so the estimate is ReDDE's
over those entries. An entry's score is the idf-weighted share of one query's terms it
carries, idf over every sampled entry of the sources in play; a document's estimate is
the sum over its sampled entries of that score cubed, times its scale. The cube keeps an
archive of many loosely matching titles from outranking one that names a few pages that
match the whole query (it stands in for ReDDE's cut at the top of the ranking, which a
sample of a few hundred entries per document cannot place well).

A source's estimate is the largest over its families of documents (its sitemaps, its
listing and hub pages, its feeds, its seed pages): each family may list the whole site,
and adding them would count one page several times.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from lightsearch.cache.descriptions import DocumentDescription

POWER = 3
FAMILY = {"sitemap": "sitemap", "index": "index", "listing": "listing", "feed": "feed", "seed": "seed"}


def _pooled(parts: Iterable[tuple[dict[str, float], float]], wanted: Iterable[str]
            ) -> tuple[dict[str, float], float]:
    df: dict[str, float] = dict.fromkeys(wanted, 0.0)
    pool = 0.0
    for counts, entries in parts:
        pool += entries
        for t, n in counts.items():
            df[t] += n
    return df, pool


@dataclass
class Estimates:
    """Estimates for one request's queries over the described documents of some sources."""

    queries: Sequence[frozenset[str]]
    described: Mapping[str, Sequence[DocumentDescription]]
    idf: dict[str, float] = field(default_factory=dict)
    totals: list[float] = field(default_factory=list)
    # entries carrying each query term, and all entries, over the described documents: the
    # catalog's own term statistics, a background the ranked pages' few cannot give
    df: dict[str, float] = field(default_factory=dict)
    pool: float = 0.0
    # the same per source, so a background can be drawn from the sources of a language
    per_source: dict[str, tuple[dict[str, float], float]] = field(default_factory=dict)
    _values: dict[tuple[str, str], float] = field(default_factory=dict)

    @classmethod
    def build(cls, queries: Iterable[Iterable[str]], described: Mapping[str, Sequence[DocumentDescription]]
              ) -> Estimates:
        terms = [frozenset(q) for q in queries]
        wanted = frozenset().union(*terms) if terms else frozenset()
        per_source: dict[str, tuple[dict[str, float], float]] = {}
        for source_id, docs in described.items():
            counts: dict[str, float] = dict.fromkeys(wanted, 0.0)
            entries = 0.0
            for doc in docs:
                if doc.kind == "index" or not doc.rows:
                    continue
                entries += doc.entries
                postings = doc.postings
                for t in wanted:
                    rows = postings.get(t)
                    if rows:
                        counts[t] += len(rows) * doc.scale
            per_source[source_id] = (counts, entries)
        df, pool = _pooled(per_source.values(), wanted)
        idf = {t: math.log(1.0 + (pool - df[t] + 0.5) / (df[t] + 0.5)) for t in wanted}
        totals = [sum(idf[t] for t in q) for q in terms]
        return cls(queries=terms, described=described, idf=idf, totals=totals, df=df, pool=pool,
                   per_source=per_source)

    def background(self, source_ids: Iterable[str]) -> tuple[dict[str, float], float]:
        """The entries carrying each query term, and all entries, over the described
        documents of these sources (a query's language's: another script's entries say
        nothing of how common its words are)."""
        wanted = frozenset().union(*self.queries) if self.queries else frozenset()
        return _pooled((self.per_source[s] for s in source_ids if s in self.per_source), wanted)

    def document(self, source_id: str, doc: DocumentDescription) -> float:
        """Likely relevant pages ``doc`` names (ReDDE-style, see the module's text)."""
        key = (source_id, doc.key)
        if key in self._values:
            return self._values[key]
        value = 0.0
        if doc.rows and doc.kind != "index":
            best: dict[int, float] = {}
            postings = doc.postings
            for q, total in zip(self.queries, self.totals, strict=True):
                if total <= 0:
                    continue
                shares: dict[int, float] = {}
                for t in q:
                    weight = self.idf[t] / total
                    for row in postings.get(t, ()):
                        shares[row] = shares.get(row, 0.0) + weight
                for row, share in shares.items():
                    if share > best.get(row, 0.0):
                        best[row] = share
            value = doc.scale * sum(min(1.0, s) ** POWER for s in best.values())
        self._values[key] = value
        return value

    def source(self, source_id: str) -> float:
        """Likely relevant pages the source holds: its best family's sum."""
        families: dict[str, float] = {}
        for doc in self.described.get(source_id, ()):
            family = FAMILY.get(doc.kind, doc.kind)
            families[family] = families.get(family, 0.0) + self.document(source_id, doc)
        return max(families.values(), default=0.0)

    def ranked_documents(self, source_id: str) -> list[tuple[float, DocumentDescription]]:
        """The source's described documents, the most promising first."""
        docs = [(self.document(source_id, d), d) for d in self.described.get(source_id, ())]
        return sorted(docs, key=lambda pair: (-pair[0], pair[1].url))
