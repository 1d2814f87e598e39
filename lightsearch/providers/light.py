"""The Python API: ``await LightSearch.from_settings(...).search("query")``.

One request becomes one bounded crawl, a crawler of its own (``crawl/run.py``), on the
process's one asyncio reactor in the caller's running loop; several searches may run at
once in one process, beside an embedding app's own spiders. Expected failures raise
:class:`~lightsearch.errors.LightSearchError` with a code; nothing else escapes.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

from scrapy.settings import Settings

from lightsearch.cache import load_cache
from lightsearch.cache.descriptions import (
    DocumentDescription,
    Summary,
    combine,
    load_summary,
    summary_path,
)
from lightsearch.config import check_retrieval, validate_light_settings
from lightsearch.crawl.budget import DECODED, ENCODED, HOPS, HOPS_BY_STAGE
from lightsearch.crawl.outcome import CrawlOutcome
from lightsearch.crawl.run import CrawlCancelled, CrawlDeadline, run_crawl
from lightsearch.documents import Document
from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.filters import domain_notes, filtered
from lightsearch.fleet.link import link_of, shared_state_notes, snapshot
from lightsearch.isolation.lanes import Lane
from lightsearch.plan.adhoc import AdhocSites, is_probed, outside_catalog
from lightsearch.plan.catalog import Catalog, Source, extend_catalog, load_catalog
from lightsearch.plan.crawlplan import CrawlPlan, make_plan
from lightsearch.plan.discovery_pages import DiscoveryPages
from lightsearch.plan.domains import restrict_catalog
from lightsearch.plan.frontier import SearchFrontier
from lightsearch.plan.request import SearchRequest, build_request
from lightsearch.providers.lifecycle import Provider
from lightsearch.providers.light_result import assemble
from lightsearch.providers.light_sites import learned, mapped_hosts, plan_sites, report_sites
from lightsearch.providers.recency import dates_note, recency_note, within_dates, within_recency
from lightsearch.ranking.rank import RankingStopped, rank_documents
from lightsearch.ranking.statistics import Background
from lightsearch.spiders.discovery import DiscoverySpider

logger = logging.getLogger(__name__)

# Web hygiene counters reported in meta.lightSearch.counts (stats key per name).
HYGIENE_COUNTS = {
    "robotsFetches": "light/robots/fetches",
    "robotsCacheHits": "light/robots/cache_hits",
    "robotsDenied": "light/robots/denied",
    "robotsBlocked": "light/robots/blocked",
    "noindexPages": "light/directives/noindex",
    "nofollowPages": "light/directives/nofollow",
    "nofollowLinks": "light/directives/nofollow_links",
    "encodingRefused": "light/encoding/refused",
    "redirectsRefused": "light/redirects/refused",
    "cacheHits": "light/cache/hits",
    "cacheDiscoveryHits": "light/cache/discovery_hits",
    "cacheStored": "light/cache/stored",
    "cacheNotStored": "light/cache/not_stored",
    "cacheJoined": "light/cache/joined",
    # Hostile input: entries and links dropped one by one, documents lost as a whole.
    "feedEntriesDropped": "light/feeds/entries_dropped",
    "sitemapEntriesDropped": "light/sitemaps/entries_dropped",
    "linksDropped": "light/links/dropped",
    # the weakest candidates given up to LIGHT_DISCOVERY_MAX_CANDIDATES
    "candidatesDropped": "light/discovery/candidates_dropped",
    # candidates still waiting when the hops (or the page hops) were spent: ground a larger budget would cover
    "candidatesUnread": "light/frontier/unread",
    # described discovery documents left unread: they name too few likely relevant pages
    "describedSkipped": "light/discovery/skipped_described",
    "unreadableDocuments": "light/discovery/unreadable",
    "extractionFailed": "light/extract/failed",
}




class LightSearch(Provider):
    """The Light provider: keyless search over the bundled catalog."""

    provider = "light"
    crawls = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._validated = False
        self._catalog: Catalog | None = None
        self._summary: Summary | None = None

    # ------------------------------------------------------------------ public
    async def search(
        self,
        query: str | Sequence[str] | None = None,
        *,
        queries: Sequence[str] | None = None,
        max_results: int | None = None,
        recency: str | None = None,
        include_domains: Sequence[str] | None = None,
        exclude_domains: Sequence[str] | None = None,
        region: str | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        """One search; ``include_domains``/``exclude_domains`` narrow the catalog's sources
        (a domain outside it is a note), ``after``/``before`` drop hits dated outside them."""
        s = self.settings
        check_retrieval(s)
        request = build_request(
            query,
            queries=queries,
            max_results=s.getint("LIGHT_MAX_RESULTS") if max_results is None else max_results,
            recency=recency,
            max_queries=s.getint("LIGHT_MAX_QUERIES"),
            max_chars=s.getint("LIGHT_MAX_QUERY_CHARS"),
            max_words=s.getint("LIGHT_MAX_QUERY_WORDS"),
            include_domains=include_domains, exclude_domains=exclude_domains, region=region,
            after=after, before=before,
        )
        catalog = self._first_search_checks()
        return await self._run(request, catalog)

    # ------------------------------------------------------------------ internals
    def _first_search_checks(self) -> Catalog:
        if not self._validated:
            validate_light_settings(self.settings)
            catalog = load_catalog(self.settings.get("LIGHT_CATALOG"))
            summary = load_summary(summary_path(self.settings.get("LIGHT_SOURCE_SUMMARY"), catalog.path))
            extra = self.settings.get("LIGHT_CATALOG_EXTRA")
            if extra:
                catalog = extend_catalog(catalog, extra)
                summary = combine(summary, load_summary(summary_path(None, extra)))
            self._catalog, self._summary = catalog, summary
            self._validated = True
        assert self._catalog is not None
        return self._catalog

    async def _run(self, request: SearchRequest, catalog: Catalog) -> dict[str, Any]:
        s = self.settings
        started = time.monotonic()
        filters = request.filters
        records = load_cache(s, "LIGHT_RECORD_CACHE")
        reachable = self._reachable(catalog)
        outside = outside_catalog(catalog, filters) if s.getbool("LIGHT_ADHOC_SOURCES") else []
        searchable, catalog_notes = restrict_catalog(reachable, filters, on_the_spot=outside)
        sites = plan_sites(s, request, outside, records, catalog_left=bool(searchable.sources))
        if filters.domains and not searchable.sources and outside and not sites.sources:
            catalog_notes.append("no source is left to search: includeDomains/excludeDomains admit no catalog "
                                 "source, and no site they name could be probed on the spot")
        notes = list(catalog_notes)
        if filters.region:
            notes.append(f"region {filters.region}: Light does not search by region; its catalog sources are "
                         "chosen by the query's language")

        def opened(source: Source) -> bool:
            return records is not None and bool(source.seeds) and records.get_response(source.seeds[0]) is not None

        described = self._described(catalog, records)
        described.update(sites.described(lambda sid: learned(records, sid)))
        # every source's: the records of earlier searches joining this one may be of any
        pages = DiscoveryPages((*catalog.sources, *sites.sources), described)
        searchable_ids = {src.id for src in searchable.sources} | sites.ids
        plan = make_plan(request, searchable, {k: v for k, v in described.items() if k in searchable_ids}, s,
                         opened=opened, started=started, discovery_pages=pages, probing=sites.sources,
                         mapped_hosts=mapped_hosts(s, catalog) if sites.sources else None)
        link = link_of(s)
        shared_before = snapshot(link)
        deadline = s.getfloat("LIGHT_DEADLINE_SECS")
        # The pages' extraction (in the worker pool) stops a little before the hard
        # deadline, so a page still being read then costs that page, and the search
        # returns what it has with time to rank it; the hard deadline is an error.
        lane = Lane(s, name="search", deadline_at=started + deadline - min(RANKING_RESERVE_SECS, deadline / 5))
        # the search's candidate state, shared by its spider and its scheduler
        frontier = SearchFrontier(plan, s, lane=lane)
        try:
            return await self._crawl_and_rank(request, catalog, frontier, link, shared_before,
                                              searchable=searchable, notes=notes, catalog_notes=catalog_notes,
                                              sites=sites)
        finally:
            lane.close()

    async def _crawl_and_rank(self, request: SearchRequest, catalog: Catalog, frontier: SearchFrontier,
                              link: Any, shared_before: Any, *, searchable: Catalog, notes: list[str],
                              catalog_notes: list[str], sites: AdhocSites) -> dict[str, Any]:
        s = self.settings
        filters = request.filters
        plan = frontier.plan
        started = frontier.started
        try:
            outcome = await run_crawl(s, DiscoverySpider, s.getfloat("LIGHT_DEADLINE_SECS"), frontier=frontier)
        except CrawlDeadline as exc:
            raise deadline_error(exc.deadline, exc.outcome) from None
        except CrawlCancelled as exc:
            raise SearchCancelled(details=counts_of(exc.outcome)) from None
        # A source's home, entry, hub and listing pages are read for discovery and are never
        # evidence, fetched now or kept by an earlier search (plan/discovery_pages.py).
        pages = plan.discovery_pages
        fetched = [item for item in outcome.items
                   if isinstance(item, Document) and not pages.covers(item.source_id, item.url)]
        # A site probed on the spot answers only the searches that name it: its cached pages
        # never join another caller's search as if they were the catalog's.
        cached, _ = filtered([doc for doc in joined_documents(s, fetched) if not pages.covers(doc.source_id, doc.url)
                              and (not is_probed(doc.source_id) or doc.source_id in sites.ids)],
                             filters, lambda d: d.url)
        counts = {**counts_of(outcome), "cacheJoined": len(cached)}
        if link is not None:  # records from Redis that did not verify or fit, met by this worker meanwhile
            counts["sharedStateDropped"] = link.drops - shared_before[1]
        stop_reason = outcome.stop_reason
        consulted = [src.id for src in plan.sources if src.id in outcome.consulted]
        report = report_sites(s, sites, outcome, fetched)
        if report.notes:
            notes[:0] = report.notes  # what became of the call's domains comes first, as the catalog's notes do
            catalog_notes[:0] = report.notes
        errors = [*report.errors, *outcome.source_errors]
        # a probed site that fails is that site's answer, not Light's failure: only the
        # catalog's sources, all failing, make the search one
        in_catalog = {src.id for src in plan.sources if not is_probed(src.id)}
        attempted = ({e["source"] for e in errors} | set(consulted)) & in_catalog
        if in_catalog and not consulted and attempted and stop_reason == "completed":
            raise LightSearchError(
                "web_search_sources_unavailable",
                "every source attempted for this search failed",
                {"sourceErrors": errors[:20], "counts": counts},
            )
        if not plan.sources and searchable.sources:
            notes.append("no catalog source matches the query language")
        notes.extend(shared_state_notes(shared_before, link))
        ranked = await self._rank(fetched + cached, plan, request, outcome, started, background=plan.background)
        if stop_reason == "completed" and time.monotonic() - started > s.getfloat("LIGHT_DEADLINE_SECS"):
            stop_reason = "deadline"  # never "completed" past the hard deadline, however it came
        withheld = ranked.withheld
        counts.update(withheldUnrelated=withheld["unrelated"], withheldFarBelow=withheld["far_below"])
        if withheld["unrelated"] or withheld["far_below"]:
            notes.append(withheld_note(withheld))
        ranked, off = filtered(ranked, filters, lambda r: r.document.url)
        notes.extend(domain_notes(off, filters))
        undated: list[str] = []
        if request.recency:
            ranked, dropped, undated = within_recency(ranked, request.recency)
            notes.append(recency_note(request.recency, dropped, len(undated)))
        if filters.dates:
            ranked, dropped, undated_now = within_dates(
                ranked, filters, lambda r: (r.document.published_at, r.document.modified_at),
                lambda r: r.document.url)
            notes.append(dates_note(filters, dropped, len(undated_now)))
            undated = list(dict.fromkeys([*undated, *undated_now]))
        result = assemble(
            query=request.query,
            ranked=ranked,
            max_results=request.max_results,
            stop_reason=stop_reason,
            notes=notes,
            catalog={"id": catalog.id, "version": catalog.version, "corpus": catalog.corpus_id},
            selected=[src.id for src in plan.sources],
            consulted=consulted,
            counts=counts,
            source_errors=errors,
            source_names={src.id: src.name for src in (*catalog.sources, *sites.sources)},
            text_max_bytes=s.getint("LIGHT_TEXT_MAX_BYTES"),
            elapsed_ms=int((time.monotonic() - started) * 1000),
            settings=s,
            cached_urls=[d.url for d in cached],
            terms=request.all_terms,
            filters=filters,
            private_origins=catalog.private_origins,
        )
        result["meta"]["lightSearch"]["hops"] = hops_of(outcome, fetched)
        if link is not None:
            result["meta"]["sharedState"] = link.status()
        if request.recency or filters.dates:
            result["meta"]["lightSearch"]["undated"] = undated[:50]  # kept, age unknown
        if catalog_notes:  # what the call's domains left Light to search (the engines' Light member says it too)
            result["meta"]["lightSearch"]["catalogNotes"] = catalog_notes
        if sites.sites:
            result["meta"]["lightSearch"]["probes"] = report.probes
            result["meta"]["lightSearch"]["sources"]["probed"] = report.probed
        return result

    async def _rank(self, documents: list[Document], plan: CrawlPlan, request: SearchRequest,
                    outcome: CrawlOutcome, started: float,
                    background: Background | None = None) -> Any:
        """Rank within the hard deadline, or fail with ``deadline_exceeded``.

        Ranking needs every document (BM25's statistics are over the whole retrieved
        corpus), so it runs here, once the crawl has returned. It runs in a thread: with a
        full record cache (500 documents) it is half a second of pure Python, and on the
        event loop it stalled every other search of the process for as long (on the HeQ
        stream, three searches of two page hops each took 8-14 s behind a run of searches
        answered from the cache). It stays in this process rather than the worker pool
        because its input is the whole corpus: 500 cached records pickle to 18 MB (57 ms to
        write, 39 ms to read, measured) for every search, where the workers read one page at
        a time. A thread cannot be killed, so ranking checks a flag per document and stops
        when the deadline has passed (ranking/rank.py)."""
        s = self.settings
        deadline = s.getfloat("LIGHT_DEADLINE_SECS")
        remaining = started + deadline - time.monotonic()
        if remaining <= 0:
            raise deadline_error(deadline, outcome)
        stop = threading.Event()
        try:
            return await asyncio.wait_for(asyncio.to_thread(
                rank_documents, documents, plan.queries, snippet_chars=s.getint("LIGHT_SNIPPET_CHARS"),
                terms=request.terms, background=background, should_stop=stop.is_set), remaining)
        except (asyncio.TimeoutError, RankingStopped):
            raise deadline_error(deadline, outcome) from None
        finally:
            stop.set()

    def _described(self, catalog: Catalog, records: Any) -> dict[str, list[DocumentDescription]]:
        """What the catalog's sources publish, as far as known: the prebuilt summary's
        descriptions (of sources whose origins are still the catalog's), and over them what
        this process's searches read since (kept with ``records``, the record cache)."""
        learned = getattr(records, "descriptions", None)
        summary = self._summary
        out: dict[str, list[DocumentDescription]] = {}
        for source in catalog.sources:
            docs: dict[str, DocumentDescription] = {}
            known = summary.origins.get(source.id) if summary is not None else None
            if summary is not None and (known is None or set(known) == set(source.origins)):
                docs.update((d.key, d) for d in summary.descriptions.of(source.id))
            if learned is not None:
                docs.update((d.key, d) for d in learned.of(source.id))
            kept = [d for d in docs.values() if source.admits(d.url)]
            if kept:
                out[source.id] = kept
        return out

    def _reachable(self, catalog: Catalog) -> Catalog:
        """With ``LIGHT_HOST_MAP_ONLY`` (an offline world) only mapped sources can answer."""
        if not self.settings.getbool("LIGHT_HOST_MAP_ONLY"):
            return catalog
        mapped = {h.lower() for h in self.settings.getdict("LIGHT_HOST_MAP")}
        sources = tuple(
            src for src in catalog.sources
            if all((urlsplit(o).hostname or "") in mapped for o in src.origins)
        )
        return replace(catalog, sources=sources)


# Time the search keeps for ranking and assembly after its pages' extraction stops.
RANKING_RESERVE_SECS = 1.0


def deadline_error(deadline: float, outcome: CrawlOutcome) -> LightSearchError:
    return LightSearchError("deadline_exceeded", f"the search did not finish within {deadline:g} s",
                            {"deadlineSecs": deadline, **counts_of(outcome)})


def withheld_note(withheld: dict[str, int]) -> str:
    parts = []
    if withheld["unrelated"]:
        parts.append(f"{withheld['unrelated']} share no content word with the query")
    if withheld["far_below"]:
        parts.append(f"{withheld['far_below']} score far below the best hit")
    total = withheld["unrelated"] + withheld["far_below"]
    return f"{total} page{'s' if total != 1 else ''} retrieved but not shown as evidence: " + "; ".join(parts)


def joined_documents(settings: Settings, fetched: list[Document]) -> list[Document]:
    """Fresh completed records of earlier searches join this one's evidence (a result's
    sources may include fresh cached evidence); the cache drops expired records as it
    lists them, so an expired record never reaches result assembly."""
    cache = load_cache(settings, "LIGHT_RECORD_CACHE")
    if cache is None:
        return []
    seen = {doc.url for doc in fetched}
    return [doc for doc in cache.documents() if doc.url not in seen]


def counts_of(outcome: CrawlOutcome) -> dict[str, int]:
    """``meta.lightSearch.counts``: hops and bytes, then the web hygiene counters."""
    counts = {"requests": outcome.stat(HOPS), "encodedBytes": outcome.stat(ENCODED),
              "decodedBytes": outcome.stat(DECODED)}
    counts.update({name: outcome.stat(key) for name, key in HYGIENE_COUNTS.items()})
    return counts


def hops_of(outcome: CrawlOutcome, fetched: list[Document]) -> dict[str, Any]:
    """Where this search's hops went (``byStage``) and which pages were read as evidence,
    so an evaluation can tell hops spent on discovery from hops that found documents."""
    by_stage = {k[len(HOPS_BY_STAGE):]: int(v) for k, v in outcome.stats.items()
                if k.startswith(HOPS_BY_STAGE)}
    return {"byStage": dict(sorted(by_stage.items())), "documents": [d.url for d in fetched]}
