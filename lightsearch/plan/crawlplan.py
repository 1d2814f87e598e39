"""The crawl plan: which sources one search reads, in what order, and which in reserve.

A search request (plan/request.py) and the searchable catalog become a :class:`CrawlPlan`
here: the sources' described documents are scored for the queries (plan/estimates.py),
the sources selected and ranked (plan/selection.py), and the ones the hop budget cannot
read in depth kept in reserve (:func:`affordable`). The plan's frontier
(plan/frontier.py) is made from it and shared by the spider and the scheduler. When the
crawl opens, :class:`DescribedReads` decides which described discovery documents it reads
first and which it leaves unread (it needs the record cache as it is then).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from lightsearch.cache.descriptions import DocumentDescription, age_seconds
from lightsearch.documents.urlkey import canonical_url
from lightsearch.plan.catalog import Source
from lightsearch.plan.discovery_pages import DiscoveryPages
from lightsearch.plan.estimates import Estimates
from lightsearch.plan.selection import SelectedSource, query_languages, select_sources
from lightsearch.ranking.statistics import Background

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from lightsearch.plan.catalog import Catalog
    from lightsearch.plan.request import SearchRequest

# What a source not read recently costs before its first article (robots.txt, home page,
# sitemap, feed), and the article hops each source read in depth should have.
OPENING_HOPS = 4
ARTICLE_HOPS_PER_SOURCE = 6


@dataclass
class CrawlPlan:
    """What one invocation crawls: the queries and the ranked sources."""

    queries: tuple[str, ...]
    sources: tuple[Source, ...]
    recency: str | None = None
    max_results: int = 8
    started_monotonic: float | None = None
    terms: tuple[tuple[str, ...], ...] = ()  # the request's, tokenized once (plan/request.py)
    # Sources opened only with the hops the others leave (the frontier's ``reserve``).
    reserve: frozenset[str] = frozenset()
    # What the sources are known to publish, scored for these queries (plan/estimates.py).
    estimates: Any = None
    # The sources' home, entry, hub and listing pages: read for discovery, never evidence
    # (plan/discovery_pages.py); the crawl adds the sections its seed pages name.
    discovery_pages: DiscoveryPages | None = None
    # The same as term statistics over the sources of the queries' languages: the ranking's
    # background (ranking/statistics.py); None when nothing of them is described.
    background: Background | None = None
    # Sites outside the catalog this search probes on the spot (plan/adhoc.py): the
    # discovery documents the spider reads of them are reported for their entries.
    probing: frozenset[str] = frozenset()
    # When set, the only hosts of LIGHT_HOST_MAP this search may connect to (a search that
    # probes a site on the spot reaches no mapped host the configuration did not name).
    mapped_hosts: frozenset[str] | None = None


def make_plan(request: SearchRequest, searchable: Catalog, described: Mapping[str, list[DocumentDescription]],
              settings: BaseSettings, *, opened: Callable[[Source], bool], started: float,
              discovery_pages: DiscoveryPages | None = None, probing: Sequence[Source] = (),
              mapped_hosts: frozenset[str] | None = None) -> CrawlPlan:
    """The plan for ``request`` over the ``searchable`` catalog; ``opened`` says whether a
    source was read recently (its home page is a fresh cached response). ``discovery_pages``
    may cover more sources than the searchable ones (the records of earlier searches come
    from any); by default, those of the searchable sources.

    ``probing`` are sites outside the catalog the call named (plan/adhoc.py): they are
    selected whatever their language, first and in the call's order, and the catalog's
    sources share the rest of ``LIGHT_MAX_SOURCES``; the hop budget then treats them as
    any source not read recently (four hops to open, kept in reserve when it cannot)."""
    estimates = Estimates.build(request.terms, described)
    max_sources = settings.getint("LIGHT_MAX_SOURCES")
    room = max(0, max_sources - len(probing))
    selected = select_sources(
        searchable, request, room,
        min_sources=min(settings.getint("LIGHT_MIN_SOURCES"), room),
        keep_ratio=settings.getfloat("LIGHT_SOURCE_KEEP_RATIO"),
        estimates=estimates,
    ) if room else []
    languages = query_languages(request)
    df, entries = estimates.background(s.id for s in searchable.sources if s.language in languages)
    pinned = [SelectedSource(source=src, score=0.0, rank=i) for i, src in enumerate(probing)]
    selected = pinned + [replace(sel, rank=len(pinned) + sel.rank) for sel in selected]
    first = affordable(selected, settings.getint("LIGHT_FIRST_SOURCES"), settings.getint("LIGHT_MAX_HOPS"),
                       opened=lambda sel: opened(sel.source))
    return CrawlPlan(
        queries=request.queries,
        sources=tuple(sel.source for sel in selected),
        reserve=frozenset(sel.source.id for sel in selected if sel not in first),
        recency=request.recency,
        max_results=request.max_results,
        started_monotonic=started,
        terms=request.terms,
        estimates=estimates,
        discovery_pages=discovery_pages or DiscoveryPages((*searchable.sources, *probing), described),
        background=Background(df, entries) if entries > 0 else None,
        probing=frozenset(src.id for src in probing),
        mapped_hosts=mapped_hosts,
    )


def affordable(selected: Sequence[Any], floor: int, hops: int, *, opened: Callable[[Any], bool]) -> list[Any]:
    """The selected sources the hop budget can read in depth; the others are opened only
    with the hops these leave (the plan's ``reserve``).

    A source not read recently (``opened`` false) costs ``OPENING_HOPS`` before its first
    article; a fresh cached source costs none. Opening every selected source would spend
    most of a cold search's hops before its articles (docs/DESIGN_CHANGES.md); the
    lowest-ranked unopened sources go to the reserve until each first one has
    ``ARTICLE_HOPS_PER_SOURCE`` hops for articles, keeping ``floor``
    (``LIGHT_FIRST_SOURCES``) and one per query language at least. Searches served from warm caches keep them all."""
    kept = list(selected)
    while len(kept) > max(1, floor):
        cold = [sel for sel in kept if not opened(sel)]
        if not cold or (hops - OPENING_HOPS * len(cold)) >= ARTICLE_HOPS_PER_SOURCE * len(kept):
            break
        languages = {sel.source.language for sel in kept}
        for sel in reversed(cold):
            if sum(1 for k in kept if k.source.language == sel.source.language) > 1 or len(languages) == 1:
                kept.remove(sel)
                break
        else:
            break
    return kept


# A described discovery document is read when it is likely to name at least this share of
# the likely relevant pages the best described one names; a weaker one costs a hop for
# little (a home page listing ten new titles, a feed of twenty, an archive page of fifty).
DESCRIBED_FLOOR = 0.5
# A description older than this does not decide that a feed, seed or listing page goes unread
# (a sitemap's described entries only say which to read first); rebuild a summary daily.
TRUST_SECS = 24 * 3600.0
# The kinds of document description read at a discovery stage of their own.
_STAGE_OF_KIND = {"seed": "seed", "listing": "listing", "feed": "feed"}


@dataclass(frozen=True)
class PlannedRead:
    """A described discovery document the search reads first, at ``stage``."""

    value: float  # likely relevant pages it names, for these queries
    source: Source
    doc: DocumentDescription
    stage: str


def undescribed_children(docs: Sequence[tuple[float, DocumentDescription]], source: Source,
                         most: int) -> list[tuple[float, DocumentDescription]]:
    """Up to ``most`` child sitemaps a described index names that no description covers
    yet, each valued at the mean of the source's described sitemaps (unknown is not
    nothing): the part of the site's map no search has read, read with the places the
    described ones leave. Without them, a source whose index is described never reads
    the children its first reads left out: the index is not read again (its children are
    read directly)."""
    values = [value for value, doc in docs if doc.kind == "sitemap"]
    if not values or most <= 0:
        return []
    mean = sum(values) / len(values)
    seen = {doc.key for _, doc in docs}
    out: list[tuple[float, DocumentDescription]] = []
    for _, doc in docs:
        if doc.kind != "index":
            continue
        for url in doc.children:
            try:
                key = canonical_url(url)
            except ValueError:
                continue
            if key in seen or not source.admits(url):
                continue
            seen.add(key)
            out.append((mean, DocumentDescription(url=url, kind="sitemap", entries=0)))
            if len(out) >= most:
                return out
    return out


class DescribedReads:
    """Which of the selected sources' described discovery documents a search reads, and
    which it leaves unread (:meth:`worth_reading`), decided when its crawl opens.

    A source whose described documents name likely relevant pages for these queries is
    read by them: first its sitemaps naming the most (across the selected sources, within
    the search's sitemap allowance ``max_sitemaps``; fresh cached ones are free), read
    directly without the index that names them; then its listing, hub, feed and seed
    pages that name at least ``DESCRIBED_FLOOR`` of what the best document names, and
    every fresh cached one that names any (it costs no hop). Their titles sharpen the
    scores of pages the sitemaps name, and a process that keeps what it reads (a record
    cache, ``keeps_records``) serves them to the searches of the next minutes, which rank
    better for a little more time. A search with no record cache has no later search to
    serve: there a page counts only for the share of its source's sitemap estimate the
    planned sitemaps leave unread (each lists the whole site), so a cold search reads
    fewer archive pages, sooner and as well (docs/EVALUATION.md has both measurements). A
    source nothing described matches is read as if undescribed.
    ``fresh(url)`` says whether a discovery document is a fresh cached response."""

    def __init__(self, plan: CrawlPlan, *, fresh: Callable[[str], bool], max_sitemaps: int,
                 keeps_records: bool) -> None:
        self.recency = plan.recency
        # url key -> (likely relevant pages named, description)
        self.known: dict[str, tuple[float, DocumentDescription]] = {}
        self.best = 0.0
        self.planned = self._plan(plan, fresh, max_sitemaps, keeps_records)

    def _plan(self, plan: CrawlPlan, fresh: Callable[[str], bool], max_sitemaps: int,
              keeps_records: bool) -> list[PlannedRead]:
        estimates = plan.estimates
        if estimates is None:
            return []
        ranked: list[tuple[float, Source, DocumentDescription]] = []
        for source in plan.sources:
            docs = estimates.ranked_documents(source.id)
            if not docs or docs[0][0] <= 0:
                continue
            for value, doc in docs:
                self.known[doc.key] = (value, doc)
                # a source kept in reserve is opened by what it is known to name, like any
                # other: its best document may name more than the first sources' weakest
                ranked.append((value, source, doc))
            ranked.extend((value, source, doc) for value, doc in undescribed_children(docs, source, max_sitemaps))
        if not ranked:
            return []
        ranked.sort(key=lambda e: -e[0])
        self.best = ranked[0][0]
        planned: list[PlannedRead] = []
        places = max_sitemaps
        mapped: dict[str, float] = {}  # source -> its sitemaps' estimate, all of them
        unread: dict[str, float] = {}  # source -> the part no planned sitemap names
        for value, source, doc in ranked:
            if doc.kind != "sitemap":
                continue
            mapped[source.id] = mapped.get(source.id, 0.0) + value
            cached = fresh(doc.url)
            if value <= 0 or (not cached and places <= 0):
                unread[source.id] = unread.get(source.id, 0.0) + value
                continue
            places -= 0 if cached else 1
            planned.append(PlannedRead(value, source, doc, "sitemap"))
        for value, source, doc in ranked:
            if doc.kind not in _STAGE_OF_KIND or value <= 0:
                continue
            new = value
            if not keeps_records and mapped.get(source.id):
                new = value * unread.get(source.id, 0.0) / mapped[source.id]
            if new >= DESCRIBED_FLOOR * self.best or fresh(doc.url):
                planned.append(PlannedRead(new, source, doc, _STAGE_OF_KIND[doc.kind]))
            else:
                # not planned, and not read when another document links it either
                self.known[doc.key] = (new, doc)
        for read in planned:  # a planned document is read whatever its share
            self.known[read.doc.key] = (max(read.value, DESCRIBED_FLOOR * self.best), read.doc)
        return planned

    def value(self, key: str) -> float | None:
        """The likely relevant pages the document of that url key names, if described."""
        known = self.known.get(key)
        return None if known is None else known[0]

    def worth_reading(self, key: str, stage: str, source: Source) -> bool:
        """False for a described discovery document naming too few likely relevant pages
        (a sitemap index whose children are described names none itself: they are read
        directly). A news source's feeds and home page, which change by the hour, are always
        read, and so is any feed for a search with a recency window; a description older
        than ``TRUST_SECS`` decides nothing."""
        known = self.known.get(key)
        if known is None or not self.best:
            return True
        value, doc = known
        if doc.kind == "index":
            return not any(canonical_url(c) in self.known for c in doc.children)
        if doc.kind == "sitemap":
            return True  # the allowance decides (the spider's)
        if stage == "feed" and self.recency:
            return True
        if doc.kind in ("feed", "seed") and source.kind == "news":
            return True
        if age_seconds(doc.seen) > TRUST_SECS:
            return True
        return value >= DESCRIBED_FLOOR * self.best
