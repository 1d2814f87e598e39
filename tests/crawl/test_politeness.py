"""The process's transfer slots: one per origin, three in all, given by turn.

The limiter on its own (transfers that hold their slot until the test lets them go) and
inside real crawls: a fetch and a search made for a client hand that client, and the
crawl, to the limiter, read where the call began and not from a Twisted callback.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar

import pytest

from lightsearch.clients import calls_for
from lightsearch.crawl.politeness import InProcessLimiter
from tests.conftest import coroutine_test, make_world


class Transfers:
    """Transfers through one limiter, each holding its slot until :meth:`finish`."""

    def __init__(self, limiter: InProcessLimiter) -> None:
        self.limiter = limiter
        self.granted: list[str] = []
        self._release: dict[str, asyncio.Event] = {}
        self.tasks: dict[str, asyncio.Task] = {}

    def start(self, name: str, origin: str, client: str | None = None, call: Any = None) -> None:
        release = self._release[name] = asyncio.Event()

        async def transfer() -> None:
            async with self.limiter.slot(origin, client=client, call=call):
                self.granted.append(name)
                await release.wait()

        self.tasks[name] = asyncio.ensure_future(transfer())

    async def settle(self) -> None:
        for _ in range(5):  # the grants of the moment, however many hand-offs they take
            await asyncio.sleep(0)

    async def finish(self, name: str) -> None:
        self._release[name].set()
        await self.tasks[name]
        await self.settle()

    async def finish_all(self) -> None:
        for event in self._release.values():
            event.set()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)


@coroutine_test
async def test_a_client_with_many_transfers_leaves_a_slot_for_another_client():
    limiter = InProcessLimiter(total=3, per_origin=1)
    line = Transfers(limiter)
    try:
        for i in range(6):  # six calls of one client, each to an origin of its own
            line.start(f"a{i}", f"https://a{i}.test", client="client-a", call=f"call-{i}")
        await line.settle()
        assert line.granted == ["a0", "a1"]  # all the slots but one
        line.start("b", "https://b.test", client="client-b", call="call-b")
        await line.settle()
        assert line.granted == ["a0", "a1", "b"]  # b's transfer did not wait behind a's four
        await line.finish("a0")
        assert line.granted[-1] == "a2"
    finally:
        await line.finish_all()
    assert (limiter.in_flight, limiter.waiting(), limiter.active) == (0, 0, {})


@coroutine_test
async def test_a_clients_calls_take_turns_for_its_slots():
    limiter = InProcessLimiter(total=3, per_origin=1)
    line = Transfers(limiter)
    try:
        for i in range(4):  # a search's hops queue first...
            line.start(f"search{i}", f"https://s{i}.test", client="client", call="search")
        line.start("fetch", "https://f.test", client="client", call="fetch")  # ...then a fetch of the same client
        await line.settle()
        assert line.granted == ["search0", "search1"]
        await line.finish("search0")
        assert line.granted[-1] == "fetch"  # the fetch's turn, before the search's third hop
    finally:
        await line.finish_all()


@coroutine_test
async def test_transfers_of_calls_made_for_no_client_wait_in_one_line_with_no_share():
    limiter = InProcessLimiter(total=3, per_origin=1)
    line = Transfers(limiter)
    try:
        for i in range(5):
            line.start(f"t{i}", f"https://o{i}.test", call=f"call-{i % 2}")
        await line.settle()
        assert line.granted == ["t0", "t1", "t2"]  # every slot, in the order they came
        await line.finish("t1")
        assert line.granted[-1] == "t3"
    finally:
        await line.finish_all()


@coroutine_test
async def test_one_transfer_per_origin_whoever_asks_and_the_line_goes_on_past_it():
    limiter = InProcessLimiter(total=3, per_origin=1)
    line = Transfers(limiter)
    try:
        line.start("a", "https://same.test", client="client-a", call="a")
        line.start("b-same", "https://same.test", client="client-b", call="b")
        line.start("b-other", "https://other.test", client="client-b", call="b")
        await line.settle()
        assert line.granted == ["a", "b-other"]  # b's first hop waits for its origin, not its second
        assert limiter.max_active == {"https://same.test": 1, "https://other.test": 1}
        await line.finish("a")
        assert line.granted[-1] == "b-same"
    finally:
        await line.finish_all()


@coroutine_test
async def test_a_transfer_cancelled_while_it_waits_leaves_the_line():
    limiter = InProcessLimiter(total=1, per_origin=1)
    line = Transfers(limiter)
    try:
        line.start("held", "https://x.test", client="a", call="a")
        line.start("gone", "https://y.test", client="b", call="b")
        line.start("next", "https://z.test", client="c", call="c")
        await line.settle()
        line.tasks["gone"].cancel()
        await line.settle()
        assert limiter.waiting() == 1
        await line.finish("held")
        assert line.granted == ["held", "next"]
    finally:
        await line.finish_all()
    assert (limiter.in_flight, limiter.waiting()) == (0, 0)


# ------------------------------------------------------------------ inside real crawls
class RecordingLimiter(InProcessLimiter):
    """The process's limiter, noting whose call each transfer is for."""

    seen: ClassVar[list[tuple[str | None, Any]]] = []
    instance: ClassVar[RecordingLimiter | None] = None

    @classmethod
    def from_crawler(cls, crawler: Any) -> RecordingLimiter:
        if cls.instance is None:
            cls.instance = cls(crawler.settings.getint("LIGHT_MAX_CONCURRENCY"),
                               crawler.settings.getint("LIGHT_MAX_CONCURRENCY_PER_ORIGIN"))
        return cls.instance

    @contextlib.asynccontextmanager
    async def slot(self, origin: str, *, client: str | None = None, call: Any = None):
        self.seen.append((client, call))
        async with super().slot(origin, client=client, call=call):
            yield


@pytest.fixture
def recording():
    RecordingLimiter.seen.clear()
    yield RecordingLimiter.seen
    RecordingLimiter.instance = None


@coroutine_test
async def test_a_calls_client_reaches_its_transfers_and_its_lane(origins, tmp_path, recording):
    from lightsearch import LightSearch
    from lightsearch.providers.fetch import WebFetch

    settings = make_world(origins, tmp_path, {"tide.example": {
        "/": {"body": "<html><body><a href='/tides'>tide tables harbour</a></body></html>"},
        "/tides": {"body": "<html><head><title>Tide tables</title></head><body><article><h1>Tide tables</h1>"
                           + "<p>High water at the harbour comes an hour after the bar. </p>" * 6
                           + "</article></body></html>"}}},
        [{"id": "tides", "host": "tide.example"}],
        LIGHT_POLITENESS_LIMITER="tests.crawl.test_politeness.RecordingLimiter")
    with calls_for("http:192.0.2.7"):
        page = await WebFetch.from_settings(settings).fetch("https://tide.example/tides")
        found = await LightSearch.from_settings(settings).search("tide tables harbour")
    await WebFetch.from_settings(settings).fetch("https://tide.example/")  # made for no client
    assert "High water" in page["content"]
    assert found["hits"]
    named = [(client, call) for client, call in recording if client is not None]
    assert {client for client, _ in named} == {"http:192.0.2.7"}
    assert len({id(call) for _, call in named}) == 2  # the fetch's crawl and the search's
    assert any(call.lane is not None and call.lane.client == "http:192.0.2.7" for _, call in named)
    assert recording[-1][0] is None
