"""Who goes next: clients in turn, then each client's calls in turn, each call in order.

A job waits in its call's lane (one search, one fetch, one ``fetch_many``: a FIFO queue),
and a lane belongs to a client (:mod:`lightsearch.clients`). The next job is taken from
the first client in turn that is under its share, from that client's first lane in turn
that has a job ready; the client and the lane then go to the back of their turns. So a
client with thirty calls waiting holds one turn against another client's one, and among
its own calls the turns go round as well. A client runs at most its ``share`` of jobs at
once, so one client's work, however slow, always leaves room for the others.

A lane given no client is a client of its own: calls made for no client take turns call
by call, each under the share, as they always have.

The worker pool (:mod:`lightsearch.isolation.pool`) and the politeness limiter's transfer
slots (:mod:`lightsearch.crawl.politeness`) both take turns here.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

J = TypeVar("J")


class _Own:
    """The client key of a lane given no client: the lane itself, apart from every name."""

    __slots__ = ("lane",)

    def __init__(self, lane: Hashable) -> None:
        self.lane = lane

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Own) and other.lane == self.lane

    def __hash__(self) -> int:
        return hash((_Own, self.lane))


class FairQueue(Generic[J]):
    """``share``: the most jobs of one client running at once (an int for every client, or
    a function of the client key: None for no limit); at least 1."""

    def __init__(self, share: int | Callable[[Hashable], int | None]) -> None:
        if callable(share):
            self._share = share
        else:
            fixed = max(1, share)
            self._share = lambda _client: fixed
        # clients in turn order, each with its lanes in turn order
        self._clients: OrderedDict[Hashable, OrderedDict[Hashable, deque[J]]] = OrderedDict()
        self._client_of: dict[Hashable, Hashable] = {}  # every lane queued or running
        self._lane_running: dict[Hashable, int] = {}
        self.running: dict[Hashable, int] = {}  # per client key

    def __len__(self) -> int:
        return sum(len(q) for lanes in self._clients.values() for q in lanes.values())

    @staticmethod
    def key(lane: Hashable, client: Hashable | None) -> Hashable:
        """The client key a lane takes turns under."""
        return _Own(lane) if client is None else client

    def share(self, client: Hashable) -> int | None:
        share = self._share(client)
        return None if share is None else max(1, share)

    def push(self, lane: Hashable, job: J, client: Hashable | None = None) -> None:
        """Queue ``job`` at the back of ``lane`` (of ``client``: None, the lane is its own)."""
        key = self._client_of.setdefault(lane, self.key(lane, client))
        self._clients.setdefault(key, OrderedDict()).setdefault(lane, deque()).append(job)

    def pop(self, ready: Callable[[J], bool] | None = None) -> tuple[Hashable, J] | None:
        """The next job to run (and its lane), by turn among clients under their share and
        among their lanes; the first job of a lane that ``ready`` accepts (every job when
        None). The client and the lane served go to the back of their turns."""
        for key, lanes in self._clients.items():
            share = self.share(key)
            if share is not None and self.running.get(key, 0) >= share:
                continue
            for lane, queue in lanes.items():
                job = _take(queue, ready)
                if job is None:
                    continue
                lanes.pop(lane)
                if queue:
                    lanes[lane] = queue
                self._clients.pop(key)
                if lanes:
                    self._clients[key] = lanes
                self.running[key] = self.running.get(key, 0) + 1
                self._lane_running[lane] = self._lane_running.get(lane, 0) + 1
                return lane, job
        return None

    def done(self, lane: Hashable) -> None:
        """A job of ``lane`` stopped running."""
        key = self._client_of.get(lane)
        if key is None:
            return
        left = self._lane_running.get(lane, 0) - 1
        if left > 0:
            self._lane_running[lane] = left
        else:
            self._lane_running.pop(lane, None)
        left = self.running.get(key, 0) - 1
        if left > 0:
            self.running[key] = left
        else:
            self.running.pop(key, None)
        self._forget_if_idle(lane, key)

    def remove(self, keep: Callable[[Hashable, J], bool]) -> list[J]:
        """Take out (and return) every queued job ``keep`` says no to."""
        removed: list[J] = []
        for key in list(self._clients):
            lanes = self._clients[key]
            for lane in list(lanes):
                kept: deque[J] = deque()
                for job in lanes[lane]:
                    (kept if keep(lane, job) else removed).append(job)
                if kept:
                    lanes[lane] = kept
                else:
                    del lanes[lane]
                    self._forget_if_idle(lane, key)
            if not lanes:
                del self._clients[key]
        return removed

    def _forget_if_idle(self, lane: Hashable, key: Hashable) -> None:
        """Drop a lane that has nothing queued and nothing running (and its client's turn,
        if it was its client's last)."""
        if lane in self._lane_running:
            return
        lanes = self._clients.get(key)
        if lanes is not None and lanes.get(lane):
            return
        self._client_of.pop(lane, None)
        if lanes is not None:
            lanes.pop(lane, None)
            if not lanes:
                del self._clients[key]


def _take(queue: deque[J], ready: Callable[[J], bool] | None) -> J | None:
    if not queue:
        return None
    if ready is None:
        return queue.popleft()
    for i, job in enumerate(queue):
        if ready(job):
            del queue[i]
            return job
    return None
