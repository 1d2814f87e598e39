"""One asyncio reactor per process, adopted from the caller's running loop.

Every search is a crawl started with ``AsyncCrawlerRunner`` inside that reactor; a
``CrawlerProcess`` per query would die on the second query (``ReactorNotRestartable``).
"""

from __future__ import annotations

import asyncio

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
    if getattr(reactor, "_asyncioEventloop", loop) is not loop:
        raise LightSearchError(
            "invalid_settings",
            "the asyncio reactor runs on another event loop than the caller's",
            {"key": "TWISTED_REACTOR"},
        )
    if not reactor.running:
        reactor.startRunning(installSignalHandlers=False)
