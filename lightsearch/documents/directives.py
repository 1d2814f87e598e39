"""Page-level robots directives: ``<meta name="robots">``, the crawler's own meta name,
and ``X-Robots-Tag`` headers, including user-agent-scoped values ("otherbot: noindex"
binds another crawler only).

``noindex`` and ``none`` keep a page out of results and out of the cache; ``nofollow``
and ``none`` stop link following from it. ``unavailable_after`` past its date counts as
``noindex``. Unknown directives are ignored, as search engines do.

Markup is hostile: an attribute whose name is a control character (``<meta \x05
name=t content=1>``) makes a dict of all attributes raise. The meta tags are read by the
one walk over a page (documents/pagescan.py), attribute by name, and a meta tag that
still cannot be read is skipped, never the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from parsel import Selector

from lightsearch.documents.pagescan import scan_page
from lightsearch.timestamps import parse_stamp

if TYPE_CHECKING:
    from scrapy.http import Response

KNOWN = frozenset([
    "all", "noindex", "nofollow", "none", "noarchive", "nosnippet", "notranslate", "noimageindex",
    "unavailable_after", "indexifembedded", "max-snippet", "max-image-preview", "max-video-preview",
    "noodp", "noydir", "index", "follow",
])
_UA_PREFIX = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*:\s*(.*)$", re.S)


@dataclass(frozen=True)
class PageDirectives:
    noindex: bool = False
    nofollow: bool = False
    source: str = ""  # where the strongest directive came from (meta or header)


def _parse(value: str, now: datetime) -> tuple[bool, bool]:
    noindex = nofollow = False
    for part in value.split(","):
        token, _, arg = part.strip().partition(":")
        token = token.strip().lower()
        if token in ("noindex", "none"):
            noindex = True
        if token in ("nofollow", "none"):
            nofollow = True
        if token == "unavailable_after" and arg.strip():
            when = _date(arg.strip())
            if when is not None and when <= now:
                noindex = True
    return noindex, nofollow


def _date(text: str) -> datetime | None:
    return parse_stamp(text[:200], rfc822=True)


def header_values(headers: Response | Iterable[bytes | str], agents: frozenset[str]) -> list[str]:
    """The ``X-Robots-Tag`` values that bind us: unscoped ones and those scoped to one of
    ``agents``. A scope is a leading ``name:`` that is not itself a directive.
    ``headers`` is a response or its raw ``X-Robots-Tag`` values."""
    raws = headers.headers.getlist(b"X-Robots-Tag") if hasattr(headers, "headers") else headers
    values = []
    for raw in raws:
        value = raw.decode("latin-1") if isinstance(raw, bytes) else str(raw)
        match = _UA_PREFIX.match(value)
        if match and match.group(1).lower() not in KNOWN:
            if match.group(1).lower() in agents:
                values.append(match.group(2))
            continue
        values.append(value)
    return values


def meta_values(page: Response | Selector | bytes | str, agents: frozenset[str]) -> list[str]:
    """``content`` of the robots meta tags addressed to everyone or to one of ``agents``."""
    if isinstance(page, Selector):
        html = page.root
    elif isinstance(page, (bytes, str)):
        html = page or b"<html/>"
    else:
        html = getattr(page, "text", page.body)
    return scan_page(html, "", agents, max_links=0).metas


def page_directives(response: Response, agents: frozenset[str], *, now: datetime | None = None,
                    meta: list[str] | None = None) -> PageDirectives:
    """The directives that bind us on a fetched page (headers and meta tags); ``meta``: the
    page's :func:`meta_values` when the caller already has them."""
    return _combine(header_values(response, agents), meta_values(response, agents) if meta is None else meta, now)


def parse_directives(html: bytes | str, x_robots_tag: Iterable[bytes | str] = (),
                     agents: frozenset[str] = frozenset(), *, now: datetime | None = None) -> PageDirectives:
    """:func:`page_directives` for a page given as its body and ``X-Robots-Tag`` values."""
    return _combine(header_values(x_robots_tag, agents), meta_values(html, agents), now)


def _combine(headers: list[str], metas: list[str], now: datetime | None) -> PageDirectives:
    now = now or datetime.now(timezone.utc)
    noindex = nofollow = False
    source = ""
    for where, values in (("header", headers), ("meta", metas)):
        for value in values:
            ni, nf = _parse(value, now)
            if (ni and not noindex) or (nf and not nofollow):
                source = source or where
            noindex, nofollow = noindex or ni, nofollow or nf
    return PageDirectives(noindex, nofollow, source)
