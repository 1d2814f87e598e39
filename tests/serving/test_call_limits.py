"""Calls of one client at once: beyond its share they wait their turn, in the order they
came, before any of their work starts; another client's call never waits for them, and
while others are present a client's share is the limit divided among them. And through the
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
async def test_a_clients_calls_past_the_limit_wait_in_order():
    gate = CallsInFlight(2)
    calls = Calls(gate)
    for i in range(5):
        calls.call(f"a{i}", "client-a")
    await calls.settle()
    assert calls.started == ["a0", "a1"]
    assert gate.waiting("client-a") == 3
    await calls.end("a1")
    assert calls.started[-1] == "a2"
    calls.tasks["a3"].cancel()  # a call that gives up while it waits leaves the line
    await calls.settle()
    await calls.end("a0")
    assert calls.started[-1] == "a4"
    for name in ("a2", "a4"):
        await calls.end(name)
    assert gate.running == {}
    assert gate._waiting == {}  # nothing of a client with no call left but when it left


@coroutine_test
async def test_a_client_with_many_calls_gives_way_to_another_clients_one_call():
    now = [0.0]
    gate = CallsInFlight(4, present_secs=10.0, clock=lambda: now[0])
    calls = Calls(gate)
    for i in range(30):
        calls.call(f"a{i}", "client-a")
    await calls.settle()
    assert calls.started == ["a0", "a1", "a2", "a3"]  # alone, a client runs the whole limit
    calls.call("b0", "client-b")
    await calls.settle()
    assert calls.started[-1] == "b0"  # the one call starts next, ahead of the 26 waiting
    assert (gate.share("client-a"), gate.share("client-b")) == (2, 2)
    await calls.end("a0")
    await calls.end("a1")
    assert calls.started[-1] == "b0"  # client-a's calls wait until it is under its share
    await calls.end("a2")
    assert calls.started[-1] == "a4"
    assert gate.running == {"client-a": 2, "client-b": 1}
    await calls.end("b0")
    await calls.end("a3")
    assert calls.started[-1] == "a5"  # client-b is still present: it may call again soon
    assert gate.running == {"client-a": 2}
    now[0] = 10.5  # client-b has been gone for longer than present_secs
    await calls.end("a4")
    assert calls.started[-3:] == ["a6", "a7", "a8"]  # alone again: the whole limit
    assert gate.running == {"client-a": 4}
    calls.call("c0", "client-c")
    calls.call("d0", "client-d")
    await calls.settle()
    assert calls.started[-2:] == ["c0", "d0"]
    assert gate.share("client-a") == 1  # four clients' worth of turns among three
    for name in ("a5", "a6", "a7"):
        await calls.end(name)
    assert calls.started[-1] == "d0"
    await calls.end("a8")
    assert calls.started[-1] == "a9"
    for task in calls.tasks.values():
        task.cancel()
    await calls.settle()


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
