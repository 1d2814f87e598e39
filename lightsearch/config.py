"""The configuration layer: settings built once per configuration (:func:`make_settings`),
Light's settings validated on its first search, and the kill switch.

Bad Light settings fail that search with ``invalid_settings`` naming the key; they are
not checked at load time, so they can never disable Brave or web_fetch. Types and ranges
come from :mod:`lightsearch.schema`; this module adds the rules that relate two keys or
need a lookup.

:func:`check_retrieval` is the kill switch (``WEB_RETRIEVAL_ENABLED``,
``LIGHTSEARCH_NO_WEB``), read once per call at the call's door: the tool surfaces' door
(the toolbox) when a surface calls, else the provider's own door (:func:`check_door`),
and always by the crawl runner's guard below every surface.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.schema import BY_KEY, invalid, validate

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings, Settings


def make_settings(overrides: Mapping[str, Any] | Settings | None = None) -> Settings:
    """The settings of one configuration: the project defaults, ``overrides`` on top (at the
    command line's priority), and a fleet's shared state switched on by
    ``LIGHTSEARCH_REDIS_URL`` / ``FLEET_REDIS_URL``. Built once per configuration: a
    provider or a tool surface is handed the object, never rebuilds it."""
    # Scrapy is imported here, not with the module: a command's --help and the tool
    # definitions read this layer without starting a crawler.
    from scrapy.settings import Settings

    from lightsearch import settings as default_settings

    settings = Settings()
    settings.setmodule(default_settings, priority="project")
    if overrides:
        settings.update(dict(overrides), priority="cmdline")
    apply_fleet(settings)
    return settings


# ---------------------------------------------------------------------------- a fleet
URL_VARIABLE = "LIGHTSEARCH_REDIS_URL"

#: component setting -> the fleet class that replaces its in-process default
COMPONENTS = {
    "LIGHT_POLITENESS_LIMITER": "lightsearch.fleet.limiter.RedisLimiter",
    "LIGHT_RECORD_CACHE": "lightsearch.fleet.records.RedisRecordCache",
    "LIGHT_ROBOTS_CACHE": "lightsearch.fleet.robots.RedisRobotsCache",
    "WEB_SEARCH_SUSPENSION": "lightsearch.fleet.suspension.RedisSuspensions",
    "WEB_SEARCH_CACHE": "lightsearch.fleet.searches.RedisSearchCache",
}


def fleet_url(settings: BaseSettings, environ: Mapping[str, str] | None = None) -> str | None:
    """The Redis URL the fleet shares, from the setting or else the environment."""
    url = settings.get("FLEET_REDIS_URL")
    if not url:
        url = (os.environ if environ is None else environ).get(URL_VARIABLE, "").strip() or None
    return url


def apply_fleet(settings: BaseSettings, environ: Mapping[str, str] | None = None) -> None:
    """Switch ``settings`` to the fleet components when a Redis URL is configured.

    Only components still at their defaults are replaced: a deployment that names its own
    class for one of them keeps it. An empty value (a cache turned off) stays off.
    """
    url = fleet_url(settings, environ)
    if not url:
        return
    settings.set("FLEET_REDIS_URL", url, priority=settings.getpriority("FLEET_REDIS_URL") or "project")
    for key, path in COMPONENTS.items():
        if settings.get(key) == BY_KEY[key].default and (settings.getpriority(key) or 0) <= 20:
            settings.set(key, path, priority="project")


def validate_light_settings(settings: BaseSettings) -> None:
    validate(settings, ("LIGHT_", "RESULT_"))
    if settings.getfloat("LIGHT_SOFT_DEADLINE_SECS") > settings.getfloat("LIGHT_DEADLINE_SECS"):
        raise invalid("LIGHT_SOFT_DEADLINE_SECS", "must not exceed LIGHT_DEADLINE_SECS",
                      settings.get("LIGHT_SOFT_DEADLINE_SECS"))
    from scrapy.settings import BaseSettings
    from w3lib.encoding import resolve_encoding

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


# ---------------------------------------------------------------------------- the kill switch
#: The environment variables of the kill switch (read here, below every surface, so that
#: no path that reaches the web can miss them; the surfaces read them too, for their lists).
NO_WEB_VARIABLE = "LIGHTSEARCH_NO_WEB"
SWITCH_KEY = "WEB_RETRIEVAL_ENABLED"
_ON = {"1", "true", "yes", "on"}
_OFF = {"0", "false", "no", "off"}


def retrieval_switch(settings: BaseSettings | None, environ: Mapping[str, str] | None = None) -> str | None:
    """What turns web retrieval off, or None when it is on.

    Off wins: the setting ``WEB_RETRIEVAL_ENABLED`` (from ``-s``, a surface or the
    caller's overrides), the process environment's ``WEB_RETRIEVAL_ENABLED=false`` and
    ``LIGHTSEARCH_NO_WEB=1``, and ``environ`` (a caller's stand-in for the environment)
    each turn it off on their own. A value the switch cannot read turns it off too: a
    kill switch fails closed.
    """
    # The environment is asked first: a surface turns LIGHTSEARCH_NO_WEB=1 into the setting
    # too, and the message must name what the person set.
    for env in (os.environ, environ or {}):
        no_web = str(env.get(NO_WEB_VARIABLE) or "").strip().lower()
        if no_web and no_web not in _OFF:
            return f"{NO_WEB_VARIABLE}=1"
        switch = str(env.get(SWITCH_KEY) or "").strip().lower()
        if switch and switch not in _ON:
            return f"{SWITCH_KEY}=false"
    if settings is not None:
        raw = settings.get(SWITCH_KEY, True)
        on = raw.strip().lower() in _ON if isinstance(raw, str) else raw is not None and bool(raw)
        if not on:
            return SWITCH_KEY
    return None


def check_retrieval(settings: BaseSettings | None, environ: Mapping[str, str] | None = None) -> None:
    """Raise the structured ``disabled`` error when the kill switch is off."""
    switch = retrieval_switch(settings, environ)
    if switch is not None:
        raise LightSearchError("disabled", f"web retrieval is disabled by configuration ({switch})",
                               {"switch": switch.split("=")[0]})


#: True within a call whose door has read the kill switch (:func:`read_at_door`).
_READ_AT_DOOR: ContextVar[bool] = ContextVar("lightsearch_switch_read_at_door", default=False)


@contextmanager
def read_at_door() -> Iterator[None]:
    """What runs within is a call whose door has just read the kill switch
    (:func:`check_retrieval`): the provider doors it passes on its way (:func:`check_door`)
    do not read it again. The tasks it starts inherit this; the crawl runner's guard reads
    the switch whatever this says."""
    token = _READ_AT_DOOR.set(True)
    try:
        yield
    finally:
        _READ_AT_DOOR.reset(token)


def check_door(settings: BaseSettings | None, environ: Mapping[str, str] | None = None) -> None:
    """A provider's door (where it is built, where a search or fetch starts): the kill
    switch, unless the call's door above it read it already."""
    if not _READ_AT_DOOR.get():
        check_retrieval(settings, environ)
