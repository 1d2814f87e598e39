"""The one guarded HTTP client of every API provider (Brave, the keyless engines), on aiohttp.

An API call is one request, so a Scrapy crawl would be all overhead; aiohttp ships with
Scrapy and gives a correct HTTP/1.1 implementation. What it does not give by default is
what an agent-facing client must hold to, so every call here has it:

* the transport guard: the URL is checked like a crawl hop (:func:`check_url`), names are
  resolved through ``LIGHT_RESOLVER`` (with ``LIGHT_RESOLVER_OVERRIDES``) by
  :class:`GuardedResolver`, and *every* answer must be public, as the crawl's download
  handler demands. Hosts in ``LIGHT_HOST_MAP`` (configuration only) are connected to the
  loopback address the map gives: that is how replay servers stand in for real APIs;
* certificates verified (platform store, certifi, and an extra CA only when configured);
  https only unless the caller allows http (a self-hosted SearXNG);
* no environment proxies (``trust_env=False``), no cookies kept (``DummyCookieJar``);
* bounded responses, by the crawls' own HTTP limits policy (crawl/http_limits.py): body
  (encoded and decoded, the provider's size), header fields, header bytes and line length,
  ``Content-Encoding`` layers;
* a per-request timeout inside the caller's overall deadline;
* redirects followed only within the request's origin, at most two;
* failures as :class:`ProviderError` with a code (``provider_timeout``,
  ``provider_network_error``, ``provider_bad_response`` ...), never a raw exception.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from types import SimpleNamespace
from typing import Any
from urllib.parse import urljoin, urlsplit

import aiohttp
from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.http_exceptions import LineTooLong
from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.addresses import classify
from lightsearch.crawl.guard.urls import check_url
from lightsearch.crawl.http_limits import DecodingRefused, HttpLimits, decode_layers
from lightsearch.crawl.transport import parse_host_map
from lightsearch.errors import LightSearchError

MAX_REDIRECTS = 2
ERROR_CODES = ("provider_timeout", "provider_auth", "provider_rate_limited", "provider_unavailable",
               "provider_bad_response", "provider_network_error", "provider_blocked")


class ProviderError(LightSearchError):
    """A provider failure with its code; ``details.provider`` names the provider."""

    def __init__(self, code: str, message: str, provider: str, **details: Any) -> None:
        super().__init__(code, message, {"provider": provider, **details})
        self.provider = provider

    @property
    def retry_after(self) -> float | None:
        value = self.details.get("resetSecs")
        return float(value) if isinstance(value, (int, float)) else None


@dataclass
class ApiResponse:
    url: str
    status: int
    headers: dict[str, list[str]] = field(default_factory=dict)
    body: bytes = b""
    elapsed_ms: int = 0

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@lru_cache(maxsize=8)
def tls_context(extra_ca_file: str | None = None) -> ssl.SSLContext:
    """A verifying client context: platform store, certifi, and ``extra_ca_file`` if given."""
    ctx = ssl.create_default_context()
    try:
        import certifi
    except ImportError:  # pragma: no cover - certifi ships with Scrapy's dependencies
        pass
    else:
        ctx.load_verify_locations(certifi.where())
    if extra_ca_file:
        ctx.load_verify_locations(extra_ca_file)
    return ctx


def retry_after_secs(value: str | None) -> float | None:
    """``Retry-After`` in seconds (delta-seconds or an HTTP date), None when absent or bad."""
    if not value:
        return None
    value = value.strip()
    if len(value) > 64:  # an HTTP date or a count: longer is neither
        return None
    if value.isascii() and value.isdigit():
        return float(value)
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    from datetime import datetime, timezone

    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - datetime.now(timezone.utc)).total_seconds())


class _Refused(Exception):
    """Raised inside the resolver; carries the guard's refusal out through aiohttp."""

    def __init__(self, refusal: GuardRefusal) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


class _DnsFailure(Exception):
    def __init__(self, message: str, timeout: bool = False) -> None:
        super().__init__(message)
        self.timeout = timeout


def build_resolver(settings: BaseSettings) -> Any:
    """The ``LIGHT_RESOLVER`` instance; resolvers are built from a crawler, and only its
    settings are read, so a stand-in carrying the settings serves."""
    cls = load_object(settings.get("LIGHT_RESOLVER") or "lightsearch.crawl.guard.resolver.SystemResolver")
    if hasattr(cls, "from_crawler"):
        return cls.from_crawler(SimpleNamespace(settings=settings))
    return cls()


class GuardedResolver(AbstractResolver):
    """aiohttp name resolution through the guard: mapped hosts to their loopback target,
    every other name through ``LIGHT_RESOLVER``, refused unless every answer is public."""

    def __init__(self, resolver: Any, host_map: Mapping[str, Mapping[str, tuple[str, int]]],
                 scheme: str) -> None:
        self._resolver = resolver
        self._host_map = host_map
        self._scheme = scheme

    async def resolve(self, host: str, port: int = 0,
                      family: socket.AddressFamily = socket.AF_INET) -> list[ResolveResult]:
        from lightsearch.crawl.guard import BlockedAddress
        from lightsearch.crawl.guard.resolver import ResolveTimeout

        key = host.lower().rstrip(".")
        mapping = self._host_map.get(key)
        if mapping is not None:
            addr, mapped_port = mapping[self._scheme]
            return [_result(host, addr, mapped_port)]
        try:
            answers = await self._resolver.resolve(key, port)
        except ResolveTimeout as exc:
            raise _DnsFailure(str(exc), timeout=True) from None
        except Exception as exc:  # DNSLookupError and the resolver's own failures
            raise _DnsFailure(str(exc)) from None
        for answer in answers:
            reason = classify(answer)
            if reason is not None:
                raise _Refused(BlockedAddress(
                    f"{key} resolves to {answer.split('%')[0]}, not a public address ({reason})",
                    reason=reason, address=answer))
        return [_result(host, a, port) for a in answers]

    async def close(self) -> None:
        return None


def _result(hostname: str, address: str, port: int) -> ResolveResult:
    plain = address.split("%")[0]
    try:
        version = ipaddress.ip_address(plain).version
    except ValueError:  # a mapped target given by name ("localhost")
        version = 4
        plain = socket.gethostbyname(plain)
    family = socket.AF_INET6 if version == 6 else socket.AF_INET
    return {"hostname": hostname, "host": plain, "port": port, "family": family, "proto": 0,
            "flags": socket.AI_NUMERICHOST}


class ApiClient:
    """Guarded API requests for one provider. Construct per provider; cheap and stateless
    between calls (each call has its own session, so nothing, cookies included, carries
    over, and nothing outlives the event loop that made it)."""

    def __init__(self, settings: BaseSettings, *, provider: str, max_bytes: int,
                 ca_file: str | None = None, https_only: bool = True,
                 user_agent: str | None = None) -> None:
        self.settings = settings
        self.provider = provider
        self.max_bytes = max_bytes
        self.limits = HttpLimits.from_settings(settings, strict=False)
        self.ca_file = ca_file
        self.https_only = https_only
        self.user_agent = user_agent or settings.get("USER_AGENT") or "lightsearch"
        self._host_map = parse_host_map(settings.getdict("LIGHT_HOST_MAP"))
        self._map_only = settings.getbool("LIGHT_HOST_MAP_ONLY")
        self._ports = frozenset(int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS"))
        self._resolver = build_resolver(settings)

    def error(self, code: str, message: str, **details: Any) -> ProviderError:
        return ProviderError(code, message, self.provider, **details)

    async def request(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        data: Mapping[str, str] | None = None,
        json: Any = None,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10.0,
        deadline: float | None = None,
    ) -> ApiResponse:
        """One request (and at most two same-origin redirects); the whole response, decoded.

        ``deadline`` is a ``time.monotonic()`` instant the call never outlives; the
        effective timeout is the smaller of ``timeout`` and the time left.
        """
        if params:
            from urllib.parse import urlencode

            url = f"{url}{'&' if '?' in url else '?'}{urlencode(params)}"
        started = time.monotonic()
        left = timeout if deadline is None else min(timeout, deadline - started)
        if left <= 0:
            raise self.error("provider_timeout", f"no time was left to ask {self.provider}",
                             timeoutSecs=0)
        try:
            response = await asyncio.wait_for(
                self._follow(method, url, data=data, json=json, headers=headers or {}), timeout=left)
        except asyncio.TimeoutError:
            raise self.error("provider_timeout", f"{self.provider} did not answer within {left:.3g} s",
                             timeoutSecs=round(left, 3)) from None
        response.elapsed_ms = int((time.monotonic() - started) * 1000)
        return response

    # ------------------------------------------------------------------ internals
    async def _follow(self, method: str, url: str, **kw: Any) -> ApiResponse:
        origin = _origin(url)
        for _ in range(MAX_REDIRECTS + 1):
            response = await self._once(method, url, **kw)
            location = response.header("location")
            if response.status not in (301, 302, 303, 307, 308) or not location:
                return response
            target = urljoin(url, location)
            if _origin(target) != origin:
                raise self.error("provider_bad_response", f"{self.provider} redirected to another origin",
                                 reason="redirect_off_origin", status=response.status,
                                 location=target[:300])
            url = target
            if response.status == 303:
                method, kw = "GET", {**kw, "data": None, "json": None}
        raise self.error("provider_bad_response", f"more than {MAX_REDIRECTS} redirects",
                         reason="too_many_redirects")

    def _vet(self, url: str) -> str:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        if self.https_only and scheme != "https":
            raise self.error("provider_network_error", f"{self.provider} is only asked over https",
                             reason="invalid_url", url=url[:300])
        try:
            target = check_url(url, allowed_ports=self._ports | {parts.port or 443},
                               trusted_hosts=self._host_map.keys())
        except GuardRefusal as exc:
            raise self.error("provider_network_error", f"the {self.provider} endpoint is refused: {exc}",
                             **refusal_details(exc)) from None
        mapping = self._host_map.get(target.host)
        if mapping is not None and scheme not in mapping:
            raise self.error("provider_network_error",
                             f"LIGHT_HOST_MAP has no {scheme} target for {target.host!r}",
                             reason="host_not_mapped")
        if mapping is None and self._map_only:
            raise self.error("provider_network_error", f"host {target.host!r} is not in LIGHT_HOST_MAP",
                             reason="host_not_mapped")
        if mapping is not None and target.address is not None:
            # aiohttp connects to IP literals without asking the resolver: the map's
            # target must then be the literal itself.
            addr, port = mapping[scheme]
            if addr != str(target.address) or port != target.port:
                raise self.error("provider_network_error",
                                 "a mapped address must map to itself", reason="host_not_mapped")
        return scheme

    async def _once(self, method: str, url: str, *, data: Any, json: Any,
                    headers: Mapping[str, str]) -> ApiResponse:
        scheme = self._vet(url)
        resolver = GuardedResolver(self._resolver, self._host_map, scheme)
        connector = aiohttp.TCPConnector(resolver=resolver, ssl=tls_context(self.ca_file),
                                         use_dns_cache=False, force_close=True)
        sent = {"User-Agent": self.user_agent, "Accept-Encoding": "gzip, deflate", **headers}
        try:
            async with aiohttp.ClientSession(
                connector=connector, trust_env=False, cookie_jar=aiohttp.DummyCookieJar(),
                auto_decompress=False, max_line_size=self.limits.max_header_line,
                max_field_size=self.limits.max_header_line,
                # aiohttp's own cap only guards memory (its error cannot be told from any other bad
                # head without reading its message); the exact bound is checked in _headers.
                max_headers=self.limits.max_headers * 4,
            ) as session, session.request(method, url, data=data, json=json, headers=sent,
                                          allow_redirects=False, proxy=None) as resp:
                head = self._headers(resp)
                raw = await self._read(resp)
                body = self._decode(raw, head)
                return ApiResponse(url=str(resp.url), status=resp.status, headers=head, body=body)
        except ProviderError:
            raise
        except Exception as exc:
            raise self._classify(exc) from None

    def _headers(self, resp: aiohttp.ClientResponse) -> dict[str, list[str]]:
        limits = self.limits
        total = sum(len(k) + len(v) + 4 for k, v in resp.raw_headers)
        if total > limits.max_header_bytes or len(resp.raw_headers) > limits.max_headers:
            raise self.error("provider_bad_response", f"{self.provider} sent {len(resp.raw_headers)} "
                             f"headers, {total} bytes (at most {limits.max_headers}, "
                             f"{limits.max_header_bytes} bytes)",
                             reason="headers_too_large", limit=limits.max_header_bytes, fields=limits.max_headers)
        out: dict[str, list[str]] = {}
        for key, value in resp.raw_headers:
            out.setdefault(key.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        return out

    async def _read(self, resp: aiohttp.ClientResponse) -> bytes:
        limit = self.max_bytes
        length = resp.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > limit:
            raise self._too_large()
        chunks, total = [], 0
        async for chunk in resp.content.iter_chunked(64 * 1024):
            total += len(chunk)
            if total > limit:
                raise self._too_large()
            chunks.append(chunk)
        return b"".join(chunks)

    def _too_large(self, decoded: bool = False) -> ProviderError:
        what = "decoded response" if decoded else "response"
        return self.error("provider_bad_response",
                          f"the {self.provider} {what} is larger than {self.max_bytes} bytes",
                          reason="too_large", limit=self.max_bytes)

    def _decode(self, raw: bytes, headers: dict[str, list[str]]) -> bytes:
        layers = [e.strip().lower() for v in headers.get("content-encoding", []) for e in v.split(",")]
        layers = [e for e in layers if e and e != "identity"]
        limit = self.limits.max_encodings
        if len(layers) > limit:
            raise self.error("provider_bad_response", f"more than {limit} content encodings",
                             reason="encoding_layers", layers=len(layers))
        try:
            return decode_layers(raw, layers, self.max_bytes)
        except DecodingRefused as exc:
            if exc.reason == "too_large":
                raise self._too_large(decoded=True) from None
            raise self.error("provider_bad_response", str(exc), reason="encoding") from None

    def _classify(self, exc: BaseException) -> ProviderError:
        """One place maps aiohttp and resolver failures to codes (by type, not message)."""
        seen: BaseException | None = exc
        while seen is not None:
            if isinstance(seen, _Refused):
                r = seen.refusal
                return self.error("provider_network_error", f"the {self.provider} endpoint is refused: {r}",
                                  **refusal_details(r))
            if isinstance(seen, _DnsFailure):
                code = "provider_timeout" if seen.timeout else "provider_network_error"
                return self.error(code, f"{self.provider}: {seen}", reason="dns")
            seen = seen.__cause__ or seen.__context__
        if isinstance(exc, aiohttp.ClientConnectorCertificateError | aiohttp.ClientSSLError):
            return self.error("provider_network_error", f"TLS verification of {self.provider} failed: {exc}",
                              reason="tls")
        if isinstance(exc, aiohttp.ClientConnectorError):
            return self.error("provider_network_error", f"could not connect to {self.provider}: {exc}",
                              reason="connect")
        if _caused_by(exc, LineTooLong):
            line = self.limits.max_header_line
            return self.error("provider_bad_response", f"{self.provider} sent a header line longer than "
                              f"{line} bytes", reason="headers_too_large", limit=line)
        if isinstance(exc, aiohttp.ClientPayloadError | aiohttp.ClientResponseError):
            return self.error("provider_bad_response", f"{self.provider} sent a malformed response: {exc}",
                              reason="bad_response")
        if isinstance(exc, aiohttp.ClientError | OSError):
            return self.error("provider_network_error", f"the {self.provider} connection failed: {exc}",
                              reason="connection")
        if isinstance(exc, ValueError):
            return self.error("provider_bad_response", f"{self.provider}: {exc}", reason="bad_response")
        return self.error("provider_network_error", f"the {self.provider} request failed: "
                          f"{type(exc).__name__}", reason="unexpected")


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    seen: BaseException | None = exc
    for _ in range(8):  # aiohttp wraps its parser errors a level or two deep
        if seen is None:
            return False
        if isinstance(seen, kind):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def refusal_details(refusal: GuardRefusal) -> dict[str, Any]:
    """The guard's refusal as error details: ``reason`` is its code, ``guard`` its reason."""
    return {**refusal.details(), "reason": refusal.code, "guard": refusal.reason}


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or (443 if scheme == "https" else 80)
