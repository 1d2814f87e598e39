"""The Light provider and Python API: ``await LightSearch.from_settings(...).search("query")``.

A call becomes a :class:`~lightsearch.plan.request.SearchRequest` and a crawl plan over the
catalog's sources (and the sites a call names, probed on the spot); the query controller
(providers/query_controller.py) turns them into one bounded crawl, a crawler of its own
(``crawl/run.py``) on the process's one asyncio reactor in the caller's running loop, and
ranks what it read; this module turns that outcome into the result envelope. Several
searches may run at once in one process, beside an embedding app's own spiders. Expected
failures raise :class:`~lightsearch.errors.LightSearchError` with a code; nothing else
escapes.
"""

from __future__ import annotations

import logging
import time
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
from lightsearch.config import validate_light_settings
from lightsearch.errors import LightSearchError
from lightsearch.evidence.reach import reach_of
from lightsearch.filters import domain_notes, filtered
from lightsearch.fleet.link import link_of, shared_state_notes, snapshot
from lightsearch.plan.adhoc import AdhocSites, is_probed, outside_catalog
from lightsearch.plan.catalog import Catalog, Source, extend_catalog, load_catalog
from lightsearch.plan.crawlplan import make_plan
from lightsearch.plan.discovery_pages import DiscoveryPages
from lightsearch.plan.domains import restrict_catalog
from lightsearch.plan.request import SearchRequest
from lightsearch.providers.light_result import assemble
from lightsearch.providers.light_sites import learned, mapped_hosts, plan_sites, report_sites
from lightsearch.providers.query_controller import QueryController, counts_of, hops_of
from lightsearch.providers.recency import dates_note, recency_note, within_dates, within_recency
from lightsearch.providers.search_call import SearchingProvider

logger = logging.getLogger(__name__)


class LightSearch(SearchingProvider):
    """The Light provider: keyless search over the bundled catalog."""

    provider = "light"
    crawls = True

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self._validated = False
        self._catalog: Catalog | None = None
        self._summary: Summary | None = None

    # ------------------------------------------------------------------ public
    def request_bounds(self) -> dict[str, Any]:
        s = self.settings
        return {"max_results": s.getint("LIGHT_MAX_RESULTS"), "max_queries": s.getint("LIGHT_MAX_QUERIES"),
                "max_chars": s.getint("LIGHT_MAX_QUERY_CHARS"), "max_words": s.getint("LIGHT_MAX_QUERY_WORDS")}

    async def search_request(self, request: SearchRequest) -> dict[str, Any]:
        """One search over the catalog's sources (narrowed by the request's domains: a
        domain outside the catalog is a note, or a site probed on the spot); hits dated
        outside ``after``/``before`` are dropped."""
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
        with QueryController(s, request, plan) as controller:
            return await self._search(controller, catalog, link, shared_before, searchable=searchable,
                                      notes=notes, catalog_notes=catalog_notes, sites=sites)

    async def _search(self, controller: QueryController, catalog: Catalog, link: Any, shared_before: Any, *,
                      searchable: Catalog, notes: list[str], catalog_notes: list[str],
                      sites: AdhocSites) -> dict[str, Any]:
        """The search's crawl and ranking (the query controller's), turned into the envelope."""
        s = self.settings
        request, plan, started = controller.request, controller.plan, controller.started
        filters = request.filters
        # A site probed on the spot answers only the searches that name it: its cached pages
        # never join another caller's search as if they were the catalog's.
        crawled = await controller.crawl(joins=lambda doc: not is_probed(doc.source_id) or doc.source_id in sites.ids)
        outcome, fetched, cached = crawled.outcome, crawled.fetched, crawled.cached
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
        ranked = await controller.rank(crawled)
        kept = len(ranked)  # before the call's filters: how selective the ranking was
        stop_reason = controller.stop_reason(crawled)
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
        read = [u for doc in (*fetched, *cached) for u in (doc.url, doc.original_url) if u]
        reach = reach_of(controller.frontier.candidate_scores(), read,
                         hits=[r.document.url for r in ranked[:request.max_results]],
                         pages=len(fetched) + len(cached), kept=kept)
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
            reach=reach,
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


def withheld_note(withheld: dict[str, int]) -> str:
    parts = []
    if withheld["unrelated"]:
        parts.append(f"{withheld['unrelated']} share no content word with the query")
    if withheld["far_below"]:
        parts.append(f"{withheld['far_below']} score far below the best hit")
    total = withheld["unrelated"] + withheld["far_below"]
    return f"{total} page{'s' if total != 1 else ''} retrieved but not shown as evidence: " + "; ".join(parts)
