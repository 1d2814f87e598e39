"""Fused-mode latency: 50 mixed queries through ``WEB_SEARCH_PROVIDER=auto`` against the
engine replay with 100-300 ms of latency per engine request; p50/p95 wall and CPU per
query (target: p50 < 1.5 s, never over the deadline).

    LIGHTSEARCH_SHARED_DATA=../shared/data python benchmarks/engines.py [--queries 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from pathlib import Path

from lightsearch.offline_origins.engine_replay import EngineReplay
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider

TOPICS = ["rust ownership", "python asyncio tutorial", "latest election news", "iron oxide colour",
          "javascript package manager", "history of the printing press", "breaking news markets today",
          "docker compose networking error", "photosynthesis chlorophyll", "weather san francisco"]


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


async def run(n: int, deadline: float) -> dict[str, float]:
    data = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))
    replay = EngineReplay(data / "search-provider-responses").start()
    replay.set_latency(0.1, 0.3)
    try:
        engine = load_provider(merge_settings(replay.settings(), {
            "WEB_SEARCH_PROVIDER": "auto", "WEB_SEARCH_CACHE": None, "WEB_SEARCH_SUSPENSION": None,
            "WEB_SEARCH_DEADLINE_SECS": deadline}), environ={})
        walls, cpus, hits = [], [], []
        for i in range(n):
            query = f"{TOPICS[i % len(TOPICS)]} {i}"
            w0, c0 = time.perf_counter(), time.process_time()
            result = await engine.search(query)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            hits.append(len(result["hits"]))
    finally:
        replay.stop()
    return {"queries": n, "p50_wall_s": pct(walls, 50), "p95_wall_s": pct(walls, 95), "max_wall_s": max(walls),
            "p50_cpu_s": pct(cpus, 50), "p95_cpu_s": pct(cpus, 95), "mean_hits": statistics.mean(hits),
            "deadline_s": deadline}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--deadline", type=float, default=8.0)
    args = parser.parse_args()
    report = asyncio.run(run(args.queries, args.deadline))
    for key, value in report.items():
        print(f"{key:>12}: {value:.3f}" if isinstance(value, float) else f"{key:>12}: {value}")


if __name__ == "__main__":
    main()
