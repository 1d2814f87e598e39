"""The cost of cleaning what web_fetch returns, on the event loop: one window of
``--max-chars`` characters of the densest hostile link shapes and of plain prose, cut at the
link bound and cleaned (refused links made text, fence look-alikes neutralised), as
``providers/fetch.py`` does. CPU time of this process (the machine's other load does not
count), best of ``--runs``, with the guard's verdict cache cleared before each run.

    python benchmarks/links.py
    python benchmarks/links.py --max-chars 8000
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lightsearch.evidence import outbound_links as links  # noqa: E402
from lightsearch.evidence.hygiene import handed_out  # noqa: E402
from lightsearch.providers.fetch import window_text  # noqa: E402

PAGE = "https://a.example/page"


def shapes(size: int) -> dict[str, str]:
    def fill(unit: str) -> str:
        return (unit * (size // len(unit) + 1))[:size]

    return {
        "links to distinct hosts": "".join(f"[l](https://h{i}.example/) " for i in range(size // 20))[:size],
        "refused links": fill("[l](http://127.0.0.1:6379/) "),
        "refused links, distinct hosts": "".join(f"[l](http://10.0.{i // 250}.{i % 250}/) "
                                                 for i in range(size // 20))[:size],
        "bare refused URLs": fill("see http://127.0.0.1:6379/ "),
        "entity-coded bare URLs": fill("http&#58;//127.0.0.1/ "),
        "refused href attributes": fill('<a href="javascript:x">y</a> '),
        "runs of ](": fill("]("),
        "runs of [](javascript:": fill("[](javascript:x)"),
        "plain prose": fill("The harbour tide tables are computed from harmonic constants, at 10:30; "),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-chars", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=4)
    opts = parser.parse_args()
    print("| shape | window chars | next start | CPU ms |")
    print("| --- | --- | --- | --- |")
    for name, text in shapes(opts.max_chars).items():
        best, window = float("inf"), {}
        for _ in range(opts.runs):
            links._VERDICTS.clear()
            judge = links.LinkJudge(base=PAGE)
            started = time.process_time()
            window = window_text(text, opts.max_chars, 0, clean=lambda part, j=judge: handed_out(part, j),
                                 bounds=(links.links_end, links.links_start))
            best = min(best, time.process_time() - started)
        print(f"| {name} | {len(window['content'])} | {window['nextStartIndex']} | {best * 1000:.1f} |")


if __name__ == "__main__":
    main()
