"""One downloader middleware per budget rule, each asking the crawl's budget (crawl/budget.py)
for its own rule only: the deadline (crawl/middlewares/timebudget.py), the hops
(crawl/middlewares/hops.py) and the bytes (crawl/middlewares/bytebudget.py)."""

from __future__ import annotations

import time

import pytest
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from lightsearch.crawl.budget import BudgetExceeded, budget_of
from lightsearch.crawl.middlewares.bytebudget import ByteBudgetMiddleware
from lightsearch.crawl.middlewares.hops import HopBudgetMiddleware
from lightsearch.crawl.middlewares.timebudget import DeadlineMiddleware
from lightsearch.plan.frontier import CrawlFrontier, attach

SETTINGS = {"LIGHT_MAX_HOPS": 2, "LIGHT_MAX_ENCODED_BYTES": 4096, "LIGHT_MAX_DECODED_BYTES": 8192,
            "LIGHT_SOFT_DEADLINE_SECS": 5.0, "LIGHT_DEADLINE_SECS": 10.0, "LIGHT_RESPONSE_MAX_BYTES": 2048,
            "DOWNLOAD_TIMEOUT": 30}


def crawler(started=None):
    c = get_crawler(Spider, SETTINGS)
    attach(c, CrawlFrontier(started=time.monotonic() if started is None else started))
    return c


def refusal(middleware, url="https://a.example/"):
    with pytest.raises(BudgetExceeded) as info:
        middleware.process_request(Request(url))
    return info.value.reason


def test_each_rule_refuses_for_its_own_budget_only():
    c = crawler()
    budget = budget_of(c)
    deadline, hops, sizes = (cls.from_crawler(c) for cls in (DeadlineMiddleware, HopBudgetMiddleware,
                                                             ByteBudgetMiddleware))
    budget.hops = 2
    assert refusal(hops) == "hops"
    for middleware in (deadline, sizes):
        middleware.process_request(Request("https://a.example/"))
    budget.hops = 0
    budget.add_encoded(4096)
    assert refusal(sizes) == "encoded_bytes"
    hops.process_request(Request("https://a.example/"))
    assert budget.stop_reason == "hops"  # the first reason is kept; later ones are counted
    assert c.stats.get_value("light/budget/stopped/encoded_bytes")


def test_the_deadline_rule_refuses_past_the_soft_deadline_and_bounds_each_download():
    request = Request("https://a.example/")
    DeadlineMiddleware.from_crawler(crawler()).process_request(request)
    assert 10.0 <= request.meta["download_timeout"] <= 11.0  # just past the hard deadline
    late = crawler(started=time.monotonic() - 6.0)
    assert refusal(DeadlineMiddleware.from_crawler(late)) == "soft_deadline"


def test_the_byte_rule_caps_each_response():
    request = Request("https://a.example/", meta={"download_maxsize": 1_000_000})
    ByteBudgetMiddleware.from_crawler(crawler()).process_request(request)
    assert request.meta["download_maxsize"] == 2048
