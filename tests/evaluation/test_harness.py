"""The evaluation harness itself: a few queries of a real world, end to end."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.evaluation.harness import Progress
from lightsearch.evaluation.metrics import mrr_at, ndcg_at, percentile, recall_at
from lightsearch.evaluation.qrels import read_qrels, read_queries
from tests.conftest import coroutine_test, shared_data


def test_metrics_on_a_hand_computed_case():
    judged = {"a": 3, "b": 1, "c": 2}
    ranked = ["x", "a", "c"]
    # DCG = 3/log2(3) + 2/log2(4); IDCG = 3 + 2/log2(3) + 1/log2(4)
    assert ndcg_at(ranked, judged) == pytest.approx((3 / 1.5849625 + 1.0) / (3 + 2 / 1.5849625 + 0.5), 1e-6)
    assert recall_at(ranked, judged) == pytest.approx(2 / 3)
    assert mrr_at(ranked, judged) == 0.5
    assert ndcg_at([], {}) == 0.0
    assert percentile([5, 1, 3, 2, 4], 50) == 3
    assert percentile([1, 2, 3, 4, 100], 95) == 100


def test_query_and_qrels_files(tmp_path):
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": 1, "query": "wing flutter"}\n\n{"id": "2", "query": "boundary layer", "recency": "year"}\n')
    r = tmp_path / "q.trec"
    r.write_text("1 0 https://a/x 2\n2 https://a/y 1\n")
    assert [x["id"] for x in read_queries(q)] == ["1", "2"]
    assert read_qrels(r) == {"1": {"https://a/x": 2}, "2": {"https://a/y": 1}}
    q.write_text("not json\n")
    with pytest.raises(LightSearchError, match="not JSON"):
        read_queries(q)


def test_scrapy_evaluate_on_the_hebrew_world(tmp_path):
    shared_data("hebrew-qa", "heq-retrieval")
    out = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "scrapy", "evaluate", "--world", "heq", "--max-queries", "3",
         "--latency", "0.01", "--jitter", "0", "--concurrency", "3", "--profiles", "mapcache", "--out", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=240, check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "light/oracle: nDCG@10" in proc.stdout
    assert "described 2 sources from" in proc.stdout  # the world's summary, built first
    assert "3/3" in proc.stderr  # the progress bar
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert set(report["summary"]) == {"light", "oracle", "baseline", "light+mapcache"}
    light = report["summary"]["light"]
    # selection on its own, coverage against judged relevance, throughput against the bound
    assert light["selection"]["queries"] == 3
    assert 0 <= light["selection"]["recall"] <= 1
    assert sum(v["searches"] for v in light["coverage"]["levels"].values()) == 3
    assert light["throughput"]["transfers"] == 2  # two origins, one request each at a time
    assert light["throughput"]["ratio"] > 0
    assert "light source selection: relevant documents in opened sources" in proc.stdout
    assert "light coverage (searches, share with a relevant document in the top 3)" in proc.stdout
    assert "light+mapcache throughput" in proc.stdout
    assert report["summary"]["oracle"]["mrr10"] > 0.5
    for run in ("light", "baseline"):
        summary = report["summary"][run]
        assert summary["hopsMax"] <= 24
        assert len(report["queries"][run]) == 3
        assert summary["cpuMsP50"] is not None
        assert summary["cpuMsP50"] > 0
        stages = summary["hopsByStageMean"]
        assert stages["robots"] > 0
        assert "home" in stages
        # every hop is counted under exactly one stage
        assert abs(sum(stages.values()) - summary["hopsMean"]) < 0.05
        for q in report["queries"][run]:
            assert q["relevant_read"] <= q["documents_read"]
    assert "hops by stage" in proc.stdout
    assert report["meta"]["mode"] == "stream"
    assert report["meta"]["described"]["documents"] > 2
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("data:image/png;base64,") >= 3


def test_over_long_queries_are_cut_to_the_request_bounds():
    from lightsearch.evaluation.harness import cut_query

    text, cut = cut_query(" ".join(f"w{i}" for i in range(80)))
    assert cut
    assert len(text.split()) == 50
    text, cut = cut_query("x" * 30 + " " + "y" * 500, max_chars=400)
    assert cut
    assert text == "x" * 30
    assert cut_query("  short   query ") == ("short query", False)


def test_cpu_shares_add_up_to_the_process_clock():
    import time

    from lightsearch.evaluation.harness import CpuShare

    share = CpuShare()
    start = time.process_time()
    share.start(1)
    share.start(2)
    sum(i * i for i in range(200_000))
    a = share.end(1)
    sum(i * i for i in range(200_000))
    b = share.end(2)
    assert b > a > 0
    assert abs((a + b) - (time.process_time() - start)) < 0.01


def test_cold_mode_shares_no_cache_between_searches(tmp_path, scrapy):
    shared_data("hebrew-qa", "heq-retrieval")
    out = tmp_path / "report"
    proc = scrapy("--world", "heq", "--max-queries", "3", "--cold", "--shape", "small", "--runs", "light",
                  "--latency", "0", "--jitter", "0", "--concurrency", "1", "--out", str(out),
                  cwd=tmp_path, name="evaluate")
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["meta"]["mode"] == "cold"
    assert report["meta"]["shape"] == "small"  # HeQ's paragraphs as sites of 100 at most
    runs = report["queries"]["light"]
    # robots.txt is read again by every search: nothing was kept from the one before
    assert all(q["hops_by_stage"].get("robots", 0) > 0 for q in runs)


class _Stream(io.StringIO):
    def __init__(self, terminal: bool) -> None:
        super().__init__()
        self.terminal = terminal

    def isatty(self) -> bool:
        return self.terminal


def test_progress_redraws_a_terminal_and_writes_lines_elsewhere():
    piped, terminal = _Stream(False), _Stream(True)
    for stream in (piped, terminal):
        bar = Progress(25, "light", stream)
        for _ in range(25):
            bar.step()
    lines = piped.getvalue().splitlines()
    assert "\r" not in piped.getvalue()  # a file or a pipe never gets a carriage return
    assert len(lines) == 10
    assert lines[-1].startswith("light      [")
    assert " 25/25 " in lines[-1]
    assert terminal.getvalue().count("\r") == 25
    assert terminal.getvalue().endswith("\n")


def test_coverage_is_reported_against_judged_relevance_with_its_auc_and_reliability():
    from lightsearch.evaluation.harness import QueryRun, auc, calibration

    assert auc([0.9, 0.8, 0.2, 0.1], [True, True, False, False]) == 1.0
    assert auc([0.1, 0.2, 0.8, 0.9], [True, True, False, False]) == 0.0
    assert auc([0.5, 0.5], [True, False]) == 0.5  # a tie counts half
    assert auc([0.5, 0.7], [True, True]) is None
    runs = [QueryRun(id=str(i), query="q", coverage_level=level, coverage_score=score, relevant_top3=hit,
                     relevant_top10=hit)
            for i, (level, score, hit) in enumerate([("weak", 0.1, False), ("weak", 0.3, True), ("partial", 0.5, False),
                                                     ("strong", 0.9, True), ("strong", 1.0, True)])]
    cov = calibration(runs)
    assert cov["auc"] == round(auc([r.coverage_score for r in runs], [r.relevant_top3 for r in runs]), 4)
    assert cov["top3Relevant"] == 0.6
    assert cov["levels"]["weak"] == {"searches": 2, "top3Relevant": 0.5}
    table = {(b["from"], b["to"]): b for b in cov["reliability"]}
    assert table[(0.8, 1.0)] == {"from": 0.8, "to": 1.0, "searches": 2, "meanScore": 0.95, "top3Relevant": 1.0}
    assert table[(0.4, 0.6)]["searches"] == 1
    assert table[(0.6, 0.8)]["searches"] == 0
    assert sum(b["searches"] for b in cov["reliability"]) == len(runs)


def test_each_query_names_the_site_holding_most_of_its_judged_documents():
    from lightsearch.evaluation.named_sites import name_sites

    queries = [{"id": "1", "query": "a"}, {"id": "2", "query": "b"}, {"id": "3", "query": "c"}]
    qrels = {"1": {"https://x.test/1": 1, "https://y.test/1": 1, "https://y.test/2": 1},
             "2": {"https://x.test/3": 2, "https://y.test/3": 2},  # a tie: the world's first site
             "3": {"https://elsewhere.test/9": 4}}  # on no site of the world: left out
    named, judged = name_sites(queries, qrels, ["x.test", "y.test"])
    assert [(q["id"], q["includeDomains"]) for q in named] == [("1", ["y.test"]), ("2", ["x.test"])]
    assert judged == {"1": {"https://y.test/1": 1, "https://y.test/2": 1}, "2": {"https://x.test/3": 2}}


@coroutine_test
async def test_the_adhoc_run_searches_each_site_dropped_from_the_catalog(tmp_path):
    """The benchmark's own plumbing, on three queries of the Hebrew world: each query goes
    to a Light whose catalog lacks its site, which is probed on the spot."""
    import argparse

    from lightsearch.evaluation.harness import run_queries
    from lightsearch.evaluation.named_sites import name_sites
    from lightsearch.offline_origins.server import OfflineOrigins
    from lightsearch.offline_origins.worlds import build_heq_world
    from lightsearch.surfaces.commands.evaluate import Command

    shared_data("hebrew-qa", "heq-retrieval")
    world = build_heq_world(tmp_path / "w", max_queries=12)
    queries, qrels = name_sites(world.queries, world.qrels, world.hosts)
    with OfflineOrigins(world.sites_dir) as origins:
        overrides = {**origins.settings(), "LOG_LEVEL": "ERROR", "LIGHT_CATALOG": str(world.catalog_path)}
        opts = argparse.Namespace(summary="none", cold=True)
        router, site_of = Command._adhoc(world, overrides, opts, tmp_path)
        runs, _ = await run_queries(router, queries[:3], qrels, concurrency=3, source_of=site_of)
    assert {host for host in router.providers} == set(world.hosts)
    for run, query in zip(runs, queries[:3], strict=True):
        assert run.error is None
        assert run.opened == [f"site:{query['includeDomains'][0]}"]
        assert run.relevant_with_source == run.relevant_sources_opened == 1
        assert all(url.split("/")[2] == query["includeDomains"][0] for url in run.ranked)
