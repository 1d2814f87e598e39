"""A call's filters, defined once: the domains it keeps to or leaves out, its region, its dates.

``includeDomains`` and ``excludeDomains`` (both may be given in one call) name domains; a
domain matches itself and every subdomain (``nasa.gov`` matches ``science.nasa.gov``).
What a model writes is taken as the domain it means: case folded, a scheme, path, port or
leading ``www.`` / ``*.`` dropped, an international name in its IDNA (``xn--``) form, the
way a hit's URL is normalised (Python's ``idna`` codec, as w3lib's ``safe_url_string``
uses), so the two always compare alike. ``region`` is country-language (``us-en``,
``il-he``; ``wt-wt``: no region), the form ``WEB_SEARCH_REGION`` takes. ``after`` and
``before`` are days (``YYYY-MM-DD``, inclusive, in UTC): a hit dated outside them is
dropped, an undated one kept and counted.

Every check raises the project's ``invalid_input`` naming the parameter, so a surface
names it its own way (``--include-domain`` on a command line). This module imports only
the standard library, so a command's help and the tool schemas can use it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from urllib.parse import urlsplit

from lightsearch.errors import invalid_input, quote_untrusted

MAX_DOMAINS = 20  # per list, per call
MAX_DOMAIN_TEXT = 2048  # what a model may write for one (a URL with a path)
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
PARAMETERS = ("includeDomains", "excludeDomains", "region", "after", "before")


# --------------------------------------------------------------------------- hosts and domains
def ascii_host(host: str) -> str | None:
    """``host`` lower-cased, without a trailing dot, in its IDNA form; None when it has no
    such form (an empty or over-long label)."""
    host = host.strip().lower().rstrip(".")
    if not host:
        return None
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except (UnicodeError, ValueError):
            return None
    return host


def host_of(url: str) -> str | None:
    """The host of ``url`` (or of an origin) as :func:`ascii_host` writes it; None when it
    has none."""
    try:
        host = urlsplit(url.strip()).hostname
    except (ValueError, AttributeError):
        return None
    return ascii_host(host) if host else None


def matches(host: str | None, domain: str) -> bool:
    """``host`` is ``domain`` or one of its subdomains."""
    return bool(host) and (host == domain or host.endswith("." + domain))  # type: ignore[union-attr]


def normalize_domain(raw: Any, parameter: str = "includeDomains") -> str:
    """The domain ``raw`` means (see the module's docstring), or ``invalid_input``."""
    if not isinstance(raw, str):
        raise invalid_input(f"{parameter} must be a list of domains such as nasa.gov", parameter=parameter,
                            got=type(raw).__name__)
    text = raw.strip()
    if len(text) > MAX_DOMAIN_TEXT:
        raise invalid_input(f"{parameter}: a domain must be at most {MAX_DOMAIN_TEXT} characters",
                            parameter=parameter, limit=MAX_DOMAIN_TEXT, got=len(text))
    if "://" not in text:
        text = "//" + text.lstrip("/")
    try:
        host = urlsplit(text).hostname or ""
    except ValueError:
        host = ""
    host = host.lstrip(".")
    if host.startswith("*."):
        host = host[2:]
    domain = ascii_host(host)
    if domain and domain.startswith("www.") and len(domain) > 4:
        domain = domain[4:]
    if not domain or len(domain) > 253 or not all(_LABEL.match(label) for label in domain.split(".")):
        raise invalid_input(f"{parameter}: {quote_untrusted(raw)} is not a domain (write it as nasa.gov)",
                            parameter=parameter)
    return domain


def check_domains(values: Any, parameter: str) -> tuple[str, ...]:
    """A list of domains, normalised and without repeats; at most :data:`MAX_DOMAINS`."""
    if values is None:
        return ()
    if isinstance(values, str):
        values = [values]
    if not isinstance(values, Sequence):
        raise invalid_input(f"{parameter} must be a list of domains such as nasa.gov", parameter=parameter,
                            got=type(values).__name__)
    if len(values) > MAX_DOMAINS:
        raise invalid_input(f"{parameter}: give at most {MAX_DOMAINS}, not {len(values)}", parameter=parameter,
                            limit=MAX_DOMAINS, got=len(values))
    return tuple(dict.fromkeys(normalize_domain(v, parameter) for v in values))


# --------------------------------------------------------------------------- region and dates
def region_value(raw: Any) -> str | None:
    """``raw`` as a region (``us-en``, lower-cased), or None when it is not one."""
    if not isinstance(raw, str):
        return None
    value = raw.strip().lower()
    parts = value.split("-")
    if len(parts) != 2 or not all(p.isascii() and p.isalpha() and 2 <= len(p) <= 3 for p in parts):
        return None
    return value


def check_region(raw: Any, parameter: str = "region") -> str | None:
    if raw is None:
        return None
    value = region_value(raw)
    if value is None:
        raise invalid_input(f"{parameter} must be country-language such as us-en or il-he, got "
                            f"{quote_untrusted(str(raw)[:40])}", parameter=parameter)
    return value


def check_day(raw: Any, parameter: str) -> date | None:
    """A day written ``YYYY-MM-DD`` (or a :class:`datetime.date`), or ``invalid_input``."""
    if raw is None:
        return None
    if isinstance(raw, datetime):
        return raw.date()
    if isinstance(raw, date):
        return raw
    if isinstance(raw, str) and _DAY.match(raw.strip()):
        try:
            return date.fromisoformat(raw.strip())
        except ValueError:
            pass
    raise invalid_input(f"{parameter} must be a day written YYYY-MM-DD, got {quote_untrusted(str(raw)[:40])}",
                        parameter=parameter)


# --------------------------------------------------------------------------- the filters of a call
@dataclass(frozen=True)
class Filters:
    """What one call keeps to: checked (:func:`build_filters`), so always consistent."""

    include_domains: tuple[str, ...] = ()
    exclude_domains: tuple[str, ...] = ()
    region: str | None = None
    after: date | None = None
    before: date | None = None

    @property
    def domains(self) -> bool:
        return bool(self.include_domains or self.exclude_domains)

    @property
    def dates(self) -> bool:
        return self.after is not None or self.before is not None

    def __bool__(self) -> bool:
        return self.domains or self.dates or self.region is not None

    def verdict(self, *urls: str | None) -> str | None:
        """None when a hit at ``urls`` may be returned; ``"excluded"`` (one of them is on an
        excluded domain) or ``"not_included"`` (none is on an included one) when it may
        not. A hit has more than one URL when it stands for another site's page: a Google
        News link and its publisher's site."""
        if not self.domains:
            return None
        hosts = [host_of(u) if "/" in u else ascii_host(u) for u in urls if isinstance(u, str) and u]
        if any(matches(h, d) for h in hosts for d in self.exclude_domains):
            return "excluded"
        if self.include_domains and not any(matches(h, d) for h in hosts for d in self.include_domains):
            return "not_included"
        return None

    def admits(self, *urls: str | None) -> bool:
        return self.verdict(*urls) is None

    def in_window(self, day: date) -> bool:
        return (self.after is None or day >= self.after) and (self.before is None or day <= self.before)

    def window_words(self) -> str:
        parts = ([f"after {self.after.isoformat()}"] if self.after else []) + \
                ([f"before {self.before.isoformat()}"] if self.before else [])
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """The filters as the call's parameters (what ``meta.filters`` reports and a cache
        key holds): only those given."""
        out: dict[str, Any] = {}
        if self.include_domains:
            out["includeDomains"] = list(self.include_domains)
        if self.exclude_domains:
            out["excludeDomains"] = list(self.exclude_domains)
        if self.region:
            out["region"] = self.region
        if self.after:
            out["after"] = self.after.isoformat()
        if self.before:
            out["before"] = self.before.isoformat()
        return out


NO_FILTERS = Filters()


def build_filters(include_domains: Any = None, exclude_domains: Any = None, region: Any = None,
                  after: Any = None, before: Any = None) -> Filters:
    """A call's filters checked, or ``invalid_input`` naming the parameter."""
    include = check_domains(include_domains, "includeDomains")
    exclude = check_domains(exclude_domains, "excludeDomains")
    for domain in include:
        covering = next((d for d in exclude if matches(domain, d)), None)
        if covering is not None:
            raise invalid_input(f"includeDomains: {domain} is excluded too (by {covering}); no hit could "
                                "come from it", parameter="includeDomains", domain=domain, excludedBy=covering)
    first, last = check_day(after, "after"), check_day(before, "before")
    if first is not None and last is not None and first > last:
        raise invalid_input(f"after ({first.isoformat()}) must not be later than before ({last.isoformat()})",
                            parameter="after")
    return Filters(include, exclude, check_region(region), first, last)


def site_operators(filters: Filters, *, max_chars: int = 400, max_words: int = 50) -> tuple[str, bool]:
    """The ``site:`` / ``-site:`` operators an engine that reads them is given in its query,
    within ``max_chars`` characters and ``max_words`` words, and whether every included
    domain is in them (when they do not all fit, none is, and the results are filtered
    instead). Excluded domains are written as many as fit: each one only narrows the
    results, which are filtered anyway."""
    parts: list[str] = []
    chars = words = 0
    include = [f"site:{d}" for d in filters.include_domains]
    text = " OR ".join(include)
    if len(include) > 1:
        text = f"({text})"
    included = bool(include) and len(text) <= max_chars and 2 * len(include) - 1 <= max_words
    if included:
        parts.append(text)
        chars, words = len(text) + 1, 2 * len(include) - 1
    for domain in filters.exclude_domains:
        op = f"-site:{domain}"
        if chars + len(op) > max_chars or words + 1 > max_words:
            break
        parts.append(op)
        chars, words = chars + len(op) + 1, words + 1
    return " ".join(parts), included


def with_operators(query: str, filters: Filters, *, max_chars: int = 400,
                   max_words: int = 50) -> tuple[str, bool]:
    """``query`` with the filters' ``site:`` operators appended (what fits in the engine's
    ``max_chars``/``max_words``), and whether the included domains are all in it."""
    if not filters.domains:
        return query, True
    ops, included = site_operators(filters, max_chars=max(0, max_chars - len(query) - 1),
                                   max_words=max(0, max_words - len(query.split())))
    return (f"{query} {ops}" if ops else query), included or not filters.include_domains


def filtered(items: Iterable[Any], filters: Filters, url_of: Any) -> tuple[list[Any], dict[str, int]]:
    """``items`` whose URL (``url_of(item)``: one, or a tuple of them, see
    :meth:`Filters.verdict`) the filters admit, and how many were dropped for each reason
    (``excluded``, ``not_included``)."""
    kept: list[Any] = []
    dropped = {"excluded": 0, "not_included": 0}
    for item in items:
        urls = url_of(item)
        why = filters.verdict(*((urls,) if isinstance(urls, str) else urls)) if filters.domains else None
        if why is None:
            kept.append(item)
        else:
            dropped[why] += 1
    return kept, dropped


def domain_notes(dropped: dict[str, int], filters: Filters, who: str = "") -> list[str]:
    """The notes that say what a domain filter dropped (nothing when it dropped nothing)."""
    prefix = f"{who}: " if who else ""
    notes = []
    if dropped.get("excluded"):
        notes.append(f"{prefix}{dropped['excluded']} hit(s) on excludeDomains "
                     f"({', '.join(filters.exclude_domains[:5])}) were dropped")
    if dropped.get("not_included"):
        notes.append(f"{prefix}{dropped['not_included']} hit(s) outside includeDomains "
                     f"({', '.join(filters.include_domains[:5])}) were dropped")
    return notes
