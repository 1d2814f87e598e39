"""A task that never finishes, for the tests of deadlines: sent to a real worker in place
of an extraction (by reference, so the worker imports this small module), it holds its
worker until the pool kills it."""

from __future__ import annotations

import time
from typing import Any


def forever(*_args: Any) -> None:
    time.sleep(3600)


def busy(*_args: Any) -> None:
    """Burns CPU until killed: a reading whose cost no input cap foresaw."""
    while True:
        sum(range(10_000))


def forever_when_large(html: str, url: str, agents: frozenset[str]) -> Any:
    """Discovery's page task that never finishes on a body a worker reads (over the
    in-process size), and reads a small one as the real task does."""
    from lightsearch.documents.pagescan import scan_page
    from lightsearch.isolation.limits import SMALL_BODY_BYTES

    if len(html.encode("utf-8", "replace")) > SMALL_BODY_BYTES:
        forever()
    return scan_page(html, url, agents)
