"""Source descriptions: built from discovery documents only, bounded, read back from a
summary file as untrusted input, scored ReDDE-style, learned by searches; they choose the
sources and the documents a cold search reads first."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightsearch.cache import load_cache
from lightsearch.cache.descriptions import (
    MAX_DOCUMENTS,
    SAMPLE_ROWS,
    SourceDescriptions,
    decode_summary,
    describe,
    encode_summary,
    load_summary,
)
from lightsearch.cache.records import MemoryRecordCache
from lightsearch.config import make_settings
from lightsearch.errors import LightSearchError
from lightsearch.plan.catalog import load_catalog
from lightsearch.plan.estimates import Estimates
from lightsearch.plan.request import build_request
from lightsearch.plan.selection import select_sources
from lightsearch.providers.describe import describe_sources, write_summary
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test, home_html, make_world


def _rows(*titles: str) -> list[list[str]]:
    from lightsearch.ranking.tokenize import tokenize

    return [tokenize(t) for t in titles]


# ---------------------------------------------------------------- the model and the file
def test_a_large_document_is_sampled_evenly_and_scaled():
    doc = describe("https://a.test/sitemap-1.xml", "sitemap", [[f"w{i}"] for i in range(1000)])
    assert doc.entries == 1000
    assert len(doc.rows) == SAMPLE_ROWS
    assert doc.scale == 5.0
    assert frozenset(["w0"]) in doc.rows
    assert frozenset(["w995"]) in doc.rows


def test_a_source_keeps_its_most_recently_described_documents():
    store = SourceDescriptions()
    for i in range(MAX_DOCUMENTS + 5):
        store.put("s", describe(f"https://a.test/page/{i}", "listing", [["x"]]))
    urls = [d.url for d in store.of("s")]
    assert len(urls) == MAX_DOCUMENTS
    assert urls[0] == "https://a.test/page/5"


def test_a_summary_round_trips_and_drops_what_does_not_fit(tmp_path):
    store = SourceDescriptions()
    store.put("a", describe("https://a.test/feed.xml", "feed", _rows("Supersonic wing flutter", "Heat flux")))
    text = encode_summary(store, catalog={"id": "c", "version": "1"}, origins={"a": ["https://a.test"]})
    data = json.loads(text)
    data["sources"][0]["documents"].append({"url": "javascript:alert(1)", "kind": "feed", "entries": 1,
                                            "terms": [], "rows": []})
    data["sources"][0]["documents"].append({"url": "https://a.test/x", "kind": "feed", "entries": 1,
                                            "terms": ["a"], "rows": [[7]]})  # an index out of range
    summary = decode_summary(json.dumps(data), tmp_path / "s.json")
    assert summary.dropped == 2
    [doc] = summary.descriptions.of("a")
    assert doc.rows == store.of("a")[0].rows
    assert summary.origins == {"a": ("https://a.test",)}


@pytest.mark.parametrize("body", ["not json", "[]", '{"format": "other"}',
                                  '{"format": "lightsearch-source-descriptions", "version": 1, "sources": 3}'])
def test_a_summary_that_cannot_be_read_names_the_setting(tmp_path, body):
    path = tmp_path / "bad.summary.json"
    path.write_text(body)
    with pytest.raises(LightSearchError) as err:
        load_summary(path)
    assert err.value.code == "invalid_settings"
    assert err.value.details["key"] == "LIGHT_SOURCE_SUMMARY"


_json = st.recursive(st.none() | st.booleans() | st.integers(-5, 10**12) | st.text(max_size=30),
                     lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=10), inner,
                                                                                   max_size=6), max_leaves=40)


@settings(max_examples=50, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(st.sampled_from(["url", "kind", "entries", "terms", "rows", "children", "seen", "x"]),
                       _json, max_size=8),
       st.sampled_from(["sources", "documents"]))
def test_a_hostile_summary_is_read_or_refused_never_raises_otherwise(tmp_path_factory, raw, where):
    base = {"format": "lightsearch-source-descriptions", "version": 1,
            "sources": [{"id": "a", "origins": ["https://a.test"], "documents": [raw]}]}
    if where == "sources":
        base["sources"] = [raw]
    try:
        summary = decode_summary(json.dumps(base), tmp_path_factory.mktemp("s") / "s.json")
    except LightSearchError as exc:
        code = exc.code
        summary = None
    if summary is None:
        assert code == "invalid_settings"
        return
    for doc in summary.descriptions.of("a"):
        assert doc.url.startswith(("http://", "https://"))
        assert doc.entries >= len(doc.rows)


# ---------------------------------------------------------------- estimates and selection
def test_the_source_naming_pages_that_carry_the_whole_query_is_estimated_first():
    broad = describe("https://a.test/sitemap.xml", "sitemap",
                     _rows(*[f"Wing design note {i}" for i in range(40)], *[f"Flutter test {i}" for i in range(40)]))
    focused = describe("https://b.test/sitemap.xml", "sitemap",
                       _rows("Supersonic wing flutter onset", "Wing flutter at supersonic speed", "Tide tables"))
    est = Estimates.build([build_request("supersonic wing flutter").terms[0]], {"a": [broad], "b": [focused]})
    # eighty titles sharing one word each, against two carrying the whole query
    assert est.source("b") > est.source("a")


def test_selection_reads_what_sources_publish_over_their_topic_words(tmp_path):
    catalog_path = tmp_path / "c.json"
    sources = [{"id": sid, "name": f"Journal {sid}", "language": "en", "kind": "science",
                "origins": [f"https://{sid}.test"], "seeds": [f"https://{sid}.test/"],
                "topics": ["aerodynamics", "flutter"] if sid == "ja" else ["aerodynamics"]}
               for sid in ("ja", "jb", "jc")]
    catalog_path.write_text(json.dumps({"id": "t", "version": "1", "sources": sources}))
    catalog = load_catalog(catalog_path)
    request = build_request("panel flutter at hypersonic speed")
    by_topics = select_sources(catalog, request, 6, min_sources=1)
    assert by_topics[0].source.id == "ja"
    described = {"ja": [describe("https://ja.test/feed", "feed", _rows("Boundary layer transition", "Jet noise"))],
                 "jc": [describe("https://jc.test/feed", "feed", _rows("Hypersonic panel flutter", "Panel flutter"))]}
    chosen = select_sources(catalog, request, 6, min_sources=3, estimates=Estimates.build(request.terms, described))
    # jb is not described: credited with the mean of the described, so it stays between
    assert [s.source.id for s in chosen] == ["jc", "jb", "ja"]


# ---------------------------------------------------------------- a crawl with descriptions
def _archive(host: str) -> dict[str, dict]:
    """A site with a sitemap index of three children; the middle child names the page
    the query wants."""
    children, routes = [], {"/": {"body": home_html([("/about", "About us")])}}
    for n in range(3):
        slugs = [f"tidal-{n}-note-{k}" for k in range(5)] + (["kelp-holdfast-erosion-survey"] if n == 1 else [])
        urls = "".join(f"<url><loc>https://{host}/{s}</loc></url>" for s in slugs)
        routes[f"/sm-{n}.xml"] = {"type": "application/xml", "body":
                                 f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'}
        children.append(f"<sitemap><loc>https://{host}/sm-{n}.xml</loc></sitemap>")
        for slug in slugs:
            routes[f"/{slug}"] = {"body": article_html(slug.replace("-", " ").title())}
    routes["/index.xml"] = {"type": "application/xml", "body":
                            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                            + "".join(children) + "</sitemapindex>"}
    return routes


async def described_world(origins, tmp_path, host: str, routes: dict, kind: str) -> dict:
    """Serve one archive site, describe it as `lightsearch sources describe` does into the
    summary beside its catalog, and return the settings of a search over it."""
    cfg = make_world(origins, tmp_path, {host: routes},
                     [{"id": "arch", "host": host, "kind": kind, "sitemaps": [f"https://{host}/index.xml"]}])
    catalog = load_catalog(cfg["LIGHT_CATALOG"])
    described = await describe_sources(catalog, cfg)
    write_summary(tmp_path / "catalog.summary.json", catalog, described)
    origins.reset_log()
    return {**cfg, "described": described}


@coroutine_test
async def test_a_described_source_is_read_by_its_best_child_sitemap_without_the_index(origins, tmp_path):
    host = "described-archive.test"
    cfg = await described_world(origins, tmp_path, host, _archive(host), "science")
    described = cfg.pop("described")
    assert {d.kind for d in described.descriptions.of("arch")} >= {"index", "sitemap", "seed"}
    result = await LightSearch.from_settings({**cfg, "LIGHT_RECORD_CACHE": None}).search("kelp holdfast erosion")
    paths = [e["path"] for e in origins.requests_for(host)]
    assert "/sm-1.xml" in paths
    assert "/index.xml" not in paths  # its children are known: the index would cost a place
    assert not {"/sm-0.xml", "/sm-2.xml", "/"} & set(paths)  # naming nothing the query wants
    assert result["hits"][0]["url"] == f"https://{host}/kelp-holdfast-erosion-survey"
    assert result["meta"]["lightSearch"]["hops"]["byStage"].get("child_sitemap") == 1


@coroutine_test
async def test_without_a_summary_the_same_search_reads_the_index_first(origins, tmp_path):
    host = "undescribed-archive.test"
    cfg = make_world(origins, tmp_path, {host: _archive(host)},
                     [{"id": "arch", "host": host, "kind": "science", "sitemaps": [f"https://{host}/index.xml"]}])
    await LightSearch.from_settings({**cfg, "LIGHT_RECORD_CACHE": None}).search("kelp holdfast erosion")
    paths = [e["path"] for e in origins.requests_for(host)]
    assert paths.index("/index.xml") < paths.index("/sm-1.xml")


@coroutine_test
async def test_searches_learn_descriptions_with_the_discovery_records(origins, tmp_path):
    host = "learned-archive.test"
    cfg = make_world(origins, tmp_path, {host: _archive(host)},
                     [{"id": "arch", "host": host, "kind": "science", "sitemaps": [f"https://{host}/index.xml"]}])
    engine = LightSearch.from_settings(cfg)
    await engine.search("tidal note")
    learned = load_cache(make_settings(cfg), "LIGHT_RECORD_CACHE").descriptions
    kinds = sorted(d.kind for d in learned.of("arch"))
    assert "index" in kinds
    assert kinds.count("sitemap") >= 1
    # never a page read as evidence: only the documents discovery reads
    assert all(d.kind in ("index", "sitemap", "seed", "feed", "listing") for d in learned.of("arch"))
    # a search with no record cache (the cold benchmark's) learns nothing
    cold = LightSearch.from_settings({**cfg, "LIGHT_RECORD_CACHE": None})
    await cold.search("tidal note")
    assert load_cache(make_settings({**cfg, "LIGHT_RECORD_CACHE": None}), "LIGHT_RECORD_CACHE") is None


@coroutine_test
async def test_child_sitemaps_robots_txt_lists_are_read_directly_the_likeliest_first(origins, tmp_path):
    """A site listing its child sitemaps in robots.txt (no index): the one whose name
    matches the query is read though it is listed last (the first two were read before)."""
    host = "robots-children.test"
    names = ["2021-01", "2021-02", "2021-03", "2021-04", "2021-05", "kelp-forests"]
    routes = {"/": {"body": home_html([])},
              "/robots.txt": {"type": "text/plain", "body": "User-agent: *\nAllow: /\n" + "".join(
                  f"Sitemap: https://{host}/sitemap-{n}.xml\n" for n in names)}}
    for n in names:
        slug = "kelp-holdfast-erosion-survey" if n == "kelp-forests" else f"harbour-note-{n}"
        routes[f"/sitemap-{n}.xml"] = {"type": "application/xml", "body":
                                      '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                                      f"<url><loc>https://{host}/{slug}</loc></url></urlset>"}
        routes[f"/{slug}"] = {"body": article_html(slug.replace("-", " ").title())}
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "rc", "host": host}], LIGHT_RECORD_CACHE=None)
    result = await LightSearch.from_settings(cfg).search("kelp forests holdfast")
    maps = [e["path"] for e in origins.requests_for(host) if e["path"].startswith("/sitemap")]
    assert maps[0] == "/sitemap-kelp-forests.xml"
    assert len(maps) <= 4  # the search's sitemap allowance
    assert result["hits"][0]["url"] == f"https://{host}/kelp-holdfast-erosion-survey"


def _mapped_with_archive(host: str) -> dict[str, dict]:
    """Two child sitemaps and an archive page listing the same pages by their titles."""
    pages = [(f"kelp-holdfast-survey-{k}", f"Kelp holdfast survey {k}") for k in range(4)]
    routes = {"/": {"body": '<html><head><link rel="next" href="/archive"></head><body><p>Home</p></body></html>'},
              "/archive": {"body": home_html([(f"/{slug}", title) for slug, title in pages])}}
    children = []
    for n in range(2):
        urls = "".join(f"<url><loc>https://{host}/{slug}</loc></url>" for slug, _ in pages[2 * n:2 * n + 2])
        routes[f"/sm-{n}.xml"] = {"type": "application/xml", "body":
                                 f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'}
        children.append(f"<sitemap><loc>https://{host}/sm-{n}.xml</loc></sitemap>")
    routes["/index.xml"] = {"type": "application/xml", "body":
                            '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                            + "".join(children) + "</sitemapindex>"}
    for slug, title in pages:
        routes[f"/{slug}"] = {"body": article_html(title)}
    return routes


@pytest.mark.parametrize(("cache", "archive_read"), [(None, False), ("default", True)])
@coroutine_test
async def test_a_listing_page_naming_what_the_planned_sitemaps_name_waits_for_a_cache(
        origins, tmp_path, cache, archive_read):
    """A search that keeps nothing reads the archive page only for what the planned
    sitemaps leave unread (nothing here); a process with a record cache reads it, for its
    titles and for the searches that follow."""
    host = f"archive-{cache or 'none'}.test"
    cfg = await described_world(origins, tmp_path, host, _mapped_with_archive(host), "science")
    described = cfg.pop("described")
    assert any(d.url.endswith("/archive") for d in described.descriptions.of("arch"))
    settings = cfg if cache else {**cfg, "LIGHT_RECORD_CACHE": None}
    result = await LightSearch.from_settings(settings).search("kelp holdfast survey")
    paths = [e["path"] for e in origins.requests_for(host)]
    assert ("/archive" in paths) is archive_read
    assert {"/sm-0.xml", "/sm-1.xml"} <= set(paths)
    assert len(result["hits"]) == 4


@coroutine_test
async def test_a_news_sources_home_page_is_read_whatever_its_description_says(origins, tmp_path):
    host = "described-news.test"
    cfg = await described_world(origins, tmp_path, host, _archive(host), "news")
    cfg.pop("described")
    await LightSearch.from_settings({**cfg, "LIGHT_RECORD_CACHE": None}).search("kelp holdfast erosion")
    paths = [e["path"] for e in origins.requests_for(host)]
    assert "/" in paths  # it names nothing the query wants, but news changes by the hour
    assert "/index.xml" not in paths


def test_a_large_document_reads_only_the_entries_it_samples():
    urls = [f"https://d.example/articles/topic-{i}-severn-tides" for i in range(50_000)]
    read: list[str] = []

    def terms(url: str) -> list[str]:
        read.append(url)
        return url.rsplit("/", 1)[1].split("-")

    lazy = describe("https://d.example/sitemap.xml", "sitemap", urls, terms=terms, seen="2026-01-01T00:00:00Z")
    eager = describe("https://d.example/sitemap.xml", "sitemap", [u.rsplit("/", 1)[1].split("-") for u in urls],
                     seen="2026-01-01T00:00:00Z")
    assert lazy == eager
    assert lazy.entries == 50_000
    assert len(read) == SAMPLE_ROWS


def test_learned_descriptions_are_bounded_in_memory():
    """A description keeps 24 terms of 200 sampled rows, but a term is a page's word of any
    length: long words make a description hundreds of KiB. What a process learns is held
    to LEARNED_MAX_BYTES, least recently described sources out first."""
    learned = MemoryRecordCache(500, 16 * 1024 * 1024).descriptions
    for n in range(40):
        rows = [[f"{n:02d}{r:03d}{t:02d}" + "w" * 1000 for t in range(24)] for r in range(20)]
        learned.put(f"source-{n}", describe(f"https://s{n}.test/sitemap.xml", "sitemap", rows))
    terms = sum(len(t) for sid in learned.documents for d in learned.of(sid) for row in d.rows for t in row)
    assert terms <= 16 * 1024 * 1024  # LEARNED_MAX_BYTES; the terms alone
    assert "source-39" in learned.documents  # the newest stay
    assert "source-0" not in learned.documents
