"""A minimal HTTPS GET for API providers, on asyncio streams and the standard library.

Provider APIs are one request each, so a Scrapy crawl (scheduler, middlewares, spider)
would be all overhead, and a third-party client would be a new dependency for one call.
Plain asyncio streams give us exactly the properties an API call needs and nothing that
could leak around them: certificate and host-name verification (an extra CA only when a
setting names one), no environment proxies, no cookies, a cap on the encoded and the
decoded body, and no redirect that leaves the API's origin. The response head has the
crawl's bounds (``LIGHT_RESPONSE_MAX_HEADERS`` / ``_HEADER_BYTES`` / ``_ENCODINGS``):
more header fields or bytes is ``too_large``, more stacked codings than allowed is
refused before anything is decoded. Timeouts and cancellation are the caller's
``asyncio`` ones: cancelling the awaiting task closes the socket.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urljoin, urlsplit

from lightsearch.errors import quote_untrusted

MAX_HEADERS = 100
MAX_HEADER_BYTES = 64 * 1024
MAX_ENCODINGS = 2


@dataclass(frozen=True)
class HeadLimits:
    max_headers: int = MAX_HEADERS
    max_header_bytes: int = MAX_HEADER_BYTES
    max_encodings: int = MAX_ENCODINGS


class HttpError(Exception):
    """The exchange failed before an HTTP response could be read whole."""

    def __init__(self, reason: str, message: str, **details: object) -> None:
        super().__init__(message)
        self.reason = reason
        self.details = details


@dataclass
class HttpResponse:
    url: str
    status: int
    headers: dict[str, list[str]] = field(default_factory=dict)
    body: bytes = b""

    def header(self, name: str) -> str | None:
        values = self.headers.get(name.lower())
        return values[0] if values else None


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


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or 443


async def https_get(
    url: str,
    headers: Mapping[str, str],
    *,
    max_bytes: int,
    ca_file: str | None = None,
    max_redirects: int = 2,
    limits: HeadLimits | None = None,
) -> HttpResponse:
    """GET ``url`` and return the whole response, its body decoded (gzip) and capped.

    Redirects are followed only within the origin of ``url`` (scheme, host and port);
    any other ``Location`` raises ``HttpError("redirect_off_origin")``. Bodies over
    ``max_bytes``, encoded or decoded, and heads over ``limits`` raise
    ``HttpError("too_large")``.
    """
    origin = _origin(url)
    limits = limits or HeadLimits()
    for _ in range(max_redirects + 1):
        response = await _get_once(url, headers, max_bytes=max_bytes, ca_file=ca_file, limits=limits)
        location = response.header("location")
        if response.status not in (301, 302, 303, 307, 308) or not location:
            return response
        target = urljoin(url, location)
        if _origin(target) != origin:
            raise HttpError("redirect_off_origin", "the API redirected to another origin",
                            status=response.status, location=target[:300])
        url = target
    raise HttpError("too_many_redirects", f"more than {max_redirects} redirects", url=url[:300])


async def _get_once(url: str, headers: Mapping[str, str], *, max_bytes: int,
                    ca_file: str | None, limits: HeadLimits) -> HttpResponse:
    parts = urlsplit(url)
    if parts.scheme != "https" or not parts.hostname:
        raise HttpError("invalid_url", "only https:// URLs with a host are requested", url=url[:300])
    host, port = parts.hostname, parts.port or 443
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    try:
        reader, writer = await asyncio.open_connection(
            host, port, ssl=tls_context(ca_file), server_hostname=host,
            limit=limits.max_header_bytes,
        )
    except ssl.SSLError as exc:
        raise HttpError("tls", f"TLS verification failed: {exc}", host=host) from None
    except OSError as exc:
        raise HttpError("connect", f"could not connect to {host}:{port}: {exc}", host=host) from None
    try:
        host_header = host if port == 443 else f"{host}:{port}"
        lines = [f"GET {target} HTTP/1.1", f"Host: {host_header}", "Connection: close",
                 "Accept-Encoding: gzip"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        await writer.drain()
        status, response_headers = await _read_head(reader, limits)
        _check_encodings(response_headers, limits.max_encodings)
        raw = await _read_body(reader, response_headers, max_bytes)
        body = _decode(raw, response_headers, max_bytes)
        return HttpResponse(url=url, status=status, headers=response_headers, body=body)
    except (ssl.SSLError, ConnectionError, asyncio.IncompleteReadError) as exc:
        raise HttpError("connection", f"the connection failed mid-response: {exc}", host=host) from None
    except (asyncio.LimitOverrunError, ValueError) as exc:
        raise HttpError("bad_response", f"malformed HTTP framing: {exc}", host=host) from None
    finally:
        writer.close()


async def _read_head(reader: asyncio.StreamReader,
                     limits: HeadLimits = HeadLimits()) -> tuple[int, dict[str, list[str]]]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise HttpError("too_large", f"the response head is larger than {limits.max_header_bytes} bytes",
                        limit=limits.max_header_bytes) from None
    lines = head.decode("latin-1").split("\r\n")
    fields = lines[0].split(" ", 2)
    if len(fields) < 2 or not fields[0].startswith("HTTP/1.") or not (
            fields[1].isascii() and fields[1].isdigit()):
        raise HttpError("bad_response", "not an HTTP/1.x response", statusLine=quote_untrusted(lines[0], 80))
    if sum(1 for line in lines[1:] if line) > limits.max_headers:
        raise HttpError("too_large", f"the response has more than {limits.max_headers} header fields",
                        limit=limits.max_headers)
    headers: dict[str, list[str]] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers.setdefault(name.strip().lower(), []).append(value.strip())
    return int(fields[1]), headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, list[str]],
                     max_bytes: int) -> bytes:
    too_large = HttpError("too_large", f"the response is larger than {max_bytes} bytes",
                          limit=max_bytes)
    if "chunked" in ",".join(headers.get("transfer-encoding", [])).lower():
        chunks, total = [], 0
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                return b"".join(chunks)
            total += size
            if total > max_bytes:
                raise too_large
            chunks.append(await reader.readexactly(size))
            await reader.readexactly(2)
    length = headers.get("content-length")
    if length:
        if not length[0].isdigit():
            raise HttpError("bad_response", "invalid Content-Length", value=length[0][:40])
        if int(length[0]) > max_bytes:
            raise too_large
        return await reader.readexactly(int(length[0]))
    body = await reader.read(max_bytes + 1)
    while body and len(body) <= max_bytes:
        more = await reader.read(max_bytes + 1 - len(body))
        if not more:
            break
        body += more
    if len(body) > max_bytes:
        raise too_large
    return body


def _check_encodings(headers: dict[str, list[str]], limit: int) -> None:
    """Refuse stacked content codings before the body is read (reliability.md §0.7)."""
    layers = [t for value in headers.get("content-encoding", []) for t in value.split(",") if t.strip()]
    if len(layers) > limit:
        raise HttpError("bad_response", f"the response stacks {len(layers)} content encodings; "
                        f"at most {limit} are decoded", encodingLayers=len(layers), limit=limit)


def _decode(raw: bytes, headers: dict[str, list[str]], max_bytes: int) -> bytes:
    encoding = ",".join(headers.get("content-encoding", [])).strip().lower()
    if encoding in ("", "identity"):
        return raw
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise HttpError("bad_response", f"unsupported Content-Encoding {quote_untrusted(encoding)}")
    wbits = zlib.MAX_WBITS | 16 if "gzip" in encoding else zlib.MAX_WBITS
    decoder = zlib.decompressobj(wbits)
    try:
        body = decoder.decompress(raw, max_bytes + 1)
    except zlib.error as exc:
        raise HttpError("bad_response", f"the body does not decompress: {exc}") from None
    if len(body) > max_bytes or decoder.unconsumed_tail:
        raise HttpError("too_large", f"the decoded response is larger than {max_bytes} bytes",
                        limit=max_bytes)
    return body
