"""The Light targets at the seed's default bounds, measured in one go, as one table.

Runs (each a ``scrapy evaluate`` of its own, with the world's sources described first, as
an operator describes a catalog):

- Cranfield, each search alone (``--cold --concurrency 1``), with the oracle and the
  ``sitemaps12`` opt-in profile beside the default;
- Cranfield, a stream at concurrency 4, with the oracle and both opt-in profiles;
- HeQ, a stream at concurrency 4;
- the known-item benchmark on the offline origins.

and prints every target with its figure: relevance against the oracle, wall time,
throughput against the politeness bound, source selection on its own, and coverage
against judged relevance (per run: the AUC of the score against "a relevant document in
the top 3", and how often each level had one). Reach across site shapes is
benchmarks/shapes.py's. Reports land in benchmarks/out/targets-*/.

    python benchmarks/targets.py                       # everything (about 40 minutes here)
    python benchmarks/targets.py --max-queries 100     # the first 100 queries of each world
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
RUNS = {
    "cold": ["--world", "cranfield", "--cold", "--concurrency", "1", "--runs", "light,oracle",
             "--profiles", "sitemaps12"],
    "stream": ["--world", "cranfield", "--concurrency", "4", "--runs", "light,oracle",
               "--profiles", "sitemaps12,mapcache"],
    "heq": ["--world", "heq", "--concurrency", "4", "--runs", "light"],
}


def evaluate(name: str, args: list[str], extra: list[str]) -> dict:
    out = HERE / "out" / f"targets-{name}"
    subprocess.run([sys.executable, "-m", "scrapy", "evaluate", *args, *extra, "--out", str(out)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return json.loads((out / "report.json").read_text(encoding="utf-8"))


def known_item() -> str:
    proc = subprocess.run([sys.executable, str(HERE / "known_item.py")], capture_output=True, text=True, check=False)
    found = re.search(r"known-item top-3: (\d+/\d+)", proc.stdout + proc.stderr)
    return found.group(1) if found else "failed"


def level_share(report: dict, level: str) -> float | None:
    """How often the searches of that level held a relevant document in their top 3."""
    cov = report["summary"]["light"].get("coverage") or {}
    return (cov.get("levels", {}).get(level) or {}).get("top3Relevant")


def auc(report: dict) -> float | None:
    return (report["summary"]["light"].get("coverage") or {}).get("auc")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-queries", type=int, default=None)
    parser.add_argument("--data", default=None, help="the shared data folder")
    opts = parser.parse_args()
    extra = (["--max-queries", str(opts.max_queries)] if opts.max_queries else []) + \
        (["--data", opts.data] if opts.data else [])
    reports = {name: evaluate(name, args, extra) for name, args in RUNS.items()}
    cold, stream, heq = (reports[n]["summary"] for n in ("cold", "stream", "heq"))
    oracle = stream["oracle"]["ndcg10"]
    rows = [
        ("Cranfield cold, concurrency 1, nDCG@10 / oracle", ">= 0.82", cold["light"]["ndcg10"] / oracle, 0.82, True),
        ("  opt-in sitemaps12", "", cold["light+sitemaps12"]["ndcg10"] / oracle, None, True),
        ("Cranfield stream, concurrency 4, nDCG@10 / oracle", ">= 0.95", stream["light"]["ndcg10"] / oracle, 0.95, True),
        ("  opt-in sitemaps12 / mapcache", "",
         f"{stream['light+sitemaps12']['ndcg10'] / oracle:.3f} / {stream['light+mapcache']['ndcg10'] / oracle:.3f}",
         None, True),
        ("HeQ stream MRR@10", ">= 0.92", heq["light"]["mrr10"], 0.92, True),
        ("cold wall p50, one search alone (ms)", "< 2000", cold["light"]["wallMsP50"], 2000, False),
        ("cold wall p95, one search alone (ms)", "< 2500", cold["light"]["wallMsP95"], 2500, False),
        ("stream wall p50, concurrency 4 (ms)", "< 2000", stream["light"]["wallMsP50"], 2000, False),
        ("stream throughput / politeness bound", ">= 0.8", (stream["light"].get("throughput") or {}).get("ratio"),
         0.8, True),
        ("Cranfield cold: relevant documents in opened sources", "", cold["light"]["selection"]["recall"], None, True),
        ("Cranfield stream: relevant documents in opened sources", "", stream["light"]["selection"]["recall"],
         None, True),
        ("known-item top-3 (offline origins)", "50/50", known_item(), None, True),
    ]
    for name in RUNS:
        report = reports[name]
        rows += [
            (f"{name}: coverage AUC (relevant document in top 3)", ">= 0.75", auc(report), 0.75, True),
            (f"{name}: weak searches, relevant document in top 3", "<= 0.35",
             level_share(report, "weak"), 0.35, False),
            (f"{name}: strong searches, relevant document in top 3", ">= 0.85",
             level_share(report, "strong"), 0.85, True),
        ]
    print(f"{'measure':<58}{'target':>10}{'now':>16}  ok")
    for label, target, value, bound, higher in rows:
        text = (f"{value:.0f}" if value >= 10 else f"{value:.3f}") if isinstance(value, float) else str(value)
        ok = ""
        if bound is not None and isinstance(value, (int, float)):
            ok = "yes" if (value >= bound if higher else value <= bound) else "no"
        elif target == "50/50":
            ok = "yes" if value == "50/50" else "no"
        print(f"{label:<58}{target:>10}{text:>16}  {ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
