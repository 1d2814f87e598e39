"""One asyncio reactor per process, adopted from the caller's running loop.

Every search and fetch is a crawl of its own (``crawl/run.py`` builds a
:class:`EmbeddedCrawler` for it, not through a ``CrawlerRunner``) on that one reactor,
several at once; a ``CrawlerProcess`` per query would die on the second query
(``ReactorNotRestartable``).

The reactor may be the embedding app's: an app that runs its own spiders (its own
``AsyncCrawlerRunner`` or ``CrawlerProcess``, Twisted's asyncio reactor installed) runs
searches beside them on the reactor it runs. lightsearch then leaves what is the app's
alone: it neither starts nor stops the reactor, keeps the reactor's thread pool running
(the app's DNS lookups use it), and leaves the app's logging as the app configured it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
from typing import Any

from scrapy.crawler import Crawler
from scrapy.settings import Settings
from scrapy.utils.log import get_scrapy_root_handler
from scrapy.utils.misc import load_object
from scrapy.utils.reactor import install_reactor, is_asyncio_reactor_installed, is_reactor_installed

from lightsearch.crawl.crawl_settings import CrawlSettings
from lightsearch.errors import LightSearchError

ASYNCIO_REACTOR = "twisted.internet.asyncioreactor.AsyncioSelectorReactor"
# Whether lightsearch started the reactor (for a script or an asyncio program), rather than
# an app that runs it (task.react, CrawlerProcess.start, reactor.run).
_started_here = False


def ensure_reactor() -> None:
    """Install the asyncio reactor on the running loop if needed, and start it if no one
    runs it."""
    global _started_here
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
        _started_here = True


class EmbeddedCrawler(Crawler):
    """A crawler that leaves the process's logging as it is, and copies its settings
    without ``copy.deepcopy``.

    Scrapy's ``Crawler`` replaces the Scrapy root log handler, when one is installed (by a
    ``CrawlerProcess`` or ``configure_logging``), with one made from the new crawler's
    settings: every search would set an embedding app's log level to its own (``ERROR``)
    and the app's spiders would go quiet. This crawler keeps the handler and adds to it a
    filter that holds back its own records (those naming its crawler or spider) below its
    ``LOG_LEVEL``, so the app's log shows its own spiders as before.
    """

    def __init__(self, spidercls: type, settings: Settings) -> None:
        # Scrapy's Crawler starts from settings.copy(): made value by value, not by deepcopy
        # (crawl/crawl_settings.py), it is a small part of starting a crawl instead of the largest.
        super().__init__(spidercls, settings if isinstance(settings, CrawlSettings) else CrawlSettings.of(settings))
        level = self.settings.get("LOG_LEVEL") or "DEBUG"
        self.log_level = level if isinstance(level, int) else logging.getLevelName(str(level).upper())
        if not isinstance(self.log_level, int):
            self.log_level = logging.DEBUG
        handler = get_scrapy_root_handler()
        if handler is not None and _QUIET not in handler.filters:
            handler.addFilter(_QUIET)

    def _update_root_log_handler(self) -> None:
        return

    def _apply_settings(self) -> None:
        # the records logged while the settings apply (the overridden settings) name no
        # crawler: they are this one's
        token = _APPLYING.set(self)
        try:
            super()._apply_settings()
        finally:
            _APPLYING.reset(token)


_APPLYING: contextvars.ContextVar[EmbeddedCrawler | None] = contextvars.ContextVar("lightsearch_applying",
                                                                                  default=None)


class _QuietSearches(logging.Filter):
    """Holds back a lightsearch crawl's records below that crawl's ``LOG_LEVEL``."""

    def filter(self, record: logging.LogRecord) -> bool:
        crawler = getattr(record, "crawler", None) or getattr(getattr(record, "spider", None), "crawler", None) \
            or _APPLYING.get()
        return not isinstance(crawler, EmbeddedCrawler) or record.levelno >= crawler.log_level


_QUIET = _QuietSearches()


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
    """Stop the reactor's thread pool if no crawl is running and lightsearch started the
    reactor (a no-op otherwise: a reactor an app runs, and its threads, are the app's).
    A pool with work in hand is left running too (an app's crawl may use a reactor that
    lightsearch started)."""
    if _active_crawls or not _started_here or not is_reactor_installed():
        return
    from twisted.internet import reactor

    pool = getattr(reactor, "threadpool", None)
    if pool is not None and not pool.working:
        # ReactorBase._stopThreadPool (Twisted 26.10) also drops the shutdown trigger that
        # would stop the pool again; getThreadPool() builds a new pool when one is needed.
        reactor._stopThreadPool()
