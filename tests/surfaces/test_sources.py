"""A user's own sources: `lightsearch sources add|list|check|remove` against real loopback
sites (the bundled offline origins, and a site that is not in any catalog), and a search
that then reads the added site through LIGHT_CATALOG_EXTRA."""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from lightsearch.errors import LightSearchError
from lightsearch.plan.catalog import load_catalog
from lightsearch.providers.describe import probe_source
from lightsearch.providers.light import LightSearch
from lightsearch.surfaces.cli import main as cli_main
from lightsearch.surfaces.cli import parse
from lightsearch.surfaces.sources import clean
from tests.conftest import article_html, coroutine_test, write_catalog

HOST = "my-own-notebook.test"
FEED = f"https://{HOST}/notes/feed.xml"
SITEMAP = f"https://{HOST}/sitemap.xml"
ARTICLES = [("/notes/salt-marsh-carbon-burial", "Salt marsh carbon burial rates"),
            ("/notes/kelp-forest-urchin-barrens", "Kelp forest urchin barrens"),
            ("/notes/seagrass-meadow-restoration", "Seagrass meadow restoration trials")]


def own_site(*, feed: bool = True, base: str = f"https://{HOST}",
             name: str = "A Coastal Field Notebook") -> dict[str, dict]:
    alternate = f'<link rel="alternate" type="application/rss+xml" href="{base}/notes/feed.xml">' if feed else ""
    items = "".join(f'<li><a href="{href}">{title}</a></li>' for href, title in ARTICLES)
    routes = {
        "/robots.txt": {"body": f"User-agent: *\nAllow: /\nSitemap: {base}/sitemap.xml\n", "type": "text/plain"},
        "/": {"body": f'<!doctype html><html lang="en"><head><title>Field Notebook</title>'
                      f'<meta property="og:site_name" content="{name}">{alternate}</head>'
                      f"<body><main><ul>{items}</ul></main></body></html>"},
        "/sitemap.xml": {"type": "application/xml", "body":
                         '<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                         + "".join(f"<url><loc>{base}{href}</loc></url>" for href, _ in ARTICLES)
                         + "</urlset>"},
    }
    if feed:
        routes["/notes/feed.xml"] = {"type": "application/rss+xml", "body":
                                     '<?xml version="1.0"?><rss version="2.0"><channel><title>Notes</title>'
                                     + "".join(f"<item><title>{t}</title><link>{base}{h}</link></item>"
                                               for h, t in ARTICLES) + "</channel></rss>"}
    for href, title in ARTICLES:
        routes[href] = {"body": article_html(title)}
    return routes


def offline_args(origins) -> list[str]:
    settings = origins.settings()
    return ["-s", f"LIGHT_HOST_MAP={json.dumps(settings['LIGHT_HOST_MAP'])}", "-s", "LIGHT_HOST_MAP_ONLY=true",
            "-s", f"LIGHT_TLS_CA_FILE={settings['LIGHT_TLS_CA_FILE']}"]


def sources_process(origins, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """``lightsearch sources`` as a process: the command's smoke test."""
    return subprocess.run(
        [sys.executable, "-m", "lightsearch.surfaces.cli", "sources", *offline_args(origins), *args],
        capture_output=True, text=True, timeout=timeout, check=False, env={"PATH": "/usr/bin:/bin"},
    )


@pytest.fixture
def cli(in_process):
    """``lightsearch sources`` in this process, pointed at the offline origins."""
    return lambda origins, *args: in_process("sources", *offline_args(origins), *args)


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


def test_add_list_check_remove_a_site_not_in_the_catalog(origins, tmp_path, cli):
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
    result = sources_process(origins, "add", "https://www.nasa.gov/", "--file", str(tmp_path / "s.json"))
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


# ---------------------------------------------------------------- the user catalog, as a person meets it
# A site name with a window-title OSC, an OSC 8 link to another target, a screen clear and a bell.
HOSTILE_NAME = "Field\x1b]0;pwned\x07 Notes \x1b]8;;https://evil.example/\x1b\\of mine\x1b]8;;\x1b\\\x1b[2J\x07"


def in_config(monkeypatch, tmp_path) -> Path:
    """A home with nothing in it: the user catalog's default place is under it."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    for name in ("LIGHTSEARCH_SOURCES", "LIGHT_CATALOG_EXTRA"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path / "config" / "lightsearch" / "sources.json"


def test_the_user_catalog_lives_in_the_config_folder_without_file(monkeypatch, tmp_path, capsys):
    """`lightsearch sources list|remove` with no --file: the user catalog's default place."""
    path = in_config(monkeypatch, tmp_path)
    assert cli_main(["sources", "list"]) == 0
    assert capsys.readouterr().out == f"no sources in {path}\n"
    assert not path.exists()  # made by the first add, not by a list
    assert cli_main(["sources", "remove", "user-nothing"]) == 2
    assert "ERROR: invalid_input: no source 'user-nothing' in the user catalog" in capsys.readouterr().err


def test_an_action_takes_its_options_in_either_position():
    for argv in (["sources", "add", "--offline", "-s", "A=1", "https://x.example/"],
                 ["sources", "--offline", "-s", "A=1", "add", "https://x.example/"],
                 ["sources", "-s", "A=1", "add", "--offline", "https://x.example/"]):
        opts = parse(argv)
        assert (opts.action, opts.offline, opts.url) == ("add", True, "https://x.example/"), argv
        assert [*opts.settings, *getattr(opts, "action_settings", [])] == [("A", "1")], argv


def test_names_are_stored_clean_and_a_hand_edited_one_is_shown_clean(monkeypatch, tmp_path):
    """Row 9 on a real terminal: `sources list` in a pseudo-terminal prints no escape
    sequence, even from a catalog edited by hand; what `add` stores is clean already."""
    path = in_config(monkeypatch, tmp_path)
    entry = {"id": "user-notes-test", "name": HOSTILE_NAME, "language": "en", "kind": "science",
             "origins": ["https://notes.test"], "seeds": ["https://notes.test/"]}
    assert clean(entry)["name"] == "Field Notes of mine"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"id": "user", "version": "1", "sources": [entry]}), encoding="utf-8")
    shown = on_a_terminal([sys.executable, "-m", "lightsearch.surfaces.cli", "sources", "list"],
                          env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert "Field Notes of mine" in shown
    assert "\x1b" not in shown
    assert "\x07" not in shown
    assert "evil.example" not in shown


def on_a_terminal(argv: list[str], env: dict[str, str], timeout: float = 60) -> str:
    """Run ``argv`` with a pseudo-terminal as stdin, stdout and stderr; what it printed."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    chunks = []
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], timeout)
            if not ready:
                raise AssertionError(f"no output within {timeout} s: {b''.join(chunks)[-500:]!r}")
            try:
                data = os.read(leader, 65536)
            except OSError:  # the other side closed
                break
            if not data:
                break
            chunks.append(data)
    finally:
        os.close(leader)
        proc.wait(timeout=timeout)
    assert proc.returncode == 0, b"".join(chunks)[-1000:]
    return b"".join(chunks).decode("utf-8", "replace")


def one_source_catalog(origins, tmp_path) -> dict:
    """Settings with a catalog of one bundled offline site (mapped to loopback), no map-only
    rule, and nothing else: the only other place a crawl may go is a user's private site."""
    catalog = write_catalog(tmp_path / "catalog.json", [{
        "id": "nasa", "name": "NASA", "language": "en", "kind": "science", "origins": ["https://www.nasa.gov"],
        "seeds": ["https://www.nasa.gov/"]}])
    return {"LIGHT_HOST_MAP": {"www.nasa.gov": origins.host_map()["www.nasa.gov"]},
            "LIGHT_TLS_CA_FILE": origins.ca_file, "LIGHT_CATALOG": catalog, "LOG_LEVEL": "ERROR"}


@coroutine_test
async def test_a_private_site_is_read_only_on_purpose_and_only_by_its_own_searches(origins, tmp_path):
    from lightsearch.providers.fetch import WebFetch
    from lightsearch.surfaces import sources

    base = f"http://127.0.0.1:{origins.http_port}"  # loopback, on a port outside LIGHT_ALLOWED_PORTS
    origins.add_site("127.0.0.1", own_site(base=base, name=HOSTILE_NAME))
    settings = one_source_catalog(origins, tmp_path)
    user = tmp_path / "sources.json"
    with pytest.raises(LightSearchError) as refused:
        await sources.add(user, base + "/", settings)
    assert refused.value.code == "invalid_url"
    assert "give --allow-private" in refused.value.message  # the refusal names the opt-in
    assert not user.exists()

    added = await sources.add(user, base + "/", settings, allow_private=True, kind="science")
    stored = json.loads(user.read_text())["sources"][0]
    assert stored["allowPrivate"] is True
    assert stored["name"] == added["added"]["name"] == "Field Notes of mine"  # stored clean

    engine = LightSearch.from_settings({**settings, "LIGHT_CATALOG_EXTRA": str(user)})
    result = await engine.search("salt marsh carbon burial")
    article = f"{base}/notes/salt-marsh-carbon-burial"
    assert article in [h["url"] for h in result["hits"]], result["notes"]

    reader = WebFetch.from_settings(settings)  # a tool call for the same page: never
    with pytest.raises(LightSearchError) as fetched:
        await reader.fetch(article)
    assert fetched.value.code in ("invalid_url", "blocked_address")
    await reader.aclose()

    (tmp_path / "theirs.json").write_text(json.dumps({"id": "c", "version": "1", "sources": [stored]}))
    with pytest.raises(LightSearchError) as not_user:  # only the user catalog may carry the flag
        load_catalog(tmp_path / "theirs.json")
    assert not_user.value.code == "invalid_catalog"
    assert not_user.value.details["field"] == "allowPrivate"


def test_describe_writes_where_told_or_to_the_users_folder_never_the_package(monkeypatch, tmp_path, capsys):
    from lightsearch.plan.catalog import DEFAULT_CATALOG
    from lightsearch.surfaces.environment import resolve

    in_config(monkeypatch, tmp_path)
    feed = "https://feeds.npr.org/1001/rss.xml"  # a feed of the bundled catalog, recorded by us
    (tmp_path / "npr.xml").write_text('<?xml version="1.0"?><rss version="2.0"><channel><title>NPR</title>'
                                      "<item><title>Grid storage batteries</title><link>https://www.npr.org/"
                                      "2026/01/02/grid-storage</link></item></channel></rss>", encoding="utf-8")
    (tmp_path / "recorded.json").write_text(json.dumps({feed: "npr.xml"}), encoding="utf-8")
    bundled = DEFAULT_CATALOG.with_suffix(".summary.json")
    before = bundled.read_bytes()
    args = ["sources", "describe", "--recorded", str(tmp_path / "recorded.json"), "--data", str(tmp_path)]
    assert cli_main(args) == 0
    mine = tmp_path / "config" / "lightsearch" / "catalog.summary.json"
    assert f"into {mine}" in capsys.readouterr().out
    assert bundled.read_bytes() == before  # the installed package's file is the package's
    assert json.loads(mine.read_text())["sources"][0]["id"] == "npr"
    assert resolve({}, {"XDG_CONFIG_HOME": str(tmp_path / "config")})["LIGHT_SOURCE_SUMMARY"] == str(mine)
    assert cli_main([*args, "--out", str(tmp_path / "told.json")]) == 0
    assert (tmp_path / "told.json").is_file()
