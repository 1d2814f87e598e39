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

``--pool`` times web_fetch's reading of every page (main text, wall detection, input
caps: ``lightsearch.isolation.tasks.read_html``) in this process, as main did, and in
the worker pool, worker round trip included, page by page in alternating order, and
prints the median and p95 of each.

    pip install -e ".[bench]"
    python benchmarks/extraction.py
    python benchmarks/extraction.py --calibrate --limit 50
    python benchmarks/extraction.py --pool --rounds 3
"""

from __future__ import annotations

import argparse
import contextlib
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
NEWSPAPER = DATA / "newspaper4k-test-articles"
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


def load(limit: int | None) -> tuple[dict[str, bytes], dict[str, str], dict[str, str]]:
    truth_raw = json.loads((BENCH / "ground-truth.json").read_text(encoding="utf-8"))
    keys = sorted(truth_raw)[:limit] if limit else sorted(truth_raw)
    pages = {k: gzip.decompress((BENCH / "html" / f"{k}.html.gz").read_bytes()) for k in keys}
    return pages, {k: truth_raw[k]["articleBody"] for k in keys}, {k: truth_raw[k]["url"] for k in keys}


def load_newspaper(limit: int | None) -> tuple[dict[str, bytes], dict[str, str], dict[str, str], dict[str, str]]:
    """newspaper4k's test articles that have both a page and an expected text (20 of them,
    multilingual, one right-to-left Arabic page); expected titles where metadata has one."""
    pages, truth, urls, titles = {}, {}, {}, {}
    for path in sorted((NEWSPAPER / "html").glob("*.html.gz"))[: limit or None]:
        key = path.name.removesuffix(".html.gz")
        txt = NEWSPAPER / "txt" / f"{key}.txt"
        if not txt.is_file():
            continue
        pages[key] = gzip.decompress(path.read_bytes())
        truth[key] = txt.read_text(encoding="utf-8")
        meta_path = NEWSPAPER / "metadata" / f"{key}.json"
        meta = json.loads(meta_path.read_text(encoding="utf-8")) if meta_path.is_file() else {}
        urls[key] = meta.get("url") or ""
        if meta.get("title"):
            titles[key] = meta["title"]
    return pages, truth, urls, titles


def decode(body: bytes) -> str:
    """Bytes to text as the fetch path does it (charset sniffing included in the timing)."""
    from w3lib.encoding import html_to_unicode

    return html_to_unicode(None, body)[1]


def run(system: Callable[[str, str], str], pages: dict[str, bytes],
        urls: dict[str, str]) -> tuple[dict[str, str], list[float]]:
    system(decode(next(iter(pages.values()))), "")  # warm imports outside the timing
    preds, times = {}, []
    for key, body in pages.items():
        started = time.perf_counter()
        try:
            preds[key] = system(decode(body), urls[key])
        except Exception:  # a crash is an empty extraction, as upstream counts it
            preds[key] = ""
        times.append((time.perf_counter() - started) * 1000)
    return preds, times


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


# titles: what each system would call the page
def ours_title(html: str, url: str) -> str:
    from lightsearch.documents.readable import extract_readable

    return extract_readable(html, url).title or ""


def trafilatura_title(html: str, url: str) -> str:
    import trafilatura

    meta = trafilatura.extract_metadata(html, default_url=url, extensive=False)
    return (meta.title if meta else "") or ""


def readability_title(html: str, url: str) -> str:
    from readability import Document

    return Document(html, url=url).short_title() or ""


TITLES: dict[str, Callable[[str, str], str]] = {
    "lightsearch web_fetch": ours_title,
    "trafilatura (default)": trafilatura_title,
    "readability-lxml": readability_title,
}


def title_accuracy(system: Callable[[str, str], str], pages: dict[str, bytes], urls: dict[str, str],
                   titles: dict[str, str]) -> float:
    right = 0
    for key, expected in titles.items():
        try:
            got = system(decode(pages[key]), urls[key])
        except Exception:
            got = ""
        right += " ".join(got.split()).casefold() == " ".join(expected.split()).casefold()
    return right / len(titles) if titles else float("nan")


def published(name: str) -> dict[str, str]:
    data = json.loads((BENCH / "output" / f"{name}.json").read_text(encoding="utf-8"))
    data = data.get("output", data)
    return {k: (v or {}).get("articleBody") or "" for k, v in data.items()}


def table(rows: Iterable[tuple[str, dict[str, float], dict[str, float], list[float]]]) -> str:
    head = ("| system | word P | word R | word F1 | shingle P | shingle R | shingle F1 | ms/page p50 | p99 | max |\n"
            "|---|---|---|---|---|---|---|---|---|---|")
    lines = [head]
    for name, word, shingle, times in rows:
        timing = (f"{percentile(times, 0.5):.1f} | {percentile(times, 0.99):.1f} | {max(times):.1f}"
                  if times else "- | - | -")
        lines.append(f"| {name} | {word['precision']:.3f} | {word['recall']:.3f} | {word['f1']:.3f} | "
                     f"{shingle['precision']:.3f} | {shingle['recall']:.3f} | {shingle['f1']:.3f} | {timing} |")
    return "\n".join(lines)


def compare(label: str, pages: dict[str, bytes], truth: dict[str, str], urls: dict[str, str],
            rotation: int) -> tuple[dict[str, dict], bool]:
    """All systems on one set, in an order rotated by ``rotation`` (so no system always
    runs first on a cold cache); True when ours leads on word F1."""
    names = list(SYSTEMS)
    names = names[rotation % len(names):] + names[: rotation % len(names)]
    report = {}
    for name in names:
        preds, times = run(SYSTEMS[name], pages, urls)
        report[name] = {"word": score(preds, truth, 1), "shingle": score(preds, truth, 4),
                        "msP50": percentile(times, 0.5), "msP99": percentile(times, 0.99),
                        "msMax": max(times), "_times": times}
    print(f"\n{label}: {len(pages)} pages, order {', '.join(names)}")
    print(table((n, report[n]["word"], report[n]["shingle"], report[n].pop("_times")) for n in SYSTEMS))
    best_peer = max(report[n]["word"]["f1"] for n in SYSTEMS if n != "lightsearch web_fetch")
    ours_f1 = report["lightsearch web_fetch"]["word"]["f1"]
    ok = ours_f1 >= best_peer
    print(f"word F1: ours {ours_f1:.3f} vs best peer {best_peer:.3f}: {'OK' if ok else 'BELOW'}")
    return report, ok


def pool_timing(pages: dict[str, bytes], urls: dict[str, str], rounds: int) -> dict[str, dict[str, float]]:
    """ms per page reading in this process and through the worker pool, interleaved."""
    from lightsearch.isolation.lanes import pool_settings
    from lightsearch.isolation.pool import pool_for
    from lightsearch.isolation.tasks import read_html
    from lightsearch.providers.light import make_settings

    workers, memory_bytes, task_secs = pool_settings(make_settings())
    pool = pool_for(workers, memory_bytes)

    def here(html: str, url: str) -> None:
        with contextlib.suppress(Exception):  # a page without text is timed all the same
            read_html(html, url, False)

    def apart(html: str, url: str) -> None:
        with contextlib.suppress(Exception):
            pool.submit("bench", read_html, (html, url, False), budget=task_secs).result()

    texts = {k: decode(b) for k, b in pages.items()}
    for key in list(texts)[:3]:  # warm: imports here, the workers there
        here(texts[key], urls[key])
        apart(texts[key], urls[key])
    times: dict[str, list[float]] = {"in process": [], "worker pool": []}
    for r in range(rounds):
        for i, key in enumerate(texts):
            order = [("in process", here), ("worker pool", apart)]
            for name, fn in order if (i + r) % 2 == 0 else reversed(order):
                started = time.perf_counter()
                fn(texts[key], urls[key])
                times[name].append((time.perf_counter() - started) * 1000)
    report = {name: {"msP50": percentile(t, 0.5), "msP95": percentile(t, 0.95)} for name, t in times.items()}
    print(f"\nweb_fetch reading, {len(texts)} pages x {rounds}, ms per page (interleaved):")
    for name, row in report.items():
        print(f"  {name}: p50 {row['msP50']:.1f}  p95 {row['msP95']:.1f}")
    base, pooled = report["in process"], report["worker pool"]
    print(f"  pool / in process: p50 {pooled['msP50'] / base['msP50']:.3f}  p95 {pooled['msP95'] / base['msP95']:.3f}")
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="score only the first N pages of each set")
    parser.add_argument("--calibrate", action="store_true",
                        help="also score the benchmark's published outputs (reproduce its README)")
    parser.add_argument("--rotation", type=int, default=0, help="start the system order at this index")
    parser.add_argument("--json", type=Path, default=None, help="write the scores here too")
    parser.add_argument("--pool", action="store_true",
                        help="only time reading in this process against the worker pool (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="--pool: passes over the pages")
    args = parser.parse_args()
    if not BENCH.is_dir():
        print(f"shared data not found at {BENCH} (set LIGHTSEARCH_SHARED_DATA)", file=sys.stderr)
        return 2
    pages, truth, urls = load(args.limit)
    print(f"{len(pages)} pages from {BENCH}")
    if args.pool:
        report = pool_timing(pages, urls, args.rounds)
        if args.json:
            args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
        return 0
    if args.calibrate:
        rows = []
        for name in ("trafilatura", "readability", "readability_js", "newspaper", "html-text"):
            preds = published(name)
            rows.append((f"published: {name}", score(preds, truth, 1), score(preds, truth, 4), []))
        print(table(rows))
    report, ok = {}, True
    report["shared"], good = compare("article-extraction-benchmark", pages, truth, urls, args.rotation)
    ok &= good
    if NEWSPAPER.is_dir():
        npages, ntruth, nurls, ntitles = load_newspaper(args.limit)
        report["newspaper4k"], good = compare("newspaper4k test articles", npages, ntruth, nurls, args.rotation + 1)
        ok &= good
        print(f"\ntitles, exact match with newspaper4k's expected title ({len(ntitles)} pages):")
        report["titles"] = {}
        for name, system in TITLES.items():
            report["titles"][name] = title_accuracy(system, npages, nurls, ntitles)
            print(f"  {name}: {report['titles'][name]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
