"""Work on the event loop in slices: the loop's other events run between them, and only there."""

from __future__ import annotations

import asyncio

from lightsearch.isolation.turns import in_turns
from tests.conftest import coroutine_test


@coroutine_test
async def test_the_loop_runs_other_events_after_every_slice_and_only_then():
    loop = asyncio.get_running_loop()
    seen: list[int] = []
    turns: list[int] = []  # how many items were handled each time another event ran
    walking = True

    def other_event() -> None:
        turns.append(len(seen))
        if walking:
            loop.call_soon(other_event)

    loop.call_soon(other_event)
    async for item in in_turns(range(250), per_turn=100):
        seen.append(item)
    walking = False
    assert seen == list(range(250))
    assert turns == [100, 200]
