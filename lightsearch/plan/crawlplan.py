"""The crawl plan: which sources one search reads, in what order, and which in reserve.

A search request (plan/request.py) and the searchable catalog become a :class:`CrawlPlan`
here: the sources' described documents are scored for the queries (plan/estimates.py),
the sources selected and ranked (plan/selection.py), and the ones the hop budget cannot
read in depth kept in reserve (:func:`affordable`). The plan's frontier
(plan/frontier.py) is made from it and shared by the spider and the scheduler.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lightsearch.plan.estimates import Estimates
from lightsearch.plan.selection import select_sources

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from lightsearch.cache.descriptions import DocumentDescription
    from lightsearch.plan.catalog import Catalog, Source
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
    extra: dict[str, Any] = field(default_factory=dict)
    terms: tuple[tuple[str, ...], ...] = ()  # the request's, tokenized once (plan/request.py)
    # Sources opened only with the hops the others leave (the frontier's ``reserve``).
    reserve: frozenset[str] = frozenset()
    # What the sources are known to publish, scored for these queries (plan/estimates.py).
    estimates: Any = None


def make_plan(request: SearchRequest, searchable: Catalog, described: Mapping[str, list[DocumentDescription]],
              settings: BaseSettings, *, opened: Callable[[Source], bool], started: float) -> CrawlPlan:
    """The plan for ``request`` over the ``searchable`` catalog; ``opened`` says whether a
    source was read recently (its home page is a fresh cached response)."""
    estimates = Estimates.build(request.terms, described)
    max_sources = settings.getint("LIGHT_MAX_SOURCES")
    selected = select_sources(
        searchable, request, max_sources,
        min_sources=min(settings.getint("LIGHT_MIN_SOURCES"), max_sources),
        keep_ratio=settings.getfloat("LIGHT_SOURCE_KEEP_RATIO"),
        estimates=estimates,
    )
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
    )


def affordable(selected: Sequence[Any], floor: int, hops: int, *, opened: Callable[[Any], bool]) -> list[Any]:
    """The selected sources the hop budget can read in depth; the others are opened only
    with the hops these leave (the plan's ``reserve``).

    A source not read recently (``opened`` false) costs ``OPENING_HOPS`` before its first
    article; a fresh cached source costs none. Cold searches measured spending 14 of 24
    hops on openings and reading 9 articles over 3-4 sources; the lowest-ranked unopened
    sources go to the reserve until each first one has ``ARTICLE_HOPS_PER_SOURCE`` hops
    for articles, keeping ``floor`` (``LIGHT_FIRST_SOURCES``) and one per query language
    at least. Searches served from warm caches keep them all."""
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
