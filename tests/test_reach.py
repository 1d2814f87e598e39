"""Issue 17: discovery spends hops where it finds new evidence (real crawls, offline origins)."""

from __future__ import annotations

from types import SimpleNamespace

from lightsearch.providers.light import LightSearch
from spiders.discovery import order_child_sitemaps
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
