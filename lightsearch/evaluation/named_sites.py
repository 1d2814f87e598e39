"""Each query names its site: "search this site", with the site in the catalog or not.

An agent's narrow search names the site it wants (``includeDomains``). This benchmark
gives each query of a world the site that holds most of its judged documents (by graded
relevance; ties to the world's first site) and judges it against that site's documents
only: a search confined to one site cannot find the others, whichever way it runs. The
same queries then run two ways under the same bounds:

* ``light``: the site is in the catalog (the world's catalog and its prebuilt summary);
* ``adhoc``: the site is not (a catalog of the world without it, one per site), so Light
  probes it on the spot (plan/adhoc.py) through the world's origins, which the
  configuration allows for that (``LIGHT_ADHOC_MAPPED_HOSTS``).

Nothing of a dropped site is known to its ``adhoc`` searches but what they read
themselves: in stream mode, what earlier searches of the same process kept of it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lightsearch.plan.adhoc import source_id


def name_sites(queries: Sequence[Mapping[str, Any]], qrels: Mapping[str, Mapping[str, int]],
               hosts: Sequence[str]) -> tuple[list[dict[str, Any]], dict[str, dict[str, int]]]:
    """Each judged query with its site (``includeDomains``), and the judgements of its site's
    documents only; a query with no judged document on any site is left out."""
    named, judged = [], {}
    order = {host: i for i, host in enumerate(hosts)}
    for query in queries:
        docs = qrels.get(str(query["id"]), {})
        gain: dict[str, int] = {}
        for url, grade in docs.items():
            host = (urlsplit(url).hostname or "").lower()
            if host in order and grade > 0:
                gain[host] = gain.get(host, 0) + grade
        if not gain:
            continue
        site = min(gain, key=lambda h: (-gain[h], order[h]))
        named.append({**query, "includeDomains": [site]})
        judged[str(query["id"])] = {u: g for u, g in docs.items() if (urlsplit(u).hostname or "").lower() == site}
    return named, judged


def catalogs_without(catalog_path: Path, out_dir: Path) -> dict[str, Path]:
    """For each site of a world's catalog, a copy of the catalog without it (host -> file)."""
    data = json.loads(Path(catalog_path).read_text(encoding="utf-8"))
    out: dict[str, Path] = {}
    for source in data["sources"]:
        host = (urlsplit(source["origins"][0]).hostname or "").lower()
        rest = [s for s in data["sources"] if s is not source]
        path = Path(out_dir) / f"catalog-without-{source['id']}.json"
        path.write_text(json.dumps({**data, "sources": rest}, ensure_ascii=False), encoding="utf-8")
        out[host] = path
    return out


class SiteRouter:
    """One provider per named site, each over a catalog without that site: a query goes to
    the one its ``includeDomains`` names."""

    def __init__(self, providers: Mapping[str, Any]) -> None:
        self.providers = dict(providers)

    async def search(self, query: str, *, include_domains: Sequence[str], **kwargs: Any) -> dict[str, Any]:
        return await self.providers[include_domains[0]].search(query, include_domains=include_domains, **kwargs)


def site_of(url: str) -> str | None:
    """The source id a judged document's site has when it is probed on the spot."""
    host = (urlsplit(url).hostname or "").lower()
    return source_id(host) if host else None
