"""Article-extraction benchmark: web_fetch's reader vs trafilatura and readability-lxml.

Every page of every set goes through every extractor in one process, the order of the
extractors rotated page by page (so load from other processes and warm caches fall on all
of them alike). Sets:

* ``shared``: scrapinghub's article-extraction benchmark (181 pages, ground-truth bodies),
  read from the shared data at run time, never copied;
* ``newspaper4k``: newspaper4k's test articles with an expected text (20 pages);
* ``trafilatura-eval``, ``readability-pages``, ``htmltotext``: the multilingual sets that
  ``benchmarks/extraction_sets.py`` builds into a local cache (skipped when not built).

Scores:

* **sentence** P/R/F1: which expected segments appear and which boilerplate segments do
  not, counted over the whole set (trafilatura's evaluation; for a set with a full-text
  ground truth the segments are its sentences and the page's other sentences, see
  extraction_sets.py);
* **word** P/R/F1 where the ground truth is a full text (bags of ``\\w+`` tokens,
  lower-cased, per-page means);
* **shingle** F1 on the shared set: the benchmark's own metric (4-gram token shingles), as
  its evaluate.py defines it;
* milliseconds per page, p50 and p95, wall and CPU (this thread's), and their ratio to
  trafilatura called as lightsearch calls it (same run). The reader is timed whole
  (decoding, parsing, metadata with htmldate's date search, title and text, as web_fetch
  calls it), and its text path alone (``main_text``: the same text, no metadata). On a
  shared machine the CPU ratio is the steadier one.

``--steps`` also runs the reader with each cleaning step switched off (``skip=``, see
``lightsearch.documents.readable.STEPS``) and with all of them off, and reports each step's
net effect per set: sentences gained (expected segments it brings in minus boilerplate it
lets in) and word F1, with the pages it makes better and worse.

The reader's second reading (run where its first reading is doubtful) is counted per set:
how often it runs, why, and how often its text is taken. ``--fast-peer`` adds trafilatura
in fast mode, as the reader's first reading calls it, beside the peers.

``--pool`` times web_fetch's reading of every page (main text, wall detection, input
caps: ``lightsearch.isolation.tasks.read_html``) in this process, as main did, and in
the worker pool, worker round trip included, page by page in alternating order, and
prints the median and p95 of each.

    pip install -e ".[bench]"
    python benchmarks/extraction.py                       # every set found
    python benchmarks/extraction.py --sets shared newspaper4k --steps
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
import extraction_sets  # noqa: E402

DATA = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", ROOT.parent / "shared" / "data"))
if not DATA.is_dir() and Path("/work/shared/data").is_dir():
    DATA = Path("/work/shared/data")
BENCH = DATA / "article-extraction-benchmark"
NEWSPAPER = DATA / "newspaper4k-test-articles"
OURS = "lightsearch web_fetch"
BASELINE = "trafilatura (as lightsearch calls it)"
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


def word_f1(pred: str, truth: str) -> float:
    tp, fp, fn = doc_counts(pred, truth, 1)
    return 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 1.0


def segment_counts(pred: str, item: dict) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn): expected segments found, boilerplate found, expected missed,
    boilerplate left out (whitespace-normalised substring matching, as upstream)."""
    text = extraction_sets.norm(pred)
    tp = sum(extraction_sets.norm(s) in text for s in item["with"])
    fp = sum(extraction_sets.norm(s) in text for s in item["without"])
    return tp, fp, len(item["with"]) - tp, len(item["without"]) - fp


def segment_score(counts: Iterable[tuple[int, int, int, int]]) -> dict[str, float]:
    tp = fp = fn = 0
    for a, b, c, _ in counts:
        tp, fp, fn = tp + a, fp + b, fn + c
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0}


# ---------------------------------------------------------------------------- systems
# How often the reader's second reading runs (its first reading doubtful) and how often
# its text is taken, counted on the calls of ``ours`` only (the whole reader, as timed).
SECOND = Counter()
_counting = [False]


def _count_second_readings() -> None:
    from lightsearch.documents import readable

    if getattr(readable.doubt_of, "_counted", False):
        return
    doubt_of, better = readable.doubt_of, readable.better

    def counted_doubt(*args, **kw):
        why = doubt_of(*args, **kw)
        if _counting[0] and why is not None:
            SECOND["fired"] += 1
            SECOND[f"fired:{why}"] += 1
        return why

    def counted_better(*args, **kw):
        taken = better(*args, **kw)
        if _counting[0] and taken:
            SECOND["taken"] += 1
        return taken

    counted_doubt._counted = True
    readable.doubt_of, readable.better = counted_doubt, counted_better


def ours(html: str, url: str, skip: Iterable[str] = ()) -> str:
    from lightsearch.documents.readable import extract_readable

    _count_second_readings()
    _counting[0] = True
    SECOND["pages"] += 1
    try:
        return extract_readable(html, url, skip=skip).text
    finally:
        _counting[0] = False


def ours_text(html: str, url: str, skip: Iterable[str] = ()) -> str:
    """The reader's text alone (what the step variants compare; the same text as ``ours``)."""
    from lightsearch.documents.readable import main_text

    return main_text(html, url, skip=skip)


def trafilatura_as_called(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url, include_comments=False, include_tables=True,
                               deduplicate=False) or ""


def trafilatura_fast(html: str, url: str) -> str:
    """trafilatura as the reader's first reading calls it (fast mode: no comparison with
    readability-lxml's scoring and jusText), on the raw page."""
    import trafilatura

    return trafilatura.extract(html, url=url, include_comments=False, include_tables=True,
                               deduplicate=False, fast=True) or ""


def trafilatura_default(html: str, url: str) -> str:
    import trafilatura

    return trafilatura.extract(html, url=url) or ""


def readability_lxml(html: str, url: str) -> str:
    from lxml import html as lxml_html
    from readability import Document

    summary = Document(html, url=url).summary(html_partial=True)
    # a line per block, as a reader shows it (text_content() glues paragraphs together)
    return extraction_sets._block_text(lxml_html.fromstring(summary)) if summary.strip() else ""


TEXT_ONLY = "lightsearch main_text (text only)"
FAST = "trafilatura (fast mode)"
SYSTEMS: dict[str, Callable[[str, str], str]] = {
    OURS: ours,
    TEXT_ONLY: ours_text,
    BASELINE: trafilatura_as_called,
    "trafilatura (default)": trafilatura_default,
    "readability-lxml": readability_lxml,
}


# ---------------------------------------------------------------------------- sets
@dataclass
class PageSet:
    name: str
    pages: dict[str, bytes]
    urls: dict[str, str]
    segments: dict[str, dict] = field(default_factory=dict)  # key -> {"with": [...], "without": [...]}
    texts: dict[str, str] = field(default_factory=dict)  # key -> full ground-truth text
    titles: dict[str, str] = field(default_factory=dict)
    shingle: bool = False

    def subset(self, name: str, keys: Iterable[str]) -> PageSet:
        keys = [k for k in keys if k in self.pages]
        return PageSet(name, {k: self.pages[k] for k in keys}, {k: self.urls[k] for k in keys},
                       {k: self.segments[k] for k in keys if k in self.segments},
                       {k: self.texts[k] for k in keys if k in self.texts},
                       {k: self.titles[k] for k in keys if k in self.titles}, self.shingle)


def _with_sentences(pages: dict[str, bytes], texts: dict[str, str]) -> dict[str, dict]:
    out = {}
    for key, truth in texts.items():
        want, boiler = extraction_sets.sentence_truth(truth, decode(pages[key]))
        out[key] = {"with": want, "without": boiler}
    return out


def load_shared(limit: int | None) -> PageSet | None:
    if not BENCH.is_dir():
        return None
    truth_raw = json.loads((BENCH / "ground-truth.json").read_text(encoding="utf-8"))
    keys = sorted(truth_raw)[:limit] if limit else sorted(truth_raw)
    pages = {k: gzip.decompress((BENCH / "html" / f"{k}.html.gz").read_bytes()) for k in keys}
    texts = {k: truth_raw[k]["articleBody"] for k in keys}
    return PageSet("shared", pages, {k: truth_raw[k]["url"] for k in keys}, _with_sentences(pages, texts),
                   texts, shingle=True)


def load_newspaper(limit: int | None) -> PageSet | None:
    """newspaper4k's test articles that have both a page and an expected text (20 of them,
    multilingual, one right-to-left Arabic page); expected titles where metadata has one."""
    if not NEWSPAPER.is_dir():
        return None
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
    return PageSet("newspaper4k", pages, urls, _with_sentences(pages, truth), truth, titles)


def load_cached(name: str, limit: int | None) -> PageSet | None:
    found = extraction_sets.load(name)
    if found is None:
        return None
    pages, meta = found
    keys = sorted(pages)[:limit] if limit else sorted(pages)
    return PageSet(name, {k: pages[k] for k in keys}, {k: meta[k]["url"] for k in keys},
                   {k: {"with": meta[k]["with"], "without": meta[k]["without"]} for k in keys},
                   {k: meta[k]["text"] for k in keys if "text" in meta[k]},
                   {k: meta[k]["title"] for k in keys if meta[k].get("title")})


LOADERS: dict[str, Callable[[int | None], PageSet | None]] = {
    "shared": load_shared,
    "newspaper4k": load_newspaper,
    "trafilatura-eval": lambda limit: load_cached("trafilatura-eval", limit),
    "readability-pages": lambda limit: load_cached("readability-pages", limit),
    "htmltotext": lambda limit: load_cached("htmltotext", limit),
}


def decode(body: bytes) -> str:
    """Bytes to text as the fetch path does it (charset sniffing included in the timing)."""
    from w3lib.encoding import html_to_unicode

    return html_to_unicode(None, body)[1]


# ---------------------------------------------------------------------------- running
def _call(system: Callable[..., str], body: bytes, url: str, **kw) -> str:
    try:
        return system(decode(body), url, **kw)
    except Exception:  # a crash is an empty extraction, as upstream counts it
        return ""


def run_rotating(systems: dict[str, Callable[[str, str], str]], pageset: PageSet,
                 rotation: int) -> tuple[dict[str, dict[str, str]], dict[str, list[float]], dict[str, list[float]]]:
    """Every page through every system, the order rotated page by page: (texts, wall
    milliseconds, CPU milliseconds of this thread; the latter barely moves when other
    processes load the machine)."""
    names = list(systems)
    first = next(iter(pageset.pages.values()))
    for name in names:  # warm imports and caches outside the timing
        _call(systems[name], first, "")
    SECOND.clear()
    preds: dict[str, dict[str, str]] = {n: {} for n in names}
    wall: dict[str, list[float]] = {n: [] for n in names}
    cpu: dict[str, list[float]] = {n: [] for n in names}
    for i, (key, body) in enumerate(pageset.pages.items()):
        shift = (i + rotation) % len(names)
        for name in names[shift:] + names[:shift]:
            started, spent = time.perf_counter(), time.thread_time()
            preds[name][key] = _call(systems[name], body, pageset.urls[key])
            cpu[name].append((time.thread_time() - spent) * 1000)
            wall[name].append((time.perf_counter() - started) * 1000)
    return preds, wall, cpu


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def evaluate(pageset: PageSet, preds: dict[str, str]) -> dict[str, dict[str, float]]:
    out = {}
    if pageset.segments:
        out["sentence"] = segment_score(segment_counts(preds.get(k, ""), pageset.segments[k])
                                        for k in pageset.segments)
    if pageset.texts:
        out["word"] = score(preds, pageset.texts, 1)
    if pageset.shingle:
        out["shingle"] = score(preds, pageset.texts, 4)
    return out


def _fmt(scores: dict[str, float] | None) -> str:
    return (f"{scores['precision']:.3f} | {scores['recall']:.3f} | {scores['f1']:.3f}"
            if scores else "- | - | -")


def compare(pageset: PageSet, rotation: int, systems: dict[str, Callable[[str, str], str]]) -> dict[str, dict]:
    preds, wall, cpu = run_rotating(systems, pageset, rotation)
    base = BASELINE if BASELINE in systems else OURS
    report = {}
    for name in systems:
        report[name] = {**evaluate(pageset, preds[name]),
                        "msP50": percentile(wall[name], 0.5), "msP95": percentile(wall[name], 0.95),
                        "msMax": max(wall[name]),
                        "cpuMsP50": percentile(cpu[name], 0.5), "cpuMsP95": percentile(cpu[name], 0.95),
                        "ratioP50": percentile(wall[name], 0.5) / percentile(wall[base], 0.5),
                        "ratioP95": percentile(wall[name], 0.95) / percentile(wall[base], 0.95),
                        "cpuRatioP50": percentile(cpu[name], 0.5) / percentile(cpu[base], 0.5),
                        "cpuRatioP95": percentile(cpu[name], 0.95) / percentile(cpu[base], 0.95)}
    shingle = pageset.shingle
    print(f"\n{pageset.name}: {len(pageset.pages)} pages, systems in rotating order")
    print("| system | sentence P | R | F1 | word P | R | F1 |" + (" shingle F1 |" if shingle else "")
          + " ms p50 | p95 | x trafilatura p50 | p95 | CPU ms p50 | p95 | CPU x trafilatura p50 | p95 |")
    print("|---|---|---|---|---|---|---|" + ("---|" if shingle else "") + "---|---|---|---|---|---|---|---|")
    for name, r in report.items():
        print(f"| {name} | {_fmt(r.get('sentence'))} | {_fmt(r.get('word'))} |"
              + (f" {r['shingle']['f1']:.3f} |" if shingle else "")
              + f" {r['msP50']:.1f} | {r['msP95']:.1f} | {r['ratioP50']:.2f} | {r['ratioP95']:.2f} |"
              + f" {r['cpuMsP50']:.1f} | {r['cpuMsP95']:.1f} | {r['cpuRatioP50']:.2f} | {r['cpuRatioP95']:.2f} |")
    peers = [n for n in systems if n not in (OURS, TEXT_ONLY, "trafilatura (default)")]
    for metric in ("sentence", "word"):
        if metric in report[OURS] and peers:
            best = max((report[n][metric]["f1"], n) for n in peers if n != OURS)
            print(f"{metric} F1: ours {report[OURS][metric]['f1']:.3f} vs best peer {best[1]} {best[0]:.3f} "
                  f"({report[OURS][metric]['f1'] - best[0]:+.3f})")
    if OURS in systems and SECOND["pages"]:
        report[OURS]["secondReading"] = dict(SECOND)
        reasons = ", ".join(f"{k.split(':', 1)[1]} {v}" for k, v in sorted(SECOND.items()) if k.startswith("fired:"))
        print(f"second reading: run on {SECOND['fired']} of {SECOND['pages']} pages "
              f"({SECOND['fired'] / SECOND['pages']:.1%}; {reasons or 'none'}), its text taken on {SECOND['taken']}")
    report["_preds"] = preds
    return report


# ---------------------------------------------------------------------------- steps
def step_report(pageset: PageSet, full: dict[str, str]) -> dict[str, dict]:
    """Each cleaning step's net effect on ``pageset``: the reader with everything on
    (``full``) against the reader with that step off, page by page."""
    from lightsearch.documents.readable import STEPS

    variants = {f"-{step}": (step,) for step in STEPS} | {"bare (all off)": STEPS}
    out = {}
    for label, skip in variants.items():
        preds = {k: _call(ours_text, body, pageset.urls[k], skip=skip) for k, body in pageset.pages.items()}
        row: dict[str, float] = {}
        if pageset.segments:
            net, better, worse = 0, 0, 0
            for k, item in pageset.segments.items():
                on, off = segment_counts(full[k], item), segment_counts(preds[k], item)
                gain = (on[0] - off[0]) - (on[1] - off[1])
                net += gain
                better += gain > 0
                worse += gain < 0
            row.update(sentencesNet=net, sentencePagesBetter=better, sentencePagesWorse=worse,
                       sentenceF1Off=evaluate(pageset, preds)["sentence"]["f1"])
        if pageset.texts:
            gains = [word_f1(full[k], t) - word_f1(preds[k], t) for k, t in pageset.texts.items()]
            row.update(wordF1Off=score(preds, pageset.texts, 1)["f1"],
                       wordPagesBetter=sum(g > 0.005 for g in gains), wordPagesWorse=sum(g < -0.005 for g in gains))
        out[label] = row
    return out


def print_steps(reports: dict[str, dict], full_scores: dict[str, dict]) -> None:
    print("\nper-step effect: each cell is what the step adds over the reader without it "
          "(sentences net = expected segments gained - boilerplate let in; pages better/worse)")
    sets = list(reports)
    print("| step | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    labels = list(next(iter(reports.values())))
    for label in labels:
        cells = []
        for name in sets:
            row, full = reports[name][label], full_scores[name]
            parts = []
            if "sentencesNet" in row:
                parts.append(f"sent {row['sentencesNet']:+d} ({row['sentencePagesBetter']}+/{row['sentencePagesWorse']}-)"
                             f" F1 {full['sentence']['f1'] - row['sentenceF1Off']:+.4f}")
            if "wordF1Off" in row:
                parts.append(f"word F1 {full['word']['f1'] - row['wordF1Off']:+.4f}"
                             f" ({row['wordPagesBetter']}+/{row['wordPagesWorse']}-)")
            cells.append("; ".join(parts))
        print(f"| {label} | " + " | ".join(cells) + " |")


# ---------------------------------------------------------------------------- titles
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
    OURS: ours_title,
    "trafilatura": trafilatura_title,
    "readability-lxml": readability_title,
}


def title_accuracy(system: Callable[[str, str], str], pageset: PageSet) -> float:
    right = 0
    for key, expected in pageset.titles.items():
        got = _call(system, pageset.pages[key], pageset.urls[key])
        right += " ".join(got.split()).casefold() == " ".join(expected.split()).casefold()
    return right / len(pageset.titles) if pageset.titles else float("nan")


def published(name: str) -> dict[str, str]:
    data = json.loads((BENCH / "output" / f"{name}.json").read_text(encoding="utf-8"))
    data = data.get("output", data)
    return {k: (v or {}).get("articleBody") or "" for k, v in data.items()}


def pool_timing(pages: dict[str, bytes], urls: dict[str, str], rounds: int) -> dict[str, dict[str, float]]:
    """ms per page reading in this process and through the worker pool, interleaved."""
    from lightsearch.config import make_settings
    from lightsearch.isolation.lanes import pool_settings
    from lightsearch.isolation.pool import pool_for
    from lightsearch.isolation.tasks import read_html

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
    parser.add_argument("--sets", nargs="*", default=list(LOADERS), choices=list(LOADERS))
    parser.add_argument("--limit", type=int, default=None, help="score only the first N pages of each set")
    parser.add_argument("--steps", action="store_true", help="also measure each cleaning step (slower)")
    parser.add_argument("--ours-only", action="store_true", help="run no peer (with --steps: the steps alone)")
    parser.add_argument("--split", choices=("all", "dev", "check"), default="all",
                        help="trafilatura-eval: the half to tune on (dev), the other half (check), or both")
    parser.add_argument("--calibrate", action="store_true",
                        help="also score the benchmark's published outputs (reproduce its README)")
    parser.add_argument("--rotation", type=int, default=0, help="start the system order at this index")
    parser.add_argument("--fast-peer", action="store_true",
                        help="also run trafilatura in fast mode (as the reader's first reading calls it)")
    parser.add_argument("--json", type=Path, default=None, help="write the scores here too")
    parser.add_argument("--pool", action="store_true",
                        help="only time reading in this process against the worker pool (see above)")
    parser.add_argument("--rounds", type=int, default=3, help="--pool: passes over the pages")
    args = parser.parse_args()
    if args.pool:
        pageset = LOADERS["shared"](args.limit)
        if pageset is None:
            print("shared data not found (set LIGHTSEARCH_SHARED_DATA)", file=sys.stderr)
            return 2
        timing = pool_timing(pageset.pages, pageset.urls, args.rounds)
        if args.json:
            args.json.write_text(json.dumps(timing, indent=2), encoding="utf-8")
        return 0
    report: dict[str, dict] = {}
    step_reports: dict[str, dict] = {}
    ok = True
    for i, name in enumerate(args.sets):
        pageset = LOADERS[name](args.limit)
        if pageset is None:
            print(f"\n{name}: not found (shared data: set LIGHTSEARCH_SHARED_DATA; cached sets: run "
                  "benchmarks/extraction_sets.py)", file=sys.stderr)
            continue
        if name == "trafilatura-eval" and args.split != "all":
            meta = extraction_sets.load(name)[1]
            pageset = pageset.subset(f"{name} ({args.split})", [k for k in pageset.pages
                                                                  if meta[k]["split"] == args.split])
        if name == "shared" and args.calibrate:
            rows = {n: score(published(n), pageset.texts, 4) for n in
                    ("trafilatura", "readability", "readability_js", "newspaper", "html-text")}
            for n, s in rows.items():
                print(f"published {n}: shingle F1 {s['f1']:.3f}")
        systems = {n: s for n, s in SYSTEMS.items() if n == OURS or not args.ours_only}
        if args.fast_peer and not args.ours_only:
            systems[FAST] = trafilatura_fast
        result = compare(pageset, args.rotation + i, systems)
        preds = result.pop("_preds")
        report[pageset.name] = result
        peers = [n for n in systems if n not in (OURS, TEXT_ONLY, "trafilatura (default)")]
        metric = "word" if pageset.texts else "sentence"
        ok &= not peers or result[OURS][metric]["f1"] >= max(result[n][metric]["f1"] for n in peers)
        if pageset.titles and not args.ours_only:
            result["titles"] = {n: title_accuracy(s, pageset) for n, s in TITLES.items()}
            print(f"titles, exact match ({len(pageset.titles)} pages): "
                  + ", ".join(f"{n} {v:.2f}" for n, v in result["titles"].items()))
        if args.steps:
            step_reports[pageset.name] = step_report(pageset, preds[OURS])
            result["steps"] = step_reports[pageset.name]
            print_steps({pageset.name: step_reports[pageset.name]}, {pageset.name: result[OURS]})
        if args.json:
            args.json.write_text(json.dumps(report, indent=2), encoding="utf-8")
    if len(step_reports) > 1:
        print_steps(step_reports, {name: report[name][OURS] for name in step_reports})
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
