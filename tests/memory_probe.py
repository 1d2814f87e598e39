"""What a call leaves alive once it has returned: weak references to the objects it made.

Two witnesses, both real: :class:`CrawlProbe`, a Scrapy extension added through the
``EXTENSIONS`` setting, keeps a weak reference to every crawler, spider, request and
response of every crawl a call runs (as they are made, through the crawler's signals);
and :func:`census` lists the live instances of the kinds of object a call makes and must
let go of (crawls, API responses, aiohttp sessions, selectors over a body), so a call that
runs no crawl (an engine's API request) is watched too.
"""

from __future__ import annotations

import gc
import weakref
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import aiohttp
import parsel
from scrapy import Request, Spider, signals
from scrapy.crawler import Crawler
from scrapy.http import Response

from lightsearch import settings as project_settings
from lightsearch.crawl.outcome import CrawlOutcome
from lightsearch.providers.apiclient import ApiResponse
from lightsearch.spiders.fetch import FetchedPage

PER_CALL = (Crawler, Spider, Request, Response, CrawlOutcome, FetchedPage, parsel.Selector, ApiResponse,
            aiohttp.ClientResponse, aiohttp.ClientSession, aiohttp.TCPConnector)


class CrawlProbe:
    """Weak references to what each crawl makes, noted as it is made."""

    made: ClassVar[list[tuple[str, weakref.ref[Any]]]] = []

    def __init__(self, crawler: Crawler) -> None:
        self.note("crawler", crawler)
        for signal, name in ((signals.spider_opened, "spider_opened"),
                             (signals.request_scheduled, "request_scheduled"),
                             (signals.response_received, "response_received")):
            crawler.signals.connect(getattr(self, name), signal=signal)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlProbe:
        return cls(crawler)

    @classmethod
    def note(cls, kind: str, obj: Any) -> None:
        cls.made.append((kind, weakref.ref(obj)))

    def spider_opened(self, spider: Spider) -> None:
        self.note("spider", spider)

    def request_scheduled(self, request: Request, spider: Spider) -> None:
        self.note("request", request)

    def response_received(self, response: Response, request: Request, spider: Spider) -> None:
        self.note("response", response)


PROBED = {"EXTENSIONS": {**project_settings.EXTENSIONS, f"{__name__}.CrawlProbe": 0}}


def census() -> list[Any]:
    """Every live object of a kind a call makes and must let go of (of those the collector
    has not set aside: :func:`left_alive` freezes what lived before the call)."""
    gc.collect()
    return [o for o in gc.get_objects() if isinstance(o, PER_CALL)]


async def left_alive(call: Callable[[], Awaitable[Any]]) -> tuple[list[str], dict[str, int]]:
    """Await ``call()``, let its result go, and say what it made that is still alive
    (``kind type``, by the probe and the census), and how many objects of each kind the
    probe saw made (to show that the call did make them).

    What lived before the call is frozen (``gc.freeze``): the collections and the census
    walk only what was made since, so they cost the call's objects, not the whole test
    process's. An object of the call held by an older one is still alive, and seen."""
    gc.collect()
    gc.freeze()
    try:
        before = {id(o): o for o in census()}  # held, so no id is reused meanwhile
        CrawlProbe.made.clear()
        result = await call()
        del result
        left = [o for o in census() if id(o) not in before]
        made: dict[str, int] = {}
        alive = []
        for kind, ref in CrawlProbe.made:
            made[kind] = made.get(kind, 0) + 1
            obj = ref()
            if obj is not None:
                alive.append(f"{kind} {type(obj).__name__}")
        CrawlProbe.made.clear()
        alive += [f"instance {type(o).__name__}" for o in left]
        del left, before
        return alive, made
    finally:
        gc.unfreeze()
