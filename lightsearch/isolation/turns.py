"""Work done on the event loop a slice at a time, so no document holds it for all of its items.

What a crawl does with a parsed document stays in the process that runs the event loop:
scoring a page's links or a sitemap's entries against the search's frontier and admitting
them is the crawl's state, not a parse. Each item costs tens of microseconds, and a
document names up to 2,000 of them (``MAX_PAGE_LINKS``, discovery's sitemap limit): in
one piece that is a stall of a few hundred milliseconds for every other caller of a
server, more on a busy machine. :func:`in_turns` walks the items and hands the loop back
after every :data:`ITEMS_PER_TURN`, so the other callers' events (a request read, an
answer written, a timer) run between the slices; the work itself is not reduced.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from typing import TypeVar

T = TypeVar("T")

# Items handled between two turns of the event loop: a slice of discovery's candidates
# (a URL's terms read, counted and scored) is a few milliseconds, against the several
# hundred one document's 2,000 candidates take in one piece.
ITEMS_PER_TURN = 100


async def in_turns(items: Iterable[T], per_turn: int = ITEMS_PER_TURN) -> AsyncIterator[T]:
    """``items``, one by one, with a turn of the event loop after every ``per_turn``."""
    for n, item in enumerate(items, 1):
        yield item
        if n % per_turn == 0:
            await asyncio.sleep(0)
