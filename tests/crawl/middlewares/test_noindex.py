"""The noindex rule is a spider middleware (crawl/middlewares/noindex.py): the spider only
reads the directives; with the middleware switched off, a noindex page is evidence again."""

from __future__ import annotations

from lightsearch.providers.light import LightSearch
from tests.conftest import article_html, coroutine_test
from tests.hygiene_world import QUERY, case_routes, counts, hit_urls, world

NOINDEX_PAGE = {"/a": {"body": article_html("Glacier moraine sediment survey"),
                       "headers": {"X-Robots-Tag": "noindex"}}}


@coroutine_test
async def test_the_middleware_keeps_a_noindex_page_out_and_only_it(origins, tmp_path):
    kept_out = "noindex-on.test"
    for folder in ("on", "off"):
        (tmp_path / folder).mkdir()
    result = await LightSearch.from_settings(world(origins, tmp_path / "on", kept_out, case_routes(**NOINDEX_PAGE),
                                                   healthy=False)).search(QUERY)
    assert f"https://{kept_out}/a" not in hit_urls(result)
    assert counts(result)["noindexPages"] == 1
    off = "noindex-off.test"
    without = {"scrapy.spidermiddlewares.depth.DepthMiddleware": None,
               "lightsearch.crawl.middlewares.noindex.NoindexMiddleware": None}
    result = await LightSearch.from_settings(world(origins, tmp_path / "off", off, case_routes(**NOINDEX_PAGE),
                                                   healthy=False, SPIDER_MIDDLEWARES=without)).search(QUERY)
    assert f"https://{off}/a" in hit_urls(result)
    assert counts(result)["noindexPages"] == 0
