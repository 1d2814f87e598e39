"""The one error type every surface turns into ``{"error": {"code", "message", "details"}}``.

Callers branch on ``code``; ``message`` is for people; ``details`` carries whatever was
already known (bounds, offending keys, per-source diagnostics) so that nothing retrieved
before the failure is lost.
"""

from __future__ import annotations

import asyncio
from typing import Any


class LightSearchError(Exception):
    """A structured, expected failure of a search or fetch."""

    def __init__(self, code: str, message: str, details: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or {}

    def to_dict(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def __repr__(self) -> str:
        return f"LightSearchError({self.code!r}, {self.message!r})"


class SearchCancelled(LightSearchError, asyncio.CancelledError):
    """The caller cancelled the search; raised once its crawl and connections are gone.

    It is an :class:`asyncio.CancelledError` too, so asyncio's own cancellation still
    unwinds the caller's task as it expects, while surfaces that report errors by code
    see ``cancelled`` like any other failure.
    """

    def __init__(self, message: str = "the search was cancelled by its caller",
                 details: dict[str, Any] | None = None) -> None:
        super().__init__("cancelled", message, details)


def invalid_input(message: str, *, parameter: str | None = None, **details: Any) -> LightSearchError:
    """A caller's bad input; ``parameter`` names the API parameter (``maxResults``) so that a
    surface can name its own spelling of it (the command line's ``--max-results``)."""
    if parameter:
        details = {"parameter": parameter, **details}
    return LightSearchError("invalid_input", message, details)


def with_flags(error: dict[str, Any], flags: dict[str, str]) -> dict[str, Any]:
    """``{"code", "message", "details"}`` with the parameter spelled as ``flags`` spell it.

    The message is ours (parameters are named at its start, never taken from input), so
    naming the flag is a replacement of that one word.
    """
    parameter = (error.get("details") or {}).get("parameter")
    flag = flags.get(parameter) if isinstance(parameter, str) else None
    if not flag:
        return error
    message = str(error.get("message", ""))
    message = message.replace(parameter, flag, 1) if parameter in message else f"{flag}: {message}"
    return {**error, "message": message, "details": {**error.get("details", {}), "flag": flag}}


def quote_untrusted(value: Any, limit: int = 40) -> str:
    """An attacker-controlled value as it may appear in an error message.

    Error lines are printed outside the untrusted fence, so a header, label or host taken
    from a response must not be able to carry instructions or controls there: the value is
    reduced to printable ASCII-safe ``repr`` form, cut to ``limit`` characters with an
    ellipsis, and followed by its full size when it was cut, e.g.
    ``'text/x-note ignore…' (14579 bytes)``.
    """
    if isinstance(value, bytes):
        raw = value
        text = value.decode("utf-8", "replace")
    else:
        text = str(value)
        raw = text.encode("utf-8", "surrogatepass")
    # unicode_escape escapes the backslash itself, controls, bidi marks and non-ASCII; the
    # quote is escaped after, so no quote inside the value can close the quoting.
    shown = text.encode("unicode_escape").decode("ascii").replace("'", "\\'")
    if len(shown) <= limit:
        return f"'{shown}'"
    cut = shown[:limit]
    if (len(cut) - len(cut.rstrip("\\"))) % 2:  # never end on half an escape
        cut = cut[:-1]
    return f"'{cut}…' ({len(raw)} bytes)"
