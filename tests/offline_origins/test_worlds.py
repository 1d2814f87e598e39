"""Benchmark worlds generated from the shared test collections (skipped without them)."""

from __future__ import annotations

import http.client
import json
import time
import xml.etree.ElementTree as ET
from urllib.parse import quote, unquote, urlsplit

import pytest

from lightsearch.evaluation.metrics import mrr_at, ndcg_at
from lightsearch.evaluation.qrels import read_qrels, read_queries
from lightsearch.offline_origins import worlds
from lightsearch.offline_origins.server import OfflineOrigins, load_sites
from lightsearch.plan.catalog import load_catalog
from lightsearch.ranking.bm25 import LuceneBM25
from lightsearch.ranking.tokenize import tokenize
from tests.conftest import shared_data

SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


@pytest.fixture(scope="module")
def cranfield(tmp_path_factory):
    data = shared_data("ir-cranfield", "cran.all.1400").parents[1]
    # the CPU time of the build (it runs in this thread): what the build costs, not what a
    # busy machine makes it wait
    start = time.thread_time()
    world = worlds.build_cranfield_world(tmp_path_factory.mktemp("cranfield"), data)
    world.build_seconds = time.thread_time() - start  # type: ignore[attr-defined]
    return world


@pytest.fixture(scope="module")
def heq(tmp_path_factory):
    data = shared_data("hebrew-qa", "heq-retrieval", "corpus.jsonl").parents[2]
    return worlds.build_heq_world(tmp_path_factory.mktemp("heq"), data)


def _route(sites, url):
    parts = urlsplit(url)
    site = sites.get(parts.hostname)
    return site.routes.get(unquote(parts.path or "/")) if site else None


def _get(server, host, path):
    conn = http.client.HTTPConnection("127.0.0.1", server.http_port, timeout=5)
    try:
        conn.request("GET", path, headers={"Host": host})
        resp = conn.getresponse()
        return resp.status, resp.getheader("Content-Type", ""), resp.read()
    finally:
        conn.close()


def _check_judgements(world):
    query_ids = [q["id"] for q in world.queries]
    assert len(set(query_ids)) == len(query_ids)
    assert set(world.qrels) <= set(query_ids)
    sites = load_sites(world.sites_dir)
    assert sorted(sites) == sorted(world.hosts)
    for docs in world.qrels.values():
        for url, grade in docs.items():
            assert grade > 0
            assert url in world.documents, url
            assert _route(sites, url) is not None, url
    for url in world.documents:
        assert _route(sites, url) is not None, url


def _check_catalog(world, language, kinds):
    catalog = load_catalog(world.catalog_path)
    assert catalog.id == f"world-{world.name}"
    assert {s.kind for s in catalog.sources} == kinds
    sites = load_sites(world.sites_dir)
    for source in catalog.sources:
        assert source.language == language
        assert 40 <= len(source.topics) <= 60, (source.id, len(source.topics))
        for url in (*source.seeds, *source.feeds, *source.sitemaps):
            assert _route(sites, url) is not None, url
    assert [s.seeds[0] for s in catalog.sources] == world.home_pages
    assert [s.feeds[0] for s in catalog.sources] == world.feed_urls


def _check_served(world, lang_attr):
    host = world.hosts[0]
    with OfflineOrigins(sites_dir=world.sites_dir) as server:
        status, ctype, body = _get(server, host, "/robots.txt")
        assert status == 200
        assert f"Sitemap: https://{host}/sitemap-index.xml" in body.decode()
        status, _, body = _get(server, host, "/sitemap-index.xml")
        assert status == 200
        children = [e.text for e in ET.fromstring(body).iter(f"{SM}loc")]
        assert len(children) >= 2
        first_url = None
        for child in children:
            status, _, body = _get(server, host, urlsplit(child).path)
            assert status == 200
            locs = [e.text for e in ET.fromstring(body).iter(f"{SM}loc")]
            assert 0 < len(locs) <= 100
            assert all(loc.isascii() for loc in locs)  # Unicode slugs are percent-encoded
            first_url = first_url or locs[0]
        status, ctype, body = _get(server, host, urlsplit(first_url).path)
        assert status == 200
        assert ctype.startswith("text/html")
        page = body.decode("utf-8")
        assert lang_attr in page
        assert world.documents[first_url]["title"].split()[0] in page
        status, ctype, body = _get(server, host, "/feed.xml")
        assert status == 200
        assert len(ET.fromstring(body).findall("./channel/item")) == 20


# --------------------------------------------------------------------------- Cranfield
def test_cranfield_world_builds_fast_with_every_document_and_query(cranfield):
    assert cranfield.build_seconds < 5
    assert len(cranfield.documents) == 1400
    assert len(cranfield.queries) == 225
    assert [q["id"] for q in cranfield.queries] == [str(i) for i in range(1, 226)]
    assert len(cranfield.hosts) == 4
    _check_judgements(cranfield)


def test_cranfield_qrels_use_query_positions_and_gain_five_minus_code(cranfield):
    # cranqrel's first lines: "1 184 2", "1 29 2", "1 12 3"; query 1 is the first in cran.qry
    assert cranfield.queries[0]["query"].startswith("what similarity laws must be obeyed")
    by_docno = {urlsplit(u).path.split("/")[2].split("-")[0]: u for u in cranfield.documents}
    judged = cranfield.qrels["1"]
    assert judged[by_docno["184"]] == 3
    assert judged[by_docno["12"]] == 2
    assert sum(len(d) for d in cranfield.qrels.values()) == 1837 - 225  # the -1 lines dropped
    assert {g for d in cranfield.qrels.values() for g in d.values()} == {1, 2, 3, 4}


def test_cranfield_catalog_loads_and_names_served_urls(cranfield):
    _check_catalog(cranfield, "en", {"science"})


def test_cranfield_sites_are_served(cranfield):
    _check_served(cranfield, '<html lang="en">')


def test_cranfield_oracle_is_near_the_reference(cranfield):
    urls = list(cranfield.documents)
    corpus = [tokenize(f"{d['title']}\n{d['text']}") for d in cranfield.documents.values()]
    # bm25_scores() builds this model on every call; build it once for 225 queries.
    model = LuceneBM25([doc or [""] for doc in corpus])
    total = 0.0
    for q in cranfield.queries:
        scores = model.get_scores(tokenize(q["query"]))
        ranked = [urls[i] for i in sorted(range(len(urls)), key=lambda i: -scores[i])[:10]]
        total += ndcg_at(ranked, cranfield.qrels.get(q["id"], {}), 10)
    assert total / len(cranfield.queries) > 0.30  # reference: 0.356 (figures.md)


def test_query_and_qrels_files_round_trip(cranfield, tmp_path):
    queries = read_queries(worlds.write_queries_jsonl(cranfield, tmp_path / "q.jsonl"))
    assert queries == cranfield.queries
    assert read_qrels(worlds.write_qrels_trec(cranfield, tmp_path / "qrels.txt")) == cranfield.qrels


def test_rebuilding_into_the_same_folder_replaces_the_world(tmp_path):
    data = shared_data("hebrew-qa", "heq-retrieval", "corpus.jsonl").parents[2]
    first = worlds.build_heq_world(tmp_path, data, max_queries=5)
    second = worlds.build_heq_world(tmp_path, data, max_queries=5)
    assert first.sites_dir == second.sites_dir
    assert sorted(load_sites(second.sites_dir)) == sorted(second.hosts)
    (tmp_path / "cranfield").mkdir()
    (tmp_path / "cranfield" / "mine.txt").write_text("not a world")
    with pytest.raises(FileExistsError):
        worlds.build_cranfield_world(tmp_path, data)
    assert (tmp_path / "cranfield" / "mine.txt").exists()


# --------------------------------------------------------------------------- HeQ
def test_heq_world_counts_and_judgements(heq):
    assert len(heq.documents) == 477
    assert len(heq.queries) == 1058
    assert all(q["language"] == "he" for q in heq.queries)
    assert all(len(d) == 1 for d in heq.qrels.values())
    assert sorted(heq.hosts) == ["tech.heq.test", "wiki.heq.test"]
    _check_judgements(heq)


def test_heq_max_queries_takes_the_first_n(tmp_path):
    data = shared_data("hebrew-qa", "heq-retrieval", "corpus.jsonl").parents[2]
    world = worlds.build_heq_world(tmp_path, data, max_queries=25)
    assert len(world.queries) == 25
    assert set(world.qrels) == {q["id"] for q in world.queries}
    first = json.loads(
        (data / "hebrew-qa" / "heq-retrieval" / "queries.jsonl").read_text(encoding="utf-8").splitlines()[0]
    )
    assert world.queries[0]["id"] == first["_id"]


def test_heq_catalog_loads(heq):
    _check_catalog(heq, "he", {"reference", "technology"})


def test_heq_sites_are_served_with_unicode_paths(heq):
    _check_served(heq, '<html lang="he" dir="rtl">')
    url = next(iter(heq.documents))
    path = urlsplit(url).path
    assert "%D7" in path  # Hebrew slug, percent-encoded in the URL
    with OfflineOrigins(sites_dir=heq.sites_dir) as server:
        status, _, body = _get(server, urlsplit(url).hostname, quote(unquote(path), safe="/-"))
        assert status == 200
        assert heq.documents[url]["title"].split()[0] in body.decode("utf-8")


def test_heq_oracle_mrr(heq):
    urls = list(heq.documents)
    model = LuceneBM25([tokenize(f"{d['title']}\n{d['text']}") or [""] for d in heq.documents.values()])
    total = 0.0
    for q in heq.queries:
        scores = model.get_scores(tokenize(q["query"]))
        ranked = [urls[i] for i in sorted(range(len(urls)), key=lambda i: -scores[i])[:10]]
        total += mrr_at(ranked, heq.qrels[q["id"]], 10)
    assert total / len(heq.queries) > 0.85  # reference: 0.913 with prefix stripping


def test_a_shape_lays_the_collection_out_as_other_sites(tmp_path):
    """Large sites with twelve child sitemaps, listings of ten and feeds of a hundred; small
    ones with one sitemap robots.txt names, no index; half the articles title-only. The
    judgements and the oracle's documents follow the shape."""
    data = shared_data("ir-cranfield", "cran.all.1400").parents[1]
    big = worlds.build_cranfield_world(tmp_path / "a", data, shape="large")
    assert len(big.hosts) == 2
    assert len(big.documents) == 1400
    _check_judgements(big)
    site = load_sites(big.sites_dir)[big.hosts[0]]
    children = [r for r in site.routes if r.startswith("/sitemaps/")]
    assert len(children) == 12
    assert sum(1 for r in site.routes if "/page/" in r) == 100  # 1,000 papers, ten a listing page
    with OfflineOrigins(sites_dir=big.sites_dir) as server:
        _, _, body = _get(server, big.hosts[0], "/feed.xml")
        assert len(ET.fromstring(body).findall("./channel/item")) == 100
    small = worlds.build_heq_world(tmp_path / "b", shape=worlds.Shape("tiny", articles_per_site=60, sitemaps=1,
                                                                         title_only=0.5),
                                   data_dir=shared_data("hebrew-qa", "heq-retrieval", "corpus.jsonl").parents[2])
    assert len(small.hosts) == 9  # 227 and 250 paragraphs, 60 a site
    _check_judgements(small)
    for host in small.hosts:
        routes = load_sites(small.sites_dir)[host].routes
        assert "/sitemap.xml" in routes
        assert "/sitemap-index.xml" not in routes
    catalog = load_catalog(small.catalog_path)
    assert all(list(s.sitemaps) == [f"{s.origins[0]}/sitemap.xml"] for s in catalog.sources)
    blank = sum(1 for d in small.documents.values() if not d["text"])
    assert 0.4 < blank / len(small.documents) < 0.6
    with pytest.raises(ValueError, match="unknown world shape"):
        worlds.build_cranfield_world(tmp_path / "c", data, shape="huge")
