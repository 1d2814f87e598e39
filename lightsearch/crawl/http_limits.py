"""What one HTTP response may hold, whoever asked for it: the one limits policy of the
crawls' download handler (crawl/transport.py) and decompression middlewares
(crawl/middlewares/decoded.py) and of the API clients (providers/apiclient.py).

The head is bounded as it arrives (``LIGHT_RESPONSE_MAX_HEADERS`` fields,
``LIGHT_RESPONSE_MAX_HEADER_BYTES`` bytes of status line and fields, each line at most
:attr:`HttpLimits.max_header_line` bytes where the parser bounds lines apart), and at most
``LIGHT_RESPONSE_MAX_ENCODINGS`` stacked content encodings are decoded, each within the
caller's body limit (:func:`decode_layers`). The body's own limit is the caller's: a
crawl's per-response cap, an API's response size.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lightsearch.crawl.failures import ResponseRefused
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.schema import BY_KEY, check_value

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

# Content codings a client without Scrapy's decompression middleware decodes.
DECODED_CODINGS = frozenset({"gzip", "x-gzip", "deflate"})


@dataclass(frozen=True)
class HttpLimits:
    """What one response head may hold, and how many encodings are decoded."""

    max_headers: int = 100
    max_header_bytes: int = 64 * 1024
    max_encodings: int = 2
    # one header line, where the parser bounds lines apart (aiohttp); Twisted's parser is
    # bounded by the head's size instead
    max_header_line: int = 8 * 1024

    @classmethod
    def from_settings(cls, settings: BaseSettings, *, strict: bool = True) -> HttpLimits:
        """The policy the settings give. Not ``strict`` (the API clients: bad ``LIGHT_*``
        settings never stop Brave or the engines, and Light's first search reports them),
        a value the settings table refuses leaves that limit at its default."""
        values = {}
        for name, key in _SETTINGS.items():
            if strict:
                values[name] = settings.getint(key)
                continue
            try:
                check_value(BY_KEY[key], settings.get(key))
            except LightSearchError:
                continue
            values[name] = settings.getint(key)
        return cls(**values)


_SETTINGS = {"max_headers": "LIGHT_RESPONSE_MAX_HEADERS", "max_header_bytes": "LIGHT_RESPONSE_MAX_HEADER_BYTES",
             "max_encodings": "LIGHT_RESPONSE_MAX_ENCODINGS"}


def encoding_layers(values: Iterable[bytes]) -> list[bytes]:
    """The content codings of a response, in the order they were applied, from all of
    its ``Content-Encoding`` lines (RFC 9110 §8.4: a list, possibly over several lines)."""
    return [token for value in values for token in (t.strip().lower() for t in value.split(b",")) if token]


def refuse_stacked_encodings(values: Iterable[bytes], limit: int) -> None:
    """Raise ``unsupported_encoding`` when a response stacks more than ``limit`` codings."""
    layers = encoding_layers(values)
    if len(layers) > limit:
        shown = quote_untrusted(b", ".join(layers[:4]))
        raise ResponseRefused(
            "unsupported_encoding",
            f"the response stacks {len(layers)} content encodings ({shown}); at most {limit} are decoded",
            reason="encoding_layers", layers=len(layers), limit=limit,
        )


class DecodingRefused(ValueError):
    """A body that cannot be decoded within the policy: ``reason`` is ``encoding`` (an
    unknown coding, or bytes that do not decompress) or ``too_large``."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


def decode_layers(body: bytes, layers: list[str], max_size: int) -> bytes:
    """``body`` with its content codings (as listed, the last applied last) undone, each
    layer's output bounded by ``max_size`` as it is produced: a bomb stops at the bound."""
    for layer in reversed(layers):
        if layer not in DECODED_CODINGS:
            raise DecodingRefused("encoding", f"unsupported Content-Encoding {layer[:20]!r}")
        decoder = zlib.decompressobj(zlib.MAX_WBITS | 16 if "gzip" in layer else zlib.MAX_WBITS)
        try:
            out = decoder.decompress(body, max_size + 1)
        except zlib.error as exc:
            raise DecodingRefused("encoding", f"the body does not decompress: {exc}") from None
        if len(out) > max_size or decoder.unconsumed_tail:
            raise DecodingRefused("too_large", f"the decoded body is larger than {max_size} bytes")
        body = out
    return body
