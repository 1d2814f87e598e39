"""Validate Light settings, once, on the first search.

Bad Light settings fail that search with ``invalid_settings`` naming the key; they are
not checked at load time, so they can never disable Brave or web_fetch. Types and ranges
come from :mod:`lightsearch.schema`; this module adds the rules that relate two keys or
need a lookup.
"""

from __future__ import annotations

from scrapy.settings import BaseSettings
from w3lib.encoding import resolve_encoding

from lightsearch.errors import quote_untrusted
from lightsearch.schema import invalid, validate


def validate_light_settings(settings: BaseSettings) -> None:
    validate(settings, ("LIGHT_", "RESULT_"))
    if settings.getfloat("LIGHT_SOFT_DEADLINE_SECS") > settings.getfloat("LIGHT_DEADLINE_SECS"):
        raise invalid("LIGHT_SOFT_DEADLINE_SECS", "must not exceed LIGHT_DEADLINE_SECS",
                      settings.get("LIGHT_SOFT_DEADLINE_SECS"))
    for label in settings.getlist("LIGHT_ALLOWED_ENCODINGS"):
        if not resolve_encoding(label):
            raise invalid("LIGHT_ALLOWED_ENCODINGS", f"unknown encoding {quote_untrusted(label)}", label)
    host_map = settings.get("LIGHT_HOST_MAP")
    if host_map is not None and not isinstance(host_map, (dict, BaseSettings, str)):
        raise invalid("LIGHT_HOST_MAP", "must be a mapping of host to scheme targets", host_map)
    records, size = (settings.getint("LIGHT_DISCOVERY_CACHE_MAX_RECORDS"),
                     settings.getint("LIGHT_DISCOVERY_CACHE_MAX_BYTES"))
    if (records > 0) != (size > 0):
        # the opt-in cache of their own needs both bounds; one alone would silently not apply
        key = "LIGHT_DISCOVERY_CACHE_MAX_BYTES" if records > 0 else "LIGHT_DISCOVERY_CACHE_MAX_RECORDS"
        raise invalid(key, "must be set with LIGHT_DISCOVERY_CACHE_MAX_RECORDS/_BYTES (both above 0, or both 0)",
                      settings.get(key))
