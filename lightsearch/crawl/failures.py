"""Name transport failures the same way wherever they surface (a page, a robots.txt)."""

from __future__ import annotations

from typing import Any

from scrapy.exceptions import IgnoreRequest

# The ``reason`` of each ResponseRefused: which bound of a response was crossed.
BOUND_REASONS = frozenset({"header_count", "header_bytes", "body_bytes", "encoding_layers"})


class ResponseRefused(IgnoreRequest):
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


def _inner(exc: BaseException) -> list[BaseException]:
    """The exception and those it wraps: Twisted and Scrapy nest Failures in ``reasons``
    or in the args of ``ResponseNeverReceived``; Scrapy's ``DownloadFailedError`` chains them."""
    out, todo = [], [exc]
    while todo and len(out) < 16:
        item = todo.pop()
        item = getattr(item, "value", item)  # a Failure
        if not isinstance(item, BaseException):
            continue
        out.append(item)
        todo.extend(getattr(item, "reasons", None) or [])
        todo.extend(e for e in (item.__cause__, item.__context__) if e is not None)
        for arg in item.args:
            todo.extend(arg if isinstance(arg, (list, tuple)) else [arg])
    return out


def is_tls_failure(exc: BaseException) -> bool:
    """Certificate and handshake failures, however Twisted wraps them."""
    from OpenSSL.SSL import Error as OpenSSLError
    from service_identity.exceptions import VerificationError

    return any(isinstance(e, (OpenSSLError, VerificationError)) for e in _inner(exc)) \
        or "certificate verify failed" in str(exc)


def response_refusal(exc: BaseException) -> ResponseRefused | None:
    """The :class:`ResponseRefused` that ``exc`` is or wraps, if any."""
    return next((e for e in _inner(exc) if isinstance(e, ResponseRefused)), None)


def failure_code(exc: BaseException) -> str | None:
    """A specific code for a failure that is the origin's transport, not its content.

    A response refused for its size or head is incomplete content (for robots.txt:
    "unreachable", which blocks the origin), so it has no code of its own here; its
    ``reason`` says which bound it broke.
    """
    if isinstance(exc, ResponseRefused):
        return None
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        return code
    if is_tls_failure(exc):
        return "tls_error"
    return None
