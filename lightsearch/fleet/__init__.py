"""A fleet of workers sharing state on Redis (DESIGN.md's seams for scale, issue 19).

Every shared thing of one process (the politeness limiter, the completed-record and
discovery cache, robots rules, engine suspensions, the search TTL cache) sits behind a
setting naming its class. ``FLEET_REDIS_URL`` (or the ``LIGHTSEARCH_REDIS_URL``
environment variable) swaps in the classes of this package, which keep the same
interfaces and the same bounds, fleet-wide. When Redis does not answer within
``FLEET_REDIS_TIMEOUT_MS`` a worker uses its own in-process components, says so, and
asks Redis again after ``FLEET_REDIS_RETRY_SECS``: no search fails because of Redis.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

URL_VARIABLE = "LIGHTSEARCH_REDIS_URL"

#: component setting -> the fleet class that replaces its in-process default
COMPONENTS = {
    "LIGHT_POLITENESS_LIMITER": "lightsearch.fleet.limiter.RedisLimiter",
    "LIGHT_RECORD_CACHE": "lightsearch.fleet.records.RedisRecordCache",
    "LIGHT_ROBOTS_CACHE": "lightsearch.fleet.robots.RedisRobotsCache",
    "WEB_SEARCH_SUSPENSION": "lightsearch.fleet.suspension.RedisSuspensions",
    "WEB_SEARCH_CACHE": "lightsearch.fleet.searches.RedisSearchCache",
}


def fleet_url(settings: BaseSettings, environ: dict[str, str] | None = None) -> str | None:
    """The Redis URL the fleet shares, from the setting or else the environment."""
    url = settings.get("FLEET_REDIS_URL")
    if not url:
        url = (os.environ if environ is None else environ).get(URL_VARIABLE, "").strip() or None
    return url


def apply_fleet(settings: BaseSettings, environ: dict[str, str] | None = None) -> None:
    """Switch ``settings`` to the fleet components when a Redis URL is configured.

    Only components still at their defaults are replaced: a deployment that names its own
    class for one of them keeps it. An empty value (a cache turned off) stays off.
    """
    url = fleet_url(settings, environ)
    if not url:
        return
    settings.set("FLEET_REDIS_URL", url, priority=settings.getpriority("FLEET_REDIS_URL") or "project")
    from lightsearch.schema import BY_KEY

    for key, path in COMPONENTS.items():
        if settings.get(key) == BY_KEY[key].default and (settings.getpriority(key) or 0) <= 20:
            settings.set(key, path, priority="project")
