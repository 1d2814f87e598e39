"""Write the evaluation report: JSON for machines, one self-contained HTML for people.

Plots are matplotlib PNGs embedded as data URIs, so the HTML file can be mailed or
attached to an issue as it is. Without matplotlib the HTML has the tables only.
"""

from __future__ import annotations

import base64
import html
import io
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lightsearch.evaluation.harness import QueryRun, runs_as_dicts

COLUMNS = ("ndcg10", "recall10", "mrr10", "hitsMean", "wallMsP50", "wallMsP95", "cpuMsP50",
           "cpuMsMean", "originsCpuMsMean", "hopsMean", "hopsMax", "relevantReadMean", "encodedBytesMean", "decodedBytesMean",
           "errors", "truncated")


def format_table(summaries: Mapping[str, Mapping[str, Any]]) -> str:
    """One plain-text table, a row per provider, plus Light's share of the oracle."""
    head = ["run", *COLUMNS]
    rows = [[name, *(_fmt(s.get(c)) for c in COLUMNS)] for name, s in summaries.items()]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *rows, strict=True)]
    lines = ["  ".join(str(x).rjust(w) for x, w in zip(r, widths, strict=True)) for r in [head, *rows]]
    for name, s in summaries.items():
        stages = s.get("hopsByStageMean")
        if stages:
            lines.append(f"{name} hops by stage (mean): "
                         + ", ".join(f"{k} {v:.2f}" for k, v in stages.items())
                         + f"; documents read {s.get('documentsReadMean', 0):.2f}, "
                         f"relevant {s.get('relevantReadMean', 0):.2f}; reused from the cache: "
                         f"{s.get('discoveryReusedMean', 0):.2f} discovery documents (a hop each), "
                         f"{s.get('pagesReusedMean', 0):.1f} pages")
    for name, s in summaries.items():
        sel = s.get("selection")
        if sel:
            lines.append(f"{name} source selection: relevant documents in opened sources {sel['recall']:.3f}, "
                         f"best source opened {sel['bestSourceOpened']:.3f} ({sel['openedMean']:.2f} sources opened)")
        cov = s.get("coverage")
        if cov:
            parts = [f"{level} {v['searches']}" + (f" ({v['top3Relevant']:.2f})" if v["top3Relevant"] is not None else "")
                     for level, v in cov["levels"].items()]
            said = cov["noRelevantSaidWeak"]
            lines.append(f"{name} coverage (searches, share with a relevant document in the top 3): "
                         + ", ".join(parts) + "; no relevant in top 10 said weak/none "
                         + (f"{said:.2f} of {cov['noRelevantInTop10']}" if said is not None else "-"))
            if cov.get("reliability"):
                area = cov.get("auc")
                table = ", ".join(f"{b['from']:.1f}-{b['to']:.1f}: {b['searches']}"
                                  + (f" ({b['meanScore']:.2f} -> {b['top3Relevant']:.2f})" if b["searches"] else "")
                                  for b in cov["reliability"])
                lines.append(f"{name} coverage score: AUC against a relevant document in the top 3 "
                             + (f"{area:.3f}" if area is not None else "-")
                             + f" (base rate {cov['top3Relevant']:.2f}); reliability (searches, mean score -> "
                             f"share relevant): {table}")
        tp = s.get("throughput")
        if tp and tp.get("ratio") is not None:
            lines.append(f"{name} throughput: {tp['searchesPerMinute']:.1f} searches/min, bound "
                         f"{tp['boundPerMinute']:.1f} ({tp['transfers']} transfers, {tp['hopSeconds']:g} s a hop): "
                         f"{tp['ratio']:.2f}")
    oracle = summaries.get("oracle")
    if oracle:
        for name, s in summaries.items():
            if name != "oracle" and oracle["ndcg10"]:
                lines.append(f"{name}/oracle: nDCG@10 {s['ndcg10'] / oracle['ndcg10']:.3f}, "
                             f"MRR@10 {s['mrr10'] / max(1e-9, oracle['mrr10']):.3f}")
    return "\n".join(lines)


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.3f}" if value < 10 else f"{value:.0f}"
    return str(value)


def _png(fig: Any) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def _plots(runs: Mapping[str, Sequence[QueryRun]]) -> list[tuple[str, str]]:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    out = []
    fig, ax = plt.subplots(figsize=(7, 3.2))
    for name, rs in runs.items():
        if name != "oracle":
            ax.hist([r.wall_ms for r in rs], bins=30, alpha=0.6, label=name)
    ax.set_xlabel("wall time per query (ms)")
    ax.set_ylabel("queries")
    ax.legend()
    out.append(("Latency distribution", _png(fig)))
    plt.close(fig)
    if "oracle" in runs:
        oracle = {r.id: r.ndcg10 for r in runs["oracle"]}
        fig, ax = plt.subplots(figsize=(5, 5))
        for name, rs in runs.items():
            if name != "oracle":
                ax.scatter([oracle.get(r.id, 0) for r in rs], [r.ndcg10 for r in rs], s=10, alpha=0.6, label=name)
        ax.plot([0, 1], [0, 1], color="grey", linewidth=0.8)
        ax.set_xlabel("oracle nDCG@10")
        ax.set_ylabel("nDCG@10")
        ax.legend()
        out.append(("nDCG@10 per query against the oracle", _png(fig)))
        plt.close(fig)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 3.2))
    for name, rs in runs.items():
        if name != "oracle":
            a1.hist([r.hops for r in rs], bins=range(0, 27), alpha=0.6, label=name)
            a2.hist([r.encoded_bytes / 1024 for r in rs], bins=30, alpha=0.6, label=name)
    a1.set_xlabel("HTTP hops per query")
    a2.set_xlabel("encoded KiB per query")
    a1.legend()
    out.append(("Hops and bytes used", _png(fig)))
    plt.close(fig)
    return out


def write_reports(out_dir: Path, meta: Mapping[str, Any], summaries: Mapping[str, Mapping[str, Any]],
                  runs: Mapping[str, Sequence[QueryRun]]) -> tuple[Path, Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    data = {"meta": dict(meta), "summary": summaries, "queries": {k: runs_as_dicts(v) for k, v in runs.items()}}
    json_path = out_dir / "report.json"
    json_path.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    parts = [
        "<!doctype html><html><head><meta charset='utf-8'><title>lightsearch evaluation</title>",
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}"
        "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}td:first-child{text-align:left}</style>",
        "</head><body><h1>lightsearch evaluation</h1>",
        f"<p>{html.escape(json.dumps(dict(meta), ensure_ascii=False))}</p>",
        "<h2>Summary</h2><pre>", html.escape(format_table(summaries)), "</pre>",
    ]
    for title, uri in _plots(runs):
        parts.append(f"<h2>{html.escape(title)}</h2><img alt='{html.escape(title)}' src='{uri}'>")
    for name, rs in runs.items():
        parts.append(f"<h2>Per query: {html.escape(name)}</h2><table><tr><th>id</th><th>query</th>"
                     "<th>nDCG@10</th><th>R@10</th><th>MRR</th><th>hits</th><th>stop</th><th>hops</th>"
                     "<th>KiB</th><th>ms</th></tr>")
        for r in rs:
            parts.append(
                f"<tr><td>{html.escape(r.id)}</td><td style='text-align:left'>{html.escape(r.query)}</td>"
                f"<td>{r.ndcg10:.3f}</td><td>{r.recall10:.3f}</td><td>{r.mrr10:.3f}</td><td>{r.hits}</td>"
                f"<td>{html.escape(r.error or r.stop_reason)}</td><td>{r.hops}</td>"
                f"<td>{r.encoded_bytes // 1024}</td><td>{r.wall_ms:.0f}</td></tr>"
            )
        parts.append("</table>")
    parts.append("</body></html>")
    html_path = out_dir / "report.html"
    html_path.write_text("".join(parts), encoding="utf-8")
    return json_path, html_path
