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
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lightsearch.cache.descriptions import SourceDescriptions, describe, encode_summary
from lightsearch.config import make_settings
from lightsearch.crawl.run import CrawlDeadline, run_crawl
from lightsearch.documents.discovered_links import absolute_url
from lightsearch.documents.feeds import FeedError, read_feed
from lightsearch.documents.sitemaps import SitemapError, read_sitemap
from lightsearch.documents.urlkey import canonical_url
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.plan.candidates import entry_terms
from lightsearch.plan.catalog import KINDS, LANGUAGES, Catalog, Source, origin_of
from lightsearch.plan.frontier import CrawlFrontier
from lightsearch.spiders.describe import DescribeSpider
from lightsearch.timestamps import parse_stamp, utc_stamp

MAX_DOCUMENTS = 96  # discovery documents read per source
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
    via: dict[str, str] = field(default_factory=dict)  # url key -> how the document was found
    pages: dict[str, dict[str, Any]] = field(default_factory=dict)  # url key -> a seed page's facts


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
                                          frontier=CrawlFrontier([source]), source=source,
                                          max_documents=max_documents)
            except CrawlDeadline as exc:
                outcome = exc.outcome
            for item in outcome.items:
                doc = item["description"]
                out.descriptions.put(item["source_id"], doc)
                out.via[doc.key] = item.get("via", "")
                if "page" in item:
                    out.pages[doc.key] = item["page"]
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
    """The newest entry date of a recorded feed (ISO 8601, UTC): when what it describes was
    published, so a reader of the summary sees how old it is."""
    dates = [when for entry in feed.entries if (when := parse_stamp(entry.date, rfc822=True))]
    return utc_stamp(max(dates)) if dates else None


def write_summary(path: Path, catalog: Catalog, described: Described, *, note: str = "") -> Path:
    text = encode_summary(described.descriptions, catalog={"id": catalog.id, "version": catalog.version},
                          origins={s.id: s.origins for s in catalog.sources}, note=note)
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------- a user's own site
PROBE_DOCUMENTS = 12  # robots.txt aside: the home page, the feeds it declares, sitemaps
_ID_CHARS = re.compile(r"[^a-z0-9-]+")


@dataclass
class Probe:
    """What probing a site found: a catalog entry with the evidence for each field, the
    descriptions of the documents read, and what failed."""

    entry: dict[str, Any]
    described: Described


def source_id_for(url: str) -> str:
    host = (urlsplit(url).hostname or "site").lower().removeprefix("www.")
    return ("user-" + _ID_CHARS.sub("-", host).strip("-"))[:41].rstrip("-")


async def probe_source(url: str, overrides: Mapping[str, Any] | None = None, *, name: str | None = None,
                       language: str | None = None, kind: str | None = None, source_id: str | None = None,
                       allow_private: bool = False) -> Probe:
    """Probe a site the way discovery reads it (robots.txt, the home page, the feeds the
    home page declares, the sitemaps robots.txt lists, the language the page declares)
    and return a catalog entry whose every field says where it came from.

    ``allow_private``: the person's explicit opt-in for a site on their own machine or
    network (crawl/guard/private.py), stored in the entry as ``allowPrivate``. Without it
    such a site is refused, and the refusal says how to opt in."""
    seed = absolute_url(url, url) if url else None
    parts = urlsplit(seed or "")
    if seed is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise LightSearchError("invalid_input", f"not an absolute http(s) URL: {quote_untrusted(url)}",
                               {"parameter": "URL"})
    if not parts.path:
        seed += "/"
    for param, value, allowed in (("--language", language, LANGUAGES), ("--kind", kind, KINDS)):
        if value is not None and value not in allowed:
            raise LightSearchError("invalid_input", f"{param} must be one of {', '.join(allowed)}, got "
                                   f"{quote_untrusted(value)}", {"parameter": param})
    sid = source_id or source_id_for(seed)
    origin = origin_of(seed)
    _refuse_unreachable(seed, origin, overrides, allow_private=allow_private)
    provisional = Source(id=sid, name=name or parts.hostname, language=language or "en", kind=kind or "reference",
                         origins=(origin,), seeds=(seed,), allow_private=allow_private)
    catalog = Catalog(id="probe", version="0", sources=(provisional,), by_id={sid: provisional})
    described = await describe_sources(catalog, overrides, max_documents=PROBE_DOCUMENTS)
    read_at = utc_stamp()
    failed = [e for e in described.errors if canonical_url(e["url"]) == canonical_url(seed)]
    docs = described.descriptions.of(sid)
    home = next((d for d in docs if d.kind == "seed"), None)
    if home is None:
        why = failed[0] if failed else {"code": "parse_error", "message": "the home page could not be read"}
        hint = PRIVATE_HINT if why["code"] == "blocked_address" and not allow_private else ""
        raise LightSearchError("source_unreachable", f"{seed} could not be read as a home page: {why['code']}"
                               + (f" ({why['message']})" if why.get("message") else "") + hint,
                               {"url": seed, "sourceErrors": described.errors[:10]})
    facts = described.pages.get(canonical_url(home.url), {})
    evidence: dict[str, Any] = {"seeds": {seed: f"the URL given; read {read_at}"}}
    if language is None:
        language = facts.get("language") if facts.get("language") in LANGUAGES else "en"
        evidence["language"] = (f"{facts.get('languageVia')} on {seed}: {facts.get('language')}"
                                + ("" if facts.get("language") in LANGUAGES else " (not one of the catalog's; en)"))
    else:
        evidence["language"] = "given (--language)"
    if name is None:
        name = facts.get("name") or parts.hostname
        evidence["name"] = f"the home page's site name or title on {seed}" if facts.get("name") else "the host name"
    else:
        evidence["name"] = "given (--name)"
    evidence["kind"] = "given (--kind)" if kind else "default: reference (not probed)"
    if allow_private:
        evidence["allowPrivate"] = f"given (--allow-private): {origin} may be on your own machine or network"
    feeds, sitemaps = {}, {}
    for doc in docs:
        via = described.via.get(doc.key, "")
        if doc.kind == "feed" and via != "catalog":
            feeds[doc.url] = f"{via} {seed}; read {doc.seen}: a feed of {doc.entries} entries"
        elif doc.kind in ("sitemap", "index") and via == "robots.txt":
            what = f"an index of {len(doc.children)} sitemaps" if doc.kind == "index" else f"{doc.entries} pages"
            sitemaps[doc.url] = f"listed in {origin}/robots.txt; read {doc.seen}: {what}"
    evidence["feeds"], evidence["sitemaps"] = feeds, sitemaps
    entry = {"id": sid, "name": name, "language": language, "kind": kind or "reference", "origins": [origin],
             "seeds": [seed], "feeds": list(feeds), "sitemaps": list(sitemaps), "lookup": [], "topics": [],
             "evidence": evidence, "added": read_at}
    if allow_private:
        entry["allowPrivate"] = True
    return Probe(entry=entry, described=described)


PRIVATE_HINT = ("; to add a site on your own machine or network, give --allow-private "
                "(`lightsearch sources add --allow-private URL`)")


def _refuse_unreachable(seed: str, origin: str, overrides: Mapping[str, Any] | None, *,
                       allow_private: bool) -> None:
    """A site the transport guard would refuse is refused here, before any crawl, as the
    guard says; when the rule is one ``--allow-private`` lifts (a private or loopback
    address, an internal name, a port outside LIGHT_ALLOWED_PORTS) and it was not given,
    the refusal says how to opt in."""
    from w3lib.url import safe_url_string

    from lightsearch.crawl.guard import GuardRefusal
    from lightsearch.crawl.guard.private import lifts
    from lightsearch.crawl.guard.urls import check_url

    settings = make_settings(overrides)
    try:
        check_url(safe_url_string(seed), allowed_ports={int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS")},
                  trusted_hosts=set(settings.getdict("LIGHT_HOST_MAP")),
                  private_origins={origin} if allow_private else ())
    except GuardRefusal as exc:
        hint = PRIVATE_HINT if lifts(exc.reason) and not allow_private else ""
        raise LightSearchError(exc.code, f"{exc}{hint}", {**exc.details(), "parameter": "URL"}) from None
