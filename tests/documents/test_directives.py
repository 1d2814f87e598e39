"""noindex / none / nofollow from meta tags and X-Robots-Tag, one case per row."""

from __future__ import annotations

import pytest

from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test
from tests.hygiene_world import QUERY, case_routes, counts, hit_urls, paths, slug, world


def _article_with_meta(name: str, content: str) -> str:
    html = article_html("Glacier moraine sediment survey")
    return html.replace("<head>", f'<head><meta name="{name}" content="{content}">')


def _home_with_meta(content: str) -> str:
    return (f'<html><head><meta name="robots" content="{content}"></head><body>'
            '<a href="/a">glacier moraine sediment survey</a></body></html>')


# name, routes, article listed?, article fetched?, counters that must be non-zero
CASES = [
    ("meta noindex", {"/a": {"body": _article_with_meta("robots", "noindex")}}, False, True, ["noindexPages"]),
    ("meta none", {"/a": {"body": _article_with_meta("robots", "none")}}, False, True,
     ["noindexPages", "nofollowPages"]),
    ("meta NOINDEX mixed case and list", {"/a": {"body": _article_with_meta("ROBOTS", "max-snippet:50, NoIndex")}},
     False, True, ["noindexPages"]),
    ("our crawler's meta name", {"/a": {"body": _article_with_meta("lightbot", "noindex")}}, False, True,
     ["noindexPages"]),
    ("another crawler's meta name", {"/a": {"body": _article_with_meta("googlebot", "noindex")}}, True, True, []),
    ("header noindex", {"/a": {"body": article_html("Glacier moraine sediment survey"),
                               "headers": {"X-Robots-Tag": "noindex"}}}, False, True, ["noindexPages"]),
    ("header none", {"/a": {"body": article_html("Glacier moraine sediment survey"),
                            "headers": {"X-Robots-Tag": "none"}}}, False, True, ["noindexPages", "nofollowPages"]),
    ("header scoped to us", {"/a": {"body": article_html("Glacier moraine sediment survey"),
                                    "headers": {"X-Robots-Tag": "lightbot: noindex, nofollow"}}},
     False, True, ["noindexPages", "nofollowPages"]),
    ("header scoped to another crawler", {"/a": {"body": article_html("Glacier moraine sediment survey"),
                                                 "headers": {"X-Robots-Tag": "otherbot: noindex"}}},
     True, True, []),
    ("unavailable_after in the past", {"/a": {"body": article_html("Glacier moraine sediment survey"),
                                              "headers": {"X-Robots-Tag": "unavailable_after: 2001-01-01"}}},
     False, True, ["noindexPages"]),
    ("page nofollow stops following", {"/": {"body": _home_with_meta("nofollow")}}, False, False,
     ["nofollowPages"]),
    ("header nofollow on the home page", {"/": {"body": _home_with_meta("all"),
                                                "headers": {"X-Robots-Tag": "nofollow"}}}, False, False,
     ["nofollowPages"]),
    ("rel=nofollow link", {"/": {"body": '<html><body><a rel="ugc nofollow" href="/a">glacier moraine '
                                         "sediment survey</a></body></html>"}}, False, False, ["nofollowLinks"]),
]


@pytest.mark.parametrize(("name", "routes", "listed", "fetched", "nonzero"), CASES, ids=[c[0] for c in CASES])
@coroutine_test
async def test_page_directive(origins, tmp_path, name, routes, listed, fetched, nonzero):
    host = f"dir-{slug(name)}.test"
    cfg = world(origins, tmp_path, host, case_routes(**routes))
    result = await LightSearch.from_settings(cfg).search(QUERY)
    assert (f"https://{host}/a" in hit_urls(result)) is listed
    assert ("/a" in paths(origins, host)) is fetched
    assert "https://healthy.test/moraine" in hit_urls(result)
    c = counts(result)
    for key in ("noindexPages", "nofollowPages", "nofollowLinks"):
        assert (c[key] > 0) is (key in nonzero), key
    # A page kept out of results is kept out of the cache too.
    assert c["cacheStored"] == len(result["hits"])


@coroutine_test
async def test_noindex_page_is_not_served_from_cache_later(origins, tmp_path):
    host = "dir-noindex-cache.test"
    cfg = world(origins, tmp_path, host, case_routes(**{"/a": {"body": _article_with_meta("robots", "noindex")}}))
    engine = LightSearch.from_settings(cfg)
    await engine.search(QUERY)
    # The home page is a fresh discovery record and still links /a: /a is read
    # again, still noindex, and the first read was never stored as evidence.
    origins.add_site(host, case_routes(**{"/": {"body": "<html><body>nothing here</body></html>"},
                                          "/a": {"body": _article_with_meta("robots", "noindex")}}))
    second = await engine.search(QUERY)
    assert f"https://{host}/a" not in hit_urls(second)
    assert counts(second)["cacheJoined"] == 1  # the healthy host's page only
