"""What a crawl's scheduler may ask about the requests past it: which origins are busy,
which requests are downloading, which responses are being parsed.

Scrapy's own downloader-aware queue asks the downloader only through
``scrapy.pqueues.DownloaderInterface``; the frontier scheduler (crawl/scheduler.py) does the
same through :class:`DownloaderInterface`, declared by :class:`DownloaderView`, so the one
place that knows where the engine keeps that state is this module. What it reads are
public attributes of Scrapy 2.19: ``Downloader.slots`` (each ``Slot``'s ``active`` and
``queue``), ``Downloader.active``, ``Downloader.get_slot_key`` and ``Scraper.slot.active``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from scrapy.utils.httpobj import urlparse_cached

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler


@runtime_checkable
class DownloaderView(Protocol):
    """What the scheduler asks about the crawl's traffic."""

    def slot_key(self, request: Request) -> str:
        """The download slot (origin) ``request`` goes through."""

    def busy_slots(self) -> set[str]:
        """The slots with a request downloading or waiting for its turn."""

    def downloading(self) -> Iterable[Request]:
        """The requests in the downloader (waiting for their slot or downloading)."""

    def in_flight(self) -> Iterable[Request]:
        """The requests downloading or whose response is being parsed."""


class DownloaderInterface:
    """:class:`DownloaderView` over a running crawl's engine (none yet: nothing is busy)."""

    def __init__(self, crawler: Crawler) -> None:
        self._crawler = crawler

    def slot_key(self, request: Request) -> str:
        downloader = self._downloader()
        if downloader is not None:
            return downloader.get_slot_key(request)
        return request.meta.get("download_slot") or (urlparse_cached(request).hostname or "")

    def busy_slots(self) -> set[str]:
        slots = getattr(self._downloader(), "slots", None) or {}
        return {key for key, slot in slots.items() if slot.active or slot.queue}

    def downloading(self) -> Iterable[Request]:
        return getattr(self._downloader(), "active", ()) or ()

    def in_flight(self) -> Iterable[Request]:
        engine = getattr(self._crawler, "engine", None)
        slot = getattr(getattr(engine, "scraper", None), "slot", None)
        parsing = getattr(slot, "active", ()) or ()
        return itertools.chain(self.downloading(), parsing)

    def _downloader(self) -> object | None:
        return getattr(getattr(self._crawler, "engine", None), "downloader", None)
