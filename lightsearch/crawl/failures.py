"""One taxonomy of crawl failures: every exception a hop can end with, mapped to a code.

Our own refusals are typed and carry their code (:class:`CodedRefusal`); Scrapy's,
Twisted's and the TLS stack's exceptions are mapped here by type, never by their message.
Everything that reports a failed hop (web_fetch's error, a Light source error, a
robots.txt that could not be read) asks :func:`classify`, so one failure has one name
wherever it surfaces.
"""

from __future__ import annotations

import asyncio
import ssl
from dataclasses import dataclass, field
from typing import Any

from scrapy.exceptions import (
    CannotResolveHostError,
    DownloadCancelledError,
    DownloadConnectionRefusedError,
    DownloadTimeoutError,
    IgnoreRequest,
    NotSupported,
    ResponseDataLossError,
    UnsupportedURLSchemeError,
)
from scrapy.spidermiddlewares.httperror import HttpError
from twisted.internet.error import ConnectError, ConnectionLost, DNSLookupError
from twisted.internet.error import TimeoutError as TxTimeoutError
from twisted.web.client import ResponseFailed, ResponseNeverReceived


class CodedRefusal(IgnoreRequest):
    """A hop lightsearch itself refused or stopped; ``code`` and ``reason`` name why.

    ``code`` is the web_fetch error code (the source-error code too, see
    :attr:`HopFailure.source_code`), ``reason`` the specific rule or bound.
    """

    code = "refused"
    reason = ""

    def details(self) -> dict[str, Any]:
        return {"reason": self.reason} if self.reason else {}


@dataclass(frozen=True)
class HopFailure:
    """What :func:`classify` says about an exception."""

    code: str
    message: str
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def source_code(self) -> str:
        """The code of a Light source error: web_fetch's, with TLS and plain refusals named."""
        if self.code == "network_error" and self.reason == "tls":
            return "tls_error"
        return self.code

    def as_details(self) -> dict[str, Any]:
        out = dict(self.details)
        if self.reason:
            out.setdefault("reason", self.reason)
        return out


# The ``reason`` of each ResponseRefused: which bound of a response was crossed.
BOUND_REASONS = frozenset({"header_count", "header_bytes", "body_bytes", "encoding_layers"})


class ResponseRefused(CodedRefusal):
    """A response the transport stopped reading because it breaks a per-response bound.

    ``code`` is the web_fetch / source-error code (``too_large``, ``unsupported_encoding``),
    ``reason`` which bound (``header_count``, ``header_bytes``, ``body_bytes``,
    ``encoding_layers``). Raised where the bound is crossed, before the rest of the
    response is read or decoded, and carried out of Twisted's ``ResponseFailed`` by the
    download handler so that every surface sees this exception, not a network error.
    """

    def __init__(self, code: str, message: str, *, reason: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason
        self.extra = details

    def details(self) -> dict[str, Any]:
        return {"reason": self.reason, **self.extra}


class HostNotMappedError(CodedRefusal):
    """The host is outside the configured offline world (``LIGHT_HOST_MAP``)."""

    code = "network_error"
    reason = "not_in_offline_world"


def _inner(exc: BaseException) -> list[BaseException]:
    """The exception and those it wraps: Twisted and Scrapy nest Failures in ``reasons``
    or in the args of ``ResponseNeverReceived``; Scrapy's ``DownloadFailedError`` chains them."""
    out, todo = [], [exc]
    while todo and len(out) < 16:
        item = todo.pop()
        item = getattr(item, "value", item)  # a Twisted Failure
        if not isinstance(item, BaseException):
            continue
        out.append(item)
        todo.extend(getattr(item, "reasons", None) or [])
        todo.extend(e for e in (item.__cause__, item.__context__) if e is not None)
        for arg in item.args:
            todo.extend(arg if isinstance(arg, (list, tuple)) else [arg])
    return out


def is_tls_failure(exc: BaseException) -> bool:
    """Certificate and handshake failures, however Twisted or asyncio wrap them."""
    from OpenSSL.SSL import Error as OpenSSLError
    from service_identity.exceptions import VerificationError

    return any(isinstance(e, (OpenSSLError, VerificationError, ssl.SSLError)) for e in _inner(exc))


def response_refusal(exc: BaseException) -> ResponseRefused | None:
    """The :class:`ResponseRefused` that ``exc`` is or wraps, if any."""
    return next((e for e in _inner(exc) if isinstance(e, ResponseRefused)), None)


_TIMEOUTS = (DownloadTimeoutError, TxTimeoutError, asyncio.TimeoutError, TimeoutError)
_DNS = (CannotResolveHostError, DNSLookupError)
_CONNECT = (DownloadConnectionRefusedError, ConnectError, ConnectionRefusedError)
_CUT = (ResponseDataLossError, ResponseFailed, ResponseNeverReceived, ConnectionLost, ConnectionError)


def classify(exc: BaseException) -> HopFailure:
    """The one name of a failed hop (web_fetch's vocabulary; docs/ERRORS.md lists the codes)."""
    message = str(exc) or type(exc).__name__
    if isinstance(exc, CodedRefusal):
        return HopFailure(exc.code, message, exc.reason, exc.details())
    refusal = response_refusal(exc)  # a bound of the head or body, wrapped by Twisted
    if refusal is not None:
        return HopFailure(refusal.code, str(refusal), refusal.reason, refusal.details())
    if isinstance(exc, HttpError):
        status = exc.response.status
        return HopFailure("http_status", f"HTTP {status}", "status", {"status": status})
    if isinstance(exc, IgnoreRequest):  # another component's refusal with no code of ours
        return HopFailure("refused", message, type(exc).__name__)
    if isinstance(exc, (NotSupported, UnsupportedURLSchemeError)):
        return HopFailure("invalid_url", message, "unsupported_scheme")
    inner = _inner(exc)
    if any(isinstance(e, DNSLookupError) and isinstance(e, _TIMEOUTS) for e in inner):
        return HopFailure("timeout", message, "dns_timeout")
    if any(isinstance(e, _TIMEOUTS) for e in inner):
        return HopFailure("timeout", message, "timeout")
    if any(isinstance(e, _DNS) for e in inner):
        return HopFailure("network_error", message, "dns")
    if is_tls_failure(exc):
        return HopFailure("network_error", message, "tls")
    if any(isinstance(e, _CONNECT) for e in inner):
        return HopFailure("network_error", message, "connect")
    if isinstance(exc, DownloadCancelledError):
        return HopFailure("network_error", message, "cancelled")
    if any(isinstance(e, _CUT) for e in inner):
        return HopFailure("network_error", message, "connection_lost")
    return HopFailure("network_error", message, type(exc).__name__)
