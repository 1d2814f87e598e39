"""Relevance and cost benchmark: Light, the full-index oracle and the naive baseline.

Builds each benchmark world from the shared test collections, serves it with simulated
latency (100 ms + up to 50 ms jitter per request), runs the three in one harness at
default budgets, and prints one table. Reports land in benchmarks/out/<world>/.

    python benchmarks/run_benchmark.py                 # both worlds
    python benchmarks/run_benchmark.py --world cranfield --max-queries 50
    python benchmarks/run_benchmark.py --cache cold    # no reuse between queries
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT_QUERIES = {"cranfield": None, "heq": 200}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--world", choices=("cranfield", "heq", "both"), default="both")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--cache", choices=("warm", "cold"), default="warm",
                        help="warm: the process-wide robots and record caches persist across "
                             "queries, as in a long-running server; cold: every query starts empty")
    args = parser.parse_args()
    worlds = ["cranfield", "heq"] if args.world == "both" else [args.world]
    rows = []
    for world in worlds:
        out = HERE / "out" / f"{world}-{args.cache}"
        cmd = [sys.executable, "-m", "scrapy", "evaluate", "--world", world, "--out", str(out),
               "--concurrency", str(args.concurrency), "--latency", str(args.latency)]
        if args.cache == "cold":
            cmd += ["-s", "LIGHT_RECORD_CACHE=", "-s", "LIGHT_ROBOTS_CACHE="]
        limit = args.max_queries or DEFAULT_QUERIES[world]
        if limit:
            cmd += ["--max-queries", str(limit)]
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        summary = json.loads((out / "report.json").read_text(encoding="utf-8"))["summary"]
        for run, s in summary.items():
            rows.append((world, run, s))
    head = f"{'world':<10}{'run':<10}{'nDCG@10':>8}{'MRR@10':>8}{'R@10':>7}{'p50 ms':>8}{'p95 ms':>8}{'CPU ms':>8}{'hops':>6}{'max':>5}{'KiB':>7}"
    print(head)
    for world, run, s in rows:
        print(f"{world:<10}{run:<10}{s['ndcg10']:>8.3f}{s['mrr10']:>8.3f}{s['recall10']:>7.3f}"
              f"{s['wallMsP50']:>8.0f}{s['wallMsP95']:>8.0f}{s['cpuMsMean']:>8.0f}{s['hopsMean']:>6.1f}"
              f"{s['hopsMax']:>5}{s['encodedBytesMean'] / 1024:>7.0f}")
    for world in worlds:
        by_run = {run: s for w, run, s in rows if w == world}
        oracle = by_run.get("oracle")
        if oracle:
            light = by_run["light"]
            print(f"{world}: Light/oracle nDCG@10 {light['ndcg10'] / oracle['ndcg10']:.3f}, "
                  f"MRR@10 {light['mrr10'] / oracle['mrr10']:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
