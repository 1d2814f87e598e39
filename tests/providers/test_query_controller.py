"""The query controller (providers/query_controller.py): a request and its plan in, one
bounded crawl run and ranked, its evidence and stop reason out, its lane closed after."""

from __future__ import annotations

import time

from lightsearch.config import make_settings
from lightsearch.plan.catalog import load_catalog
from lightsearch.plan.crawlplan import make_plan
from lightsearch.plan.request import build_request
from lightsearch.providers.query_controller import QueryController
from tests.conftest import article_html, coroutine_test, home_html, make_world


def controller_for(settings, query):
    s = make_settings(settings)
    request = build_request(query)
    plan = make_plan(request, load_catalog(s.get("LIGHT_CATALOG")), {}, s, opened=lambda _: False,
                     started=time.monotonic())
    return QueryController(s, request, plan)


@coroutine_test
async def test_one_request_becomes_one_bounded_crawl_its_evidence_ranked(origins, tmp_path):
    host = "controller.test"
    settings = make_world(origins, tmp_path, {host: {
        "/": {"body": home_html([("/moss", "sphagnum moss peat growth"), ("/other", "sphagnum moss")])},
        "/moss": {"body": article_html("Sphagnum moss peat growth")},
        "/other": {"body": article_html("Sphagnum moss in gardens")},
    }}, [{"id": "controller", "host": host}], LIGHT_MAX_HOPS=3)
    with controller_for(settings, "sphagnum moss peat growth") as controller:
        crawled = await controller.crawl()
        ranked = await controller.rank(crawled)
        assert controller.stop_reason(crawled) == "hops"  # robots, home and the best page
    assert crawled.outcome.spent.hops == 3
    # the home page was read for discovery: never evidence
    assert [d.url for d in crawled.fetched] == [f"https://{host}/moss"]
    assert [r.document.url for r in ranked] == [f"https://{host}/moss"]
    assert controller.lane.closed is not None  # the search's lane is closed with the controller

