"""A site the call names that the catalog does not hold is probed and searched on the spot:
real Light searches of loopback sites, one catalog source beside them that keeps answering.

Every hop is counted at the origin server; a site that fails (does not resolve, refuses,
redirects off-site, serves a hostile robots.txt or sitemap, is a private or a mapped
address) says why in the notes, ``meta.lightSearch.probes`` and the source errors.
"""

from __future__ import annotations

import socket
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from twisted.internet.error import DNSLookupError

from lightsearch.cache import load_cache
from lightsearch.config import make_settings
from lightsearch.crawl.guard.resolver import SystemResolver
from lightsearch.errors import LightSearchError
from lightsearch.providers.light import LightSearch
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test, home_html, make_world

QUERY = "walrus haul out"


class ConfiguredOnly(SystemResolver):
    """Answers only from ``LIGHT_RESOLVER_OVERRIDES``; any other name does not resolve, so
    no test asks real DNS."""

    async def resolve(self, host: str, port: int) -> list[str]:
        if host.lower().rstrip(".") not in self.overrides:
            raise DNSLookupError(f"DNS lookup of {host!r} failed: not configured in the test")
        return await super().resolve(host, port)


def site(host: str, *, sitemap: bool = True, feed: bool = True, robots: dict | None = None, **extra) -> dict:
    """A small public-looking site: robots.txt naming its sitemap, a home page declaring its
    feed, three walrus notes and one about seals."""
    notes = [(f"/notes/walrus-{i}", f"Walrus haul out note {i}") for i in range(3)] + [("/notes/seals",
                                                                                          "Seal pups")]
    home = home_html(notes[:1]).replace(
        "<head>", "<head><link rel='alternate' type='application/rss+xml' href='/feed.xml'>" if feed else "<head>")
    routes = {"/": {"body": home}}
    if feed:
        items = "".join(f"<item><title>{t}</title><link>https://{host}{p}</link></item>" for p, t in notes)
        routes["/feed.xml"] = {"body": f"<?xml version='1.0'?><rss version='2.0'><channel><title>{host}</title>"
                                       f"{items}</channel></rss>", "type": "application/rss+xml"}
    listed = ""
    if sitemap:
        urls = "".join(f"<url><loc>https://{host}{p}</loc></url>" for p, _ in notes)
        routes["/sitemap.xml"] = {"body": "<?xml version='1.0'?><urlset xmlns='http://www.sitemaps.org/schemas/"
                                          f"sitemap/0.9'>{urls}</urlset>", "type": "application/xml"}
        listed = f"Sitemap: https://{host}/sitemap.xml\n"
    routes["/robots.txt"] = robots or {"body": f"User-agent: *\nAllow: /\n{listed}", "type": "text/plain"}
    for path, title in notes:
        routes[path] = {"body": article_html(title)}
    return {**routes, **extra}


CATALOG_SITE = {"/": {"body": home_html([("/walrus-catalog", "walrus haul out catalog")])},
                "/walrus-catalog": {"body": article_html("Walrus haul out in the catalog")}}


def world(origins, tmp_path, sites: dict, *, allowed=None, **settings) -> dict:
    """``sites`` beside the catalog's one source (``catalog.test``); the sites are mapped
    and allowed to be probed (``LIGHT_ADHOC_MAPPED_HOSTS``) unless ``allowed`` says otherwise."""
    return make_world(origins, tmp_path, {"catalog.test": CATALOG_SITE, **sites}, [{"id": "cat", "host": "catalog.test"}],
                      LIGHT_ADHOC_MAPPED_HOSTS=list(sites) if allowed is None else allowed, **settings)


def hosts(result) -> set[str]:
    return {urlsplit(h["url"]).hostname for h in result["hits"]}


def probe(result, domain: str) -> dict:
    return next(p for p in result["meta"]["lightSearch"]["probes"] if p["domain"] == domain)


def paths(origins, host: str) -> list[str]:
    return [e["path"] for e in origins.requests_for(host)]


# ------------------------------------------------------------------ searched on the spot
@coroutine_test
async def test_a_site_outside_the_catalog_is_probed_and_searched_within_the_bounds(origins, tmp_path):
    settings = world(origins, tmp_path, {"walrus.test": site("walrus.test")})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["walrus.test", "catalog.test"])
    assert "walrus.test" in hosts(result)
    assert "catalog.test" in hosts(result)
    light = result["meta"]["lightSearch"]
    assert light["sources"]["selected"][0] == "site:walrus.test"
    assert light["sources"]["probed"] == ["site:walrus.test"]
    assert probe(result, "walrus.test") | {"pagesRead": 0} == {
        "domain": "walrus.test", "source": "site:walrus.test", "fromEntry": False, "state": "probed",
        "documents": 3, "feeds": 1, "sitemaps": 1, "pages": 1, "pagesRead": 0}
    assert result["notes"][0] == ("walrus.test is not in Light's catalog: searched on the spot as source "
                                  "site:walrus.test: 1 home or listing page, 1 feed, 1 sitemap read")
    assert any(h["source"] == "site:walrus.test" and h["sourceName"] == "walrus.test" for h in result["hits"])
    # the probe is the crawl's: robots.txt first, every hop counted against the one budget
    seen = paths(origins, "walrus.test")
    assert seen[0] == "/robots.txt"
    assert {"/", "/feed.xml", "/sitemap.xml"} <= set(seen)
    served = len(origins.log)
    assert light["counts"]["requests"] == served <= 24


@coroutine_test
async def test_what_was_learned_is_kept_and_no_catalog_is_written(origins, tmp_path):
    user = tmp_path / "user-sources.json"
    user.write_text('{"id": "user", "version": "1", "sources": []}', encoding="utf-8")
    settings = world(origins, tmp_path, {"walrus.test": site("walrus.test")}, LIGHT_CATALOG_EXTRA=str(user))
    catalog_before = Path(settings["LIGHT_CATALOG"]).read_bytes()
    light = LightSearch.from_settings(settings)
    await light.search(QUERY, include_domains=["walrus.test"])
    records = load_cache(make_settings(settings), "LIGHT_RECORD_CACHE")
    entry = records.get_site("walrus.test")
    assert entry.seed == "https://walrus.test/"
    assert entry.feeds == ("https://walrus.test/feed.xml",)
    assert entry.sitemaps == ("https://walrus.test/sitemap.xml",)
    assert entry.language == "en"
    assert {d.kind for d in entry.documents} >= {"seed", "feed", "sitemap"}
    origins.reset_log()
    again = await light.search("walrus note", include_domains=["walrus.test"])
    assert probe(again, "walrus.test")["fromEntry"] is True
    assert "(starting from what an earlier search kept of it)" in again["notes"][0]
    assert "walrus.test" in hosts(again)
    assert "/robots.txt" not in paths(origins, "walrus.test")  # its rules are cached too
    # nothing was written to a catalog: the user catalog and the catalog are as they were
    assert user.read_text(encoding="utf-8") == '{"id": "user", "version": "1", "sources": []}'
    assert Path(settings["LIGHT_CATALOG"]).read_bytes() == catalog_before
    assert not user.with_suffix(".summary.json").exists()


@coroutine_test
async def test_several_sites_share_the_search_bounds(origins, tmp_path):
    sites = {f"s{i}.walrus.test": site(f"s{i}.walrus.test") for i in range(3)}
    settings = world(origins, tmp_path, sites, LIGHT_MAX_HOPS=9)
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=[*sites, "catalog.test"])
    light = result["meta"]["lightSearch"]
    assert light["counts"]["requests"] == len(origins.log) <= 9
    states = {p["domain"]: p["state"] for p in light["probes"]}
    assert set(states) == set(sites)
    assert "probed" in states.values()
    for domain, state in states.items():  # one not opened says so; none is silent
        assert any(n.startswith(f"{domain} is not in Light's catalog") for n in result["notes"])
        assert state in ("probed", "unopened")


@coroutine_test
async def test_the_deadline_holds_for_a_probed_site(origins, tmp_path):
    slow = site("slow.walrus.test", robots={"body": "User-agent: *\nAllow: /\n", "type": "text/plain",
                                             "delay": 4.0})
    settings = world(origins, tmp_path, {"slow.walrus.test": slow}, LIGHT_SOFT_DEADLINE_SECS=0.3,
                     LIGHT_DEADLINE_SECS=1.0)
    with pytest.raises(LightSearchError) as info:
        await LightSearch.from_settings(settings).search(QUERY, include_domains=["slow.walrus.test"])
    assert info.value.code == "deadline_exceeded"


@coroutine_test
async def test_a_probed_sites_pages_join_only_the_searches_that_name_it(origins, tmp_path):
    settings = world(origins, tmp_path, {"walrus.test": site("walrus.test")})
    light = LightSearch.from_settings(settings)
    await light.search(QUERY, include_domains=["walrus.test"])
    unnamed = await light.search(QUERY)
    assert hosts(unnamed) == {"catalog.test"}  # its cached pages never answer another search
    named = await light.search(QUERY, include_domains=["walrus.test"])
    assert "walrus.test" in hosts(named)


@coroutine_test
async def test_switched_off_it_is_a_note_and_nothing_is_read(origins, tmp_path):
    settings = world(origins, tmp_path, {"walrus.test": site("walrus.test")}, LIGHT_ADHOC_SOURCES=False)
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["walrus.test"])
    assert result["notes"][0].startswith("walrus.test is not in Light's catalog: Light reads only the sources")
    assert "probes" not in result["meta"]["lightSearch"]
    assert origins.log == []


# ------------------------------------------------------------------ what is refused before any hop
@pytest.mark.parametrize(("domain", "code", "reason"), [
    ("127.0.0.1", "blocked_address", "loopback"),
    ("10.0.0.1", "blocked_address", "private"),
    ("169.254.169.254", "blocked_address", "metadata"),
    ("0x7f.1", "blocked_address", "loopback"),
    ("localhost", "blocked_address", "internal-name"),
    ("db.internal", "blocked_address", "internal-name"),
    ("mapped.walrus.test", "blocked_address", "host-mapped"),  # in LIGHT_HOST_MAP, not allowed to be probed
    ("unmapped.walrus.test", "network_error", "not_in_offline_world"),  # a name no test of the session maps
])
@coroutine_test
async def test_what_the_guard_refuses_is_never_asked_and_the_catalog_still_answers(origins, tmp_path, domain, code,
                                                                                   reason):
    settings = world(origins, tmp_path, {"mapped.walrus.test": site("mapped.walrus.test")}, allowed=[])
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=[domain, "catalog.test"])
    assert hosts(result) == {"catalog.test"}
    assert probe(result, domain) == {"domain": domain, "source": f"site:{domain}", "state": "refused",
                                     "code": code, "reason": reason}
    assert result["notes"][0].startswith(f"{domain} is not in Light's catalog and is not probed ({code}, ")
    error = next(e for e in result["meta"]["lightSearch"]["sourceErrors"] if e["source"] == f"site:{domain}")
    assert (error["stage"], error["code"], error["reason"]) == ("probe", code, reason)
    assert {e["host"] for e in origins.log} == {"catalog.test"}


@coroutine_test
async def test_only_refused_sites_leave_nothing_to_search_and_say_so(origins, tmp_path):
    settings = world(origins, tmp_path, {})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["localhost"])
    assert result["hits"] == []
    assert any(n.startswith("no source is left to search") for n in result["notes"])
    assert origins.log == []


# ------------------------------------------------------------------ what fails on the way
def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@coroutine_test
async def test_a_name_that_does_not_resolve_and_a_private_address(origins, tmp_path):
    settings = world(origins, tmp_path, {}, LIGHT_HOST_MAP_ONLY=False,
                     LIGHT_RESOLVER=f"{__name__}.ConfiguredOnly",
                     LIGHT_RESOLVER_OVERRIDES={"nowhere.example": "nxdomain", "intranet.example": ["10.1.2.3"]})
    result = await LightSearch.from_settings(settings).search(
        QUERY, include_domains=["nowhere.example", "intranet.example", "catalog.test"])
    assert hosts(result) == {"catalog.test"}
    nowhere, intranet = probe(result, "nowhere.example"), probe(result, "intranet.example")
    assert (nowhere["state"], nowhere["code"], nowhere["reason"]) == ("failed", "robots_unreachable", "dns")
    assert (intranet["state"], intranet["code"]) == ("failed", "blocked_address")
    notes = result["notes"]
    assert ("nowhere.example is not in Light's catalog and could not be probed on the spot (robots_unreachable, "
            "its robots.txt could not be read: its name does not resolve)") in notes
    assert any(n.startswith("intranet.example is not in Light's catalog and could not be probed on the spot "
                            "(blocked_address") for n in notes)
    errors = result["meta"]["lightSearch"]["sourceErrors"]
    assert {e["source"] for e in errors} == {"site:nowhere.example", "site:intranet.example"}
    assert {e["host"] for e in origins.log} == {"catalog.test"}


@coroutine_test
async def test_a_site_that_refuses_connections(origins, tmp_path):
    settings = world(origins, tmp_path, {"refusing.walrus.test": site("refusing.walrus.test")})
    settings["LIGHT_HOST_MAP"]["refusing.walrus.test"] = {"https": f"127.0.0.1:{_closed_port()}"}
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["refusing.walrus.test",
                                                                                      "catalog.test"])
    assert hosts(result) == {"catalog.test"}
    refusing = probe(result, "refusing.walrus.test")
    assert (refusing["state"], refusing["code"], refusing["reason"]) == ("failed", "robots_unreachable", "connect")
    assert "it refuses connections" in result["notes"][0]


@coroutine_test
async def test_a_home_page_that_redirects_off_site(origins, tmp_path):
    away = site("away.walrus.test", sitemap=False, feed=False, **{"/": {"redirect": "https://catalog.test/",
                                                                        "status": 301}})
    settings = world(origins, tmp_path, {"away.walrus.test": away})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["away.walrus.test"])
    away_probe = probe(result, "away.walrus.test")
    assert (away_probe["state"], away_probe["code"], away_probe["reason"]) == ("failed", "redirect_refused",
                                                                              "off_source")
    assert "its home page redirects off the site, to another site" in result["notes"][0]
    assert paths(origins, "catalog.test") == []  # the redirect was never followed


@coroutine_test
async def test_a_redirect_to_www_stays_on_the_site_and_is_remembered(origins, tmp_path):
    settings = world(origins, tmp_path, {"bare.test": {"/": {"redirect": "https://www.bare.test/", "status": 301},
                                                       "/robots.txt": ROBOTS_ALLOW},
                                         "www.bare.test": site("www.bare.test", sitemap=False)})
    light = LightSearch.from_settings(settings)
    result = await light.search(QUERY, include_domains=["bare.test"])
    assert "www.bare.test" in hosts(result)
    entry = load_cache(make_settings(settings), "LIGHT_RECORD_CACHE").get_site("bare.test")
    assert entry.seed == "https://www.bare.test/"


@pytest.mark.parametrize(("robots", "code"), [
    ({"body": "User-agent: *\nDisallow: /\n", "type": "text/plain"}, "robots_disallowed"),
    ({"body": "User-agent: *\nAllow: /\n" + "# pad\n" * 100_000, "type": "text/plain"}, "robots_unreachable"),
    ({"body": "\x00\xff<html>not robots</html>" * 50, "status": 503}, "robots_unreachable"),
])
@coroutine_test
async def test_a_hostile_robots_txt(origins, tmp_path, robots, code):
    settings = world(origins, tmp_path, {"rules.walrus.test": site("rules.walrus.test", robots=robots)})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["rules.walrus.test",
                                                                                      "catalog.test"])
    assert hosts(result) == {"catalog.test"}
    assert (probe(result, "rules.walrus.test")["state"], probe(result, "rules.walrus.test")["code"]) == ("failed",
                                                                                                          code)
    assert paths(origins, "rules.walrus.test") == ["/robots.txt"]


@coroutine_test
async def test_a_hostile_sitemap_costs_the_sitemap_and_the_site_still_answers(origins, tmp_path):
    bomb = ("<?xml version='1.0'?><!DOCTYPE x [<!ENTITY a 'aaaaaaaaaa'><!ENTITY b '&a;&a;&a;&a;&a;&a;&a;&a;&a;'>"
            "<!ENTITY c '&b;&b;&b;&b;&b;&b;&b;&b;&b;'>]><urlset><url><loc>&c;</loc></url></urlset>")
    hostile = site("maps.walrus.test", **{"/sitemap.xml": {"body": bomb, "type": "application/xml"}})
    settings = world(origins, tmp_path, {"maps.walrus.test": hostile})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["maps.walrus.test"])
    assert "maps.walrus.test" in hosts(result)  # read by its home page and feed
    assert probe(result, "maps.walrus.test")["state"] == "probed"
    errors = result["meta"]["lightSearch"]["sourceErrors"]
    assert [(e["url"], e["code"]) for e in errors] == [("https://maps.walrus.test/sitemap.xml", "parse_error")]


@coroutine_test
async def test_a_probed_sites_robots_redirect_never_reaches_another_mapped_host(origins, tmp_path):
    sly = site("sly.walrus.test", robots={"redirect": "https://secret.walrus.test/robots.txt", "status": 301})
    settings = world(origins, tmp_path, {"sly.walrus.test": sly, "secret.walrus.test": site("secret.walrus.test")},
                     allowed=["sly.walrus.test"])
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["sly.walrus.test",
                                                                                      "catalog.test"])
    assert paths(origins, "secret.walrus.test") == []
    sly_probe = probe(result, "sly.walrus.test")
    assert (sly_probe["state"], sly_probe["code"]) == ("failed", "blocked_address")
    assert "catalog.test" in hosts(result)


@coroutine_test
async def test_a_site_that_names_nothing_to_read(origins, tmp_path):
    bare = {"/": {"body": "<!doctype html><html lang='en'><head><title>Empty</title></head><body><p>Nothing "
                          "here.</p></body></html>"}, "/robots.txt": ROBOTS_ALLOW}
    settings = world(origins, tmp_path, {"empty.walrus.test": bare})
    result = await LightSearch.from_settings(settings).search(QUERY, include_domains=["empty.walrus.test"])
    empty = probe(result, "empty.walrus.test")
    assert (empty["state"], empty["code"]) == ("empty", "no_discovery_documents")
    assert "it names nothing to read (no feed, no sitemap, no link on its home page)" in result["notes"][0]
    assert result["hits"] == []


# ------------------------------------------------------------------ every surface
@coroutine_test
async def test_through_the_front_door_web_search_and_web_news(origins, tmp_path, engine_replay):
    from lightsearch.offline_origins.replay import merge_settings
    from lightsearch.surfaces.toolbox import Toolbox

    engine_replay.reset()
    settings = world(origins, tmp_path, {"walrus.test": site("walrus.test")})
    async with Toolbox(merge_settings(engine_replay.settings(), settings)) as box:
        searched = await box.invoke("web_search", {"query": QUERY, "includeDomains": ["https://www.walrus.test/"]})
        news = await box.invoke("web_news", {"query": QUERY, "includeDomains": ["walrus.test"], "when": "1y"})
    assert searched["meta"]["lightSearch"]["sources"]["probed"] == ["site:walrus.test"]
    assert "walrus.test" in hosts(searched)
    assert "searched on the spot as source site:walrus.test" in searched["text"]
    # web_news asks Light as one of its members: what became of the site is in its notes
    assert any(n.startswith("light: walrus.test is not in Light's catalog: searched on the spot")
               for n in news["notes"]), news["notes"]
