"""Who goes next: clients in turn, then each client's calls in turn, each call in order.

A job waits in its call's lane (one search, one fetch, one ``fetch_many``: a FIFO queue),
and a lane belongs to a client (:mod:`lightsearch.clients`). The next job is taken from
the first client in turn that is under its share, from that client's first lane in turn
that has a job ready; the client and the lane then go to the back of their turns, and
one that was never served goes to the front. So a client with thirty calls waiting holds
one turn against another client's one, and among its own calls the turns go round as
well. A client runs at most its ``share`` of jobs at once, so one client's work, however
slow, always leaves room for the others.

A lane given no client is a client of its own: calls made for no client take turns call
by call, each under the share.

The worker pool (:mod:`lightsearch.isolation.pool`) and the politeness limiter's transfer
slots (:mod:`lightsearch.crawl.politeness`) both take turns here.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

J = TypeVar("J")
REMEMBERED_CLIENTS = 4096  # clients whose last turn is kept once they have nothing waiting


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
    a function of the client key: None for no limit); at least 1.

    Turns go to whoever was served least recently: a client (and, within it, a lane) is
    stamped when a job of it is taken and goes behind every other; one that comes back
    with work takes its place by its last stamp, and one never served (or long forgotten)
    goes first. So a client with one call arriving while another client's backlog is being
    worked through is next, not behind a turn of the backlog. A lane given no client takes
    its place at the back."""

    def __init__(self, share: int | Callable[[Hashable], int | None]) -> None:
        if callable(share):
            self._share = share
        else:
            fixed = max(1, share)
            self._share = lambda _client: fixed
        # clients in turn order, each with its lanes in turn order: least recently served first
        self._clients: OrderedDict[Hashable, OrderedDict[Hashable, deque[J]]] = OrderedDict()
        self._client_of: dict[Hashable, Hashable] = {}  # every lane queued or running
        self._lane_running: dict[Hashable, int] = {}
        self.running: dict[Hashable, int] = {}  # per client key
        self._turns = itertools.count(1)
        self._stamp: dict[Hashable, int] = {}  # clients with work queued, and every known lane
        self._served: OrderedDict[Hashable, int] = OrderedDict()  # named clients' last turns, bounded

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
        key = self._client_of.get(lane)
        if key is None:
            key = self._client_of[lane] = self.key(lane, client)
            self._stamp[("lane", lane)] = 0 if not isinstance(key, _Own) else next(self._turns)
        lanes = self._clients.get(key)
        if lanes is None:
            lanes = self._clients[key] = OrderedDict()
            own = isinstance(key, _Own)
            stamp = self._stamp[("client", key)] = next(self._turns) if own else self._served.get(key, 0)
            _place(self._clients, key, stamp, lambda k: self._stamp[("client", k)])
        queue = lanes.get(lane)
        if queue is None:
            queue = lanes[lane] = deque()
            _place(lanes, lane, self._stamp[("lane", lane)], lambda other: self._stamp[("lane", other)])
        queue.append(job)

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
                turn = next(self._turns)
                lanes.pop(lane)
                if queue:
                    lanes[lane] = queue
                self._stamp[("lane", lane)] = turn
                self._clients.pop(key)
                if lanes:
                    self._clients[key] = lanes
                    self._stamp[("client", key)] = turn
                else:
                    self._stamp.pop(("client", key), None)
                if not isinstance(key, _Own):
                    self._remember(key, turn)
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
            if not lanes and key in self._clients:
                del self._clients[key]
                self._stamp.pop(("client", key), None)
        return removed

    def _remember(self, key: Hashable, turn: int) -> None:
        self._served[key] = turn
        self._served.move_to_end(key)
        while len(self._served) > REMEMBERED_CLIENTS:
            self._served.popitem(last=False)

    def _forget_if_idle(self, lane: Hashable, key: Hashable) -> None:
        """Drop a lane that has nothing queued and nothing running (and its client's turn,
        if it was its client's last)."""
        if lane in self._lane_running:
            return
        lanes = self._clients.get(key)
        if lanes is not None and lanes.get(lane):
            return
        self._client_of.pop(lane, None)
        self._stamp.pop(("lane", lane), None)
        if lanes is not None:
            lanes.pop(lane, None)
            if not lanes:
                del self._clients[key]
                self._stamp.pop(("client", key), None)


def _place(order: OrderedDict, key: Hashable, stamp: int, stamp_of: Callable[[Hashable], int]) -> None:
    """``key`` was just added at the end of ``order`` (ascending by stamp): move it before
    every entry served after ``stamp``, keeping theirs in order."""
    for other in [k for k in order if k != key and stamp_of(k) > stamp]:
        order.move_to_end(other)


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
