"""Reach across site shapes: each benchmark world laid out as sites of other sizes and
structures (``offline_origins/worlds.py``, ``SHAPES``), searched cold (one at a time, no
cache) and in a stream (four at a time, caches shared), against the oracle of that shape.

Prints, per world, shape and mode, Light's nDCG@10 and MRR@10, the oracle's, their ratio,
the coverage score's AUC against "a relevant document in the top 3" and the share of
each coverage level that had one; then each shape's cold ratio against the default
shape's. Reports land in benchmarks/out/shapes-<world>-<shape>-<mode>/.

    python benchmarks/shapes.py                                  # every world, shape and mode
    python benchmarks/shapes.py --worlds cranfield --shapes titles,large --modes cold
    python benchmarks/shapes.py --max-queries 100                # the first 100 queries of each
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHAPES = ("default", "small", "large", "titles", "shallow", "deep")
MODES = {"cold": ["--cold", "--concurrency", "1"], "stream": ["--concurrency", "4"]}


def evaluate(world: str, shape: str, mode: str, extra: list[str], reuse: bool) -> dict:
    out = HERE / "out" / f"shapes-{world}-{shape}-{mode}"
    report = out / "report.json"
    if not (reuse and report.is_file()):
        subprocess.run([sys.executable, "-m", "scrapy", "evaluate", "--world", world, "--shape", shape,
                        *MODES[mode], "--runs", "light,oracle", *extra, "--out", str(out)],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads(report.read_text(encoding="utf-8"))


def row(world: str, shape: str, mode: str, report: dict) -> dict:
    light, oracle = report["summary"]["light"], report["summary"]["oracle"]
    cov = light.get("coverage") or {}
    levels = cov.get("levels", {})
    return {"world": world, "shape": shape, "mode": mode, "queries": light["queries"],
            "ndcg": light["ndcg10"], "oracle": oracle["ndcg10"], "mrr": light["mrr10"],
            "ratio": light["ndcg10"] / oracle["ndcg10"] if oracle["ndcg10"] else None,
            "auc": cov.get("auc"), "base": cov.get("top3Relevant"),
            "weak": levels.get("weak", {}), "strong": levels.get("strong", {}),
            "p50": light["wallMsP50"], "hops": light["hopsMean"]}


def level(entry: dict) -> str:
    if not entry.get("searches"):
        return "-"
    return f"{entry['searches']} ({entry['top3Relevant']:.2f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", default="cranfield,heq")
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument("--modes", default="cold,stream")
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--data", default=None, help="the shared data folder")
    parser.add_argument("--reuse", action="store_true", help="print from the reports already in benchmarks/out")
    opts = parser.parse_args()
    extra = (["--max-queries", str(opts.max_queries)] if opts.max_queries else []) + \
        (["--data", opts.data] if opts.data else [])
    rows = []
    for world in opts.worlds.split(","):
        for shape in opts.shapes.split(","):
            for mode in opts.modes.split(","):
                rows.append(row(world, shape, mode, evaluate(world, shape, mode, extra, opts.reuse)))
    print(f"{'world':<10}{'shape':<9}{'mode':<7}{'n':>5}{'nDCG@10':>9}{'oracle':>8}{'ratio':>7}{'MRR@10':>8}"
          f"{'AUC':>7}{'base':>6}  {'weak (rel. top 3)':<18}{'strong (rel. top 3)':<20}{'p50 ms':>7}{'hops':>6}")
    for r in rows:
        auc = f"{r['auc']:.3f}" if r["auc"] is not None else "-"
        base = f"{r['base']:.2f}" if r["base"] is not None else "-"
        print(f"{r['world']:<10}{r['shape']:<9}{r['mode']:<7}{r['queries']:>5}{r['ndcg']:>9.3f}{r['oracle']:>8.3f}"
              f"{r['ratio']:>7.3f}{r['mrr']:>8.3f}{auc:>7}{base:>6}  {level(r['weak']):<18}{level(r['strong']):<20}"
              f"{r['p50']:>7.0f}{r['hops']:>6.1f}")
    for world in opts.worlds.split(","):
        for mode in opts.modes.split(","):
            base = next((r for r in rows if (r["world"], r["shape"], r["mode"]) == (world, "default", mode)), None)
            if base is None:
                continue
            gaps = [f"{r['shape']} {r['ratio'] - base['ratio']:+.3f}" for r in rows
                    if r["world"] == world and r["mode"] == mode and r["shape"] != "default"]
            print(f"{world} {mode}: ratio against the default shape's ({base['ratio']:.3f}): " + ", ".join(gaps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
