"""PDF benchmark: web_fetch's PDF reader on real PDFs of many producers.

The files are py-pdf's sample-files collection (https://github.com/py-pdf/sample-files,
CC-BY-SA-4.0: pdfTeX, LibreOffice, Google Docs, ReportLab, ImageMagick, pdfkit, Arabic
CMaps, PDF/A, encrypted), read from a checkout at run time, never copied into the
project. Its ``files.json`` states each file's page count, creation date and whether it
is encrypted; this script checks web_fetch's reader against those facts and reports
milliseconds per file (p50/max) and per page.

    git clone https://github.com/py-pdf/sample-files /tmp/pdfsamples
    python benchmarks/pdf.py --samples /tmp/pdfsamples
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from lightsearch.documents.html_extract import ExtractionError  # noqa: E402
from lightsearch.documents.pdf import read_pdf  # noqa: E402
from lightsearch.timestamps import utc_stamp  # noqa: E402


def _utc(value: str | None) -> str | None:
    if not value:
        return None
    return utc_stamp(datetime.fromisoformat(value))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=Path, required=True, help="a checkout of py-pdf/sample-files")
    parser.add_argument("--max-pages", type=int, default=200)
    args = parser.parse_args(argv)
    facts = json.loads((args.samples / "files.json").read_text("utf-8"))["data"]
    rows, times, per_page = [], [], []
    pages_ok = dates_ok = dated = text_ok = expected_text = 0
    for fact in facts:
        path = args.samples / fact["path"]
        if not path.exists():
            rows.append((fact["path"], "absent", "", "", ""))
            continue
        body = path.read_bytes()
        started = time.perf_counter()
        try:
            doc = read_pdf(body, max_pages=args.max_pages)
            outcome, pages, chars = "text", doc.pages, len(doc.text)
            date = doc.published_at
        except ExtractionError as exc:
            outcome, pages, chars, date = f"{exc.code}:{exc.details.get('reason', exc.details.get('exception'))}", \
                None, 0, None
        ms = (time.perf_counter() - started) * 1000
        times.append(ms)
        if pages:
            per_page.append(ms / pages)
        if fact.get("encrypted"):
            ok = outcome == "extraction_failed:encrypted" or outcome == "text"
        else:
            expected_text += 1
            ok = outcome == "text"
        text_ok += ok and not fact.get("encrypted")
        if pages is not None:
            pages_ok += pages == fact.get("pages")
        # files.json writes some dates without their offset; only those with one are an instant
        stated = fact.get("creation_date")
        if stated and outcome == "text" and datetime.fromisoformat(stated).tzinfo is not None:
            dated += 1
            dates_ok += date == _utc(stated)
        rows.append((fact["path"], outcome, f"{pages}/{fact.get('pages')}", str(chars), f"{ms:.1f}"))
    width = max(len(r[0]) for r in rows)
    print(f"{'file':<{width}}  {'outcome':<32} {'pages':>9} {'chars':>8} {'ms':>8}")
    for r in rows:
        print(f"{r[0]:<{width}}  {r[1]:<32} {r[2]:>9} {r[3]:>8} {r[4]:>8}")
    read = sum(1 for r in rows if r[1] == "text")
    print(f"\nfiles {len(rows)}, read as text {read}, unencrypted read {text_ok}/{expected_text}, "
          f"page count right {pages_ok}/{read}, creation date right {dates_ok}/{dated} "
          "(of those files.json states with an offset)")
    if times:
        print(f"ms per file p50 {statistics.median(times):.1f} max {max(times):.1f}; "
              f"ms per page p50 {statistics.median(per_page):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
