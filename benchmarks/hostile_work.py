"""Hostile work: bodies within the 512 KiB response limit whose reading costs far more
than their size, served on loopback, against web_fetch and a Light search.

For each case: the outcome (an error code, ``text``, or a search's stop reason), its wall
time against its deadline (the longest of ``--rounds`` calls), the peak RSS of the main
process and of the worker processes (the extraction pool's, sampled every 20 ms), the
longest the event loop was late while the hostile call ran (a probe that sleeps 5 ms and
notes how late it wakes: what the loop spent in one piece of work; on a busy machine the
scheduler adds its own delay, so the same probe around the unrelated call alone is
reported beside it), and the median wall
time of an unrelated call started 0.2 s after each hostile call, divided by its median
time alone (three runs before, one after each round). The unrelated call is an offline
Light search, or, for the cases of work on the event loop (``beside`` ``fetch``), another
client's web_fetch of a small page.

Each case runs in a fresh process (peak RSS is per process) with default settings. The
bombs are built once, here (tests/bombs.py), and handed to the case process as files, so
``--python`` can run the very same cases against another install of lightsearch (a
checkout of main in its own venv) for a before/after table in one run:

    python benchmarks/hostile_work.py
    python benchmarks/hostile_work.py --python /tmp/main-venv/bin/python --cases fetch-cmap,two-fetches
    python benchmarks/hostile_work.py --json
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
HOST = "bombs.bench.test"
WORLD = ("hostile.bench.test", "healthy.bench.test")
QUERY = "photosynthesis calvin cycle"  # the unrelated search, over the offline catalog
TOPIC = "glacier moraine sediment"  # the hostile search's
# case -> (kind, bombs it reads)
CASES: dict[str, tuple[str, list[str]]] = {
    "fetch-cmap-pdf": ("fetch", ["cmap.pdf"]),
    "fetch-3000-pages-pdf": ("fetch", ["pages.pdf"]),
    "fetch-nested-pdf": ("fetch", ["nested.pdf"]),
    "fetch-50k-paragraphs": ("fetch", ["paragraphs"]),
    "fetch-100k-deep-html": ("fetch", ["deep"]),
    "fetch-20k-links": ("fetch", ["links"]),
    "fetch-50k-item-feed": ("fetch", ["feed"]),
    "fetch-50k-entry-sitemap": ("fetch", ["sitemap"]),
    "fetch-many-5-cmap-pdfs": ("fetch_many", ["cmap.pdf"] * 5),
    "fetch-many-5-bombs": ("fetch_many", ["paragraphs", "cmap.pdf", "links", "pages.pdf", "feed"]),
    "two-fetches-50k-paragraphs": ("two_fetches", ["paragraphs", "paragraphs"]),
    "search-hostile-site": ("search", []),
    # Small bodies whose reading could hold the event loop: each beside another client's fetch.
    "fetch-many-5-robots-500k-behind-5-redirects": ("robots", ["wildcards.robots"]),
    "search-nested-nav-home-32k": ("world", ["nav.html"]),
    "search-5-entity-tree-feeds": ("world", ["laughs.xml"]),
    "engine-ddg-lite-14k-links": ("engine", ["lite.html"]),
    "engine-hn-2mib-nested-json": ("engine", ["nested.json"]),
}
# The cases whose unrelated call is another client's fetch, not a search.
FETCH_BESIDE = {"robots", "world", "engine"}
ENGINE_OF = {"lite.html": "ddg_lite", "nested.json": "hn"}


# ---------------------------------------------------------------------------- the bombs (this tree)
def write_bombs(folder: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from tests import bombs

    built = {"cmap.pdf": bombs.cmap_pdf(), "pages.pdf": bombs.many_pages_pdf(), "nested.pdf": bombs.nested_pdf(),
             "paragraphs": bombs.paragraphs_html(), "deep": bombs.deep_html(), "links": bombs.links_html(),
             "feed": bombs.feed_xml(), "sitemap": bombs.sitemap_xml(), "wildcards.robots": bombs.robots_wildcards(),
             "nav.html": bombs.nested_nav_home(), "laughs.xml": bombs.entity_tree_feed(),
             "lite.html": bombs.ddg_lite_links(), "nested.json": bombs.nested_json()}
    manifest = {}
    for name, (body, ctype) in built.items():
        (folder / name).write_bytes(body)
        manifest[name] = ctype
    (folder / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")


# ---------------------------------------------------------------------------- one case (any install)
def _status(pid: int | str, field: str) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError):
        pass
    return 0


def _children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii") as fh:
                    if int(fh.read().rsplit(") ", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


class Sampler:
    """Peak RSS of the pool's workers: the fork server's children, every 20 ms."""

    def __init__(self) -> None:
        self.worker_peak = 0
        self.workers_seen: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        me = os.getpid()
        while not self._stop.is_set():
            for child in _children(me):
                for worker in _children(child):  # the fork server's children are the workers
                    self.workers_seen.add(worker)
                    self.worker_peak = max(self.worker_peak, _status(worker, "VmRSS"))
            time.sleep(0.02)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class LagProbe:
    """How late the event loop wakes a task that sleeps 5 ms, at worst, while it runs."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._task: asyncio.Task[None] | None = None

    async def _run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(0.005)
            self.worst = max(self.worst, time.monotonic() - asked - 0.005)

    def __enter__(self) -> LagProbe:
        self._task = asyncio.ensure_future(self._run())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


async def _timed(coro: Any) -> tuple[float, str, Any]:
    from lightsearch.errors import LightSearchError

    started = time.monotonic()
    try:
        value = await coro
        code = value.get("stopReason", "text") if isinstance(value, dict) else "text"
        if isinstance(value, dict) and "results" in value:
            codes = sorted({r["error"]["code"] if "error" in r else "text" for r in value["results"]})
            code = "+".join(codes)
    except LightSearchError as exc:
        code, value = exc.code, exc.details
    return time.monotonic() - started, code, value


async def run_case(name: str, folder: Path, rounds: int) -> dict[str, Any]:
    from lightsearch import LightSearch
    from lightsearch.cache import clear_process_caches
    from lightsearch.offline_origins.server import OfflineOrigins
    from lightsearch.providers.fetch import WebFetch

    kind, names = CASES[name]
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    robots = {"body": "User-agent: *\nAllow: /\n", "type": "text/plain"}
    routes = {"/robots.txt": robots, **{f"/{n}": {"body": (folder / n).read_bytes(), "type": manifest[n]}
                                        for n in manifest}}
    routes["/plain"] = {"body": b"<!doctype html><html><head><title>Plain</title></head><body><article><h1>Plain"
                        b"</h1>" + b"<p>A small page another client reads, a few words long.</p>" * 5
                        + b"</article></body></html>"}
    replay = None
    with OfflineOrigins() as origins:
        origins.add_site(HOST, routes)
        settings = {**origins.settings(), "LOG_LEVEL": "ERROR"}
        if kind == "search":
            settings.update(_world(origins, folder, manifest, robots))
        elif kind == "world":
            settings.update(_small_world(origins, folder, names[0], robots))
        elif kind == "robots":
            _robots_sites(origins, (folder / names[0]).read_bytes())
            settings = {**origins.settings(), "LOG_LEVEL": "ERROR"}
        elif kind == "engine":
            replay = _engine_replay(folder / names[0], manifest[names[0]], ENGINE_OF[names[0]])
        fetcher = WebFetch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})
        unrelated = LightSearch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})
        other = WebFetch.from_settings({**origins.settings(), "LOG_LEVEL": "ERROR"})  # another client

        def unrelated_call() -> Any:
            if kind in FETCH_BESIDE:
                return other.fetch(f"https://{HOST}/plain")
            return unrelated.search(QUERY)

        alone_lags: list[float] = []

        async def search_alone() -> float:
            clear_process_caches()
            with LagProbe() as probe:
                elapsed, _, _ = await _timed(unrelated_call())
            alone_lags.append(probe.worst)
            return elapsed

        await search_alone()  # warm: imports, the pool's workers, TLS
        alone_times = [await search_alone() for _ in range(3)]
        base_rss = _status("self", "VmHWM")
        urls = [f"https://{HOST}/{n}?{i}" for i, n in enumerate(names)]
        if kind == "fetch":
            hostile = [lambda: fetcher.fetch(urls[0])]
            deadline = float(fetcher.settings.getfloat("WEB_FETCH_DEADLINE_SECS"))
        elif kind == "fetch_many":
            hostile = [lambda: fetcher.fetch_many(urls)]
            deadline = float(fetcher.settings.getfloat("WEB_FETCH_DEADLINE_SECS"))
        elif kind == "two_fetches":
            hostile = [lambda u=u: fetcher.fetch(u) for u in urls]
            deadline = float(fetcher.settings.getfloat("WEB_FETCH_DEADLINE_SECS"))
        elif kind == "robots":
            robots_urls = [f"https://robots-{i}.bench.test/page" for i in range(5)]

            def fetched_many() -> Any:
                clear_process_caches()  # the robots.txt is read again every round
                return fetcher.fetch_many(robots_urls)

            hostile = [fetched_many]
            deadline = float(fetcher.settings.getfloat("WEB_FETCH_DEADLINE_SECS"))
        elif kind == "engine":
            from lightsearch.providers import load_provider

            assert replay is not None
            engines = load_provider({**replay.settings(), "WEB_SEARCH_PROVIDER": ENGINE_OF[names[0]],
                                     "WEB_SEARCH_CACHE": None, "WEB_SEARCH_SUSPENSION": None,
                                     "LOG_LEVEL": "ERROR"}, environ={})
            hostile = [lambda: engines.search("glacier moraine")]
            deadline = float(engines.settings.getfloat("WEB_SEARCH_DEADLINE_SECS"))
            from lightsearch.providers.apiclient import tls_context

            tls_context(engines.settings.get("WEB_SEARCH_TLS_CA_FILE"))  # its trust store is loaded once, not in a round
        else:
            engine = LightSearch.from_settings(settings)

            def searched() -> Any:
                clear_process_caches()  # the hostile site is read again every round
                return engine.search(TOPIC)

            hostile = [searched]
            deadline = float(engine.settings.getfloat("LIGHT_DEADLINE_SECS"))
        besides, walls, lags = [], [], []
        with Sampler() as sampler:
            for _ in range(rounds):
                with LagProbe() as probe:
                    tasks = [asyncio.ensure_future(_timed(c())) for c in hostile]
                    await asyncio.sleep(0.2)
                    clear_process_caches()
                    beside, beside_code, _ = await _timed(unrelated_call())
                    besides.append(beside)
                    outcomes = await asyncio.gather(*tasks)
                walls.append(max(o[0] for o in outcomes))
                lags.append(probe.worst)
                alone_times.append(await search_alone())  # between rounds: the load drifts
        alone = statistics.median(alone_times)
        beside = statistics.median(besides)
    if replay is not None:
        replay.stop()
    return {
        "case": name, "outcome": ",".join(o[1] for o in outcomes),
        "reason": next((str(o[2].get("reason")) for o in outcomes if isinstance(o[2], dict) and o[2].get("reason")),
                       ""),
        "wall_s": round(max(walls), 2), "deadline_s": deadline, "rounds": rounds,
        "past_deadline_1s": max(walls) > deadline + 1.0,
        "main_base_mib": base_rss, "main_peak_mib": _status("self", "VmHWM"),
        "worker_peak_mib": sampler.worker_peak, "workers_seen": len(sampler.workers_seen),
        "loop_lag_ms": round(max(lags) * 1000), "loop_lag_alone_ms": round(max(alone_lags) * 1000),
        "beside": "fetch" if kind in FETCH_BESIDE else "search",
        "search_alone_s": round(alone, 2), "search_beside_s": round(beside, 2), "search_beside": beside_code,
        "search_ratio": round(beside / alone, 2),
    }


def _world(origins: Any, folder: Path, manifest: dict[str, str], robots: dict[str, str]) -> dict[str, Any]:
    """A Light world: a hostile source (20,000-link home page, 50,000-entry sitemap,
    50,000-item feed, its answer a 50,000-paragraph page) and a healthy one."""
    hostile, healthy = WORLD
    home = (folder / "links").read_bytes().replace(
        b"<body>", b'<body><a href="/glacier-moraine">glacier moraine sediment</a>', 1)
    page = (b"<!doctype html><html lang='en'><head><title>Glacier moraine sediment notes</title></head><body>"
            b"<article><h1>Glacier moraine sediment notes</h1>"
            + b"<p>Notes on glacier moraine sediment, measured in the field over three summers.</p>" * 5
            + b"</article></body></html>")
    origins.add_site(hostile, {
        "/robots.txt": robots, "/": {"body": home},
        "/glacier-moraine": {"body": (folder / "paragraphs").read_bytes(), "type": manifest["paragraphs"]},
        "/sitemap.xml": {"body": (folder / "sitemap").read_bytes(), "type": "application/xml"},
        "/feed.xml": {"body": (folder / "feed").read_bytes(), "type": "application/rss+xml"},
    })
    origins.add_site(healthy, {
        "/robots.txt": robots,
        "/": {"body": b"<!doctype html><html><body><a href='/moraine'>glacier moraine sediment notes</a></body></html>"},
        "/moraine": {"body": page},
    })
    catalog = {"id": "bench-hostile", "version": "1", "sources": [
        {"id": "hostile", "name": "Hostile", "language": "en", "kind": "news", "origins": [f"https://{hostile}"],
         "seeds": [f"https://{hostile}/"], "sitemaps": [f"https://{hostile}/sitemap.xml"],
         "feeds": [f"https://{hostile}/feed.xml"]},
        {"id": "healthy", "name": "Healthy", "language": "en", "kind": "news", "origins": [f"https://{healthy}"],
         "seeds": [f"https://{healthy}/"]},
    ]}
    path = folder / "catalog.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    target = {"http": f"127.0.0.1:{origins.http_port}", "https": f"127.0.0.1:{origins.https_port}"}
    return {"LIGHT_CATALOG": str(path), "LIGHT_HOST_MAP": {h: target for h in origins.sites}}


def _small_world(origins: Any, folder: Path, bomb: str, robots: dict[str, str]) -> dict[str, Any]:
    """A Light world of a healthy source and a hostile one whose home page (``nav.html``)
    or five feeds (``laughs.xml``) are small and cost far more than their size to read."""
    hostile, healthy = WORLD
    body = (folder / bomb).read_bytes()
    article = (b"<!doctype html><html lang='en'><head><title>Glacier moraine sediment notes</title></head><body>"
               b"<article><h1>Glacier moraine sediment notes</h1>"
               + b"<p>Notes on glacier moraine sediment, measured in the field over three summers.</p>" * 5
               + b"</article></body></html>")
    routes: dict[str, Any] = {"/robots.txt": robots, "/glacier-moraine": {"body": article}}
    source: dict[str, Any] = {"id": "hostile", "name": "Hostile", "language": "en", "kind": "news",
                              "origins": [f"https://{hostile}"], "seeds": [f"https://{hostile}/"]}
    if bomb == "nav.html":
        routes["/"] = {"body": body}
    else:
        routes["/"] = {"body": b"<!doctype html><html><body><p>Field notes.</p></body></html>"}
        source["feeds"] = [f"https://{hostile}/feed{i}.xml" for i in range(5)]
        routes.update({f"/feed{i}.xml": {"body": body, "type": "application/rss+xml"} for i in range(5)})
    origins.add_site(hostile, routes)
    origins.add_site(healthy, {
        "/robots.txt": robots,
        "/": {"body": b"<!doctype html><html><body><a href='/moraine'>glacier moraine sediment notes</a></body></html>"},
        "/moraine": {"body": article},
    })
    catalog = {"id": "bench-hostile", "version": "1", "sources": [source, {
        "id": "healthy", "name": "Healthy", "language": "en", "kind": "news", "origins": [f"https://{healthy}"],
        "seeds": [f"https://{healthy}/"]}]}
    path = folder / f"catalog-{bomb}.json"
    path.write_text(json.dumps(catalog), encoding="utf-8")
    target = {"http": f"127.0.0.1:{origins.http_port}", "https": f"127.0.0.1:{origins.https_port}"}
    return {"LIGHT_CATALOG": str(path), "LIGHT_HOST_MAP": {h: target for h in origins.sites}}


def _robots_sites(origins: Any, robots: bytes) -> None:
    """Five hosts whose robots.txt is ``robots``, behind five redirects."""
    for i in range(5):
        routes: dict[str, Any] = {"/robots.txt": {"redirect": "/r1"}, "/r5": {"body": robots, "type": "text/plain"},
                                  "/page": {"body": b"<html><body><p>a page</p></body></html>"}}
        routes.update({f"/r{n}": {"redirect": f"/r{n + 1}"} for n in range(1, 5)})
        origins.add_site(f"robots-{i}.bench.test", routes)


def _engine_replay(body: Path, ctype: str, engine: str) -> Any:
    """The engines' loopback stand-in, answering ``engine`` with ``body`` every time."""
    from lightsearch.offline_origins.engine_replay import EngineReplay

    shared = Path(os.environ.get("LIGHTSEARCH_SHARED_DATA", ROOT.parent / "shared" / "data"))
    replay = EngineReplay(shared / "search-provider-responses").start()
    replay.script(engine, repeat=True, body=body.read_bytes(), headers={"Content-Type": ctype})
    return replay


# ---------------------------------------------------------------------------- the table
COLUMNS = ["case", "outcome", "reason", "wall_s", "deadline_s", "past_deadline_1s", "main_base_mib",
           "main_peak_mib", "worker_peak_mib", "loop_lag_ms", "loop_lag_alone_ms", "beside", "search_alone_s", "search_beside_s",
           "search_ratio"]


def run_child(python: str, name: str, folder: Path, rounds: int, timeout: float) -> dict[str, Any]:
    """One case in a fresh process of ``python``: its row, or why there is none."""
    try:
        done = subprocess.run([python, str(Path(__file__).resolve()), "--child", name, "--bombs", str(folder),
                               "--rounds", str(rounds)],
                              capture_output=True, text=True, cwd=tempfile.gettempdir(), timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"case": name, "python": python, "outcome": "timed out", "reason": f"over {timeout:g} s"}
    if done.returncode != 0:
        return {"case": name, "python": python, "outcome": "crashed",
                "reason": done.stderr.strip().splitlines()[-1][:80] if done.stderr.strip() else ""}
    return {**json.loads(done.stdout.strip().splitlines()[-1]), "python": python}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", action="append", default=None,
                        help="run the cases with this interpreter (repeat to compare installs); default: this one")
    parser.add_argument("--cases", default=None, help="comma-separated case names (default: all)")
    parser.add_argument("--json", action="store_true", help="print JSON rows instead of a table")
    parser.add_argument("--rounds", type=int, default=3,
                        help="hostile calls per case, each with an unrelated search beside it (medians reported)")
    parser.add_argument("--case-timeout", type=float, default=900.0,
                        help="seconds one case may take in one install before it is reported as timed out")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--bombs", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(asyncio.run(run_case(args.child, args.bombs, args.rounds))), flush=True)
        return 0
    names = args.cases.split(",") if args.cases else list(CASES)
    pythons = args.python or [sys.executable]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_bombs(folder)
        for name in names:
            for python in pythons:  # interleaved: the machine's load falls on both alike
                rows.append(run_child(python, name, folder, args.rounds, args.case_timeout))
                print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # as it comes: a long run keeps its rows
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    cols = COLUMNS + (["python"] if len(pythons) > 1 else [])
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        print("| " + " | ".join(str(row.get(c, "")) for c in cols) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
