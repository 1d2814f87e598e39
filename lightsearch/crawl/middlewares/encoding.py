"""Decode HTML only through an allowlist of declared encodings.

Scrapy would guess an encoding for anything and hand out mojibake when the guess is
wrong. Here the encoding comes from what the response declares, in the HTML standard's
order: byte-order mark, then the ``Content-Type`` charset, then ``<meta charset>``. It
must be on ``LIGHT_ALLOWED_ENCODINGS`` (codec names as w3lib resolves them). An
undeclared body is used only when it is valid UTF-8 (ASCII included). Anything else,
or a body that does not decode in its declared encoding, is refused and recorded as the
source's error, before text or links are extracted.
"""

from __future__ import annotations

from email.message import Message
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse
from w3lib.encoding import (
    html_body_declared_encoding,
    read_bom,
    resolve_encoding,
)

from lightsearch.crawl.failures import CodedRefusal
from lightsearch.errors import quote_untrusted

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from typing_extensions import Self

REFUSED = "light/encoding/refused"
MAX_CONTENT_TYPE_CHARS = 1024
# More replacement characters than this share means the declaration is wrong.
_MAX_BAD_SHARE = 0.002


class EncodingRefused(CodedRefusal):
    """The body cannot be decoded as declared (or at all); nothing of it is read."""

    def __init__(self, message: str, *, code: str, declared: str | None) -> None:
        super().__init__(message)
        self.code = code  # unsupported_encoding | undeclared_encoding | encoding_mismatch
        self.reason = code
        self.declared = declared

    def details(self) -> dict[str, Any]:
        return {"declared": quote_untrusted(self.declared)} if self.declared else {}


def charset_param(content_type: str) -> str | None:
    """The ``charset`` parameter of a Content-Type value, as written (lower case).

    Read with the standard library's MIME header parser rather than a regex: it follows
    RFC 9110's quoting and RFC 2231 continuations. w3lib's ``http_content_type_encoding``
    returns only a resolved codec (an unknown label must be reported as written) and
    misses ``charset = x`` with spaces, which real servers send. That parser's work grows
    with the square of the parameters, and a response head may be 64 KiB, so only the
    value's first :data:`MAX_CONTENT_TYPE_CHARS` are read: a real one is under a hundred.
    """
    message = Message()
    message["content-type"] = content_type[:MAX_CONTENT_TYPE_CHARS]
    value = message.get_param("charset")
    if isinstance(value, tuple):  # RFC 2231: (charset, language, value)
        value = value[2]
    if not isinstance(value, str):
        return None
    return value.strip().strip("'\"").strip().lower() or None


def declared_encoding(response: Response) -> tuple[str | None, str | None]:
    """(codec, label): the encoding a response declares, the label as written."""
    bom, _ = read_bom(response.body)
    if bom:
        return resolve_encoding(bom), bom
    ctype = response.headers.get(b"Content-Type", b"").decode("latin-1")
    label = charset_param(ctype)
    if label:
        return resolve_encoding(label), label
    label = html_body_declared_encoding(response.body)
    if label:
        return resolve_encoding(label), label
    return None, None


def decode_checked(body: bytes, codec: str) -> bool:
    """True unless too many bytes of ``body`` are invalid in ``codec``."""
    try:
        body.decode(codec)
        return True
    except UnicodeDecodeError:
        pass
    # Replacement characters the body did not already contain are invalid bytes.
    bad = body.decode(codec, "replace").count("\ufffd") - body.decode(codec, "ignore").count("\ufffd")
    return bad <= max(2, len(body) * _MAX_BAD_SHARE)


class EncodingMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler
        self.allowed = {
            resolve_encoding(name) or name for name in crawler.settings.getlist("LIGHT_ALLOWED_ENCODINGS")
        }

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_response(self, request: Request, response: Response) -> Response:
        if not isinstance(response, HtmlResponse) or request.meta.get("robots_fetch"):
            return response
        codec, label = declared_encoding(response)
        body = response.body
        if codec is None:
            if label is not None:
                return self._refuse(request, "unsupported_encoding", label)
            try:
                body.decode("utf-8")
            except UnicodeDecodeError as exc:
                if exc.start < len(body) - 3 or "download_stopped" not in response.flags:
                    return self._refuse(request, "undeclared_encoding", None)
            return response.replace(encoding="utf-8")
        if codec not in self.allowed:
            return self._refuse(request, "unsupported_encoding", label)
        if not decode_checked(body, codec):
            return self._refuse(request, "encoding_mismatch", label)
        return response.replace(encoding=codec)

    def _refuse(self, request: Request, code: str, label: str | None) -> Response:
        self.crawler.stats.inc_value(REFUSED)
        self.crawler.stats.inc_value(f"{REFUSED}/{code}")
        what = f"declared encoding {quote_untrusted(label)}" if label else "no declared encoding and not UTF-8"
        raise EncodingRefused(f"{request.url}: {code} ({what})", code=code, declared=label)
