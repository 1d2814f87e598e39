"""One crawl or two? A site outside the catalog searched on the spot, two ways.

- ``one crawl`` (what Light does): the site is a source of the search itself; robots.txt,
  its home page, the feed it declares and the sitemaps robots.txt lists are the search's
  first reads, inside its 24 hops and 4 sitemaps (plan/adhoc.py).
- ``two crawls`` (the design it was weighed against): probe the site first as
  ``lightsearch sources add`` does (spiders/describe.py, up to 12 discovery documents),
  then search it as a catalog source with what the probe described, the probe's hops
  handed over (24 in all), the process caches kept between the two so nothing the probe
  read is fetched twice.

Each query alone and cold (empty caches), on the named-site queries of a world
(evaluation/named_sites.py: the site holding most of the query's judged documents), with
the world's simulated latency. Prints nDCG@10, MRR@10, p50 wall time, hops and sitemaps
read for each.

    python benchmarks/adhoc_two_crawls.py --world cranfield --max-queries 40
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lightsearch.cache import clear_process_caches
from lightsearch.cache.descriptions import SourceDescriptions, encode_summary
from lightsearch.config import make_settings
from lightsearch.crawl.budget import HOPS, HOPS_BY_STAGE
from lightsearch.crawl.run import CrawlDeadline, run_crawl
from lightsearch.evaluation.harness import cut_query, doc_key
from lightsearch.evaluation.metrics import mrr_at, ndcg_at
from lightsearch.evaluation.named_sites import catalogs_without, name_sites
from lightsearch.offline_origins import worlds
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.plan.catalog import Source
from lightsearch.plan.frontier import CrawlFrontier
from lightsearch.providers.describe import PROBE_DOCUMENTS
from lightsearch.providers.light import LightSearch
from lightsearch.spiders.describe import DescribeSpider

BUDGET = 24


def sitemaps_read(stats: dict[str, Any]) -> int:
    return sum(int(v) for k, v in stats.items() if k.startswith(HOPS_BY_STAGE) and "sitemap" in k)


async def one_crawl(settings: dict[str, Any], catalog: Path, query: str, host: str) -> tuple[dict, int, int]:
    light = LightSearch.from_settings({**settings, "LIGHT_CATALOG": str(catalog)})
    result = await light.search(query, include_domains=[host], max_results=10)
    counts = result["meta"]["lightSearch"]["counts"]
    stages = result["meta"]["lightSearch"]["hops"]["byStage"]
    return result, counts["requests"], sum(v for k, v in stages.items() if "sitemap" in k)


async def two_crawls(settings: dict[str, Any], tmp: Path, query: str, host: str) -> tuple[dict, int, int]:
    sid = "probe-" + re.sub(r"[^a-z0-9-]+", "-", host)[:30]
    seed = f"https://{host}/"
    source = Source(id=sid, name=host, language="en", kind="reference", origins=(f"https://{host}",), seeds=(seed,))
    probe_settings = make_settings({**settings, "LIGHT_MAX_HOPS": BUDGET})
    try:
        outcome = await run_crawl(probe_settings, DescribeSpider, 30.0, frontier=CrawlFrontier([source]),
                                  source=source, max_documents=PROBE_DOCUMENTS)
    except CrawlDeadline as exc:
        outcome = exc.outcome
    probe_hops = outcome.stat(HOPS)
    described = SourceDescriptions()
    feeds, sitemaps, language = [], [], "en"
    for item in outcome.items:
        doc = item["description"]
        described.put(sid, doc)
        if doc.kind == "feed" and item.get("via") != "catalog":
            feeds.append(doc.url)
        elif doc.kind in ("sitemap", "index") and item.get("via") == "robots.txt":
            sitemaps.append(doc.url)
        if "page" in item and item["page"].get("language") in ("en", "he"):
            language = item["page"]["language"]
    entry = {"id": sid, "name": host, "language": language, "kind": "reference", "origins": [f"https://{host}"],
             "seeds": [seed], "feeds": feeds, "sitemaps": sitemaps}
    catalog_path = tmp / f"{sid}.json"
    catalog_path.write_text(json.dumps({"id": "probed", "version": "1", "sources": [entry]}), encoding="utf-8")
    summary = tmp / f"{sid}.summary.json"
    summary.write_text(encode_summary(described, catalog={"id": "probed", "version": "1"},
                                      origins={sid: (f"https://{host}",)}), encoding="utf-8")
    light = LightSearch.from_settings({**settings, "LIGHT_CATALOG": str(catalog_path),
                                       "LIGHT_SOURCE_SUMMARY": str(summary),
                                       "LIGHT_MAX_HOPS": max(1, BUDGET - probe_hops)})
    result = await light.search(query, include_domains=[host], max_results=10)
    stages = result["meta"]["lightSearch"]["hops"]["byStage"]
    return (result, probe_hops + result["meta"]["lightSearch"]["counts"]["requests"],
            sitemaps_read(outcome.stats) + sum(v for k, v in stages.items() if "sitemap" in k))


async def main(opts: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory(prefix="lightsearch-two-crawls-") as tmp_dir:
        tmp = Path(tmp_dir)
        build = worlds.build_cranfield_world if opts.world == "cranfield" else worlds.build_heq_world
        world = build(tmp / "world", Path(opts.data) if opts.data else None)
        queries, qrels = name_sites(world.queries, world.qrels, world.hosts)
        queries = queries[: opts.max_queries]
        without = catalogs_without(world.catalog_path, tmp)
        rows: dict[str, list[tuple[float, float, float, int, int]]] = {"one crawl": [], "two crawls": []}
        with OfflineOrigins(world.sites_dir, latency=opts.latency, jitter=opts.jitter) as origins:
            settings = {**origins.settings(), "LOG_LEVEL": "ERROR", "LIGHT_ADHOC_MAPPED_HOSTS": list(world.hosts)}
            for n, item in enumerate(queries, 1):
                query, _ = cut_query(item["query"])
                host = item["includeDomains"][0]
                judged = {doc_key(u): g for u, g in qrels[str(item["id"])].items()}
                for name in rows if n % 2 else reversed(list(rows)):  # alternate which goes first
                    clear_process_caches()
                    started = time.monotonic()
                    if name == "one crawl":
                        result, hops, maps = await one_crawl(settings, without[host], query, host)
                    else:
                        result, hops, maps = await two_crawls(settings, tmp, query, host)
                    wall = time.monotonic() - started
                    ranked = [doc_key(h["url"]) for h in result["hits"]]
                    rows[name].append((ndcg_at(ranked, judged, 10), mrr_at(ranked, judged, 10), wall, hops, maps))
                print(f"\r{n}/{len(queries)}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    print(f"{opts.world}, {len(queries)} named-site queries, cold, one at a time, "
          f"{opts.latency:g} s + up to {opts.jitter:g} s a request")
    print(f"{'design':<12} {'nDCG@10':>8} {'MRR@10':>7} {'p50 ms':>7} {'hops mean':>9} {'hops max':>8} "
          f"{'sitemaps mean':>13} {'sitemaps max':>12}")
    for name, values in rows.items():
        ndcg, mrr, wall, hops, maps = zip(*values, strict=True)
        print(f"{name:<12} {statistics.mean(ndcg):8.3f} {statistics.mean(mrr):7.3f} "
              f"{statistics.median(wall) * 1000:7.0f} {statistics.mean(hops):9.1f} {max(hops):8d} "
              f"{statistics.mean(maps):13.1f} {max(maps):12d}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--world", choices=("cranfield", "heq"), default="cranfield")
    parser.add_argument("--data", help="shared data folder (default: $LIGHTSEARCH_SHARED_DATA or ../shared/data)")
    parser.add_argument("--max-queries", type=int, default=40)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--jitter", type=float, default=0.05)
    asyncio.run(main(parser.parse_args()))
