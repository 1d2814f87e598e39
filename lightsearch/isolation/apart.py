"""Where a parse of network bytes runs: here, or in the call's lane of the worker pool.

The rule is one for every parser of a body that came off the network (discovery's pages
and sitemaps, robots.txt, engine answers): a body of at most
:data:`~lightsearch.isolation.limits.SMALL_BODY_BYTES` is parsed in the process that
runs the event loop, by a parser whose work is capped (elements walked, rules kept,
values kept), because there it costs less than the trip to a worker; a larger one is
parsed in a worker, in the call's lane, under the pool's time and memory limits and the
call's deadline. A parser with no cap of its own on its work (feedparser) always goes to
a worker (``here=False``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lightsearch.isolation.limits import SMALL_BODY_BYTES

if TYPE_CHECKING:
    from lightsearch.isolation.lanes import Lane

T = TypeVar("T")


def small(size: int) -> bool:
    """Whether a body of ``size`` bytes is parsed where it arrived."""
    return size <= SMALL_BODY_BYTES


async def parse_apart(lane: Lane, fn: Callable[..., T], *args: Any, size: int | None, what: str) -> T:
    """``fn(*args)``: here when ``size`` is given and :func:`small`, in ``lane``'s worker
    otherwise. Raises what ``fn`` raises (a LightSearchError) or the lane's error
    (``timeout``, ``too_large``)."""
    if size is not None and small(size):
        return fn(*args)
    return await lane.run(fn, *args, what=what)
