"""Why the ranking scores BM25 itself rather than through rank-bm25 (docs/DESIGN_CHANGES.md).

Two measurements on Cranfield's abstracts, tokenized as the ranking tokenizes a page:

- the idf: on small corpora (a few documents, as a search's sources and pages can be), how
  many of a query's terms rank-bm25's Okapi idf puts at zero or below (its epsilon floor
  then replaces them), and how many queries score every document 0;
- the time: building the model and scoring one query, rank-bm25's ``BM25Okapi`` (numpy,
  every document visited per query term) against ``ranking/bm25.py`` (postings of the
  asked terms), over N documents, median of the queries; and numpy's import, which
  rank-bm25 would add to every start.

CPU time of this process, so the machine's other load counts less, but it still counts.

    LIGHTSEARCH_SHARED_DATA=/path/to/shared/data python benchmarks/bm25_reference.py
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lightsearch.ranking.bm25 import LuceneBM25  # noqa: E402
from lightsearch.ranking.tokenize import tokenize  # noqa: E402


def records(path: Path) -> list[str]:
    """The ``.W`` texts of a Cranfield file, in order."""
    out = []
    for chunk in re.split(r"^\.I ", path.read_text("utf-8", "replace"), flags=re.M)[1:]:
        text = chunk.split("\n.W", 1)[1] if "\n.W" in chunk else ""
        out.append(" ".join(text.split()))
    return out


def cpu_ms(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=os.environ.get("LIGHTSEARCH_SHARED_DATA", ROOT.parent / "shared" / "data"))
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    import rank_bm25

    folder = Path(args.data) / "ir-cranfield"
    docs = [tokenize(t) for t in records(folder / "cran.all.1400")]
    queries = [q for q in (tokenize(t) for t in records(folder / "cran.qry")) if q][: args.queries]
    rng = random.Random(7)

    print("two documents, a term in one of them:",
          "rank-bm25", [float(s) for s in rank_bm25.BM25Okapi([["wing", "flow"], ["heat"]], k1=1.2).get_scores(["wing"])],
          "ours", LuceneBM25([["wing", "flow"], ["heat"]]).get_scores(["wing"]))

    for size in (2, 3, 5, 10, 30):
        floored = present = blind = asked = 0
        for query in queries:
            corpus = rng.sample(docs, size)
            model = rank_bm25.BM25Okapi(corpus, k1=1.2, b=0.75)
            terms = {t for t in query if any(t in d for d in model.doc_freqs)}
            if not terms:
                continue
            asked += 1
            present += len(terms)
            # the Okapi idf before rank-bm25's floor: zero or below means the floor replaced it
            floored += sum(math.log(size - n + 0.5) - math.log(n + 0.5) <= 0
                           for n in (sum(t in d for d in model.doc_freqs) for t in terms))
            blind += not any(model.get_scores(query))
        print(f"{size} documents: rank-bm25's idf was zero or below (floored) for {floored} of {present} "
              f"query terms found; every document scored 0 for {blind} of {asked} queries")

    for size in (50, 400, 1400):
        corpus = docs[:size]
        theirs = statistics.median(cpu_ms(lambda q=q, c=corpus: rank_bm25.BM25Okapi(c, k1=1.2, b=0.75).get_scores(q))
                                   for q in queries)
        ours = statistics.median(cpu_ms(lambda q=q, c=corpus: LuceneBM25(c, vocabulary=q).get_scores(q))
                                 for q in queries)
        ref = rank_bm25.BM25Okapi(corpus, k1=1.2, b=0.75)
        model = LuceneBM25(corpus)
        theirs_q = statistics.median(cpu_ms(lambda q=q, m=ref: m.get_scores(q)) for q in queries)
        ours_q = statistics.median(cpu_ms(lambda q=q, m=model: m.get_scores(q)) for q in queries)
        print(f"N={size}: build + one query: rank-bm25 {theirs:.2f} ms, ours {ours:.2f} ms; "
              f"one more query on a built model: rank-bm25 {theirs_q:.3f} ms, ours {ours_q:.3f} ms")

    cmd = [sys.executable, "-c", "import time; t = time.perf_counter(); import numpy; print(time.perf_counter() - t)"]
    runs = sorted(float(subprocess.run(cmd, capture_output=True, text=True, check=True, timeout=60).stdout)
                  for _ in range(5))
    print(f"import numpy in a fresh process: median {runs[2] * 1000:.0f} ms (of 5)")


if __name__ == "__main__":
    main()
