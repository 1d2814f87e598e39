"""A call's place in the worker pool: its lane.

Each call (one search, one fetch, one ``fetch_many``) makes one :class:`Lane`, hands it
to whatever reads pages for it (the crawl's spider and pipeline, web_fetch's reader),
and closes it when it ends. A lane belongs to the client the call is made for
(:func:`lightsearch.clients.current_client`, read when the lane is made). The pool serves
clients in turn and each client's lanes in turn, runs at most half its workers for one
client (a call made for no client is a client of its own), and never lets a lane's task
run past the lane's deadline (:mod:`~lightsearch.isolation.pool`).
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable
from typing import Any

from lightsearch.clients import current_client
from lightsearch.errors import LightSearchError
from lightsearch.isolation.pool import WorkerPool, late_error, pool_for, start_fork_server

_lane_ids = itertools.count(1)
_CALLERS = object()  # a lane's client by default: the client of the call that makes it


def pool_settings(settings: Any) -> tuple[int, int, float]:
    return (settings.getint("LIGHT_POOL_WORKERS"), settings.getint("LIGHT_POOL_WORKER_MAX_BYTES"),
            settings.getfloat("LIGHT_POOL_TASK_SECS"))


def warm_pool(settings: Any) -> None:
    """Start the process's workers in the background, if they are not running: an engine
    does this when it is made, so its first page does not wait for them. Settings that
    are not valid start nothing: the first call reports them (``invalid_settings``)."""
    from lightsearch.schema import BY_KEY, check_value

    try:
        for key in ("LIGHT_POOL_WORKERS", "LIGHT_POOL_WORKER_MAX_BYTES", "LIGHT_POOL_TASK_SECS"):
            check_value(BY_KEY[key], settings.get(key))
        workers, memory_bytes, _ = pool_settings(settings)
    except (LightSearchError, ValueError, TypeError):
        return
    start_fork_server()  # from the calling thread, out of a terminal's Ctrl-C (pool.py)
    pool_for(workers, memory_bytes).start()


class Lane:
    """One call's place in the pool: its tasks queue in order behind one another and take
    turns with other calls' tasks; none runs past ``deadline_at`` (monotonic), and
    :meth:`close` stops what is queued and running.

    ``late`` builds the error a task gets when the deadline passes first (``timeout``
    with reason ``deadline`` unless the caller says otherwise). ``client``: whose call this
    is (None: made for no client), by default the client of the call that makes the lane."""

    def __init__(self, settings: Any, *, name: str = "call", deadline_at: float | None = None,
                 late: Callable[[str], LightSearchError] | None = None, client: Any = _CALLERS) -> None:
        self.key = (name, next(_lane_ids))
        self.client: str | None = current_client() if client is _CALLERS else client
        self.workers, self.memory_bytes, self.task_secs = pool_settings(settings)
        self.deadline_at = deadline_at
        self.late = late or late_error
        self.closed: LightSearchError | None = None
        self._pool: WorkerPool | None = None

    @property
    def pool(self) -> WorkerPool:
        if self._pool is None or self._pool._closing:
            self._pool = pool_for(self.workers, self.memory_bytes)
        return self._pool

    def warm(self) -> None:
        """Have the workers start in the background, before the first task needs one."""
        self.pool.start()

    def remaining(self) -> float | None:
        return None if self.deadline_at is None else self.deadline_at - time.monotonic()

    async def run(self, fn: Callable[..., Any], *args: Any, what: str = "the document") -> Any:
        """``fn(*args)`` in a worker; raises the task's LightSearchError, or ``timeout``
        (``extraction_time`` / the lane's deadline), or ``too_large``
        (``extraction_memory``). Cancelling the caller kills the task."""
        if self.closed is not None:
            raise LightSearchError(self.closed.code, self.closed.message, dict(self.closed.details))
        remaining = self.remaining()
        if remaining is not None and remaining <= 0:
            raise self.late(what)
        future = self.pool.submit(self.key, fn, args, budget=self.task_secs, deadline_at=self.deadline_at,
                                  what=what, client=self.client, late=self.late)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), remaining)
        except asyncio.TimeoutError:
            raise self.late(what) from None

    def close(self, error: LightSearchError | None = None) -> None:
        """Stop this lane's queued and running tasks: they fail with ``error``."""
        self.closed = error or LightSearchError("cancelled", "the call ended before the document was read",
                                                {"reason": "call_ended"})
        if self._pool is not None:
            self._pool.cancel_lane(self.key, self.closed)

