"""The HTTP(S) download handler every lightsearch crawl uses.

It is Scrapy's HTTP/1.1 handler with two changes that must sit at connection time, not
in a middleware: certificates are verified (:mod:`lightsearch.tls`), and a host named in
``LIGHT_HOST_MAP`` is connected to the loopback address the map gives while the URL,
``Host`` header and TLS server name stay those of the real site. That map is how offline
origins stand in for catalog sites; it is configuration only, never tool input. With
``LIGHT_HOST_MAP_ONLY`` any other host is refused before a connection is made.

Scrapy exposes no public hook for the connection endpoint, so this subclasses the
handler's private ``_ScrapyAgent``; the Scrapy version is pinned in pyproject.toml.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from scrapy.core.downloader.handlers.http11 import (
    HTTP11DownloadHandler,
    _BindAddressAgent,
    _ScrapyAgent,
)
from scrapy.exceptions import IgnoreRequest
from scrapy.utils._download_handlers import wrap_twisted_exceptions
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.httpobj import urlparse_cached
from scrapy.utils.misc import load_object
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import HostnameEndpoint, wrapClientTLS

from lightsearch import signals as light_signals
from lightsearch.budget import HopGate
from lightsearch.catalog import origin_of
from lightsearch.tls import VerifyingPolicy

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response


class HostNotMappedError(IgnoreRequest):
    """The host is outside the configured offline world."""


def parse_host_map(raw: dict[str, Any]) -> dict[str, dict[str, tuple[str, int]]]:
    """``{"host": {"http": "127.0.0.1:8080", "https": "127.0.0.1:8443"}}`` to tuples."""
    parsed: dict[str, dict[str, tuple[str, int]]] = {}
    for host, targets in (raw or {}).items():
        if not isinstance(targets, dict):
            raise ValueError(f"LIGHT_HOST_MAP[{host!r}] must map schemes to host:port")
        entry: dict[str, tuple[str, int]] = {}
        for scheme, target in targets.items():
            addr, _, port = str(target).rpartition(":")
            entry[scheme] = (addr.strip("[]"), int(port))
        parsed[host.lower()] = entry
    return parsed


class _MappedAgent(_BindAddressAgent):
    def __init__(self, *, host_map: dict[str, dict[str, tuple[str, int]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._host_map = host_map

    def _getEndpoint(self, uri):
        scheme = uri.scheme.decode()
        target = self._host_map.get(uri.host.decode().lower(), {}).get(scheme)
        if target is None:
            return super()._getEndpoint(uri)
        factory = self._endpointFactory
        kwargs: dict[str, Any] = {"bindAddress": factory._bindAddress}
        if factory._connectTimeout is not None:
            kwargs["timeout"] = factory._connectTimeout
        endpoint = HostnameEndpoint(factory._reactor, target[0], target[1], **kwargs)
        if scheme == "https":
            creator = factory._policyForHTTPS.creatorForNetloc(uri.host, uri.port)
            return wrapClientTLS(creator, endpoint)
        return endpoint


class _LightAgent(_ScrapyAgent):
    def __init__(self, *, host_map: dict[str, dict[str, tuple[str, int]]], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._host_map = host_map

    def _get_agent(self, request: Request, timeout: float):
        from twisted.internet import reactor

        if request.meta.get("proxy"):
            raise IgnoreRequest("proxies are not used by lightsearch")
        return _MappedAgent(
            host_map=self._host_map,
            reactor=reactor,
            contextFactory=self._contextFactory,
            connectTimeout=timeout,
            bindAddress=self._bindAddress,
            pool=self._pool,
        )


class LightDownloadHandler(HTTP11DownloadHandler):
    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler)
        self._limiter = load_object(crawler.settings["LIGHT_POLITENESS_LIMITER"]).from_crawler(crawler)
        self._in_flight: set[Deferred] = set()
        self._gate = HopGate(crawler)
        crawler.signals.connect(self._abort, signal=light_signals.abort_requested)
        settings = crawler.settings
        if settings.getbool("LIGHT_TLS_VERIFY", True):
            self._contextFactory = VerifyingPolicy.shared(settings.get("LIGHT_TLS_CA_FILE"))
        self._host_map = parse_host_map(settings.getdict("LIGHT_HOST_MAP"))
        self._map_only = settings.getbool("LIGHT_HOST_MAP_ONLY")

    async def download_request(self, request: Request) -> Response:
        hostname = (urlparse_cached(request).hostname or "").lower()
        if self._map_only and hostname not in self._host_map:
            raise HostNotMappedError(f"host {hostname!r} is not in LIGHT_HOST_MAP")
        agent = _LightAgent(
            host_map=self._host_map,
            contextFactory=self._contextFactory,
            bindAddress=self._bind_address,
            pool=self._pool,
            maxsize=self._default_maxsize,
            warnsize=self._default_warnsize,
            fail_on_dataloss=self._fail_on_dataloss,
            crawler=self._crawler,
            tls_verbose_logging=self._tls_verbose_logging,
        )
        async with self._limiter.slot(origin_of(request.url)):
            self._gate.claim(request.url)
            d = agent.download_request(request)
            self._in_flight.add(d)
            try:
                with wrap_twisted_exceptions():
                    return await maybe_deferred_to_future(d)
            finally:
                self._in_flight.discard(d)

    def _abort(self) -> None:
        """Cancel every transfer in flight (hard deadline, caller cancellation)."""
        for d in list(self._in_flight):
            d.cancel()
