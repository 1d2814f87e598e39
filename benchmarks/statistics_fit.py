"""How well the ranking's corpus statistics stand in for the collection's, and the choice of
their two constants (ranking/statistics.py: ``SAMPLE_WEIGHT``, ``PRIOR_STRENGTH``).

Runs Light's searches on a benchmark world (its sources described first, as ``scrapy
evaluate`` does), keeps every ranking's input (the pages ranked, the queries, what the
sources publish), and ranks each again: with the pages' own document frequencies (no
description), with the collection's true ones (the oracle's: every document of the
world), and with the blend at each pair of constants asked for. Prints nDCG@10 and MRR@10
of each against the world's judgements, so the reach is the same for all and only the
statistics differ.

    python benchmarks/statistics_fit.py --world cranfield --cold
    python benchmarks/statistics_fit.py --world cranfield --weights 0.1,0.25,0.5 --strengths 2,4,8
    python benchmarks/statistics_fit.py --world heq --max-queries 300
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import lightsearch.providers.light as light_provider
import lightsearch.ranking.rank as rank_module
from lightsearch.cache import clear_process_caches
from lightsearch.evaluation.harness import cut_query, doc_key, run_queries
from lightsearch.evaluation.metrics import mrr_at, ndcg_at
from lightsearch.offline_origins import worlds
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.plan.catalog import load_catalog
from lightsearch.providers.describe import describe_sources, write_summary
from lightsearch.providers.light import LightSearch
from lightsearch.ranking import statistics
from lightsearch.ranking.tokenize import tokenize
from lightsearch.surfaces.commands.evaluate import COLD


async def capture(world: worlds.World, opts: argparse.Namespace) -> list[dict[str, Any]]:
    """Run the world's searches; every ranking's input, with the query id it answered."""
    origins = OfflineOrigins(world.sites_dir, latency=opts.latency, jitter=opts.latency / 2).start()
    overrides = {**origins.settings(), "LIGHT_CATALOG": str(world.catalog_path), "LOG_LEVEL": "ERROR"}
    catalog = load_catalog(world.catalog_path)
    write_summary(world.catalog_path.with_suffix(".summary.json"), catalog, await describe_sources(catalog, overrides))
    clear_process_caches()
    inputs: list[dict[str, Any]] = []
    rank_documents = light_provider.rank_documents

    def keep(documents: Any, queries: Any, **kwargs: Any) -> Any:
        inputs.append({"documents": list(documents), "queries": list(queries), "terms": kwargs.get("terms"),
                       "background": kwargs.get("background")})
        return rank_documents(documents, queries, **kwargs)

    light_provider.rank_documents = keep
    try:
        provider = LightSearch.from_settings({**overrides, **(COLD if opts.cold else {})})
        queries = world.queries[: opts.max_queries] if opts.max_queries else world.queries
        await run_queries(provider, queries, world.qrels, concurrency=1 if opts.cold else 4)
    finally:
        light_provider.rank_documents = rank_documents
        origins.stop()
    by_query = {cut_query(q["query"])[0]: q["id"] for q in world.queries}
    for item in inputs:
        item["id"] = by_query.get(item["queries"][0])
    return [item for item in inputs if item["id"] is not None]


def score(world: worlds.World, inputs: list[dict[str, Any]]) -> tuple[float, float]:
    judged = {qid: {doc_key(u): g for u, g in docs.items()} for qid, docs in world.qrels.items()}
    ndcg = mrr = 0.0
    for item in inputs:
        ranked = rank_module.rank_documents(item["documents"], item["queries"], terms=item["terms"],
                                            background=item["background"])
        urls = [doc_key(r.document.url) for r in ranked[:10]]
        ndcg += ndcg_at(urls, judged.get(item["id"], {}), 10)
        mrr += mrr_at(urls, judged.get(item["id"], {}), 10)
    return ndcg / max(1, len(inputs)), mrr / max(1, len(inputs))


def line(label: str, figures: tuple[float, float]) -> str:
    return f"  {label:<36} nDCG@10 {figures[0]:.4f}  MRR@10 {figures[1]:.4f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=("cranfield", "heq"), default="cranfield")
    parser.add_argument("--shape", default="default")
    parser.add_argument("--cold", action="store_true", help="each search alone, no cache (default: a stream)")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--latency", type=float, default=0.02, help="simulated seconds a request")
    parser.add_argument("--weights", default="0.1,0.25,0.5,1.0", help="SAMPLE_WEIGHT values")
    parser.add_argument("--strengths", default="2,4,8", help="PRIOR_STRENGTH values")
    parser.add_argument("--data", default=None, help="the shared data folder")
    opts = parser.parse_args()
    build = worlds.build_cranfield_world if opts.world == "cranfield" else worlds.build_heq_world
    with tempfile.TemporaryDirectory(prefix="lightsearch-world-") as tmp:
        world = build(Path(tmp), Path(opts.data) if opts.data else None, shape=opts.shape)
        inputs = asyncio.run(capture(world, opts))
    print(f"{len(inputs)} searches of {opts.world} ({opts.shape}, {'cold' if opts.cold else 'stream'}) ranked again:")
    own = [{**item, "background": None} for item in inputs]
    print(line("the pages' own statistics", score(world, own)))
    df: Counter[str] = Counter()
    for doc in world.documents.values():
        df.update(set(tokenize(f"{doc['title']}\n{doc['text']}")))
    size = len(world.documents)
    blend = rank_module.collection_idf
    rank_module.collection_idf = lambda terms, *_: {t: statistics.lucene_idf(df[t], size) for t in set(terms)}
    try:
        print(line("the collection's (the oracle's)", score(world, inputs)))
    finally:
        rank_module.collection_idf = blend
    chosen = (statistics.SAMPLE_WEIGHT, statistics.PRIOR_STRENGTH)
    try:
        for weight in (float(w) for w in opts.weights.split(",")):
            for strength in (float(s) for s in opts.strengths.split(",")):
                statistics.SAMPLE_WEIGHT, statistics.PRIOR_STRENGTH = weight, strength
                mark = " (the constants)" if (weight, strength) == chosen else ""
                print(line(f"blend, weight {weight:g}, strength {strength:g}", score(world, inputs)) + mark)
    finally:
        statistics.SAMPLE_WEIGHT, statistics.PRIOR_STRENGTH = chosen
    return 0


if __name__ == "__main__":
    sys.exit(main())
