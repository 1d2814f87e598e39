"""A two-source world for the hygiene tests: a healthy source and the case under test.

The case host serves a home page linking to ``/a`` (an article matching QUERY); each
test overrides routes to put one fault or directive in place. The healthy host keeps
the search from failing as a whole, so every case returns a result whose
``meta.lightSearch`` counters can be asserted.
"""

from __future__ import annotations

import re
from typing import Any

from tests.conftest import article_html, home_html, make_world

QUERY = "glacier moraine sediment"
HEALTHY = "healthy.test"


def case_routes(**overrides: dict[str, Any]) -> dict[str, dict[str, Any]]:
    routes = {
        "/": {"body": home_html([("/a", "glacier moraine sediment survey")])},
        "/a": {"body": article_html("Glacier moraine sediment survey")},
    }
    routes.update(overrides)
    return routes


def world(origins, tmp_path, host: str, routes: dict[str, dict[str, Any]], *, language: str = "en",
          healthy: bool = True, extra_sites: dict[str, Any] | None = None, **settings: Any) -> dict[str, Any]:
    sites = {host: routes, **(extra_sites or {})}
    sources = [{"id": "case", "host": host, "language": language}]
    if healthy:
        sites[HEALTHY] = {
            "/": {"body": home_html([("/moraine", "glacier moraine sediment notes")])},
            "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")},
        }
        sources.append({"id": "healthy", "host": HEALTHY, "language": language})
    return make_world(origins, tmp_path, sites, sources, **settings)


def counts(result: dict[str, Any]) -> dict[str, int]:
    return result["meta"]["lightSearch"]["counts"]


def errors(result: dict[str, Any], source: str = "case") -> list[dict[str, Any]]:
    return [e for e in result["meta"]["lightSearch"]["sourceErrors"] if e["source"] == source]


def hit_urls(result: dict[str, Any]) -> list[str]:
    return [h["url"] for h in result["hits"]]


def paths(origins, host: str) -> list[str]:
    return [e["path"] for e in origins.requests_for(host)]


def slug(name: str) -> str:
    """A valid host label from a case name."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
