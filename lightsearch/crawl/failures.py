"""Name transport failures the same way wherever they surface (a page, a robots.txt)."""

from __future__ import annotations


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


def failure_code(exc: BaseException) -> str | None:
    """A specific code for a failure that is the origin's transport, not its content."""
    code = getattr(exc, "code", None)
    if isinstance(code, str):
        return code
    if is_tls_failure(exc):
        return "tls_error"
    return None
