"""The worst case of every parse that may run in the event loop's process, by body size.

A body of at most ``SMALL_BODY_BYTES`` is parsed where it arrives (lightsearch/isolation/
apart.py) by a parser whose work is capped; this measures what the most hostile shapes
of a given size cost those parsers, so the threshold is chosen from figures, not hopes:
for each parser and size, the CPU time of the worst shape (best of ``--repeat`` runs of
each, ``time.process_time``, so a busy machine inflates it less than wall time), and the
shape that was worst.

    python benchmarks/loop_parsers.py                        # 4, 8, 16 and 32 KiB
    python benchmarks/loop_parsers.py --sizes 8192 --repeat 9 --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable
from typing import Any

AGENTS = frozenset({"lightbot", "lightsearch"})
BASE = "https://bench.test/dir/page.html"


def _fill(unit: str, size: int, head: str = "", tail: str = "") -> str:
    return head + unit * max(0, (size - len(head) - len(tail)) // len(unit)) + tail


def _numbered(template: str, size: int, head: str = "", tail: str = "") -> str:
    parts, used, i = [head], len(head) + len(tail), 0
    while True:
        part = template.format(i=i)
        if used + len(part) > size:
            break
        parts.append(part)
        used += len(part)
        i += 1
    return "".join(parts) + tail


def page_shapes(size: int) -> dict[str, str]:
    body = ("<html><body>", "</body></html>")
    return {
        "flat paragraphs": _fill("<p>", size, *body),
        "unique links": _numbered("<a href=/{i}>x</a>", size, *body),
        "one link repeated": _fill("<a href=/x>x</a>", size, *body),
        "links in navigation": _numbered("<a href=/n{i}>n</a>", size, "<html><body><nav>", "</nav></body></html>"),
        "nested navigation": _fill("<nav>", size // 2, "<html><body>")
        + _numbered('<a href="/p{i}">l{i}</a>', size // 2),
        "anchors in anchors": _numbered("<a href=/{i}>t", size, *body),
        "meta tags": _fill('<meta name=robots content=x>', size, "<html><head>", "</head></html>"),
        "feed links": _fill('<link rel="alternate next" type=application/rss+xml href=/f>', size, "<html><head>"),
        "text in one anchor": _fill("<i>w</i>", size, "<html><body><a href=/x>"),
    }


def sitemap_shapes(size: int) -> dict[str, bytes]:
    head, tail = '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', "</urlset>"
    return {
        "empty entries": _fill("<url/>", size, head, tail).encode(),
        "short locations": _numbered("<url><loc>/{i}</loc></url>", size, head, tail).encode(),
        "alternate links": _fill('<link href="/b"/>', size, head + "<url><loc>/a</loc>", "</url>" + tail).encode(),
        "children of one entry": _fill("<x/>", size, head + "<url>", "</url>" + tail).encode(),
    }


def robots_shapes(size: int) -> dict[str, bytes]:
    return {
        "wildcard rules": _numbered("Disallow: /*a{i}*b$\n", size, "User-agent: *\n").encode(),
        "plain rules": _numbered("Disallow: /a{i}\n", size, "User-agent: *\n").encode(),
        "groups for other crawlers": _numbered("User-agent: b{i}\nDisallow: /x\n", size).encode(),
        "empty lines": _fill("\n", size).encode(),
        "junk lines": _fill("a\n", size).encode(),
        "sitemaps": _numbered("Sitemap: https://bench.test/s{i}.xml\n", size).encode(),
    }


def digest_shapes(_size: int) -> dict[str, str]:
    """Digests at their bounds (500 rules, 64 KiB), whatever the body's size was: protego
    parses one here for every robots.txt read."""
    head = "User-agent: lightbot\n"
    return {
        "500 wildcard rules ending in $": head + "".join(f"Disallow: /*a{i}*b{i}*c$\n" for i in range(500)),
        "500 plain rules": head + "".join(f"Disallow: /a{i}\n" for i in range(500)),
        "500 rules of 120 characters": head + "".join(f"Disallow: /{'x' * 110}{i}*\n" for i in range(500)),
    }


def json_shapes(size: int) -> dict[str, bytes]:
    return {
        "nested small arrays": ("[" + ",".join(["[[[[[[[[[[]]]]]]]]]]"] * (size // 21)) + "]").encode(),
        "empty objects": ("[" + ",".join(["{}"] * (size // 3)) + "]").encode(),
        "zeros": ("[" + ",".join(["0"] * (size // 2)) + "]").encode(),
        "object keys": _numbered('"k{i}":0,', size - 10, '{', '"z":0}').encode(),
        "results of an engine": ('{"hits":[' + ",".join(['{"title":"a b","url":"https://h.test/x"}'] * (size // 42))
                                 + "]}").encode(),
    }


def serp_shapes(size: int) -> dict[str, str]:
    lite_row = ("<tr><td><a href='//duckduckgo.com/l/?uddg=https%3A%2F%2Fr{i}.test' class='result-link'>t</a>"
                "</td></tr><tr><td class='result-snippet'>s</td></tr>")
    block = '<div class="result"><a class="result__a" href="https://h.test/{i}">T</a><a class="result__snippet">S</a>'
    return {
        "lite links": _numbered(lite_row, size, "<html><body><table>", "</table></body></html>"),
        "html nested blocks": _numbered(block, size, "<html><body><div id=links>"),
        "html flat blocks": _numbered(block + "</div>", size, "<html><body><div id=links>"),
        "flat paragraphs": _fill("<p>", size, "<html><body>"),
    }


def parsers() -> dict[str, tuple[Callable[[int], dict[str, Any]], Callable[[Any], Any]]]:
    from protego import Protego

    from lightsearch.documents.boundedjson import load_bounded
    from lightsearch.documents.pagescan import scan_page
    from lightsearch.documents.robots_digest import digest_robots
    from lightsearch.documents.serp import read_ddg
    from lightsearch.documents.sitemaps import read_sitemap

    return {
        "page (pagescan)": (page_shapes, lambda body: scan_page(body, BASE, AGENTS)),
        "sitemap": (sitemap_shapes, lambda body: read_sitemap(body, BASE, max_entries=2000)),
        "robots.txt (digest)": (robots_shapes, lambda body: digest_robots(body, "lightbot")),
        "protego on a digest": (digest_shapes, lambda text: Protego.parse(text)),
        "engine JSON (bounded)": (json_shapes, load_bounded),
        "DuckDuckGo page": (serp_shapes, lambda body: read_ddg(body, lite="lite" in str(body[:200]))),
    }


def cpu_ms(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="4096,8192,16384,32768", help="comma-separated body sizes in bytes")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each shape; the best is kept")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for name, (shapes, parse) in parsers().items():
        for size in sizes[:1] if shapes is digest_shapes else sizes:
            timings = {shape: cpu_ms(lambda body=body, parse=parse: parse(body), args.repeat)
                       for shape, body in shapes(size).items()}
            worst = max(timings, key=timings.get)
            rows.append({"parser": name, "bytes": "a digest" if shapes is digest_shapes else size,
                         "worst_ms": round(timings[worst], 2), "worst_shape": worst,
                         "median_shape_ms": round(sorted(timings.values())[len(timings) // 2], 2)})
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print("| parser | body bytes | worst CPU ms | worst shape | median shape ms |")
    print("|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['parser']} | {row['bytes']} | {row['worst_ms']} | {row['worst_shape']} | "
              f"{row['median_shape_ms']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
