"""Discovery spends hops where it finds new evidence (real crawls, offline origins)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from lightsearch.providers.light import LightSearch
from lightsearch.spiders.discovery import newest_last, order_child_sitemaps
from tests import bombs
from tests.conftest import article_html, coroutine_test, make_world
from tests.hygiene_world import counts, hit_urls, paths


def _listing(items: list[tuple[str, str]], nxt: str | None) -> str:
    links = "".join(f'<li><a href="{h}">{t}</a></li>' for h, t in items)
    rel = f'<link rel="next" href="{nxt}">' if nxt else ""
    pager = f'<nav class="pager"><a rel="next" href="{nxt}">Older</a></nav>' if nxt else ""
    return f"<!doctype html><html><head><title>Archive</title>{rel}</head><body><ul>{links}</ul>{pager}</body></html>"


@coroutine_test
async def test_listing_pages_after_the_first_are_read_while_hops_remain(origins, tmp_path):
    host = "reach-pages.test"
    routes = {
        "/": {"body": _listing([("/n1", "Harbour ferry timetable")], "/page/2")},
        "/page/2": {"body": _listing([("/n2", "Orchard frost warning")], "/page/3")},
        "/page/3": {"body": _listing([("/old", "Basalt column erosion study")], None)},
        "/n1": {"body": article_html("Harbour ferry timetable")},
        "/n2": {"body": article_html("Orchard frost warning")},
        "/old": {"body": article_html("Basalt column erosion study")},
    }
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "pages", "host": host}])
    result = await LightSearch.from_settings(cfg).search("basalt column erosion")
    assert f"https://{host}/old" in hit_urls(result)
    assert result["meta"]["lightSearch"]["hops"]["byStage"]["listing"] == 2
    assert "/page/3" in paths(origins, host)
    # The listing pages are discovery documents, not evidence.
    assert all("/page/" not in u for u in hit_urls(result))
    assert counts(result)["requests"] <= 24


def test_child_sitemaps_spread_across_the_date_range_when_names_say_nothing():
    entries = [SimpleNamespace(loc=f"https://x/sitemaps/sitemap-{i}.xml", lastmod=f"2024-{i:02d}-01")
               for i in range(1, 13)]
    order = order_child_sitemaps(entries, lambda e: 0)
    assert sorted(e.loc for e in order) == sorted(e.loc for e in entries)
    first4 = [e.lastmod[:7] for e in order[:4]]
    assert first4[:2] == ["2024-12", "2024-01"]  # newest, then oldest, then the middles
    assert len({m for m in first4}) == 4
    named = order_child_sitemaps(entries, lambda e: 1 if e.loc.endswith("-3.xml") else 0)
    assert named[0].loc.endswith("-3.xml")


def test_a_probed_sites_newest_child_sitemap_is_read_last():
    """Its home page, feed and first listing page name its newest pages: the allowance goes
    to the parts of its map nothing else names, a child whose name matches still first."""
    entries = [SimpleNamespace(loc=f"https://x/sitemaps/sitemap-{i}.xml", lastmod=f"2024-{i:02d}-01")
               for i in range(1, 5)]
    order = newest_last(order_child_sitemaps(entries, lambda e: 0), lambda e: 0)
    assert [e.lastmod[:7] for e in order] == ["2024-01", "2024-03", "2024-02", "2024-04"]
    named = newest_last(order_child_sitemaps(entries, lambda e: e.loc.endswith("-4.xml")),
                        lambda e: e.loc.endswith("-4.xml"))
    assert named[0].loc.endswith("-4.xml")
    assert newest_last(entries[:1], lambda e: 0) == entries[:1]


def test_candidate_scores_weigh_rare_query_terms_over_common_ones():
    from lightsearch.plan.candidates import CandidateScorer
    from lightsearch.ranking.tokenize import tokenize

    scorer = CandidateScorer([set(tokenize("hypersonic flow"))])
    for i in range(20):  # a pool where "flow" is everywhere
        scorer.score(f"https://x/{i}", [f"laminar flow note {i}"])
    rare, _ = scorer.score("https://x/rare", ["hypersonic wedge"])
    common, _ = scorer.score("https://x/common", ["turbulent flow"])
    assert rare > common > 0
    assert scorer.score("https://x/none", ["unrelated words"]) == (0.0, 0)
    both, _ = scorer.score("https://x/both", ["hypersonic flow"])
    assert both == 1.0


@coroutine_test
async def test_the_rare_term_decides_what_is_fetched_first(origins, tmp_path):
    host = "reach-idf.test"
    common = [(f"/c{i}", f"Boundary layer flow report {i}") for i in range(12)]
    routes = {"/": {"body": _listing([*common, ("/rare", "Hypersonic wedge")], None)},
              "/rare": {"body": article_html("Hypersonic wedge", ["Boundary layer flow over a hypersonic wedge."])}}
    for href, title in common:
        routes[href] = {"body": article_html(title)}
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "idf", "host": host}], LIGHT_MAX_HOPS=4)
    result = await LightSearch.from_settings(cfg).search("hypersonic boundary layer flow")
    # robots, home, then the one page the rare term points at, within a 4-hop budget
    assert f"https://{host}/rare" in hit_urls(result)
    assert hit_urls(result)[0] == f"https://{host}/rare"


def _dated(title: str, when: str | None) -> str:
    page = article_html(title)
    if when:
        page = page.replace("</head>", f'<meta property="article:published_time" content="{when}"></head>')
    return page


@coroutine_test
async def test_recency_drops_hits_dated_outside_the_window_and_keeps_undated_ones(origins, tmp_path):
    from datetime import datetime, timedelta, timezone

    now = datetime.now(timezone.utc)
    host = "reach-recency.test"
    routes = {
        "/": {"body": _listing([("/new", "Glacier moraine survey new"), ("/old", "Glacier moraine survey old"),
                                ("/undated", "Glacier moraine survey undated")], None)},
        "/new": {"body": _dated("Glacier moraine survey new", (now - timedelta(days=2)).isoformat())},
        "/old": {"body": _dated("Glacier moraine survey old", (now - timedelta(days=15)).isoformat())},
        "/undated": {"body": _dated("Glacier moraine survey undated", None)},
    }
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "dated", "host": host}])
    engine = LightSearch.from_settings(cfg)
    result = await engine.search("glacier moraine survey", recency="week")
    urls = hit_urls(result)
    assert f"https://{host}/new" in urls
    assert f"https://{host}/undated" in urls
    assert f"https://{host}/old" not in urls
    assert result["meta"]["lightSearch"]["undated"] == [f"https://{host}/undated"]
    assert any("recency week: 1 hit(s) dated outside the window were dropped" in n for n in result["notes"])
    anytime = await engine.search("glacier moraine survey")
    assert f"https://{host}/old" in hit_urls(anytime)


@coroutine_test
async def test_a_page_linked_only_from_a_hub_is_found_by_its_own_title(offline_settings):
    """The gov.il guide is linked from a section hub only; the home page's logo, language and
    "home" links once used up the hub allowance before any hub was read."""
    from lightsearch.cache import clear_process_caches

    clear_process_caches()
    result = await LightSearch.from_settings(offline_settings).search("הנחה בארנונה: מי זכאי וכיצד מגישים בקשה")
    assert "https://www.gov.il/he/departments/guides/arnona-discount" in hit_urls(result)[:3]
    assert result["meta"]["lightSearch"]["hops"]["byStage"]["hub"] >= 1


@coroutine_test
async def test_a_listed_page_with_no_query_word_in_its_url_is_read_with_a_spare_hop(origins, tmp_path):
    """A Hebrew title behind a Latin slug: the sitemap lists it, nothing else links it."""
    host = "reach-listed.test"
    sitemap = ('<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
               f"<url><loc>https://{host}/intel-fab-update/</loc></url></urlset>")
    routes = {"/": {"body": _listing([], None)},
              "/sitemap.xml": {"body": sitemap, "type": "application/xml"},
              "/intel-fab-update/": {"body": article_html("מפעל השבבים של אינטל בקריית גת",
                                                          ["מפעל השבבים של אינטל בקריית גת מתרחב."])}}
    cfg = make_world(origins, tmp_path, {host: routes},
                     [{"id": "listed", "host": host, "language": "he", "sitemaps": [f"https://{host}/sitemap.xml"]}])
    result = await LightSearch.from_settings(cfg).search("מפעל השבבים של אינטל")
    assert hit_urls(result)[:1] == [f"https://{host}/intel-fab-update/"]


@coroutine_test
async def test_a_source_in_reserve_is_opened_once_the_first_ones_maps_are_read(origins, tmp_path):
    """Three sources cannot all be opened in depth with 24 hops: the two best go first; the
    third waits until their discovery documents are read, and is opened with the hops left
    before the search turns to reading candidates (but for the page hops the allowance
    holds beyond the article hops, two here, read while the second home page is on its way)."""
    sites, sources = {}, []
    for i, topic in enumerate(["estuary", "estuary", "lichens"]):
        host = f"reserve{i}.test"
        pages = [(f"/p{k}", f"Estuary sediment report {k} from site {i}") for k in range(3)] if i < 2 else \
            [("/crust", "Estuary sediment crust lichens")]
        routes = {"/": {"body": _listing(pages, None)}}
        for href, title in pages:
            routes[href] = {"body": article_html(title)}
        sites[host] = routes
        sources.append({"id": f"reserve{i}", "host": host, "topics": [topic]})
    cfg = make_world(origins, tmp_path, sites, sources, LIGHT_MAX_PAGE_HOPS=10)
    result = await LightSearch.from_settings(cfg).search("estuary sediment crust")
    meta = result["meta"]["lightSearch"]
    assert meta["sources"]["selected"] == ["reserve0", "reserve1", "reserve2"]
    assert "reserve2" in meta["sources"]["consulted"]  # opened: the first two left hops
    assert "https://reserve2.test/crust" in hit_urls(result)[:1]
    order = [(e["host"], e["path"]) for e in origins.log]
    first_reserve = next(i for i, (h, _) in enumerate(order) if h == "reserve2.test")
    homes = [i for i, (h, p) in enumerate(order) if h != "reserve2.test" and p == "/"]
    firsts = [i for i, (h, p) in enumerate(order) if h != "reserve2.test" and p.startswith("/p")]
    assert len(firsts) == 6
    assert max(homes) < first_reserve, order  # the first maps, then the reserve's
    assert len([i for i in firsts if i < first_reserve]) <= 2, order  # the spare page hops


def _urlset(host: str, slugs: list[str]) -> dict:
    urls = "".join(f"<url><loc>https://{host}/{s}</loc></url>" for s in slugs)
    return {"body": f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
            "type": "application/xml"}


@coroutine_test
async def test_the_map_is_read_before_the_pages(origins, tmp_path):
    """The sitemaps (the index and three children: four, the bound) are read before any
    page while more than LIGHT_ARTICLE_HOPS hops are left, so the one strong page listed in
    the middle child (read third) is found though the home page names twelve weaker ones
    first; the last hops read the best candidates."""
    host = "map.test"
    weak = [(f"/estuary-note-{i}", f"Estuary note {i}") for i in range(12)]
    routes = {"/": {"body": _listing(weak, None)}}
    for href, title in weak:
        routes[href] = {"body": article_html(title)}
    children = []
    for n in range(5):
        slugs = [f"estuary-survey-{n}-{k}" for k in range(4)]
        if n == 2:  # the middle child, read third
            slugs.append("estuary-sediment-crust-lichens")
        routes[f"/sitemap-{n}.xml"] = _urlset(host, slugs)
        children.append(f"<sitemap><loc>https://{host}/sitemap-{n}.xml</loc><lastmod>2026-10-0{n + 1}</lastmod></sitemap>")
        for slug in slugs:
            routes[f"/{slug}"] = {"body": article_html(slug.replace("-", " ").title())}
    routes["/sitemap-index.xml"] = {
        "body": f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{"".join(children)}</sitemapindex>',
        "type": "application/xml"}
    cfg = make_world(origins, tmp_path, {host: routes},
                     [{"id": "map", "host": host, "sitemaps": [f"https://{host}/sitemap-index.xml"]}])
    result = await LightSearch.from_settings(cfg).search("estuary sediment crust lichens")
    order = paths(origins, host)
    maps = [i for i, p in enumerate(order) if p.startswith("/sitemap")]
    pages = [i for i, p in enumerate(order) if p.startswith("/estuary")]
    assert len(maps) == 4
    assert max(maps) < min(pages), order
    assert len(pages) >= 8  # the article hops were kept for the pages
    assert hit_urls(result)[:1] == [f"https://{host}/estuary-sediment-crust-lichens"]
    assert result["meta"]["lightSearch"]["hops"]["byStage"]["article"] == len(pages)


@coroutine_test
async def test_a_busy_origins_strong_pages_are_read_before_an_idle_ones_weak_ones(origins, tmp_path):
    """The frontier prefers an idle origin only among the pages the page hops left can
    read. The strong origin is busy with a slow second seed page when the reading starts:
    its three strong pages wait their turn, and the idle origin's weak pages are not read
    in their place (they were, when the preference covered the whole pool)."""
    strong, weak = "busy-strong.test", "idle-weak.test"
    strong_pages = [(f"/basalt-{k}", f"Basalt column erosion study part {k}") for k in range(3)]
    weak_pages = [(f"/note-{k}", f"Erosion note {k}") for k in range(6)]
    sites = {
        strong: {"/": {"body": _listing(strong_pages, None)},
                 "/more": {"body": _listing([], None), "delay": 1.0},
                 **{h: {"body": article_html(t)} for h, t in strong_pages}},
        # the weak home page comes second, so no search reads weak pages for lack of others
        weak: {"/": {"body": _listing(weak_pages, None), "delay": 0.3},
               **{h: {"body": article_html(t)} for h, t in weak_pages}},
    }
    sources = [{"id": "strong", "host": strong, "seeds": [f"https://{strong}/", f"https://{strong}/more"]},
               {"id": "weak", "host": weak}]
    # 10 hops: robots.txt, the seeds, and then the read phase (the last 5 hops)
    cfg = make_world(origins, tmp_path, sites, sources, LIGHT_MAX_HOPS=10, LIGHT_MAX_PAGE_HOPS=3)
    result = await LightSearch.from_settings(cfg).search("basalt column erosion study", max_results=3)
    assert sorted(hit_urls(result)) == sorted(f"https://{strong}{h}" for h, _ in strong_pages)
    assert not [p for p in paths(origins, weak) if p.startswith("/note-")]
    assert "/more" in paths(origins, strong)


@coroutine_test
async def test_a_hub_waits_while_the_sitemap_index_that_names_child_sitemaps_is_read(origins, tmp_path):
    """The home page is read before the (slow) sitemap index robots.txt names, and links a
    hub in its navigation. The hub is weaker than the child sitemaps the index will name,
    so it waits until both are read (it went first when the frontier took what was queued)."""
    host = "floor.test"
    home = '<!doctype html><html><body><nav><a href="/archive">Archive</a></nav><p>Welcome.</p></body></html>'
    routes = {"/": {"body": home},
              "/robots.txt": {"body": f"User-agent: *\nAllow: /\nSitemap: https://{host}/sitemap-index.xml\n",
                              "type": "text/plain"},
              "/archive": {"body": _listing([], None)},
              "/sitemap-new.xml": _urlset(host, [f"estuary-survey-{k}" for k in range(4)]),
              "/sitemap-old.xml": _urlset(host, ["estuary-sediment-crust-lichens"]),
              "/estuary-sediment-crust-lichens": {"body": article_html("Estuary sediment crust lichens")}}
    for k in range(4):
        routes[f"/estuary-survey-{k}"] = {"body": article_html(f"Estuary survey {k}")}
    children = "".join(f"<sitemap><loc>https://{host}/sitemap-{name}.xml</loc><lastmod>{day}</lastmod></sitemap>"
                       for name, day in (("new", "2026-11-01"), ("old", "2026-01-01")))
    routes["/sitemap-index.xml"] = {
        "body": f'<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{children}</sitemapindex>',
        "type": "application/xml", "delay": 0.5}
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "floor", "host": host}])
    result = await LightSearch.from_settings(cfg).search("estuary sediment crust lichens")
    order = paths(origins, host)
    # the hub is read only after both children (with a hop the pages left over)
    assert max(order.index("/sitemap-new.xml"), order.index("/sitemap-old.xml")) < order.index("/archive"), order
    assert hit_urls(result)[:1] == [f"https://{host}/estuary-sediment-crust-lichens"]


# ------------------------------------------------------------------ small bodies, costly shapes
def _hostile_world(origins, tmp_path, routes, source, **settings):
    healthy = {"/": {"body": "<html><body><a href='/moraine'>glacier moraine sediment notes</a></body></html>"},
               "/moraine": {"body": article_html("Glacier moraine sediment notes from the field")}}
    return make_world(origins, tmp_path, {"hostile.test": routes, "healthy.test": healthy},
                      [{"id": "hostile", "host": "hostile.test", **source}, {"id": "healthy", "host": "healthy.test"}],
                      **settings)


@coroutine_test
async def test_a_small_home_page_nested_in_navigation_costs_what_its_size_does(origins, tmp_path):
    """32 KiB: 2,000 nested ``<nav>`` around 2,066 links. Read with a query per link it held
    the event loop past the search's deadline and the healthy source was lost with it; read
    in one walk, in a worker, both sources are read."""
    home, _ = bombs.nested_nav_home()
    cfg = _hostile_world(origins, tmp_path, {"/": {"body": home}}, {}, LIGHT_DEADLINE_SECS=10.0,
                         LIGHT_SOFT_DEADLINE_SECS=8.0)
    result = await LightSearch.from_settings(cfg).search("glacier moraine sediment")
    assert "https://healthy.test/moraine" in hit_urls(result)
    assert result["stopReason"] != "deadline"
    assert "hostile" in result["meta"]["lightSearch"]["sources"]["consulted"]


@coroutine_test
async def test_feeds_are_read_apart_and_no_entity_is_expanded(origins, tmp_path, monkeypatch):
    """Five feeds of 900 bytes, each an entity tree: feedparser is broken in this process
    (a worker has its own), and what the workers read holds the references, not the
    expansions: the feed's item is found by its link alone."""
    import feedparser

    import lightsearch.spiders.discovery as discovery
    from lightsearch.documents import feeds

    def refused(*_args, **_kwargs):
        raise AssertionError("a feed was parsed in the event loop's process")

    monkeypatch.setattr(feedparser, "parse", refused)
    monkeypatch.setattr(feeds, "read_feed", refused)
    monkeypatch.setattr(discovery, "read_feed", refused, raising=False)
    feed, ctype = bombs.entity_tree_feed()
    routes = {"/": {"body": "<html><body><p>Field notes.</p></body></html>"},
              "/glacier-moraine": {"body": article_html("Glacier moraine sediment survey")},
              **{f"/feed{i}.xml": {"body": feed, "type": ctype} for i in range(5)}}
    cfg = _hostile_world(origins, tmp_path, routes, {"feeds": [f"https://hostile.test/feed{i}.xml" for i in range(5)]})
    result = await LightSearch.from_settings(cfg).search("glacier moraine sediment")
    assert "https://hostile.test/glacier-moraine" in hit_urls(result)
    assert "https://healthy.test/moraine" in hit_urls(result)


def _urlset_of(host: str, slugs: list[str]) -> dict[str, str]:
    locs = "".join(f"<url><loc>https://{host}/{slug}</loc></url>" for slug in slugs)
    return {"body": f'<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{locs}</urlset>',
            "type": "application/xml"}


@coroutine_test
@pytest.mark.parametrize("document", ["page", "sitemap"])
async def test_a_documents_many_candidates_are_scored_with_the_event_loop_turning(origins, tmp_path, monkeypatch,
                                                                                   document):
    """2,000 links of a home page (or entries of a sitemap) are counted into the frontier a
    slice at a time: a callback scheduled when the first is counted runs before the last
    is, and the one candidate that matches the query is still read."""
    from lightsearch.plan.candidates import CandidateScorer

    host, many = "many-links.test", 2_000
    slugs = [f"x{i}" for i in range(many - 1)] + ["glacier-moraine-sediment"]
    routes = {"/glacier-moraine-sediment": {"body": article_html("Glacier moraine sediment survey")}}
    if document == "page":
        routes["/"] = {"body": "<html><body>" + "".join(f"<a href=/{s}>{s}</a>" for s in slugs) + "</body></html>"}
        source = {}
    else:
        routes["/"] = {"body": "<html><body><p>Field notes.</p></body></html>"}
        routes["/sitemap.xml"] = _urlset_of(host, slugs)
        source = {"sitemaps": [f"https://{host}/sitemap.xml"]}
    counted: list[int] = []
    seen_between: list[int] = []
    observe = CandidateScorer.observe

    def observing(self, key, tokens, summary=frozenset()):
        if not counted:
            asyncio.get_running_loop().call_soon(lambda: seen_between.append(len(counted)))
        counted.append(1)
        return observe(self, key, tokens, summary)

    monkeypatch.setattr(CandidateScorer, "observe", observing)
    cfg = make_world(origins, tmp_path, {host: routes}, [{"id": "many", "host": host, **source}])
    result = await LightSearch.from_settings(cfg).search("glacier moraine sediment")
    assert len(counted) >= many
    assert len(seen_between) == 1
    assert seen_between[0] < many, len(counted)
    assert f"https://{host}/glacier-moraine-sediment" in hit_urls(result)
