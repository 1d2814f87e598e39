"""A call's domain filters applied to the catalog, before its sources are selected.

Light reads only the sources its catalog lists, each on the origins it vouches for. A
call's ``includeDomains``/``excludeDomains`` narrow that list: a source keeps only the
origins the filters admit, and its seeds, feeds, sitemaps and lookups on those origins; a
source left with none is not a candidate at all. Because every link the crawl admits and
every redirect it follows must be on its source's origins (``Source.admits``, the
redirect confinement), a narrowed source never reads a page on an excluded domain. A
source whose kept origins have no entry point of their own is entered at their home
pages (robots.txt then names their sitemaps).

An included domain that no catalog source is on is probed and searched on the spot
(plan/adhoc.py), and its notes come from there; when it is not (``LIGHT_ADHOC_SOURCES``
off), the notes say it is not searched, one by one, so that an empty answer is never
silent about why.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from lightsearch.filters import Filters, host_of, matches
from lightsearch.plan.catalog import Catalog, Source, origin_of


def restrict_catalog(catalog: Catalog, filters: Filters, *,
                     on_the_spot: Collection[str] = ()) -> tuple[Catalog, list[str]]:
    """``catalog`` with only what ``filters`` admit, and the notes on what they asked for
    that it does not hold (but for the domains searched ``on_the_spot``: theirs are the
    probe's)."""
    if not filters.domains:
        return catalog, []
    sources = [s for s in (_restrict(src, filters) for src in catalog.sources) if s is not None]
    hosts = {host_of(o) for src in catalog.sources for o in src.origins}
    notes = [f"{domain} is not in Light's catalog: Light reads only the sources its catalog lists, and none is "
             "on that domain; another search provider (the engines or Brave) can search it"
             for domain in filters.include_domains
             if not any(matches(h, domain) for h in hosts) and domain not in on_the_spot]
    left = {src.id for src in sources}
    gone = [src.id for src in catalog.sources if src.id not in left]
    if not sources:
        if not on_the_spot:
            notes.append("no catalog source is left to search: includeDomains/excludeDomains admit none of them")
    elif filters.include_domains:
        notes.append(f"includeDomains: Light searches {_named(sorted(left))} of its catalog")
    elif gone:
        notes.append(f"excludeDomains: Light does not search {_named(gone)} of its catalog")
    return replace(catalog, sources=tuple(sources)), notes


def _named(ids: list[str], most: int = 5) -> str:
    more = f" and {len(ids) - most} more" if len(ids) > most else ""
    return f"source{'s' if len(ids) > 1 else ''} {', '.join(ids[:most])}{more}"


def _restrict(source: Source, filters: Filters) -> Source | None:
    origins = tuple(o for o in source.origins if filters.admits(o))
    if not origins:
        return None
    if origins == source.origins:
        return source

    def on_kept(urls: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(u for u in urls if origin_of(u.replace("{title}", "x")) in origins)

    seeds, feeds, sitemaps, lookup = (on_kept(source.seeds), on_kept(source.feeds), on_kept(source.sitemaps),
                                      on_kept(source.lookup))
    if not (seeds or feeds or sitemaps or lookup):
        seeds = tuple(f"{o}/" for o in origins)
    return replace(source, origins=origins, seeds=seeds, feeds=feeds, sitemaps=sitemaps, lookup=lookup)
