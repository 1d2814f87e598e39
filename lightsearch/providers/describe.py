"""Prebuild a catalog's source descriptions: ``lightsearch sources describe``.

Each source's discovery documents are read by a crawl of its own (spiders/describe.py),
through the same transport, robots rules and politeness limits as a search, with a
larger hop budget; what they name is written as a summary file (cache/descriptions.py)
that a process loads when it starts, so a cold search chooses its sources and its first
documents as informed as the summary is. The summary is dated; run it again when the
sites change. Without a network, an operator can describe the catalog from recorded
feeds and sitemaps instead (:func:`describe_recorded`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lightsearch.cache.descriptions import SourceDescriptions, describe, encode_summary
from lightsearch.crawl.run import CrawlDeadline, run_crawl
from lightsearch.documents.feeds import FeedError, read_feed
from lightsearch.documents.links import absolute_url
from lightsearch.documents.sitemaps import SitemapError, read_sitemap
from lightsearch.plan.catalog import Catalog, Source
from lightsearch.providers.light import make_settings
from lightsearch.spiders.candidates import entry_terms
from lightsearch.spiders.describe import DescribeSpider

MAX_DOCUMENTS = 48  # discovery documents read per source
PARALLEL_SOURCES = 4  # sources described at once (the politeness limits hold across them)
_MiB = 1024 * 1024
# The build reads more documents than a search may: its own budgets, never a search's.
BUILD_SETTINGS = {"LIGHT_MAX_HOPS": MAX_DOCUMENTS + 8, "LIGHT_SOFT_DEADLINE_SECS": 100.0,
                  "LIGHT_DEADLINE_SECS": 120.0, "LIGHT_MAX_ENCODED_BYTES": 64 * _MiB,
                  "LIGHT_MAX_DECODED_BYTES": 64 * _MiB, "LIGHT_RECORD_CACHE": None, "LIGHT_ROBOTS_CACHE": None}


@dataclass
class Described:
    descriptions: SourceDescriptions = field(default_factory=SourceDescriptions)
    errors: list[dict[str, Any]] = field(default_factory=list)
    documents: int = 0


async def describe_sources(catalog: Catalog, overrides: Mapping[str, Any] | None = None, *,
                           sources: Sequence[Source] | None = None,
                           max_documents: int = MAX_DOCUMENTS) -> Described:
    """Read every source's discovery documents and describe them."""
    settings = make_settings({**(overrides or {}), **BUILD_SETTINGS,
                              "LIGHT_MAX_HOPS": min(200, max_documents + 8)})
    out = Described()
    gate = asyncio.Semaphore(PARALLEL_SOURCES)

    async def one(source: Source) -> None:
        async with gate:
            try:
                outcome = await run_crawl(settings, DescribeSpider, settings.getfloat("LIGHT_DEADLINE_SECS"),
                                          source=source, max_documents=max_documents)
            except CrawlDeadline as exc:
                outcome = exc.outcome
            for item in outcome.items:
                out.descriptions.put(item["source_id"], item["description"])
                out.documents += 1
            out.errors.extend(outcome.source_errors)

    await asyncio.gather(*(one(s) for s in (sources if sources is not None else catalog.sources)))
    return out


def describe_recorded(catalog: Catalog, recorded: Mapping[str, Path]) -> Described:
    """Describe the catalog from recorded discovery documents: ``recorded`` maps a feed's
    or sitemap's URL to a file holding its bytes as the site served them."""
    out = Described()
    for source in catalog.sources:
        for url in [*source.feeds, *source.sitemaps]:
            path = recorded.get(url)
            if path is None:
                continue
            body = Path(path).read_bytes()
            try:
                if url in source.feeds:
                    feed = read_feed(body, 200)
                    rows = [entry_terms([e.title, e.summary], link) for e in feed.entries
                            if (link := absolute_url(url, e.link))]
                    doc = describe(url, "feed", rows, seen=_recorded_date(feed))
                else:
                    sitemap = read_sitemap(body, url)
                    doc = describe(url, "sitemap", [entry_terms((), e.loc) for e in sitemap.entries])
            except (FeedError, SitemapError) as exc:
                out.errors.append({"source": source.id, "url": url, "code": exc.code, "message": exc.message})
                continue
            out.descriptions.put(source.id, doc)
            out.documents += 1
    return out


def _recorded_date(feed: Any) -> str | None:
    """The newest entry date of a recorded feed: when what it describes was published."""
    dates = sorted((e.date for e in feed.entries if e.date), reverse=True)
    return dates[0] if dates else None


def write_summary(path: Path, catalog: Catalog, described: Described, *, note: str = "") -> Path:
    text = encode_summary(described.descriptions, catalog={"id": catalog.id, "version": catalog.version},
                          origins={s.id: s.origins for s in catalog.sources}, note=note)
    path.write_text(text, encoding="utf-8")
    return path
