"""Page-level robots directives: ``<meta name="robots">``, the crawler's own meta name,
and ``X-Robots-Tag`` headers, including user-agent-scoped values ("otherbot: noindex"
binds another crawler only).

``noindex`` and ``none`` keep a page out of results and out of the cache; ``nofollow``
and ``none`` stop link following from it. ``unavailable_after`` past its date counts as
``noindex``. Unknown directives are ignored, as search engines do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING

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
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        try:
            when = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def header_values(response: Response, agents: frozenset[str]) -> list[str]:
    """The ``X-Robots-Tag`` values that bind us: unscoped ones and those scoped to one of
    ``agents``. A scope is a leading ``name:`` that is not itself a directive."""
    values = []
    for raw in response.headers.getlist(b"X-Robots-Tag"):
        value = raw.decode("latin-1")
        match = _UA_PREFIX.match(value)
        if match and match.group(1).lower() not in KNOWN:
            if match.group(1).lower() in agents:
                values.append(match.group(2))
            continue
        values.append(value)
    return values


def meta_values(response: Response, agents: frozenset[str]) -> list[str]:
    values = []
    for meta in response.xpath("//meta[@name][@content]"):
        name = meta.attrib.get("name", "").strip().lower()
        if name == "robots" or name in agents:
            values.append(meta.attrib.get("content", ""))
    return values


def page_directives(response: Response, agents: frozenset[str], *, now: datetime | None = None) -> PageDirectives:
    now = now or datetime.now(timezone.utc)
    noindex = nofollow = False
    source = ""
    for where, values in (("header", header_values(response, agents)), ("meta", meta_values(response, agents))):
        for value in values:
            ni, nf = _parse(value, now)
            if (ni and not noindex) or (nf and not nofollow):
                source = source or where
            noindex, nofollow = noindex or ni, nofollow or nf
    return PageDirectives(noindex, nofollow, source)
