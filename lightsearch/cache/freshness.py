"""How long a response may be reused, from its own cache directives (RFC 9111).

lightsearch's caches are shared by every search in the process, so they behave as a
shared cache: ``private``, ``no-store`` and ``no-cache`` (we never revalidate) prevent
storage, ``s-maxage`` beats ``max-age``, and an explicit ``max-age`` beats ``Expires``.
The response's age so far (``Age``, or the distance between ``Date`` and now) is spent
lifetime. Without any explicit lifetime the heuristic is RFC 9111 §4.2.2's tenth of the
time since ``Last-Modified``, else the cap. Every lifetime is capped by the kind's
maximum (feeds and sitemaps 5 minutes, pages 30).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from scrapy.extensions.httpcache import parse_cachecontrol

NO_STORE_DIRECTIVES = ("no-store", "private", "no-cache")


@dataclass(frozen=True)
class Freshness:
    storable: bool
    lifetime: float  # seconds the response was fresh for when it was produced
    age: float  # seconds of that spent before we received it
    expires_at: float  # wall-clock time it stops being fresh (<= now when not storable)
    reason: str  # why: "max-age", "s-maxage", "expires", "heuristic", "cap", "no-store", ...

    @property
    def remaining(self) -> float:
        return self.lifetime - self.age


def _header(headers: Any, name: str) -> str | None:
    value = headers.get(name) if headers is not None else None
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    return value.strip() or None


def _all(headers: Any, name: str) -> list[str]:
    if headers is None:
        return []
    getlist = getattr(headers, "getlist", None)
    values = getlist(name) if getlist else [headers.get(name)]
    return [v.decode("latin-1") if isinstance(v, bytes) else str(v) for v in values if v is not None]


def cache_control(headers: Any) -> dict[str, str | None]:
    """Every Cache-Control directive, lower-cased, from every header line (Scrapy's parser
    reads one line; a directive repeated on one line keeps its last value there, the first
    line that names it wins across lines). Quotes around an argument are ours to strip."""
    directives: dict[str, str | None] = {}
    for value in _all(headers, "Cache-Control"):
        for name, arg in parse_cachecontrol(value.encode("latin-1")).items():
            text = arg.decode("latin-1").strip().strip('"') if arg is not None else None
            directives.setdefault(name.decode("latin-1").strip(), text or None)
    return directives


def _seconds(value: str | None) -> int | None:
    if value is None:
        return None
    try:
        return max(0, int(value))
    except ValueError:
        return None


def _http_date(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return parsedate_to_datetime(value).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def freshness(headers: Any, cap: float, *, now: float | None = None) -> Freshness:
    """The freshness of a response received at ``now`` (wall clock), capped at ``cap`` s."""
    now = time.time() if now is None else now
    cc = cache_control(headers)
    for directive in NO_STORE_DIRECTIVES:
        if directive in cc:
            return Freshness(False, 0.0, 0.0, now, directive)
    if "no-cache" in (_header(headers, "Pragma") or "").lower():
        return Freshness(False, 0.0, 0.0, now, "no-cache")
    date = _http_date(_header(headers, "Date"))
    # RFC 9111 §4.2.3: the age is the larger of the Age header and the apparent age.
    age_value = _seconds(_header(headers, "Age")) or 0
    apparent = max(0.0, now - date) if date is not None else 0.0
    age = float(max(age_value, apparent))
    lifetime: float | None
    reason = "cap"
    if _seconds(cc.get("s-maxage")) is not None:
        lifetime, reason = float(_seconds(cc.get("s-maxage")) or 0), "s-maxage"
    elif _seconds(cc.get("max-age")) is not None:
        lifetime, reason = float(_seconds(cc.get("max-age")) or 0), "max-age"
    elif _header(headers, "Expires") is not None:
        expires = _http_date(_header(headers, "Expires"))
        # An invalid Expires (e.g. "0") means already expired (RFC 9111 §5.3).
        lifetime = 0.0 if expires is None else max(0.0, expires - (date if date is not None else now))
        reason = "expires"
    else:
        modified = _http_date(_header(headers, "Last-Modified"))
        if modified is not None and (date or now) > modified:
            lifetime, reason = ((date or now) - modified) / 10, "heuristic"
        else:
            lifetime = None
    if lifetime is None or lifetime > cap:
        lifetime, reason = float(cap), "cap"
    remaining = lifetime - age
    storable = remaining > 0
    return Freshness(storable, lifetime, age, now + max(0.0, remaining), reason if storable else "stale")
