"""Sites a call names that the catalog does not hold, searched on the spot.

An agent's most common narrow search is "search this site". When a call's
``includeDomains`` names a domain no catalog source is on, Light makes the site a source
for that search only, ``site:DOMAIN``, on the site's two origins (``https://DOMAIN`` and
``https://www.DOMAIN``) and entered at its home page, and reads it within the search's own
bounds, in the same crawl as the catalog's sources: robots.txt first (the sitemaps it
lists are read within the search's sitemap allowance), the home page and the feed it
declares, then the pages those name. That is exactly what ``lightsearch sources add``
probes, and what discovery reads first of any source, so the probe costs no crawl of its
own: its hops count against the 24, its bytes against the search's, and the deadline
holds. Several such sites share those bounds with each other and with the catalog's.

Before any hop, the guard decides whether a site may be probed at all
(crawl/guard/sites.py); after the crawl, :meth:`AdhocSites.report` says for each site
what happened (probed, nothing to read, failed and why, never opened, refused, over the
source bound), as notes, ``meta.lightSearch.probes`` and source errors, and what the
search learned of each probed site (its entry, cache/site_entries.py), to be kept under the
record cache's rules. Nothing is ever written to a catalog.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lightsearch.cache.descriptions import DocumentDescription
from lightsearch.cache.site_entries import (
    MAX_DOCUMENTS,
    MAX_FEEDS,
    MAX_SITEMAPS,
    SiteEntry,
    on_site,
    site_origins,
)
from lightsearch.filters import Filters, host_of, matches
from lightsearch.plan.catalog import LANGUAGES, Catalog, Source
from lightsearch.timestamps import utc_stamp

PREFIX = "site:"  # a probed site's source id: never a catalog id (those have no ':' nor '.')


def source_id(domain: str) -> str:
    return PREFIX + domain


def is_probed(source_id: str) -> bool:
    """Whether a source id (a cached document's, a hit's) is a site probed on the spot."""
    return source_id.startswith(PREFIX)


def outside_catalog(catalog: Catalog, filters: Filters) -> list[str]:
    """The included domains no catalog source has an origin on, in the call's order."""
    hosts = {host_of(o) for src in catalog.sources for o in src.origins}
    return [d for d in filters.include_domains if not any(matches(h, d) for h in hosts)]


def site_source(domain: str, entry: SiteEntry | None, language: str) -> Source:
    """The source a probed site is for one search: from what an earlier search kept of it
    (its home page after redirects, its feeds) or from its name alone. Its sitemaps come
    from its robots.txt, which every search reads (or finds cached) first."""
    return Source(id=source_id(domain), name=domain,
                  language=entry.language if entry is not None and entry.language else language,
                  kind="reference", origins=site_origins(domain),
                  seeds=(entry.seed if entry is not None else f"https://{domain}/",),
                  feeds=entry.feeds if entry is not None else ())


# Why a site could not be probed, in words of our own: a note never repeats what a site
# sent (the source errors carry the details).
_WHY = {
    "blocked_address": "its address is not a public one",
    "invalid_url": "it is not a host name Light fetches",
    "robots_disallowed": "its robots.txt does not allow it",
    "robots_unreachable": "its robots.txt could not be read",
    "network_error": "it could not be reached",
    "tls_error": "its TLS certificate or handshake failed",
    "timeout": "it did not answer in time",
    "redirect_refused": "its home page redirects off the site",
    "http_status": "its home page answers with an error status",
    "unsupported_content_type": "its home page is not an HTML page",
    "too_large": "its home page is larger than a search reads",
    "parse_error": "what it serves could not be read",
}
_REASONS = {"dns": "its name does not resolve", "dns_timeout": "its name did not resolve in time",
            "connect": "it refuses connections", "host-mapped": "it is reached only through LIGHT_HOST_MAP",
            "not_in_offline_world": "it is not in the offline world", "off_source": "to another site"}


def why_not(error: Mapping[str, Any]) -> str:
    """A refusal or a source error in our own words: the code, then what it means."""
    code = str(error.get("code", ""))
    reason = str(error.get("reason", ""))
    words = _WHY.get(code, "it failed")
    if reason in _REASONS:
        words = f"{words}: {_REASONS[reason]}" if code != "redirect_refused" else f"{words}, {_REASONS[reason]}"
    if code == "http_status" and isinstance(error.get("status"), int):
        words = f"its home page answers HTTP {error['status']}"
    return f"{code}, {words}"


@dataclass
class Site:
    """One domain of the call outside the catalog, and what this search does with it."""

    domain: str
    source: Source | None = None  # None: not probed (refused, or over the source bound)
    entry: SiteEntry | None = None  # what an earlier search kept of it
    refusal: dict[str, Any] | None = None  # code, reason, message: why it is not probed

    @property
    def id(self) -> str:
        return source_id(self.domain)


@dataclass
class Report:
    """What a search says of its probed sites, and what it keeps of them."""

    notes: list[str] = field(default_factory=list)
    probes: list[dict[str, Any]] = field(default_factory=list)  # meta.lightSearch.probes
    errors: list[dict[str, Any]] = field(default_factory=list)  # source errors of sites not probed
    keep: list[SiteEntry] = field(default_factory=list)  # entries to cache

    @property
    def probed(self) -> list[str]:
        return [p["source"] for p in self.probes if p["state"] == "probed"]


class AdhocSites:
    """The sites one call names outside the catalog (:meth:`plan`), and their report."""

    def __init__(self, sites: Sequence[Site]) -> None:
        self.sites = list(sites)

    @classmethod
    def plan(cls, domains: Iterable[str], *, room: int, vet: Callable[[str], dict[str, Any] | None],
             entry_of: Callable[[str], SiteEntry | None], language: str) -> AdhocSites:
        """Each domain vetted (``vet``: the guard's refusal as code, reason and message, or
        None), made a source from its kept entry (``entry_of``) while ``room`` sources are
        left; the query's ``language`` stands in until its pages say."""
        sites = []
        for domain in domains:
            site = Site(domain)
            refusal = vet(domain)
            if refusal is not None:
                site.refusal = refusal
            elif room <= 0:
                site.refusal = {"code": "not_probed", "reason": "max_sources",
                                "message": "the search's source bound (LIGHT_MAX_SOURCES) is reached"}
            else:
                site.entry = entry_of(domain)
                site.source = site_source(domain, site.entry, language)
                room -= 1
            sites.append(site)
        return cls(sites)

    @property
    def sources(self) -> list[Source]:
        return [s.source for s in self.sites if s.source is not None]

    @property
    def ids(self) -> frozenset[str]:
        return frozenset(s.id for s in self.sites if s.source is not None)

    def described(self, learned: Callable[[str], list[DocumentDescription]]) -> dict[str, list[DocumentDescription]]:
        """What is known of each site's discovery documents: what this process read of it
        (``learned``), over what its kept entry says."""
        out: dict[str, list[DocumentDescription]] = {}
        for site in self.sites:
            if site.source is None:
                continue
            docs = {d.key: d for d in (site.entry.documents if site.entry is not None else ())}
            docs.update((d.key, d) for d in learned(site.id))
            kept = [d for d in docs.values() if site.source.admits(d.url)]
            if kept:
                out[site.id] = kept
        return out

    def report(self, *, read: Sequence[Mapping[str, Any]], consulted: Iterable[str],
               errors: Sequence[Mapping[str, Any]], languages: Mapping[str, Sequence[str | None]],
               learned: Callable[[str], list[DocumentDescription]]) -> Report:
        """What happened to each site in the crawl that just ended: ``read`` the discovery
        documents it reported (crawl/signals.py), ``consulted`` the sources that gave it
        anything, ``errors`` the source errors, ``languages`` the language of each
        source's pages read as evidence, ``learned`` its descriptions as they stand now."""
        out = Report()
        consulted = set(consulted)
        for site in self.sites:
            if site.source is None:
                assert site.refusal is not None
                self._refused(site, out)
                continue
            mine = [r for r in read if r.get("source") == site.id]
            failed = [e for e in errors if e.get("source") == site.id]
            probe: dict[str, Any] = {"domain": site.domain, "source": site.id, "fromEntry": site.entry is not None}
            if mine or site.id in consulted:
                named = sum(int(r.get("named", 0)) for r in mine)
                fetched = len(languages.get(site.id, ()))
                probe.update(self._what(mine), pagesRead=fetched)
                if mine and not named and not fetched and site.entry is None:
                    probe.update(state="empty", code="no_discovery_documents")
                    out.notes.append(f"{site.domain} is not in Light's catalog: probed on the spot as source "
                                     f"{site.id}, it names nothing to read (no feed, no sitemap, no link on its "
                                     "home page)")
                else:
                    probe["state"] = "probed"
                    out.notes.append(self._probed_note(site, probe))
                    out.keep.append(self._entry(site, mine, failed, languages.get(site.id, ()), learned))
            elif failed:
                first = self._telling(site, failed)
                probe.update(state="failed", code=first.get("code"),
                             **({"reason": first["reason"]} if first.get("reason") else {}))
                out.notes.append(f"{site.domain} is not in Light's catalog and could not be probed on the spot "
                                 f"({why_not(first)})")
            else:
                probe.update(state="unopened")
                out.notes.append(f"{site.domain} is not in Light's catalog: it was to be probed on the spot, but "
                                 "the search's hops or time were spent before it was opened")
            out.probes.append(probe)
        return out

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _refused(site: Site, out: Report) -> None:
        refusal = site.refusal or {}
        code = refusal.get("code", "")
        probe = {"domain": site.domain, "source": site.id, "state": "refused", "code": code}
        if refusal.get("reason"):
            probe["reason"] = refusal["reason"]
        out.probes.append(probe)
        if code == "not_probed":
            out.notes.append(f"{site.domain} is not in Light's catalog and is not probed: "
                             f"{refusal.get('message', '')}")
            return
        out.notes.append(f"{site.domain} is not in Light's catalog and is not probed ({why_not(refusal)})")
        out.errors.append({"source": site.id, "url": f"https://{site.domain}/", "stage": "probe", "code": code,
                           "message": str(refusal.get("message", ""))[:200],
                           **({"reason": refusal["reason"]} if refusal.get("reason") else {})})

    @staticmethod
    def _telling(site: Site, failed: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
        """The error that says most of why a site was not read: its home page's, else the
        first (a robots.txt that blocks the origin is reported on every request it stops)."""
        seed = site.source.seeds[0] if site.source is not None else ""
        return next((e for e in failed if e.get("url") == seed), failed[0])

    @staticmethod
    def _what(read: Sequence[Mapping[str, Any]]) -> dict[str, int]:
        stages = Counter(r.get("stage") for r in read)
        return {"documents": len(read), "feeds": stages["feed"], "sitemaps": stages["sitemap"],
                "pages": stages["seed"] + stages["listing"] + stages["explore"]}

    @staticmethod
    def _probed_note(site: Site, probe: Mapping[str, Any]) -> str:
        parts = [f"{n} {word}{'s' if n != 1 else ''}" for n, word in (
            (probe["pages"], "home or listing page"), (probe["feeds"], "feed"), (probe["sitemaps"], "sitemap"))
            if n]
        what = f"{', '.join(parts)} read" if parts else "its pages read"
        since = " (starting from what an earlier search kept of it)" if site.entry is not None else ""
        return f"{site.domain} is not in Light's catalog: searched on the spot as source {site.id}{since}: {what}"

    @staticmethod
    def _entry(site: Site, read: Sequence[Mapping[str, Any]], failed: Sequence[Mapping[str, Any]],
               languages: Sequence[str | None], learned: Callable[[str], list[DocumentDescription]]) -> SiteEntry:
        """What the next search of the site starts from: this search's reads over the old entry's."""
        old = site.entry
        domain = site.domain
        gone = {e.get("url") for e in failed}
        seeds = [r["url"] for r in read if r.get("stage") == "seed" and on_site(r.get("url"), domain)]
        seed = seeds[0] if seeds else (old.seed if old is not None else f"https://{domain}/")
        feeds = [r["url"] for r in read if r.get("stage") == "feed" and on_site(r.get("url"), domain)]
        feeds += [u for u in (old.feeds if old is not None else ()) if u not in gone]
        maps = [r["url"] for r in read if r.get("stage") == "sitemap" and not r.get("child")
                and on_site(r.get("url"), domain)]
        maps += [u for u in (old.sitemaps if old is not None else ()) if u not in gone]
        said = Counter(lang for lang in languages if lang in LANGUAGES)
        language = said.most_common(1)[0][0] if said else (old.language if old is not None else "")
        docs = [d for d in learned(site.id) if on_site(d.url, domain)]
        if not docs and old is not None:
            docs = list(old.documents)
        docs = sorted(docs, key=lambda d: d.seen)[-MAX_DOCUMENTS:]
        return SiteEntry(domain=domain, seed=seed, feeds=tuple(dict.fromkeys(feeds))[:MAX_FEEDS],
                         sitemaps=tuple(dict.fromkeys(maps))[:MAX_SITEMAPS], language=language,
                         probed=old.probed if old is not None and old.probed else utc_stamp(),
                         documents=tuple(docs))
