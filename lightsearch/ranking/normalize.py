"""One key per page however engines spell its URL, so a hit two engines found is one hit.

The key ignores the scheme, a trailing slash, ``www.``-less/with host case, fragments, the
order of query arguments, and tracking arguments (``utm_*`` and the known click ids);
:func:`prefer` picks which spelling to show (https over http, then the shorter). This
near-duplicate key only merges hits; a page's identity for fetching and caching is the
stricter :func:`lightsearch.documents.urlkey.canonical_url`.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from w3lib.url import canonicalize_url

TRACKERS = frozenset({
    "fbclid", "gclid", "dclid", "gbraid", "wbraid", "msclkid", "yclid", "twclid", "igshid", "mc_cid",
    "mc_eid", "_hsenc", "_hsmi", "mkt_tok", "ref_src", "ref_url", "spm", "scid", "oly_anon_id",
    "oly_enc_id", "vero_id", "rb_clickid", "s_cid", "si",
})


def is_tracker(name: str) -> bool:
    name = name.lower()
    return name.startswith("utm_") or name in TRACKERS


def strip_trackers(url: str) -> str:
    """``url`` without tracking query arguments (otherwise as given)."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not is_tracker(k)]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def dedupe_key(url: str) -> str:
    """The near-duplicate key of a hit's URL: canonical, scheme-less, tracker-free, no
    trailing slash."""
    try:
        canonical = canonicalize_url(strip_trackers(url.strip()))
    except ValueError:
        return url.strip().lower()
    parts = urlsplit(canonical)
    path = parts.path.rstrip("/")
    host = (parts.hostname or "").lower()
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    return f"{host}{port}{path}{'?' + parts.query if parts.query else ''}"


def prefer(a: str, b: str) -> str:
    """The spelling to show of two URLs with one key: https first, then the cleaner."""
    sa, sb = urlsplit(a).scheme == "https", urlsplit(b).scheme == "https"
    if sa != sb:
        return a if sa else b
    return a if len(a) <= len(b) else b
