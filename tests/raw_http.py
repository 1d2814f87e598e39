"""Raw HTTP responses for the offline origins: what no well-behaved server would send.

The offline origins (``offline_origins/server.py``) build responses from route fields;
a route with ``"handler"`` instead gets the request handler and writes its own bytes.
These builders return such routes for hostile responses: 100,000 or a
million header fields, thousands of stacked content encodings, and chunked bodies with
no ``Content-Length``. Bytes are produced and written piece by piece, so a response of
12 MB never sits in the server's memory, and a client that hangs up early (as the
transport does on purpose) only ends the write.
"""

from __future__ import annotations

import functools
import gzip
import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any

PIECE = 64 * 1024


def route(pieces: Callable[[], Iterable[bytes]]) -> dict[str, Any]:
    """An offline-origins route that writes ``pieces()`` raw and closes the connection."""

    def handler(request_handler: Any) -> None:
        request_handler.release()
        request_handler.close_connection = True
        try:
            for piece in pieces():
                request_handler.wfile.write(piece)
            request_handler.wfile.flush()
        except OSError:  # the client aborted the response: that is the point
            pass

    return {"handler": handler}


def _batched(parts: Iterable[bytes]) -> Iterator[bytes]:
    buf: list[bytes] = []
    size = 0
    for part in parts:
        buf.append(part)
        size += len(part)
        if size >= PIECE:
            yield b"".join(buf)
            buf, size = [], 0
    if buf:
        yield b"".join(buf)


def many_headers(count: int, body: bytes, *, ctype: bytes = b"text/html; charset=utf-8") -> dict[str, Any]:
    """A 200 response with ``count`` extra header fields (``X-N: v``) before its body."""

    def pieces() -> Iterator[bytes]:
        head = [b"HTTP/1.1 200 OK\r\n", b"Content-Type: " + ctype + b"\r\n",
                b"Content-Length: %d\r\n" % len(body), b"Connection: close\r\n"]
        fields = (b"X-%d: v\r\n" % i for i in range(count))
        yield from _batched(itertools.chain(head, fields, [b"\r\n", body]))

    return route(pieces)


def one_long_header(size: int, body: bytes) -> dict[str, Any]:
    """A 200 response whose one ``X-Pad`` header value is ``size`` bytes long."""

    def pieces() -> Iterator[bytes]:
        yield b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: %d\r\nX-Pad: " % len(body)
        for start in range(0, size, PIECE):
            yield b"a" * min(PIECE, size - start)
        yield b"\r\n\r\n" + body

    return route(pieces)


@functools.lru_cache(maxsize=4)
def stacked_gzip(body: bytes, layers: int) -> bytes:
    """``body`` gzip-compressed ``layers`` times (stored blocks: fast to build, and each
    layer still has to be inflated by a client that decodes them all)."""
    data = body
    for _ in range(layers):
        data = gzip.compress(data, compresslevel=0, mtime=0)
    return data


def stacked_encodings(layers: int, body: bytes, *, per_line: int = 1000) -> dict[str, Any]:
    """A 200 response with ``layers`` gzip layers, declared over ``Content-Encoding`` lines
    of ``per_line`` codings each (short lines: Twisted's 16 KiB line limit must not be
    what stops it)."""
    encoded = stacked_gzip(body, layers)
    lines = [b"Content-Encoding: " + b", ".join([b"gzip"] * min(per_line, layers - start)) + b"\r\n"
             for start in range(0, layers, per_line)]

    def pieces() -> Iterator[bytes]:
        yield (b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n" + b"".join(lines)
               + b"Content-Length: %d\r\n\r\n" % len(encoded))
        for start in range(0, len(encoded), PIECE):
            yield encoded[start:start + PIECE]

    return route(pieces)


def chunked(total: int, *, chunk: int = 16 * 1024, ctype: bytes = b"text/html; charset=utf-8",
            fill: bytes = b"<p>tide gauge reading</p>\n") -> dict[str, Any]:
    """A 200 response with a chunked body of ``total`` bytes and no ``Content-Length``."""
    unit = (fill * (chunk // len(fill) + 1))[:chunk]

    def pieces() -> Iterator[bytes]:
        yield b"HTTP/1.1 200 OK\r\nContent-Type: " + ctype + b"\r\nTransfer-Encoding: chunked\r\n\r\n"
        sent = 0
        while sent < total:
            part = unit[: min(chunk, total - sent)]
            yield b"%x\r\n%s\r\n" % (len(part), part)
            sent += len(part)
        yield b"0\r\n\r\n"

    return route(pieces)
