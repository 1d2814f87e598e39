"""Light's side of the sites a call names outside the catalog (plan/adhoc.py): vetted and
made sources before its crawl, reported and kept after it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from scrapy.settings import BaseSettings

from lightsearch.cache import load_cache
from lightsearch.cache.descriptions import DocumentDescription
from lightsearch.crawl.guard.sites import vet_site
from lightsearch.crawl.outcome import CrawlOutcome
from lightsearch.documents import Document
from lightsearch.plan.adhoc import AdhocSites, Report
from lightsearch.plan.catalog import Catalog
from lightsearch.plan.request import SearchRequest
from lightsearch.plan.selection import query_languages


def learned(records: Any, source_id: str) -> list[DocumentDescription]:
    """What this process's searches read of a source's discovery documents (none without a
    record cache)."""
    descriptions = getattr(records, "descriptions", None)
    return descriptions.of(source_id) if descriptions is not None else []


def _vetter(settings: BaseSettings) -> Callable[[str], dict[str, Any] | None]:
    """Why the guard refuses to probe a domain (its code, reason and message), or None."""
    host_map = settings.getdict("LIGHT_HOST_MAP")
    allowed = {h.lower().rstrip(".") for h in settings.getlist("LIGHT_ADHOC_MAPPED_HOSTS")}
    ports = [int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS")]
    map_only = settings.getbool("LIGHT_HOST_MAP_ONLY")

    def vet(domain: str) -> dict[str, Any] | None:
        refusal = vet_site(domain, host_map=host_map, map_only=map_only, mapped_allowed=allowed,
                           allowed_ports=ports)
        if refusal is None:
            return None
        return {"code": refusal.code, "reason": refusal.reason, "message": str(refusal)}

    return vet


def probeable(settings: BaseSettings, outside: list[str]) -> list[str]:
    """The domains of ``outside`` the guard lets a search probe."""
    vet = _vetter(settings)
    return [domain for domain in outside if vet(domain) is None]


def plan_sites(settings: BaseSettings, request: SearchRequest, outside: list[str], records: Any, *,
               catalog_left: bool) -> AdhocSites:
    """The call's domains outside the catalog, vetted by the guard (crawl/guard/sites.py)
    and made sources from what earlier searches kept of them, leaving the catalog one of
    ``LIGHT_MAX_SOURCES`` when it holds sources on the call's domains too."""
    if not outside:
        return AdhocSites([])
    get_site = getattr(records, "get_site", None)
    languages = query_languages(request)
    return AdhocSites.plan(outside, room=settings.getint("LIGHT_MAX_SOURCES") - (1 if catalog_left else 0),
                           vet=_vetter(settings),
                           entry_of=get_site if get_site is not None else (lambda _domain: None),
                           language="he" if languages == {"he"} else "en")


def mapped_hosts(settings: BaseSettings, catalog: Catalog) -> frozenset[str]:
    """The mapped hosts a search that probes a site may connect to (plan/frontier.py's
    ``may_map``): the catalog's origins and those configured for probing."""
    hosts = {urlsplit(o).hostname or "" for src in catalog.sources for o in src.origins}
    hosts.update(h.lower().rstrip(".") for h in settings.getlist("LIGHT_ADHOC_MAPPED_HOSTS"))
    return frozenset(h for h in hosts if h)


def report_sites(settings: BaseSettings, sites: AdhocSites, outcome: CrawlOutcome,
                 fetched: list[Document]) -> Report:
    """What became of the probed sites in the crawl that just ended; what was learned of
    them is kept in the record cache for ``LIGHT_ADHOC_ENTRY_SECS`` (cache/site_entries.py)."""
    if not sites.sites:
        return Report()
    records = load_cache(settings, "LIGHT_RECORD_CACHE")
    languages: dict[str, list[str | None]] = {}
    for doc in fetched:
        if doc.source_id in sites.ids:
            languages.setdefault(doc.source_id, []).append(doc.language)
    report = sites.report(read=outcome.read, consulted=outcome.consulted, errors=outcome.source_errors,
                          languages=languages, learned=lambda sid: learned(records, sid))
    lifetime = settings.getfloat("LIGHT_ADHOC_ENTRY_SECS")
    put_site = getattr(records, "put_site", None)
    if put_site is not None and lifetime > 0:
        for entry in report.keep:
            put_site(entry, time.time() + lifetime)
    return report
