"""A user's own sources: `lightsearch sources add|list|check|remove` against real loopback
sites (the bundled offline origins, and a site that is not in any catalog), and a search
that then reads the added site through LIGHT_CATALOG_EXTRA."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.plan.catalog import load_catalog
from lightsearch.providers.describe import probe_source
from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test

HOST = "my-own-notebook.test"
FEED = f"https://{HOST}/notes/feed.xml"
SITEMAP = f"https://{HOST}/sitemap.xml"
ARTICLES = [("/notes/salt-marsh-carbon-burial", "Salt marsh carbon burial rates"),
            ("/notes/kelp-forest-urchin-barrens", "Kelp forest urchin barrens"),
            ("/notes/seagrass-meadow-restoration", "Seagrass meadow restoration trials")]


def own_site(*, feed: bool = True) -> dict[str, dict]:
    alternate = f'<link rel="alternate" type="application/rss+xml" href="{FEED}">' if feed else ""
    items = "".join(f'<li><a href="{href}">{title}</a></li>' for href, title in ARTICLES)
    routes = {
        "/robots.txt": {"body": f"User-agent: *\nAllow: /\nSitemap: {SITEMAP}\n", "type": "text/plain"},
        "/": {"body": f'<!doctype html><html lang="en"><head><title>Field Notebook</title>'
                      f'<meta property="og:site_name" content="A Coastal Field Notebook">{alternate}</head>'
                      f"<body><main><ul>{items}</ul></main></body></html>"},
        "/sitemap.xml": {"type": "application/xml", "body":
                         '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                         + "".join(f"<url><loc>https://{HOST}{href}</loc></url>" for href, _ in ARTICLES)
                         + "</urlset>"},
    }
    if feed:
        routes["/notes/feed.xml"] = {"type": "application/rss+xml", "body":
                                     '<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title>'
                                     + "".join(f"<item><title>{t}</title><link>https://{HOST}{h}</link></item>"
                                               for h, t in ARTICLES) + "</channel></rss>"}
    for href, title in ARTICLES:
        routes[href] = {"body": article_html(title)}
    return routes


def cli(origins, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    settings = origins.settings()
    return subprocess.run(
        [sys.executable, "-m", "lightsearch.surfaces.cli", "sources",
         "-s", f"LIGHT_HOST_MAP={json.dumps(settings['LIGHT_HOST_MAP'])}", "-s", "LIGHT_HOST_MAP_ONLY=true",
         "-s", f"LIGHT_TLS_CA_FILE={settings['LIGHT_TLS_CA_FILE']}", *args],
        capture_output=True, text=True, timeout=timeout, check=False, env={"PATH": "/usr/bin:/bin"},
    )


@coroutine_test
async def test_probing_a_bundled_site_finds_its_feed_sitemap_and_language(origins):
    probe = await probe_source("https://www.nasa.gov/", origins.settings())
    entry = probe.entry
    assert entry["language"] == "en"
    assert entry["name"] == "NASA"
    assert entry["feeds"] == ["https://www.nasa.gov/feed/"]
    assert entry["sitemaps"] == ["https://www.nasa.gov/sitemap.xml"]
    assert "html lang" in entry["evidence"]["language"]
    assert "declared by the home page" in entry["evidence"]["feeds"]["https://www.nasa.gov/feed/"]
    assert "robots.txt" in entry["evidence"]["sitemaps"]["https://www.nasa.gov/sitemap.xml"]
    assert entry["evidence"]["kind"].startswith("default")


@coroutine_test
async def test_a_site_that_cannot_be_read_is_an_error_and_adds_nothing(origins):
    origins.add_site("gone-away.test", {"/robots.txt": {"body": "", "status": 404}, "/": {"status": 500, "body": ""}})
    with pytest.raises(LightSearchError) as err:
        await probe_source("https://gone-away.test/", origins.settings())
    assert err.value.code == "source_unreachable"
    assert "http_status" in err.value.message
    with pytest.raises(LightSearchError) as err:
        await probe_source("ftp://gone-away.test/", origins.settings())
    assert err.value.details["parameter"] == "URL"


def test_add_list_check_remove_a_site_not_in_the_catalog(origins, tmp_path):
    origins.add_site(HOST, own_site())
    user = tmp_path / "sources.json"
    added = cli(origins, "add", f"https://{HOST}/", "--file", str(user), "-o", "json")
    assert added.returncode == 0, added.stderr[-2000:]
    entry = json.loads(added.stdout)["added"]
    assert entry["id"] == "user-my-own-notebook-test"
    assert entry["name"] == "A Coastal Field Notebook"
    assert entry["feeds"] == [FEED]
    assert entry["sitemaps"] == [SITEMAP]
    stored = json.loads(user.read_text())["sources"]
    assert [s["id"] for s in stored] == [entry["id"]]
    assert stored[0]["evidence"]["feeds"][FEED].startswith("declared by the home page")
    # what the probe read describes the source for the next process (no article was read)
    summary = json.loads(user.with_suffix(".summary.json").read_text())
    kinds = sorted(d["kind"] for s in summary["sources"] for d in s["documents"])
    assert kinds == ["feed", "seed", "sitemap"]
    assert not any(p.startswith("/notes/s") or p.startswith("/notes/k") for p in
                   (e["path"] for e in origins.requests_for(HOST)))

    listed = cli(origins, "list", "--file", str(user))
    assert listed.returncode == 0
    assert entry["id"] in listed.stdout
    again = cli(origins, "add", f"https://{HOST}/", "--file", str(user))
    assert again.returncode == 2
    assert "already in the user catalog" in again.stderr

    ok = cli(origins, "check", "--file", str(user))
    assert ok.returncode == 0
    assert f"{entry['id']}\tok" in ok.stdout
    origins.add_site(HOST, own_site(feed=False))
    changed = cli(origins, "check", "--file", str(user), "-o", "json")
    assert json.loads(changed.stdout)["sources"][0]["changes"]["feeds"] == {"catalog": [FEED], "now": []}
    origins.add_site(HOST, {"/robots.txt": {"status": 503, "body": ""}})
    failing = cli(origins, "check", "--file", str(user))
    assert failing.returncode == 1
    assert "failing" in failing.stdout

    removed = cli(origins, "remove", entry["id"], "--file", str(user))
    assert removed.returncode == 0
    assert json.loads(user.read_text())["sources"] == []
    assert json.loads(user.with_suffix(".summary.json").read_text())["sources"] == []
    missing = cli(origins, "remove", entry["id"], "--file", str(user))
    assert missing.returncode == 2
    assert "no source" in missing.stderr


def test_a_site_already_in_the_catalog_is_not_added_twice(origins, tmp_path):
    result = cli(origins, "add", "https://www.nasa.gov/", "--file", str(tmp_path / "s.json"))
    assert result.returncode == 2
    assert "already in the catalog as nasa" in result.stderr
    assert not (tmp_path / "s.json").exists()


@coroutine_test
async def test_a_search_reads_the_added_site_under_a_corpus_id_of_its_own(origins, tmp_path):
    from lightsearch.surfaces import sources

    origins.add_site(HOST, own_site())
    user = tmp_path / "sources.json"
    await sources.add(user, f"https://{HOST}/", origins.settings(), kind="science")
    engine = LightSearch.from_settings({**origins.settings(), "LIGHT_CATALOG_EXTRA": str(user),
                                        "LOG_LEVEL": "ERROR"})
    result = await engine.search("salt marsh carbon burial")
    urls = [h["url"] for h in result["hits"]]
    assert f"https://{HOST}/notes/salt-marsh-carbon-burial" in urls
    corpus = result["meta"]["lightSearch"]["catalog"]["corpus"]
    assert corpus != load_catalog().corpus_id
    assert corpus.startswith(load_catalog().corpus_id + "+user@")
    assert "user-my-own-notebook-test" in result["meta"]["lightSearch"]["sources"]["selected"]
