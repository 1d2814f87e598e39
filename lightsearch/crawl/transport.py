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
  other host is refused before a connection is made. A search that probes a site outside
  the catalog may use the map only for the hosts its frontier names (``may_map``);
  any other mapped host is ``blocked_address`` (reason ``host-mapped``);
* credentials never leave: ``Authorization``, ``Proxy-Authorization`` and ``Cookie``
  headers are dropped from every request, and proxies are refused;
* the response head is bounded while it arrives, by the one HTTP limits policy
  (:mod:`lightsearch.crawl.http_limits`, the API clients' too): at most
  ``LIGHT_RESPONSE_MAX_HEADERS`` header fields and ``LIGHT_RESPONSE_MAX_HEADER_BYTES``
  bytes of status line and fields (like common servers' 100 / 64 KiB), and at most
  ``LIGHT_RESPONSE_MAX_ENCODINGS`` stacked content encodings. Crossing one aborts the
  connection at once and fails the hop with a
  :class:`~lightsearch.crawl.failures.ResponseRefused` (``too_large`` /
  ``unsupported_encoding``), before a hostile head is parsed into memory;
* a body over the per-response size is ``too_large`` too, not a cancelled download.

Scrapy exposes no public hook for the connection endpoint or the response parser, so
this subclasses the handler's private ``_ScrapyAgent`` and its lenient Twisted client
protocol; both were checked against Scrapy 2.19 and Twisted 26.10 (pinned in
pyproject.toml).
"""

from __future__ import annotations

import functools
import ipaddress
from typing import TYPE_CHECKING, Any, NoReturn

from scrapy.core.downloader.handlers.http11 import (
    HTTP11DownloadHandler,
    _BindAddressAgent,
    _LenientHTTP11ClientFactory,
    _LenientHTTP11ClientProtocol,
    _LenientHTTPClientParser,
    _ScrapyAgent,
)
from scrapy.exceptions import DownloadCancelledError, DownloadTimeoutError
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
from lightsearch.crawl.budget import budget_of, hop_stage
from lightsearch.crawl.failures import HostNotMappedError, ResponseRefused, response_refusal
from lightsearch.crawl.guard import BlockedAddress, GuardRefusal, InvalidURL
from lightsearch.crawl.guard.addresses import classify
from lightsearch.crawl.guard.private import lifts
from lightsearch.crawl.guard.resolver import ResolveTimeout
from lightsearch.crawl.guard.urls import Target, check_url
from lightsearch.crawl.http_limits import HttpLimits, refuse_stacked_encodings
from lightsearch.crawl.kept_connections import KeptConnections
from lightsearch.crawl.tls import VerifyingPolicy
from lightsearch.plan.catalog import origin_of
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response

CREDENTIAL_HEADERS = (b"Authorization", b"Proxy-Authorization", b"Cookie")
REFUSED = "light/transport/refused"


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


class _BoundedHTTPClientParser(_LenientHTTPClientParser):
    """Scrapy's lenient response parser, counting the head as it is parsed.

    Twisted's ``HTTPParser`` (``twisted.web._newclient``, private) keeps every header
    line of a response in memory with no bound but a 16 KiB line length, so the checks
    sit in its per-line hooks: ``lineReceived`` (status and header lines, bytes),
    ``headerReceived`` (fields) and ``allHeadersReceived`` (content encodings, before
    any body byte is read). Counters are not reset by an interim 1xx response, which
    Twisted answers by starting the head over. A refusal aborts the transport and
    raises; ``HTTP11ClientProtocol.dataReceived`` turns the exception into the
    response's ``ResponseFailed``. Checked against Twisted 26.10 and Scrapy 2.19.
    """

    _light_limits: HttpLimits
    _light_fields = 0
    _light_bytes = 0

    def lineReceived(self, line: bytes) -> None:
        self._light_bytes += len(line) + 1
        if self._light_bytes > self._light_limits.max_header_bytes:
            self._refuse_bytes()
        super().lineReceived(line)

    def lineLengthExceeded(self, line: bytes) -> None:
        self._refuse_bytes()

    def headerReceived(self, name: bytes, value: bytes) -> None:
        self._light_fields += 1
        limit = self._light_limits.max_headers
        if self._light_fields > limit:
            self._refuse(ResponseRefused(
                "too_large", f"the response has more than {limit} header fields",
                reason="header_count", limit=limit))
        super().headerReceived(name, value)  # type: ignore[no-untyped-call]

    def allHeadersReceived(self) -> None:
        if not 100 <= self.response.code < 200:
            try:
                refuse_stacked_encodings(self.headers.getRawHeaders(b"content-encoding") or [],
                                         self._light_limits.max_encodings)
            except ResponseRefused as exc:
                self._refuse(exc)
        super().allHeadersReceived()  # type: ignore[no-untyped-call]

    def _refuse_bytes(self) -> NoReturn:
        limit = self._light_limits.max_header_bytes
        self._refuse(ResponseRefused(
            "too_large", f"the response head is larger than {limit} bytes",
            reason="header_bytes", limit=limit))

    def _refuse(self, exc: ResponseRefused) -> NoReturn:
        # The parser's transport is Twisted's TransportProxyProducer; the connection
        # itself is its ``_producer``. Abort (not a graceful close) so that nothing more
        # of the response is read or buffered.
        producer = getattr(self.transport, "_producer", None)
        abort = getattr(producer, "abortConnection", None)
        if abort is not None:
            abort()
        raise exc


class _BoundedHTTP11ClientProtocol(_LenientHTTP11ClientProtocol):
    def __init__(self, quiescentCallback: Any, limits: HttpLimits) -> None:
        super().__init__(quiescentCallback)  # type: ignore[no-untyped-call]
        self._light_limits = limits

    def request(self, request: Any) -> Deferred:
        d = super().request(request)
        # Scrapy swaps the parser's class the same way (its parser class is hard-coded
        # in HTTP11ClientProtocol.request); ours only adds counters, set right here,
        # before the reactor can deliver a byte of the response.
        parser = self._parser
        if parser is not None and type(parser) is _LenientHTTPClientParser:
            parser.__class__ = _BoundedHTTPClientParser
            parser._light_limits = self._light_limits
            parser.MAX_LENGTH = self._light_limits.max_header_bytes
        return d


class _BoundedHTTP11ClientFactory(_LenientHTTP11ClientFactory):
    def __init__(self, quiescentCallback: Any, metadata: Any, *, limits: HttpLimits) -> None:
        super().__init__(quiescentCallback, metadata)  # type: ignore[no-untyped-call]
        self._light_limits = limits

    def buildProtocol(self, addr: Any) -> _BoundedHTTP11ClientProtocol:
        return _BoundedHTTP11ClientProtocol(self._quiescentCallback, self._light_limits)


def _ip_version(host: str) -> int | None:
    """4 or 6 for an address, None for a name."""
    try:
        return ipaddress.ip_address(host.split("%")[0]).version
    except ValueError:
        return None


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
        version = _ip_version(host)
        if version is None:  # a configured loopback target named, like "localhost"
            endpoint = HostnameEndpoint(factory._reactor, host, port, **kwargs)
        elif version == 6:
            endpoint = TCP6ClientEndpoint(factory._reactor, host, port, **kwargs)
        else:  # an address: connected to as it is (Twisted would look it up on a thread)
            endpoint = TCP4ClientEndpoint(factory._reactor, host, port, **kwargs)
        if uri.scheme == b"https":
            creator = factory._policyForHTTPS.creatorForNetloc(uri.host, uri.port)
            return wrapClientTLS(creator, endpoint)
        return endpoint

    def _requestWithEndpoint(self, key, endpoint, *args, **kwargs):
        # A pooled connection goes to the address vetted when it was made: the key names it,
        # so a pool shared by crawls (crawl/kept_connections.py) never hands a connection made
        # for one resolution or host map to a request vetted to another address.
        return super()._requestWithEndpoint((*key, self._address, self._mapped), endpoint, *args, **kwargs)


class _LightAgent(_ScrapyAgent):
    def __init__(self, *, address: tuple[str, int], mapped: bool, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._address = address
        self._mapped = mapped

    def _get_agent(self, request: Request, timeout: float):
        from twisted.internet import reactor

        if request.meta.get("proxy"):
            raise InvalidURL("proxies are not used by lightsearch", reason="proxy")
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
        self._aborted: set[Deferred] = set()
        self._budget = budget_of(crawler)
        crawler.signals.connect(self._abort, signal=light_signals.abort_requested)
        settings = crawler.settings
        if settings.getbool("LIGHT_TLS_VERIFY", True):
            self._contextFactory = VerifyingPolicy.shared(settings.get("LIGHT_TLS_CA_FILE"))
        self._host_map = parse_host_map(settings.getdict("LIGHT_HOST_MAP"))
        self._map_only = settings.getbool("LIGHT_HOST_MAP_ONLY")
        self._allowed_ports = frozenset(int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS"))
        self._resolver = build_from_crawler(load_object(settings["LIGHT_RESOLVER"]), crawler)
        limits = HttpLimits.from_settings(settings)  # the one policy, the API clients' too
        # HTTPConnectionPool calls ``_factory(quiescentCallback, metadata)`` (Twisted 26.10);
        # Scrapy 2.19 sets it to its lenient factory, which ours extends.
        factory = functools.partial(_BoundedHTTP11ClientFactory, limits=limits)
        self._pool._factory = factory
        self._kept = (settings.getbool("LIGHT_KEEP_CONNECTIONS")
                      and isinstance(self._contextFactory, VerifyingPolicy))
        if self._kept:  # connections kept for the next search (crawl/kept_connections.py)
            self._pool = KeptConnections.pool(
                self._contextFactory, limits, per_host=self._pool.maxPersistentPerHost,
                idle_secs=settings.getfloat("LIGHT_KEEP_CONNECTIONS_IDLE_SECS"), factory=factory)

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
        frontier = frontier_of(self._crawler)  # whose call: its transfers take their turns together
        async with self._limiter.slot(origin_of(request.url), client=frontier.client, call=frontier):
            self._budget.claim(request.url, hop_stage(request.meta))
            request.meta["hop_claimed"] = True  # the frontier counts hops still to come
            d = agent.download_request(request)
            self._in_flight.add(d)
            try:
                with wrap_twisted_exceptions():
                    return await maybe_deferred_to_future(d)
            except DownloadCancelledError as exc:
                # Scrapy ends a body over ``download_maxsize`` by cancelling its transfer;
                # the only other canceller is our own abort, which marks what it cancels.
                maxsize = request.meta.get("download_maxsize", self._default_maxsize)
                if d in self._aborted or not maxsize:
                    raise
                self._crawler.stats.inc_value(f"{REFUSED}/body_bytes")
                raise ResponseRefused("too_large", f"the response is larger than {maxsize} bytes",
                                      reason="body_bytes", limit=maxsize) from exc
            except Exception as exc:
                refusal = response_refusal(exc)
                if refusal is None:
                    raise
                self._crawler.stats.inc_value(f"{REFUSED}/{refusal.reason}")
                raise refusal from None
            finally:
                self._in_flight.discard(d)
                self._aborted.discard(d)

    async def close(self) -> None:
        if not self._kept:  # a kept pool outlives the crawl
            await super().close()

    async def _vet(self, request: Request) -> tuple[tuple[str, int], bool]:
        """The one address this hop may connect to, and whether it is a mapped one.

        Raises :class:`~lightsearch.crawl.guard.GuardRefusal` (before any connection) for a
        URL or address the guard refuses, :class:`HostNotMappedError` outside an offline
        world, and DNS errors as Twisted's ``DNSLookupError``.
        """
        target = check_url(request.url, allowed_ports=self._allowed_ports,
                           trusted_hosts=self._host_map.keys(),
                           private_origins=frontier_of(self._crawler).private_origins)
        mapping = self._host_map.get(target.host)
        if mapping is not None:
            if not frontier_of(self._crawler).may_map(target.host):
                raise BlockedAddress(f"host {target.host} is reached only through LIGHT_HOST_MAP, which this "
                                     "search may not use for it", reason="host-mapped", url=request.url)
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
        public site, and a partial answer set is how split-horizon tricks start. On an
        origin a user added with ``--allow-private`` the refusals that opt-in lifts do not
        apply (crawl/guard/private.py).
        """
        for answer in answers:
            reason = classify(answer)
            if reason is not None and not (target.private and lifts(reason)):
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
            self._aborted.add(d)
            d.cancel()
