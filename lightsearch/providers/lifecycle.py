"""What every provider does around its calls, once: built from settings, closed with ``async with``.

::

    Provider(settings, environ=None)     the kill switch checked (config.check_door)
    │                                    crawls=True: crawl components imported and the
    │                                    worker pool started now, not on the first call
    ├── from_settings(overrides, ...)    settings built here (config.make_settings)
    ├── async with provider: ...         leaves through aclose()
    └── aclose()                         crawls=True: the idle workers, and the reactor's
                                         threads when lightsearch started the reactor,
                                         released once no crawl runs; the provider stays
                                         usable (the next call starts them again)

Light (:class:`~lightsearch.providers.light.LightSearch`) and web_fetch
(:class:`~lightsearch.providers.fetch.WebFetch`) run Scrapy crawls in the caller's loop
and set ``crawls``; Brave and the engines ask HTTP APIs and hold nothing to release. A
provider checks the kill switch again where each call starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, TypeVar

from scrapy.settings import Settings

from lightsearch.config import check_door, make_settings

P = TypeVar("P", bound="Provider")


class Provider:
    """The lifecycle every provider shares; a subclass adds its calls (``search``, ``fetch``)."""

    #: the name its results report (``provider``), for a search provider
    provider: str
    #: whether it runs Scrapy crawls in the caller's loop (and so holds threads and workers)
    crawls: ClassVar[bool] = False

    def __init__(self, settings: Settings, environ: Mapping[str, str] | None = None) -> None:
        check_door(settings, environ)
        self.settings = settings
        if self.crawls:
            # Imported here, not at the top: Brave and the engines never load the crawler.
            from lightsearch.crawl.runtime import preload_components
            from lightsearch.isolation.lanes import warm_pool

            preload_components(settings)
            warm_pool(settings)

    @classmethod
    def from_settings(cls: type[P], overrides: Mapping[str, Any] | Settings | None = None, *args: Any,
                      **kwargs: Any) -> P:
        """The provider on settings built from ``overrides`` (defaults, our settings table,
        then the overrides); other arguments go to the constructor."""
        return cls(make_settings(overrides), *args, **kwargs)

    async def __aenter__(self: P) -> P:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Release what the process holds for crawls once none is running (the idle
        extraction workers; the reactor's threads when lightsearch started the reactor, not
        when an app runs it), so a script that searched can exit; the provider stays
        usable. Nothing to release for a provider that does not crawl."""
        if self.crawls:
            from lightsearch.crawl.runtime import release_threads
            from lightsearch.isolation.pool import release_pools

            release_threads()
            release_pools()
