"""Calls of one client at once: beyond the limit they wait their turn, in the order they
came, before any of their work starts; other clients never wait for them. And through the
toolbox: a served client's calls past the limit wait, a call made for no client does not.
"""

from __future__ import annotations

import asyncio

from lightsearch.serving.call_limits import CallsInFlight
from tests.conftest import coroutine_test


class Calls:
    """Calls that run until the test ends them, noting when each started."""

    def __init__(self, gate: CallsInFlight) -> None:
        self.gate = gate
        self.started: list[str] = []
        self._end: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task] = {}

    def call(self, name: str, client: str) -> None:
        end = self._end[name] = asyncio.Event()

        async def run() -> None:
            async with self.gate.turn(client):
                self.started.append(name)
                await end.wait()

        self.tasks[name] = asyncio.ensure_future(run())

    async def settle(self) -> None:
        for _ in range(5):
            await asyncio.sleep(0)

    async def end(self, name: str) -> None:
        self._end[name].set()
        await self.tasks[name]
        await self.settle()


@coroutine_test
async def test_a_clients_calls_past_the_limit_wait_in_order_and_others_do_not():
    gate = CallsInFlight(2)
    calls = Calls(gate)
    for i in range(5):
        calls.call(f"a{i}", "client-a")
    calls.call("b0", "client-b")
    await calls.settle()
    assert calls.started == ["a0", "a1", "b0"]
    assert (gate.waiting("client-a"), gate.waiting("client-b")) == (3, 0)
    await calls.end("a1")
    assert calls.started[-1] == "a2"
    calls.tasks["a3"].cancel()  # a call that gives up while it waits leaves the line
    await calls.settle()
    await calls.end("a0")
    assert calls.started[-1] == "a4"
    for name in ("a2", "a4", "b0"):
        await calls.end(name)
    assert gate.running == {}
    assert gate._gates == {}  # clients with no call left are forgotten


@coroutine_test
async def test_no_limit():
    gate = CallsInFlight(0)
    calls = Calls(gate)
    for i in range(10):
        calls.call(f"a{i}", "client-a")
    await calls.settle()
    assert len(calls.started) == 10
    for i in range(10):
        await calls.end(f"a{i}")


@coroutine_test
async def test_the_toolbox_holds_a_served_clients_calls_past_the_limit(origins):
    from lightsearch.surfaces.toolbox import Toolbox
    from tests.held_origins import HeldPages

    pages = HeldPages(origins, 3)
    toolbox = Toolbox({**origins.settings(), "LOG_LEVEL": "ERROR", "WEB_TOOLS_CALLS_IN_FLIGHT": 1,
                       "LIGHT_MAX_CONCURRENCY": 3})
    served = [asyncio.ensure_future(toolbox.call("web_fetch", {"url": url}, client="http:192.0.2.9"))
              for url in pages.urls[:2]]
    local = asyncio.ensure_future(toolbox.call("web_fetch", {"url": pages.urls[2]}))
    try:
        await pages.until_held(2)  # the served client's first call, and the local one
        for _ in range(25):  # a moment for a second served call to reach its origin, if it could
            await asyncio.sleep(0.02)
        held = sorted(pages.arrived)
        waiting = toolbox.in_flight.waiting("http:192.0.2.9")
    finally:
        pages.let_go()
    answers = await asyncio.gather(*served, local)
    await toolbox.aclose()
    assert held == ["held0", "held2"]
    assert waiting == 1
    assert all("content" in answer for answer in answers)
