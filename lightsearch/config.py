"""Validate Light settings, once, on the first search.

Bad Light settings fail that search with ``invalid_settings`` naming the key; they are
not checked at load time, so they can never disable Brave or web_fetch.
"""

from __future__ import annotations

from typing import Any

from scrapy.settings import BaseSettings
from w3lib.encoding import resolve_encoding

from lightsearch.errors import LightSearchError

# key: (type, minimum, maximum) — the sane range each bound may be tuned within.
LIMITS: dict[str, tuple[type, float, float]] = {
    "LIGHT_DEADLINE_SECS": (float, 0.5, 120.0),
    "LIGHT_SOFT_DEADLINE_SECS": (float, 0.1, 120.0),
    "LIGHT_MAX_HOPS": (int, 1, 200),
    "LIGHT_MAX_SOURCES": (int, 1, 20),
    "LIGHT_MIN_SOURCES": (int, 1, 20),
    "LIGHT_SOURCE_KEEP_RATIO": (float, 0.0, 1.0),
    "LIGHT_MAX_QUERIES": (int, 1, 10),
    "LIGHT_MAX_QUERY_CHARS": (int, 10, 2000),
    "LIGHT_MAX_QUERY_WORDS": (int, 1, 200),
    "LIGHT_RESPONSE_MAX_BYTES": (int, 1024, 16 * 1024 * 1024),
    "LIGHT_MAX_ENCODED_BYTES": (int, 1024, 256 * 1024 * 1024),
    "LIGHT_MAX_DECODED_BYTES": (int, 1024, 256 * 1024 * 1024),
    "LIGHT_DISCOVERY_MAX_CANDIDATES": (int, 1, 10_000),
    "LIGHT_DISCOVERY_MAX_DEPTH": (int, 0, 5),
    "LIGHT_DISCOVERY_MAX_SITEMAPS": (int, 0, 64),
    "LIGHT_SNIPPET_CHARS": (int, 40, 4000),
    "LIGHT_TEXT_MAX_BYTES": (int, 512, 1024 * 1024),
    # Web hygiene: lifetimes and cache sizes may be shortened, never beyond seed 000's table.
    "LIGHT_DISCOVERY_MAX_AGE_SECS": (float, 0.0, 300.0),
    "LIGHT_PAGE_MAX_AGE_SECS": (float, 0.0, 1800.0),
    "LIGHT_RECORD_CACHE_MAX_RECORDS": (int, 0, 500),
    "LIGHT_RECORD_CACHE_MAX_BYTES": (int, 0, 16 * 1024 * 1024),
    "LIGHT_ROBOTS_CACHE_MAX_AGE_SECS": (float, 0.0, 24 * 3600.0),
    "LIGHT_ROBOTS_CACHE_MAX_ORIGINS": (int, 0, 64),
    "LIGHT_ROBOTS_CACHE_MAX_BYTES": (int, 0, 4 * 1024 * 1024),
    "LIGHT_ROBOTS_MAX_BYTES": (int, 1024, 512 * 1024),
    "LIGHT_ROBOTS_MAX_REDIRECTS": (int, 0, 10),
    "LIGHT_ROBOTS_TIMEOUT_SECS": (float, 0.1, 60.0),
    # Response heads (issue 13): room for real sites, never an unbounded header dict.
    "LIGHT_RESPONSE_MAX_HEADERS": (int, 16, 1000),
    "LIGHT_RESPONSE_MAX_HEADER_BYTES": (int, 4 * 1024, 1024 * 1024),
    "LIGHT_RESPONSE_MAX_ENCODINGS": (int, 1, 4),
}


def invalid(key: str, message: str, value: Any = None) -> LightSearchError:
    return LightSearchError(
        "invalid_settings", f"setting {key}: {message}", {"key": key, "value": repr(value)[:80]}
    )


def validate_light_settings(settings: BaseSettings) -> None:
    for key, (kind, low, high) in LIMITS.items():
        raw = settings.get(key)
        try:
            value = settings.getint(key) if kind is int else settings.getfloat(key)
        except (TypeError, ValueError):
            raise invalid(key, f"must be a number, got {raw!r}", raw) from None
        if isinstance(raw, str) and kind is int and not raw.strip().lstrip("-").isdigit():
            raise invalid(key, f"must be an integer, got {raw!r}", raw)
        if not low <= value <= high:
            raise invalid(key, f"must be between {low} and {high}, got {value}", raw)
    if settings.getfloat("LIGHT_SOFT_DEADLINE_SECS") > settings.getfloat("LIGHT_DEADLINE_SECS"):
        raise invalid("LIGHT_SOFT_DEADLINE_SECS", "must not exceed LIGHT_DEADLINE_SECS",
                      settings.get("LIGHT_SOFT_DEADLINE_SECS"))
    for label in settings.getlist("LIGHT_ALLOWED_ENCODINGS"):
        if not resolve_encoding(label):
            raise invalid("LIGHT_ALLOWED_ENCODINGS", f"unknown encoding {label!r}", label)
    host_map = settings.get("LIGHT_HOST_MAP")
    if host_map is not None and not isinstance(host_map, (dict, BaseSettings, str)):
        raise invalid("LIGHT_HOST_MAP", "must be a mapping of host to scheme targets", host_map)
