"""Connections kept from one search to the next (crawl/kept_connections.py), on real loopback
origins whose answer is the client's port (one port, one connection): a second crawl
rides the first one's connection; a crawl vetted to another address never does; a
crawl with the setting off, and web_fetch, keep none."""

from __future__ import annotations

import asyncio

from scrapy import Request, Spider

from lightsearch.config import make_settings
from lightsearch.crawl.run import run_crawl
from lightsearch.offline_origins.server import OfflineOrigins
from lightsearch.providers.fetch import WebFetch
from tests.conftest import ROBOTS_ALLOW, article_html, coroutine_test

HOST = "kept.example"
DEADLINE = 30.0


def answer_port(tag: str):
    def handler(request_handler):
        port = request_handler.client_address[1]
        body = article_html(f"Port {port} of {tag} served this page").encode()
        request_handler.send_response(200)
        request_handler.send_header("Content-Type", "text/html; charset=utf-8")
        request_handler.send_header("Content-Length", str(len(body)))
        request_handler.end_headers()
        request_handler.wfile.write(body)
    return handler


def serve(origins: OfflineOrigins, tag: str) -> dict:
    origins.add_site(HOST, {"/robots.txt": ROBOTS_ALLOW, "/port": {"handler": answer_port(tag)}})
    target = {"https": f"127.0.0.1:{origins.https_port}", "http": f"127.0.0.1:{origins.http_port}"}
    return {**origins.settings(), "LIGHT_HOST_MAP": {HOST: target}, "LOG_LEVEL": "ERROR"}


class PortSpider(Spider):
    name = "test_port"
    custom_settings = {"ITEM_PIPELINES": {}}

    def __init__(self, scheme: str = "https", **kwargs):
        super().__init__(**kwargs)
        self.scheme = scheme

    async def start(self):
        yield Request(f"{self.scheme}://{HOST}/port", meta={"stage": "page"}, dont_filter=True)

    def parse(self, response):
        yield {"answer": response.css("title::text").get()}


async def answer(settings: dict, scheme: str = "https", **overrides) -> str:
    outcome = await run_crawl(make_settings({**settings, **overrides}), PortSpider, DEADLINE, scheme=scheme)
    assert len(outcome.items) == 1, outcome.stats
    return outcome.items[0]["answer"]


@coroutine_test
async def test_a_second_search_rides_the_first_ones_connection(origins):
    settings = serve(origins, "first")
    assert await answer(settings) == await answer(settings)


@coroutine_test
async def test_a_kept_connection_closes_once_idle_past_its_bound(origins):
    settings = serve(origins, "first")
    first = await answer(settings, LIGHT_KEEP_CONNECTIONS_IDLE_SECS=1)
    await asyncio.sleep(2.5)
    assert first != await answer(settings, LIGHT_KEEP_CONNECTIONS_IDLE_SECS=1)


@coroutine_test
async def test_with_the_setting_off_every_crawl_connects_anew(origins):
    settings = serve(origins, "first")
    first = await answer(settings, LIGHT_KEEP_CONNECTIONS=False)
    assert first != await answer(settings, LIGHT_KEEP_CONNECTIONS=False)


@coroutine_test
async def test_a_kept_connection_never_serves_a_crawl_vetted_to_another_address(origins):
    # plain HTTP and one trust configuration, so both crawls draw on the same kept pool and
    # only the vetted address tells their connections apart
    first = serve(origins, "first")
    kept = await answer(first, "http")
    with OfflineOrigins() as other:  # the same host name, mapped to another address
        second = {**serve(other, "second"), "LIGHT_TLS_CA_FILE": first["LIGHT_TLS_CA_FILE"]}
        assert "of second" in await answer(second, "http")
    assert await answer(first, "http") == kept


@coroutine_test
async def test_web_fetch_keeps_no_connection(origins):
    fetcher = WebFetch.from_settings(serve(origins, "first"))
    first = await fetcher.fetch(f"https://{HOST}/port")
    second = await fetcher.fetch(f"https://{HOST}/port")
    assert first["title"].startswith("Port ")
    assert first["title"] != second["title"]
