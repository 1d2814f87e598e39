"""Article-extraction benchmark: web_fetch's extraction vs trafilatura and readability-lxml.

Runs the three extractors on the 181 real pages of scrapinghub's article-extraction
benchmark (read from the shared data at run time, never copied) in one process, scores
each against the ground-truth article bodies, and prints one table with milliseconds per
page. Two scores per system:

* **word**: word-level precision / recall / F1 (bags of ``\\w+`` tokens, lower-cased);
* **shingle**: the benchmark's own metric (4-gram token shingles; precision and recall
  are per-document means, F1 from the means), as its evaluate.py defines it.

``--calibrate`` first scores the benchmark's published outputs with the shingle metric,
which must reproduce its README (trafilatura 2.0.0 0.958, readability-lxml 0.922).

    pip install -e ".[bench]"
    python benchmarks/extraction.py
    python benchmarks/extraction.py --calibrate --limit 50
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", ROOT.parent / "shared" / "data"))
BENCH = DATA / "article-extraction-benchmark"
_TOKEN = re.compile(r"\w+", re.UNICODE)


def tokens(text: str, *, lower: bool = True) -> list[str]:
    return _TOKEN.findall(text.lower() if lower else text)


def shingles(words: list[str], n: int) -> Counter:
    return Counter(tuple(words[i : i + n]) for i in range(max(0, len(words) - n + 1)))


def doc_counts(pred: str, truth: str, n: int) -> tuple[float, float, float]:
    """(tp, fp, fn) of one document, normalised by their sum (evaluate.py's convention)."""
    lower = n == 1  # word level ignores case; the shingle metric keeps it, as upstream does
    p, t = shingles(tokens(pred, lower=lower), n), shingles(tokens(truth, lower=lower), n)
    tp = sum((p & t).values())
    fp = sum((p - t).values())
    fn = sum((t - p).values())
    total = tp + fp + fn
    return (tp / total, fp / total, fn / total) if total else (0.0, 0.0, 0.0)


def score(preds: dict[str, str], truth: dict[str, str], n: int) -> dict[str, float]:
    precisions, recalls = [], []
    for key, body in truth.items():
        tp, fp, fn = doc_counts(preds.get(key, ""), body, n)
        if tp + fp > 0:
            precisions.append(tp / (tp + fp))
        elif fn == 0:
            precisions.append(1.0)
        if tp + fn > 0:
            recalls.append(tp / (tp + fn))
        elif fp == 0:
            recalls.append(1.0)
    p = sum(precisions) / len(precisions) if precisions else 0.0
    r = sum(recalls) / len(recalls) if recalls else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


# ---------------------------------------------------------------------------- systems
def ours(html: str, url: str) -> str:
    from lightsearch.documents.readable import main_text

    return main_text(html, url)


def trafilatura_default(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def readability_lxml(html: str, url: str) -> str:
    from lxml import html as lxml_html
    from readability import Document

    summary = Document(html, url=url).summary(html_partial=True)
    return lxml_html.fromstring(summary).text_content() if summary.strip() else ""


SYSTEMS: dict[str, Callable[[str, str], str]] = {
    "lightsearch web_fetch": ours,
    "trafilatura (default)": trafilatura_default,
    "readability-lxml": readability_lxml,
}


def load(limit: int | None) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    truth_raw = json.loads((BENCH / "ground-truth.json").read_text(encoding="utf-8"))
    keys = sorted(truth_raw)[:limit] if limit else sorted(truth_raw)
    pages = {k: gzip.decompress((BENCH / "html" / f"{k}.html.gz").read_bytes()).decode("utf-8", "replace")
             for k in keys}
    return pages, {k: truth_raw[k]["articleBody"] for k in keys}, {k: truth_raw[k]["url"] for k in keys}


def run(system: Callable[[str, str], str], pages: dict[str, str], urls: dict[str, str]) -> tuple[dict[str, str], float]:
    system(next(iter(pages.values())), "")  # warm imports outside the timing
    preds, started = {}, time.perf_counter()
    for key, html in pages.items():
        try:
            preds[key] = system(html, urls[key])
        except Exception:  # a crash is an empty extraction, as upstream counts it
            preds[key] = ""
    return preds, (time.perf_counter() - started) * 1000 / len(pages)


def published(name: str) -> dict[str, str]:
    data = json.loads((BENCH / "output" / f"{name}.json").read_text(encoding="utf-8"))
    data = data.get("output", data)
    return {k: (v or {}).get("articleBody") or "" for k, v in data.items()}


def table(rows: Iterable[tuple[str, dict[str, float], dict[str, float], float]]) -> str:
    head = ("| system | word P | word R | word F1 | shingle P | shingle R | shingle F1 | ms/page |\n"
            "|---|---|---|---|---|---|---|---|")
    lines = [head]
    for name, word, shingle, ms in rows:
        lines.append(f"| {name} | {word['precision']:.3f} | {word['recall']:.3f} | {word['f1']:.3f} | "
                     f"{shingle['precision']:.3f} | {shingle['recall']:.3f} | {shingle['f1']:.3f} | {ms:.1f} |")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="score only the first N pages")
    parser.add_argument("--calibrate", action="store_true",
                        help="also score the benchmark's published outputs (reproduce its README)")
    parser.add_argument("--json", type=Path, default=None, help="write the scores here too")
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"shared data not found at {BENCH} (set LIGHTSEARCH_SHARED_DATA)", file=sys.stderr)
        return 2
    pages, truth, urls = load(args.limit)
    print(f"{len(pages)} pages from {BENCH}")
    if args.calibrate:
        rows = []
        for name in ("trafilatura", "readability", "readability_js", "newspaper", "html-text"):
            preds = published(name)
            rows.append((f"published: {name}", score(preds, truth, 1), score(preds, truth, 4), float("nan")))
        print(table(rows))
        print()
    rows, report = [], {}
    for name, system in SYSTEMS.items():
        preds, ms = run(system, pages, urls)
        word, shingle = score(preds, truth, 1), score(preds, truth, 4)
        rows.append((name, word, shingle, ms))
        report[name] = {"word": word, "shingle": shingle, "msPerPage": ms}
    print(table(rows))
    best_peer = max(report[n]["word"]["f1"] for n in SYSTEMS if n != "lightsearch web_fetch")
    ours_f1 = report["lightsearch web_fetch"]["word"]["f1"]
    verdict = "OK" if ours_f1 >= best_peer else "BELOW"
    print(f"\nword F1: ours {ours_f1:.3f} vs best peer {best_peer:.3f}: {verdict}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    raise SystemExit(main())
