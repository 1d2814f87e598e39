"""Who gets the next free worker: callers in turn, each in the order it asked.

Each call (one search, one fetch, one ``fetch_many``) is a lane with its own FIFO queue;
a free worker takes the first task of the next lane in round-robin order, so a caller
with fifty pages waiting does not delay a caller with one. A lane runs at most ``share``
tasks at once (half the pool), so one caller's pages, however slow, always leave workers
for the others.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

J = TypeVar("J")


class FairQueue(Generic[J]):
    def __init__(self, share: int) -> None:
        self.share = max(1, share)
        self._lanes: OrderedDict[Hashable, deque[J]] = OrderedDict()  # in turn order
        self.running: dict[Hashable, int] = {}

    def __len__(self) -> int:
        return sum(len(q) for q in self._lanes.values())

    def push(self, lane: Hashable, job: J) -> None:
        self._lanes.setdefault(lane, deque()).append(job)

    def pop(self) -> tuple[Hashable, J] | None:
        """The next job to run, by turn among lanes under their share; the lane served
        goes to the back of the turn."""
        for lane, queue in self._lanes.items():
            if self.running.get(lane, 0) >= self.share:
                continue
            job = queue.popleft()
            self._lanes.pop(lane)
            if queue:
                self._lanes[lane] = queue
            self.running[lane] = self.running.get(lane, 0) + 1
            return lane, job
        return None

    def done(self, lane: Hashable) -> None:
        """A job of ``lane`` stopped running."""
        left = self.running.get(lane, 0) - 1
        if left > 0:
            self.running[lane] = left
        else:
            self.running.pop(lane, None)

    def remove(self, keep: Callable[[Hashable, J], bool]) -> list[J]:
        """Take out (and return) every queued job ``keep`` says no to."""
        removed: list[J] = []
        for lane in list(self._lanes):
            kept: deque[J] = deque()
            for job in self._lanes[lane]:
                (kept if keep(lane, job) else removed).append(job)
            if kept:
                self._lanes[lane] = kept
            else:
                del self._lanes[lane]
        return removed
