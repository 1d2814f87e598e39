"""Run a query set against a provider, several searches at a time, and measure each.

Wall time is per search. The process clock cannot be split between concurrent searches,
so a search's CPU time is its share: the CPU spent between two starts or ends of searches
is divided equally among the searches running then (exact when one runs at a time; the
shares add up to the total either way). A benchmark world's sites are served by threads
of this same process; their CPU (TLS handshakes, HTTP parsing) is not the search's, so
``excluded`` (the origins' own CPU clock) is taken off and reported apart.

Queries longer than the request bounds (a judged collection's long topics) are cut to
them, as an agent would shorten them, and counted; they do not fail ``invalid_input``.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import unquote

from lightsearch.errors import LightSearchError
from lightsearch.evaluation.metrics import mrr_at, ndcg_at, percentile, recall_at


def doc_key(url: str) -> str:
    """Judged documents and hits compare on the unquoted URL without fragment."""
    return unquote(url.split("#", 1)[0])


@dataclass
class QueryRun:
    id: str
    query: str
    ranked: list[str] = field(default_factory=list)
    ndcg10: float = 0.0
    recall10: float = 0.0
    mrr10: float = 0.0
    hits: int = 0
    stop_reason: str = ""
    hops: int = 0
    encoded_bytes: int = 0
    decoded_bytes: int = 0
    wall_ms: float = 0.0
    cpu_ms: float | None = None
    error: str | None = None
    truncated: bool = False
    hops_by_stage: dict[str, int] = field(default_factory=dict)
    documents_read: int = 0  # pages fetched as evidence this search (article hops that paid off)
    relevant_read: int = 0  # of those, judged relevant
    opened: list[str] = field(default_factory=list)  # sources consulted (read at least one document of)
    # relevant documents whose source was opened, and all relevant documents with a known source
    relevant_sources_opened: int = 0
    relevant_with_source: int = 0
    best_source_opened: bool | None = None  # the source holding most relevant documents was opened
    coverage_level: str = ""
    coverage_score: float = 0.0
    relevant_top3: bool = False
    relevant_top10: bool = False
    started_s: float = 0.0  # since the run started
    relevance: list[dict[str, float]] = field(default_factory=list)  # per hit shown: coverage's inputs
    reach: dict[str, Any] = field(default_factory=dict)  # what it read of its best candidates: coverage's too
    discovery_reused: int = 0  # discovery documents served from the cache (a hop each, saved)
    pages_reused: int = 0  # fresh cached pages joined to the ranking
    judged_top: list[int] = field(default_factory=list)  # graded relevance of the hits shown


class CpuShare:
    """Each running search's share of the process CPU, split at every start and end."""

    def __init__(self, clock: Callable[[], float] = time.process_time) -> None:
        self.clock = clock
        self.active: dict[int, float] = {}
        self.mark = clock()

    def _split(self) -> None:
        now = self.clock()
        if self.active:
            share = (now - self.mark) / len(self.active)
            for key in self.active:
                self.active[key] += share
        self.mark = now

    def start(self, key: int) -> None:
        self._split()
        self.active[key] = 0.0

    def end(self, key: int) -> float:
        self._split()
        return self.active.pop(key)


def cut_query(query: str, max_words: int = 50, max_chars: int = 400) -> tuple[str, bool]:
    """The query within the request bounds (first words, then characters at a word end)."""
    words = query.split()
    text = " ".join(words[:max_words])
    if len(text) > max_chars:
        text = text[:max_chars].rsplit(" ", 1)[0] if " " in text[:max_chars] else text[:max_chars]
    return text, text != " ".join(words)


class Progress:
    """A progress bar on stderr: redrawn in place on a terminal; in a file or a pipe, where
    a carriage return would only pile up, one plain line at each tenth of the way."""

    def __init__(self, total: int, label: str, stream: Any = None) -> None:
        self.total, self.label, self.done = total, label, 0
        self.stream = stream if stream is not None else sys.stderr
        self.started = time.monotonic()
        try:
            self.terminal = self.stream.isatty()
        except (AttributeError, ValueError):
            self.terminal = False

    def step(self) -> None:
        self.done += 1
        width = 30
        filled = int(width * self.done / max(1, self.total))
        rate = self.done / max(1e-6, time.monotonic() - self.started)
        line = f"{self.label:<10} [{'#' * filled}{'.' * (width - filled)}] {self.done}/{self.total} {rate:.1f} q/s"
        if self.terminal:
            self.stream.write(f"\r{line}" + ("\n" if self.done == self.total else ""))
        elif self.done == self.total or self.done * 10 // max(1, self.total) > (self.done - 1) * 10 // max(1, self.total):
            self.stream.write(line + "\n")
        self.stream.flush()


async def run_queries(
    provider: Any,
    queries: Sequence[Mapping[str, Any]],
    qrels: Mapping[str, Mapping[str, int]],
    *,
    concurrency: int = 4,
    max_results: int = 10,
    progress: Callable[[], None] | None = None,
    before_each: Callable[[], None] | None = None,
    max_words: int = 50,
    max_chars: int = 400,
    excluded: Callable[[], float] | None = None,
    source_of: Callable[[str], str | None] | None = None,
) -> tuple[list[QueryRun], float]:
    """Every query's run, in query order, and the total CPU seconds the searches spent.

    ``before_each`` runs as each search starts (the cold mode empties caches there);
    ``excluded`` is a CPU clock of work in this process that is not the searches' (the
    world's origin servers); ``source_of`` names the catalog source of a judged document's
    URL, so source selection is measured on its own (were the sources holding the
    relevant documents opened?)."""
    judged = {qid: {doc_key(d): g for d, g in docs.items()} for qid, docs in qrels.items()}
    gate = asyncio.Semaphore(max(1, concurrency))

    def search_cpu() -> float:
        return time.process_time() - (excluded() if excluded else 0.0)

    cpu_share = CpuShare(search_cpu)
    run_started = time.monotonic()

    async def one(index: int, item: Mapping[str, Any]) -> QueryRun:
        query, truncated = cut_query(item["query"], max_words, max_chars)
        run = QueryRun(id=str(item["id"]), query=query, truncated=truncated)
        async with gate:
            if before_each:
                before_each()
            wall = time.monotonic()
            run.started_s = round(wall - run_started, 3)
            cpu_share.start(index)
            # a query that names its site (evaluation/named_sites.py) is searched on it
            site = {"include_domains": item["includeDomains"]} if item.get("includeDomains") else {}
            try:
                result = await provider.search(query, max_results=max_results,
                                               recency=item.get("recency"), **site)
            except LightSearchError as exc:
                run.error = exc.code
                result = None
            run.cpu_ms = round(cpu_share.end(index) * 1000, 1)
            run.wall_ms = round((time.monotonic() - wall) * 1000, 1)
        docs = judged.get(run.id, {})
        if result is not None:
            run.ranked = [doc_key(h["url"]) for h in result["hits"]]
            run.hits = len(run.ranked)
            run.stop_reason = result.get("stopReason", "")
            counts = result.get("meta", {}).get("lightSearch", {}).get("counts", {})
            run.hops = int(counts.get("requests", 0))
            run.encoded_bytes = int(counts.get("encodedBytes", 0))
            run.decoded_bytes = int(counts.get("decodedBytes", 0))
            run.discovery_reused = int(counts.get("cacheDiscoveryHits", 0))
            run.pages_reused = int(counts.get("cacheJoined", 0))
            hops = result.get("meta", {}).get("lightSearch", {}).get("hops", {})
            run.hops_by_stage = dict(hops.get("byStage", {}))
            read = [doc_key(u) for u in hops.get("documents", [])]
            run.documents_read = len(read)
            run.relevant_read = sum(1 for u in read if docs.get(u, 0) > 0)
            run.opened = list(result.get("meta", {}).get("lightSearch", {}).get("sources", {}).get("consulted", []))
            run.relevance = list(result.get("meta", {}).get("lightSearch", {}).get("relevance", []))[:10]
            run.reach = dict(result.get("meta", {}).get("lightSearch", {}).get("reach") or {})
            cov = result.get("coverage") or {}
            run.coverage_level = str(cov.get("level", ""))
            run.coverage_score = float(cov.get("score", 0.0) or 0.0)
        if source_of is not None and docs:
            holders = Counter(src for src in (source_of(u) for u in docs) if src)
            run.relevant_with_source = sum(holders.values())
            run.relevant_sources_opened = sum(n for src, n in holders.items() if src in run.opened)
            if holders and result is not None:
                run.best_source_opened = holders.most_common(1)[0][0] in run.opened
        run.judged_top = [docs.get(u, 0) for u in run.ranked[:10]]
        run.relevant_top3 = any(docs.get(u, 0) > 0 for u in run.ranked[:3])
        run.relevant_top10 = any(docs.get(u, 0) > 0 for u in run.ranked[:10])
        run.ndcg10 = ndcg_at(run.ranked, docs, 10)
        run.recall10 = recall_at(run.ranked, docs, 10)
        run.mrr10 = mrr_at(run.ranked, docs, 10)
        if progress:
            progress()
        return run

    cpu_start = search_cpu()
    runs = await asyncio.gather(*(one(i, q) for i, q in enumerate(queries)))
    return list(runs), search_cpu() - cpu_start


def selection(runs: Sequence[QueryRun]) -> dict[str, Any] | None:
    """Source selection on its own: the share of relevant documents whose source the search
    opened (mean over queries with any), and how often the source holding most of them was."""
    judged = [r for r in runs if r.relevant_with_source and not r.error]
    if not judged:
        return None
    best = [r.best_source_opened for r in judged if r.best_source_opened is not None]
    return {"queries": len(judged),
            "recall": round(sum(r.relevant_sources_opened / r.relevant_with_source for r in judged) / len(judged), 4),
            "bestSourceOpened": round(sum(best) / max(1, len(best)), 4),
            "openedMean": round(sum(len(r.opened) for r in judged) / len(judged), 2)}


LEVELS = ("none", "weak", "partial", "strong")


def auc(scores: Sequence[float], labels: Sequence[bool]) -> float | None:
    """The area under the ROC curve of ``scores`` against ``labels``: the chance that a
    search with the label scores above one without (ties count half); None without both."""
    ranked = sorted(zip(scores, labels, strict=True), key=lambda pair: pair[0])
    positives = sum(1 for _, label in ranked if label)
    negatives = len(ranked) - positives
    if not positives or not negatives:
        return None
    # rank-sum (Mann-Whitney U) with mid-ranks for ties
    rank_sum, i = 0.0, 0
    while i < len(ranked):
        j = i
        while j < len(ranked) and ranked[j][0] == ranked[i][0]:
            j += 1
        mid = (i + 1 + j) / 2
        rank_sum += mid * sum(1 for k in range(i, j) if ranked[k][1])
        i = j
    return (rank_sum - positives * (positives + 1) / 2) / (positives * negatives)


RELIABILITY_BINS = 5


def reliability(runs: Sequence[QueryRun], bins: int = RELIABILITY_BINS) -> list[dict[str, Any]]:
    """Coverage scores in ``bins`` equal ranges of 0..1: per range, how many searches, their
    mean score, and how often their top three held a relevant document (a calibrated score
    is near that rate)."""
    out = []
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        at = [r for r in runs if lo <= r.coverage_score < hi or (b == bins - 1 and r.coverage_score >= hi)]
        out.append({"from": lo, "to": hi, "searches": len(at),
                    "meanScore": round(sum(r.coverage_score for r in at) / len(at), 4) if at else None,
                    "top3Relevant": round(sum(r.relevant_top3 for r in at) / len(at), 4) if at else None})
    return out


def calibration(runs: Sequence[QueryRun]) -> dict[str, Any] | None:
    """Coverage against judged relevance: per level, how many searches had it and how often
    their top three held a relevant document; how often a search whose top ten held none
    said ``weak`` or ``none``; the AUC of the coverage score against "a relevant document
    in the top three"; and the reliability table of the score."""
    judged = [r for r in runs if not r.error and r.coverage_level]
    if not judged:
        return None
    levels = {}
    for level in LEVELS:
        at = [r for r in judged if r.coverage_level == level]
        levels[level] = {"searches": len(at),
                         "top3Relevant": round(sum(r.relevant_top3 for r in at) / len(at), 4) if at else None}
    missed = [r for r in judged if not r.relevant_top10]
    area = auc([r.coverage_score for r in judged], [r.relevant_top3 for r in judged])
    return {"levels": levels,
            "noRelevantInTop10": len(missed),
            "noRelevantSaidWeak": round(sum(r.coverage_level in ("none", "weak") for r in missed) / len(missed), 4)
            if missed else None,
            "auc": None if area is None else round(area, 4),
            "top3Relevant": round(sum(r.relevant_top3 for r in judged) / len(judged), 4),
            "reliability": reliability(judged)}


def throughput(runs: Sequence[QueryRun], *, transfers: int, hop_seconds: float) -> dict[str, Any] | None:
    """Searches per minute against the bound the politeness limits set: ``transfers`` at once
    (3 per process, fewer when the world has fewer origins, one request per origin), each
    hop taking ``hop_seconds`` (the simulated latency), so at most
    ``60 * transfers / (hops per search * hop_seconds)`` searches a minute."""
    done = [r for r in runs if r.wall_ms]
    if not done or hop_seconds <= 0:
        return None
    span = max(r.started_s + r.wall_ms / 1000 for r in done) - min(r.started_s for r in done)
    hops = sum(r.hops for r in done) / len(done)
    per_minute = 60 * len(done) / max(1e-9, span)
    bound = 60 * transfers / (hops * hop_seconds) if hops else None
    return {"searchesPerMinute": round(per_minute, 1), "boundPerMinute": round(bound, 1) if bound else None,
            "ratio": round(per_minute / bound, 3) if bound else None, "transfers": transfers,
            "hopSeconds": hop_seconds}


def summarize(runs: Sequence[QueryRun], total_cpu_s: float, origins_cpu_s: float | None = None) -> dict[str, Any]:
    n = max(1, len(runs))
    walls = [r.wall_ms for r in runs]
    cpus = [r.cpu_ms for r in runs if r.cpu_ms is not None]
    stops: dict[str, int] = {}
    for r in runs:
        key = r.error or r.stop_reason or "unknown"
        stops[key] = stops.get(key, 0) + 1
    stages: dict[str, int] = {}
    for r in runs:
        for stage, count in r.hops_by_stage.items():
            stages[stage] = stages.get(stage, 0) + count
    return {
        "queries": len(runs),
        "ndcg10": round(sum(r.ndcg10 for r in runs) / n, 4),
        "recall10": round(sum(r.recall10 for r in runs) / n, 4),
        "mrr10": round(sum(r.mrr10 for r in runs) / n, 4),
        "hitsMean": round(sum(r.hits for r in runs) / n, 2),
        "wallMsP50": percentile(walls, 50),
        "wallMsP95": percentile(walls, 95),
        "cpuMsP50": percentile(cpus, 50) if cpus else None,
        "cpuMsMean": round(total_cpu_s * 1000 / n, 1),
        # the world's origin servers, in the same process, not counted above
        "originsCpuMsMean": None if origins_cpu_s is None else round(origins_cpu_s * 1000 / n, 1),
        "hopsMax": max((r.hops for r in runs), default=0),
        "hopsMean": round(sum(r.hops for r in runs) / n, 2),
        "encodedBytesMean": round(sum(r.encoded_bytes for r in runs) / n),
        "decodedBytesMean": round(sum(r.decoded_bytes for r in runs) / n),
        "stopReasons": stops,
        "errors": sum(1 for r in runs if r.error),
        "truncated": sum(1 for r in runs if r.truncated),
        "hopsByStageMean": {k: round(v / n, 2) for k, v in sorted(stages.items())},
        "documentsReadMean": round(sum(r.documents_read for r in runs) / n, 2),
        "relevantReadMean": round(sum(r.relevant_read for r in runs) / n, 2),
        "discoveryReusedMean": round(sum(r.discovery_reused for r in runs) / n, 2),
        "pagesReusedMean": round(sum(r.pages_reused for r in runs) / n, 2),
        "selection": selection(runs),
        "coverage": calibration(runs),
    }


def runs_as_dicts(runs: Sequence[QueryRun]) -> list[dict[str, Any]]:
    return [{k: v for k, v in asdict(r).items() if k != "ranked"} | {"top": r.ranked[:10]} for r in runs]
