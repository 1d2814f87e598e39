"""One asyncio reactor per process, adopted from the caller's running loop.

Every search is a crawl started with ``AsyncCrawlerRunner`` inside that reactor; a
``CrawlerProcess`` per query would die on the second query (``ReactorNotRestartable``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from scrapy.settings import Settings
from scrapy.utils.misc import load_object
from scrapy.utils.reactor import install_reactor, is_asyncio_reactor_installed, is_reactor_installed

from lightsearch.errors import LightSearchError

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"


def ensure_reactor() -> None:
    """Install the asyncio reactor on the running loop if needed, and start it."""
    if not is_reactor_installed():
        install_reactor(ASYNCIO_REACTOR)
    elif not is_asyncio_reactor_installed():
        raise LightSearchError(
            "invalid_settings",
            "lightsearch needs Twisted's asyncio reactor; another reactor is installed",
            {"key": "TWISTED_REACTOR"},
        )
    from twisted.internet import reactor

    loop = asyncio.get_running_loop()
    # _asyncioEventloop: the loop AsyncioSelectorReactor was built on (Twisted 26.10).
    bound = getattr(reactor, "_asyncioEventloop", loop)
    if bound is not loop and bound.is_closed():
        raise LightSearchError(
            "runtime_closed",
            "lightsearch's Twisted reactor belongs to an event loop that has closed (an earlier "
            "asyncio.run() in this process), and Twisted cannot move it to another loop: run "
            "every search inside one asyncio.run(), or start a new process",
            {"key": "TWISTED_REACTOR"},
        )
    if bound is not loop:
        raise LightSearchError(
            "invalid_settings",
            "the asyncio reactor runs on another event loop than the caller's",
            {"key": "TWISTED_REACTOR"},
        )
    if not reactor.running:
        reactor.startRunning(installSignalHandlers=False)


COMPONENT_SETTINGS = (
    "DOWNLOAD_HANDLERS", "DOWNLOAD_HANDLERS_BASE", "DOWNLOADER_MIDDLEWARES",
    "DOWNLOADER_MIDDLEWARES_BASE", "SPIDER_MIDDLEWARES", "SPIDER_MIDDLEWARES_BASE",
    "EXTENSIONS", "EXTENSIONS_BASE", "ITEM_PIPELINES", "ITEM_PIPELINES_BASE",
)
_preloaded: set[str] = set()


def preload_components(settings: Settings) -> None:
    """Import every component class a crawl will build, once per process.

    A cold crawl spends most of a second importing Scrapy's handlers, middlewares and
    our extraction stack; done lazily, that time comes out of the first search's soft
    deadline. Loading here moves it to construction. Bad paths are left for the first
    search to report as ``invalid_settings``.
    """
    paths: list[Any] = [settings.get("SCHEDULER"), settings.get("TWISTED_DNS_RESOLVER")]
    for name in COMPONENT_SETTINGS:
        paths.extend(settings.getdict(name))
        paths.extend(v for v in settings.getdict(name).values() if isinstance(v, str))
    for path in paths:
        if not isinstance(path, str) or path in _preloaded:
            continue
        _preloaded.add(path)
        with contextlib.suppress(Exception):
            load_object(path)


_active_crawls = 0


@contextlib.contextmanager
def crawl_slot() -> Any:
    """Count a running crawl; when the last one ends, stop the reactor's thread pool.

    Scrapy starts Twisted's thread pool on first use, and its non-daemon threads would keep
    a script alive after ``asyncio.run()`` returned; the pool is made again on demand.
    """
    global _active_crawls
    _active_crawls += 1
    try:
        yield
    finally:
        _active_crawls -= 1
        if _active_crawls == 0:
            release_threads()


def release_threads() -> None:
    """Stop the reactor's thread pool if no crawl is running (a no-op otherwise)."""
    if _active_crawls or not is_reactor_installed():
        return
    from twisted.internet import reactor

    if getattr(reactor, "threadpool", None) is not None:
        # ReactorBase._stopThreadPool (Twisted 26.10) also drops the shutdown trigger that
        # would stop the pool again; getThreadPool() builds a new pool when one is needed.
        reactor._stopThreadPool()
