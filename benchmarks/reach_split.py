"""What a search loses against the oracle, split into reach and ranking, per query.

Runs ``scrapy evaluate`` (Light and the oracle) in this process and records, for every
Light search, the pages it ranked (the ones it read and the cached records that joined
them). Per query it then compares three nDCG@10:

- ``oracle``: BM25 over the whole collection (the oracle run);
- ``pooled``: the oracle's ranking kept to the pages the search ranked, that is the best
  the search could show with the oracle's ranking of what it had;
- ``light``: what the search showed.

``oracle - pooled`` is lost to reach (relevant pages never read), ``pooled - light`` to
ranking (pages read but ranked below others). Prints the totals, the queries losing the
most, and writes ``split.json`` beside the report, with each search's pool size and the
sitemaps it read (``sitemapsRead``) and, for the pages it read, which kind of discovery
document named each first (``readBy``: feed, sitemap, page; ``deferred`` for an entry
sharing no query term, read last) and how many of them are relevant (``relevantReadBy``);
``relevantMissedBy`` counts the relevant pages admitted as candidates and never read. ``--set NAME=VALUE`` runs Light with a setting
changed (``scrapy evaluate -s``), to measure a departure the same way.

    python benchmarks/reach_split.py --world cranfield --max-queries 100            # stream
    python benchmarks/reach_split.py --world cranfield --max-queries 100 --cold --concurrency 1
    python benchmarks/reach_split.py --world cranfield --shape large --cold --concurrency 1
    python benchmarks/reach_split.py --world cranfield --set LIGHT_MAX_PAGE_HOPS=10 --tag=-p10
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", default="cranfield")
    parser.add_argument("--shape", default="default")
    parser.add_argument("--max-queries", type=int, default=100)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--cold", action="store_true")
    parser.add_argument("--worst", type=int, default=15, help="queries to list, most lost first")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting for Light's runs (scrapy's -s), to measure a departure")
    parser.add_argument("--tag", default="", help="a suffix of the output folder's name")
    opts = parser.parse_args()

    from lightsearch.evaluation import harness, oracle
    from lightsearch.evaluation.harness import doc_key
    from lightsearch.evaluation.metrics import ndcg_at
    from lightsearch.providers import query_controller

    pools: dict[str, set[str]] = {}
    read: dict[str, list[str]] = {}
    captured: dict[str, Any] = {}
    rank = query_controller.QueryController.rank

    async def recording_rank(self: Any, crawled: Any) -> Any:
        pools[self.request.query] = {doc_key(d.url) for d in (*crawled.fetched, *crawled.cached)}
        fetched[self.request.query] = {doc_key(d.url) for d in crawled.fetched}
        return await rank(self, crawled)

    query_controller.QueryController.rank = recording_rank
    from lightsearch.spiders.discovery import DiscoverySpider

    parse_sitemap = DiscoverySpider.parse_sitemap

    async def recording_parse_sitemap(self: Any, response: Any) -> Any:
        read.setdefault(self.plan.queries[0], []).append(response.url)
        return await parse_sitemap(self, response)

    DiscoverySpider.parse_sitemap = recording_parse_sitemap
    # url key -> the kind of document that first named the candidate, per query
    named: dict[str, dict[str, str]] = {}
    fetched: dict[str, set[str]] = {}

    def naming(kind: str, parse: Any) -> Any:
        async def wrapped(self: Any, response: Any, parsed_doc: Any) -> Any:
            seen = named.setdefault(self.plan.queries[0], {})
            async for out in parse(self, response, parsed_doc):
                if getattr(out, "meta", {}).get("candidate"):
                    seen.setdefault(doc_key(out.url), kind)
                yield out
        return wrapped

    DiscoverySpider._parse_feed = naming("feed", DiscoverySpider._parse_feed)
    DiscoverySpider._parse_sitemap = naming("sitemap", DiscoverySpider._parse_sitemap)
    DiscoverySpider._parse_page = naming("page", DiscoverySpider._parse_page)
    init = oracle.OracleProvider.__init__

    def keeping_init(self: Any, documents: Any) -> None:
        init(self, documents)
        captured["oracle"] = self

    oracle.OracleProvider.__init__ = keeping_init
    run_queries = harness.run_queries

    async def keeping_run(provider: Any, queries: Any, qrels: Any, **kw: Any) -> Any:
        captured["queries"], captured["qrels"] = queries, qrels
        runs, cpu = await run_queries(provider, queries, qrels, **kw)
        captured.setdefault("runs", {}).setdefault(getattr(provider, "provider", "light"), runs)
        return runs, cpu

    harness.run_queries = keeping_run

    mode = "cold" if opts.cold else "stream"
    out = HERE / "out" / f"split-{opts.world}-{opts.shape}-{mode}{opts.tag}"
    argv = ["scrapy", "evaluate", "--world", opts.world, "--shape", opts.shape, "--runs", "light,oracle",
            "--concurrency", str(opts.concurrency), "--max-queries", str(opts.max_queries), "--out", str(out),
            *(["--cold"] if opts.cold else []), *(arg for kv in opts.set for arg in ("-s", kv))]
    from scrapy.cmdline import execute

    try:
        execute(argv)
    except SystemExit as exc:
        if exc.code:
            return int(exc.code)
    light_runs = {r.id: r for r in captured["runs"]["light"]}
    oracle_model = captured["oracle"]
    keys = [doc_key(u) for u in oracle_model.urls]
    rows = []
    for item in captured["queries"]:
        qid = str(item["id"])
        judged = {doc_key(d): g for d, g in captured["qrels"].get(qid, {}).items()}
        run = light_runs.get(qid)
        if not judged or run is None:
            continue
        query = run.query
        terms = oracle.tokenize(query)
        scores = oracle_model.model.get_scores(terms) if terms else []
        order = sorted((i for i, s in enumerate(scores) if s > 0), key=lambda i: -scores[i])
        full = [keys[i] for i in order[:10]]
        pool = pools.get(query, set())
        pooled = [keys[i] for i in order if keys[i] in pool][:10]
        relevant = {d for d, g in judged.items() if g > 0}
        kinds = named.get(query, {})
        read_by: dict[str, int] = {}
        relevant_read_by: dict[str, int] = {}
        for key in fetched.get(query, set()):
            kind = kinds.get(key, "deferred")
            read_by[kind] = read_by.get(kind, 0) + 1
            if key in relevant:
                relevant_read_by[kind] = relevant_read_by.get(kind, 0) + 1
        missed_by: dict[str, int] = {}
        for key in relevant - pool:
            if key in kinds:
                missed_by[kinds[key]] = missed_by.get(kinds[key], 0) + 1
        rows.append({"id": qid, "query": query[:70], "oracle": ndcg_at(full, judged), "pooled": ndcg_at(pooled, judged),
                     "light": run.ndcg10, "pool": len(pool), "relevantInPool": len(relevant & pool),
                     "relevantInOracleTop10": len(relevant & set(full)),
                     "oracleTop10InPool": len(relevant & set(full) & pool),
                     "sitemapsRead": read.get(query, []), "readBy": read_by,
                     "relevantReadBy": relevant_read_by, "relevantMissedBy": missed_by})
    n = max(1, len(rows))
    mean = {k: sum(r[k] for r in rows) / n for k in ("oracle", "pooled", "light")}
    print(f"\n{opts.world} {opts.shape} {mode}, {len(rows)} queries")
    print(f"nDCG@10: oracle {mean['oracle']:.4f}  pooled {mean['pooled']:.4f}  light {mean['light']:.4f}")
    print(f"lost to reach (oracle - pooled) {mean['oracle'] - mean['pooled']:+.4f}; "
          f"to ranking (pooled - light) {mean['pooled'] - mean['light']:+.4f}")
    print(f"relevant in the oracle's top 10: {sum(r['relevantInOracleTop10'] for r in rows) / n:.2f} a query, "
          f"of them ranked by the search: {sum(r['oracleTop10InPool'] for r in rows) / n:.2f}; "
          f"pool {sum(r['pool'] for r in rows) / n:.0f} pages")
    for field in ("readBy", "relevantReadBy", "relevantMissedBy"):
        totals: dict[str, int] = {}
        for r in rows:
            for kind, count in r[field].items():
                totals[kind] = totals.get(kind, 0) + count
        print(f"{field} (a query): " + ", ".join(f"{k} {v / n:.2f}" for k, v in sorted(totals.items())))
    reach_q = sum(1 for r in rows if r["oracle"] - r["pooled"] > 0.05)
    rank_q = sum(1 for r in rows if r["pooled"] - r["light"] > 0.05)
    print(f"queries losing > 0.05 to reach: {reach_q}; to ranking: {rank_q}")
    for r in sorted(rows, key=lambda r: r["light"] - r["oracle"])[: opts.worst]:
        print(f"  {r['id']:>4} oracle {r['oracle']:.3f} pooled {r['pooled']:.3f} light {r['light']:.3f} "
              f"pool {r['pool']:4d} rel-in-pool {r['relevantInPool']}  {r['query']}")
    (out / "split.json").write_text(json.dumps({"mean": mean, "rows": rows}, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
