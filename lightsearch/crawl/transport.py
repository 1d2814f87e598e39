"""The HTTP(S) download handler every lightsearch crawl uses.

It is Scrapy's HTTP/1.1 handler with the changes that must sit at connection time, not
in a middleware, because only the handler sees every hop (first request, redirects, meta
refreshes, robots.txt) right before bytes go out:

* the transport guard (:mod:`lightsearch.crawl.guard`): the URL as Scrapy will request it is
  checked, the host is resolved *here*, every answer is classified, and the connection
  goes to the vetted address itself, so there is no second lookup for DNS rebinding to
  win. A refused hop raises before any connection. The ``Host`` header and TLS server
  name stay those of the real name;
* certificates are verified (:mod:`lightsearch.crawl.tls`);
* a host named in ``LIGHT_HOST_MAP`` is connected to the loopback address the map gives.
  That map is how offline origins stand in for catalog sites; it is configuration only,
  never tool input, and the one exception to the guard. With ``LIGHT_HOST_MAP_ONLY`` any
  other host is refused before a connection is made;
* credentials never leave: ``Authorization``, ``Proxy-Authorization`` and ``Cookie``
  headers are dropped from every request, and proxies are refused.

Scrapy exposes no public hook for the connection endpoint, so this subclasses the
handler's private ``_ScrapyAgent``; the Scrapy version is pinned in pyproject.toml.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING, Any

from scrapy.core.downloader.handlers.http11 import (
    HTTP11DownloadHandler,
    _BindAddressAgent,
    _ScrapyAgent,
)
from scrapy.exceptions import DownloadTimeoutError, IgnoreRequest
from scrapy.utils._download_handlers import wrap_twisted_exceptions
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import build_from_crawler, load_object
from twisted.internet.defer import Deferred
from twisted.internet.endpoints import (
    HostnameEndpoint,
    TCP4ClientEndpoint,
    TCP6ClientEndpoint,
    wrapClientTLS,
)

from lightsearch.crawl import signals as light_signals
from lightsearch.crawl.budget import HopGate
from lightsearch.crawl.guard import BlockedAddress, GuardRefusal
from lightsearch.crawl.guard.addresses import classify
from lightsearch.crawl.guard.resolver import ResolveTimeout
from lightsearch.crawl.guard.urls import Target, check_url
from lightsearch.crawl.tls import VerifyingPolicy
from lightsearch.plan.catalog import origin_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

CREDENTIAL_HEADERS = (b"Authorization", b"Proxy-Authorization", b"Cookie")


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
        parsed[host.lower().rstrip(".")] = entry
    return parsed


class _PinnedAgent(_BindAddressAgent):
    """Connects to one address decided before the agent existed; never resolves."""

    def __init__(self, *, address: tuple[str, int], mapped: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._address = address
        self._mapped = mapped

    def _getEndpoint(self, uri):
        factory = self._endpointFactory
        kwargs: dict[str, Any] = {"bindAddress": factory._bindAddress}
        if factory._connectTimeout is not None:
            kwargs["timeout"] = factory._connectTimeout
        host, port = self._address
        if self._mapped:  # a configured loopback target, possibly a name like "localhost"
            endpoint = HostnameEndpoint(factory._reactor, host, port, **kwargs)
        elif ipaddress.ip_address(host.split("%")[0]).version == 6:
            endpoint = TCP6ClientEndpoint(factory._reactor, host, port, **kwargs)
        else:
            endpoint = TCP4ClientEndpoint(factory._reactor, host, port, **kwargs)
        if uri.scheme == b"https":
            creator = factory._policyForHTTPS.creatorForNetloc(uri.host, uri.port)
            return wrapClientTLS(creator, endpoint)
        return endpoint


class _LightAgent(_ScrapyAgent):
    def __init__(self, *, address: tuple[str, int], mapped: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._address = address
        self._mapped = mapped

    def _get_agent(self, request: Request, timeout: float):
        from twisted.internet import reactor

        if request.meta.get("proxy"):
            raise IgnoreRequest("proxies are not used by lightsearch")
        return _PinnedAgent(
            address=self._address,
            mapped=self._mapped,
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
        self._allowed_ports = frozenset(int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS"))
        self._resolver = build_from_crawler(load_object(settings["LIGHT_RESOLVER"]), crawler)

    async def download_request(self, request: Request) -> Response:
        try:
            with wrap_twisted_exceptions():  # DNS failures surface as Scrapy's own errors
                try:
                    address, mapped = await self._vet(request)
                except ResolveTimeout as exc:  # a timeout, not an unknown name
                    raise DownloadTimeoutError(str(exc)) from exc
        except GuardRefusal as exc:
            self._crawler.stats.inc_value(f"light/guard/refused/{exc.code}")
            raise
        for name in CREDENTIAL_HEADERS:
            request.headers.pop(name, None)
        agent = _LightAgent(
            address=address,
            mapped=mapped,
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

    async def _vet(self, request: Request) -> tuple[tuple[str, int], bool]:
        """The one address this hop may connect to, and whether it is a mapped one.

        Raises :class:`~lightsearch.crawl.guard.GuardRefusal` (before any connection) for a
        URL or address the guard refuses, :class:`HostNotMappedError` outside an offline
        world, and DNS errors as Twisted's ``DNSLookupError``.
        """
        target = check_url(request.url, allowed_ports=self._allowed_ports,
                           trusted_hosts=self._host_map.keys())
        mapping = self._host_map.get(target.host)
        if mapping is not None:
            if target.scheme not in mapping:
                raise HostNotMappedError(f"LIGHT_HOST_MAP has no {target.scheme} target for {target.host!r}")
            return mapping[target.scheme], True
        if self._map_only:
            raise HostNotMappedError(f"host {target.host!r} is not in LIGHT_HOST_MAP")
        if target.address is not None:
            return self.connect_address(str(target.address), target.port), False
        answers = await self._resolver.resolve(target.host, target.port)
        return self.connect_address(self.choose(target, answers, request.url), target.port), False

    @staticmethod
    def choose(target: Target, answers: list[str], url: str) -> str:
        """The address to connect to: the first answer, provided *every* answer is public.

        One non-public record refuses the host (the "any-private" policy of
        reliability.md §1.2): a name that also points inside the network is not a
        public site, and a partial answer set is how split-horizon tricks start.
        """
        for answer in answers:
            reason = classify(answer)
            if reason is not None:
                raise BlockedAddress(
                    f"{target.host} resolves to {answer.split('%')[0]}, not a public address ({reason})",
                    reason=reason, url=url, address=answer,
                )
        return answers[0]

    def connect_address(self, address: str, port: int) -> tuple[str, int]:
        """Where a vetted address is connected: itself. Tests that must never leave
        loopback override this to stand a loopback server in for a public address."""
        return address, port

    def _abort(self) -> None:
        """Cancel every transfer in flight (hard deadline, caller cancellation)."""
        for d in list(self._in_flight):
            d.cancel()
