"""Whose call this is: the client the current call is made for, known wherever it waits.

A server shares its worker pool and its transfer slots among many agents, and what is fair
is fair between agents, not between calls: an agent with thirty calls in flight must not
hold thirty turns against another agent's one. The served surfaces (``lightsearch serve``:
``/mcp`` and the invoke endpoint) name each call's client, and
:meth:`~lightsearch.surfaces.toolbox.Toolbox.call` runs the call under that name
(:func:`calls_for`). Everything below that takes turns reads it once, when the call's
place in line is made, in the call's own task: the worker pool's lanes
(:mod:`lightsearch.isolation.lanes`) and a crawl's frontier, which the download handler
asks before a transfer waits for a slot (:mod:`lightsearch.crawl.politeness`). It is never
read from inside a Twisted callback, whose context is whoever fired it.

A call made for no client (the Python API, the commands, MCP over stdio: one process, one
client) takes its turns as a call of its own: with nobody to share with, a process is not
held to a client's share.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

_client: ContextVar[str | None] = ContextVar("lightsearch_client", default=None)


def current_client() -> str | None:
    """The client the running call is made for, or None (no client named)."""
    return _client.get()


@contextlib.contextmanager
def calls_for(client: str | None) -> Iterator[None]:
    """Run what is called inside (and the tasks it starts) as calls of ``client``."""
    token = _client.set(client)
    try:
        yield
    finally:
        _client.reset(token)
