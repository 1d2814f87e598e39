"""``scrapy evaluate``: run a query set with judgements and report relevance and cost.

With ``--world cranfield`` (or ``heq``) the benchmark world is generated from the
shared test collections, served by the offline origins with simulated latency, and the
oracle and the naive baseline run in the same harness beside Light. With ``--named-site``
each query names its site (``includeDomains``), and the ``adhoc`` run searches it with the
site dropped from the catalog, probed on the spot (evaluation/named_sites.py).
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from scrapy.commands import ScrapyCommand
from scrapy.exceptions import UsageError

from lightsearch.errors import LightSearchError
from lightsearch.surfaces.commands import debug_option, engine_overrides

RUNS = ("light", "oracle", "baseline", "adhoc")
# Departures from the seed's bounds a user may opt into (docs/BOUNDS.md); ``--profiles``
# runs Light with each beside the default, as ``light+NAME``.
PROFILES: dict[str, dict[str, Any]] = {
    "sitemaps12": {"LIGHT_DISCOVERY_MAX_SITEMAPS": 12},
    "mapcache": {"LIGHT_DISCOVERY_CACHE_MAX_RECORDS": 256, "LIGHT_DISCOVERY_CACHE_MAX_BYTES": 8 * 1024 * 1024},
}
BASELINE = {"LIGHT_DISCOVERY_MAX_SITEMAPS": 0, "LIGHT_DISCOVERY_MAX_DEPTH": 1,
            "LIGHT_DISCOVERY_EXPLORE": False}
# Cold mode: nothing survives from one search to the next (no record or robots cache, no
# kept connection): each search is timed as the first of a process.
COLD = {"LIGHT_RECORD_CACHE": None, "LIGHT_ROBOTS_CACHE": None, "LIGHT_KEEP_CONNECTIONS": False}


class Command(ScrapyCommand):
    requires_project = False
    requires_crawler_process = False
    default_settings = {"LOG_LEVEL": "ERROR"}

    def syntax(self) -> str:
        return "[options] (--world NAME | --queries FILE --qrels FILE)"

    def short_desc(self) -> str:
        return "Evaluate search relevance, latency and cost on a judged query set"

    def add_options(self, parser: argparse.ArgumentParser) -> None:
        super().add_options(parser)
        parser.add_argument("--world", choices=("cranfield", "heq"), help="generate and serve a benchmark world")
        parser.add_argument("--shape", default="default",
                            help="lay the world out as sites of another size and structure: default, small, "
                                 "large, titles, shallow, deep (docs/EVALUATION.md)")
        parser.add_argument("--data", help="shared data folder (default: $LIGHTSEARCH_SHARED_DATA or ../shared/data)")
        parser.add_argument("--queries", help="query set, JSONL: id, query, optional recency/language")
        parser.add_argument("--qrels", help="relevance judgements, TREC qrels")
        parser.add_argument("--runs", default="light,oracle,baseline",
                            help="comma-separated runs: light, oracle (needs --world), baseline, adhoc (each "
                                 "query's site dropped from the catalog and probed on the spot; implies "
                                 "--named-site)")
        parser.add_argument("--named-site", action="store_true",
                            help="each query names the site holding most of its judged documents "
                                 "(includeDomains) and is judged on that site's documents (needs --world)")
        parser.add_argument("--summary", default="build",
                            help="source descriptions the runs start from: build (describe the world's "
                                 "sources first, as `lightsearch sources describe` does for a catalog), none, "
                                 "or a summary file (default: build)")
        parser.add_argument("--profiles", default="",
                            help=f"comma-separated opt-in profiles beyond the seed's bounds ({', '.join(PROFILES)}; "
                                 f"docs/BOUNDS.md), each run as light+NAME beside light")
        parser.add_argument("--concurrency", type=int, default=4, help="searches at a time (default 4)")
        parser.add_argument("--max-queries", type=int, default=None, help="only the first N queries")
        parser.add_argument("--max-results", type=int, default=10)
        parser.add_argument("--latency", type=float, default=0.1, help="simulated seconds per request (worlds)")
        parser.add_argument("--jitter", type=float, default=0.05, help="extra random seconds per request")
        parser.add_argument("--bandwidth", type=float, default=0.0, help="simulated bytes/s per response")
        parser.add_argument("--cold", action="store_true",
                            help="each query alone: no record or robots cache shared between searches "
                                 "(default: stream mode, queries in sequence sharing the caches, as a server sees them)")
        parser.add_argument("--out", default="eval-report", help="folder for report.json and report.html")
        debug_option(parser)

    def process_options(self, args: list[str], opts: argparse.Namespace) -> None:
        super().process_options(args, opts)
        runs = [r.strip() for r in opts.runs.split(",") if r.strip()]
        bad = [r for r in runs if r not in RUNS]
        if bad or not runs:
            raise UsageError(f"--runs takes {', '.join(RUNS)}; got {opts.runs!r}", print_help=False)
        if "oracle" in runs and not opts.world:
            raise UsageError("the oracle run needs a --world (it indexes the world's documents)", print_help=False)
        opts.named_site = opts.named_site or "adhoc" in runs
        if opts.named_site and not opts.world:
            raise UsageError("--named-site and the adhoc run need a --world (its sites are named)", print_help=False)
        if opts.named_site and "oracle" in runs:
            raise UsageError("--named-site runs light, adhoc and baseline (the oracle searches no site)",
                             print_help=False)
        if not opts.world and not (opts.queries and opts.qrels):
            raise UsageError("give --world, or --queries and --qrels", print_help=False)
        if opts.concurrency < 1:
            raise UsageError("--concurrency must be at least 1", print_help=False)
        if opts.max_queries is not None and opts.max_queries < 1:
            raise UsageError("--max-queries must be at least 1", print_help=False)
        if opts.shape != "default":
            from lightsearch.offline_origins.worlds import SHAPES

            if opts.shape not in SHAPES:
                raise UsageError(f"--shape takes {', '.join(SHAPES)}; got {opts.shape!r}", print_help=False)
            if not opts.world:
                raise UsageError("--shape lays out a --world", print_help=False)
        profiles = [p.strip() for p in opts.profiles.split(",") if p.strip()]
        unknown = [p for p in profiles if p not in PROFILES]
        if unknown:
            raise UsageError(f"--profiles takes {', '.join(PROFILES)}; got {opts.profiles!r}", print_help=False)
        opts.run_list = runs + [f"light+{p}" for p in profiles]

    def run(self, args: list[str], opts: argparse.Namespace) -> None:
        from lightsearch.surfaces.exits import run_command

        self._check_paths(opts)
        self.exitcode = run_command(lambda: self._run(opts), debug=opts.debug)

    @staticmethod
    def _check_paths(opts: argparse.Namespace) -> None:
        """The files and folder the options name exist (checked when the command runs, so
        that options parse anywhere)."""
        if opts.data is not None and not Path(opts.data).is_dir():
            raise UsageError(f"--data {opts.data}: no such folder (the shared data folder: give its path, or set "
                             "LIGHTSEARCH_SHARED_DATA)", print_help=False)
        for flag, path in (("--queries", opts.queries), ("--qrels", opts.qrels)):
            if path is not None and not Path(path).is_file() and not Path(path).is_char_device():
                raise UsageError(f"{flag} {path}: no such file", print_help=False)

    def _run(self, opts: argparse.Namespace) -> int:
        from lightsearch.surfaces.exits import run_async

        return 0 if run_async(self._evaluate(opts)) else 1

    async def _describe(self, world: Any, overrides: dict[str, Any]) -> None:
        """Describe the world's sources the way an operator describes a catalog, through the
        world's origins, into ``<catalog>.summary.json`` beside the world's catalog: every
        run then starts from it, as a production process starts from the bundled summary."""
        import time

        from lightsearch.cache import clear_process_caches
        from lightsearch.plan.catalog import load_catalog
        from lightsearch.providers.describe import describe_sources, write_summary

        catalog = load_catalog(world.catalog_path)
        started = time.monotonic()
        described = await describe_sources(catalog, overrides)
        write_summary(world.catalog_path.with_suffix(".summary.json"), catalog, described)
        clear_process_caches()
        self.described = {"documents": described.documents, "errors": len(described.errors),
                          "seconds": round(time.monotonic() - started, 1)}
        print(f"described {len(catalog.sources)} sources from {described.documents} discovery documents "
              f"in {self.described['seconds']:g} s ({len(described.errors)} errors)")

    @staticmethod
    def _adhoc(world: Any, overrides: dict[str, Any], opts: argparse.Namespace, tmp: Path) -> tuple[Any, Any]:
        """The adhoc run: one Light per site over the world's catalog without it, the
        world's hosts allowed to be probed on the spot; and the source ids its sites get."""
        from lightsearch.evaluation.named_sites import SiteRouter, catalogs_without, site_of
        from lightsearch.providers.light import LightSearch

        summary = world.catalog_path.with_suffix(".summary.json")
        site_settings = {**overrides, "LIGHT_ADHOC_MAPPED_HOSTS": list(world.hosts),
                         **({"LIGHT_SOURCE_SUMMARY": str(summary)}
                            if opts.summary == "build" and summary.is_file() else {}),
                         **(COLD if opts.cold else {})}
        providers = {host: LightSearch.from_settings({**site_settings, "LIGHT_CATALOG": str(path)})
                     for host, path in catalogs_without(world.catalog_path, tmp).items()}
        return SiteRouter(providers), site_of

    async def _evaluate(self, opts: argparse.Namespace) -> dict[str, Any]:
        from lightsearch.cache import clear_process_caches
        from lightsearch.config import make_settings
        from lightsearch.evaluation.harness import Progress, run_queries, summarize, throughput
        from lightsearch.evaluation.oracle import OracleProvider
        from lightsearch.evaluation.qrels import read_qrels, read_queries
        from lightsearch.evaluation.report import format_table, write_reports
        from lightsearch.plan.catalog import load_catalog
        from lightsearch.providers.light import LightSearch

        assert self.settings is not None
        overrides: dict[str, Any] = {
            k: v for k, v in engine_overrides(self.settings).items() if k.startswith(("LIGHT_", "WEB_RETRIEVAL_"))
        }
        origins = world = None
        tmp = tempfile.TemporaryDirectory(prefix="lightsearch-world-")
        try:
            if opts.world:
                from lightsearch.offline_origins import worlds
                from lightsearch.offline_origins.server import OfflineOrigins

                data = Path(opts.data) if opts.data else None
                build = worlds.build_cranfield_world if opts.world == "cranfield" else worlds.build_heq_world
                try:
                    world = build(Path(tmp.name), data, shape=opts.shape)
                except FileNotFoundError as exc:
                    raise LightSearchError("invalid_input", f"--world {opts.world}: its collection is not in the "
                                           f"shared data folder ({exc})", {"parameter": "--data"}) from None
                origins = OfflineOrigins(world.sites_dir, latency=opts.latency, jitter=opts.jitter,
                                         bandwidth=opts.bandwidth).start()
                overrides.update(origins.settings())
                overrides["LIGHT_CATALOG"] = str(world.catalog_path)
                queries, qrels = world.queries, world.qrels
                if opts.summary == "build":
                    await self._describe(world, overrides)
                if opts.named_site:
                    from lightsearch.evaluation.named_sites import name_sites

                    queries, qrels = name_sites(queries, qrels, world.hosts)
            else:
                queries, qrels = [], {}
            if opts.summary == "none":
                overrides["LIGHT_SOURCE_SUMMARY"] = ""
            elif opts.summary != "build":
                overrides["LIGHT_SOURCE_SUMMARY"] = opts.summary
            if opts.queries:
                queries = read_queries(opts.queries)
            if opts.qrels:
                qrels = read_qrels(opts.qrels)
            if opts.max_queries:
                queries = queries[: opts.max_queries]
            if not queries:
                raise LightSearchError("invalid_input", f"the query set {opts.queries or opts.world} holds no "
                                       "queries: there is nothing to evaluate", {"parameter": "--queries"})
            if not any(qrels.get(str(q["id"])) for q in queries):
                raise LightSearchError("invalid_input", f"the judgements {opts.qrels or opts.world} judge none of "
                                       "the queries: every score would be 0", {"parameter": "--qrels"})
            summaries: dict[str, Any] = {}
            all_runs = {}
            bounds = make_settings(overrides)
            source_of = None
            if world is not None:
                catalog = load_catalog(world.catalog_path)

                def source_of(url: str) -> str | None:
                    source = catalog.source_for(url)
                    return source.id if source else None
            for name in opts.run_list:
                run_source_of = source_of
                if name == "oracle":
                    provider: Any = OracleProvider(world.documents)
                elif name == "adhoc":
                    provider, run_source_of = self._adhoc(world, overrides, opts, Path(tmp.name))
                else:
                    profile = PROFILES.get(name.partition("+")[2], {})
                    provider = LightSearch.from_settings({**overrides, **(BASELINE if name == "baseline" else {}),
                                                          **profile, **(COLD if opts.cold else {})})
                # Each run starts with empty process caches: no run reuses another's records.
                clear_process_caches()
                bar = Progress(len(queries), name)
                served = origins.cpu_seconds if origins is not None else 0.0
                runs, cpu = await run_queries(provider, queries, qrels, concurrency=opts.concurrency,
                                              max_results=opts.max_results, progress=bar.step,
                                              max_words=bounds.getint("LIGHT_MAX_QUERY_WORDS"),
                                              max_chars=bounds.getint("LIGHT_MAX_QUERY_CHARS"),
                                              excluded=(lambda: origins.cpu_seconds) if origins else None,
                                              source_of=run_source_of)
                all_runs[name] = runs
                summaries[name] = summarize(runs, cpu, origins.cpu_seconds - served if origins else None)
                if world is not None and name != "oracle":
                    # one request per origin, three per process: the bound on searches a minute
                    transfers = min(bounds.getint("LIGHT_MAX_CONCURRENCY"), len(world.hosts))
                    summaries[name]["throughput"] = throughput(runs, transfers=transfers,
                                                               hop_seconds=opts.latency + opts.jitter / 2)
            meta = {"world": opts.world, "shape": opts.shape, "queries": len(queries), "concurrency": opts.concurrency,
                    "latency": opts.latency, "jitter": opts.jitter, "runs": opts.run_list,
                    "mode": "cold" if opts.cold else "stream", "summary": opts.summary,
                    "described": getattr(self, "described", None), "namedSite": opts.named_site}
            print(format_table(summaries))
            if "adhoc" in summaries and "light" in summaries:
                meta["adhocOverLight"] = adhoc_ratios(summaries["adhoc"], summaries["light"], all_runs["adhoc"])
                print("adhoc/light (site not in the catalog / in it): "
                      + ", ".join(f"{k} {v}" for k, v in meta["adhocOverLight"].items()))
            json_path, html_path = write_reports(Path(opts.out), meta, summaries, all_runs)
            print(f"reports: {json_path} {html_path}")
            return summaries
        finally:
            if origins is not None:
                origins.stop()
            tmp.cleanup()


def adhoc_ratios(adhoc: dict[str, Any], light: dict[str, Any], runs: list[Any]) -> dict[str, Any]:
    """The site-not-in-the-catalog run against the same queries with the site in it, and
    the most hops and bytes one of its searches took."""
    def ratio(key: str) -> float | None:
        return round(adhoc[key] / light[key], 3) if light.get(key) else None

    return {"ndcg10": ratio("ndcg10"), "mrr10": ratio("mrr10"), "wallMsP50": ratio("wallMsP50"),
            "hopsMean": ratio("hopsMean"), "hopsMax": adhoc["hopsMax"],
            "encodedBytesMax": max((r.encoded_bytes for r in runs), default=0),
            "decodedBytesMax": max((r.decoded_bytes for r in runs), default=0)}
