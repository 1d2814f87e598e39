"""The fair queue on its own: clients take turns, then each client's lanes, each lane in
order; a client runs at most its share; a lane given no client is a client of its own.

A property test drives it with random pushes, pops and ends of jobs and checks what every
turn must keep: no client over its share, each lane in order, every job out once, and a
client with a job ready never passed over for long.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from lightsearch.isolation.fairness import FairQueue


def drain(queue: FairQueue[str], n: int) -> list[str]:
    out = []
    for _ in range(n):
        picked = queue.pop()
        if picked is None:
            break
        out.append(picked[1])
    return out


def test_lanes_take_turns_and_none_takes_more_than_its_share():
    queue: FairQueue[str] = FairQueue(share=2)
    for i in range(5):
        queue.push("bombs", f"bomb{i}")
    queue.push("search", "page1")
    queue.push("search", "page2")
    order = [queue.pop() for _ in range(4)]
    assert order == [("bombs", "bomb0"), ("search", "page1"), ("bombs", "bomb1"), ("search", "page2")]
    assert queue.pop() is None  # bombs runs two already: its share
    queue.done("bombs")
    assert queue.pop() == ("bombs", "bomb2")


def test_a_client_with_many_calls_holds_one_turn_against_another_clients_one():
    queue: FairQueue[str] = FairQueue(share=2)
    for call in range(30):  # thirty calls of one client, queued first
        queue.push(("a", call), f"a{call}", "client-a")
    queue.push(("b", 0), "b0", "client-b")
    assert drain(queue, 3) == ["a0", "b0", "a1"]  # b's one call is served in its turn, second
    assert queue.pop() is None  # a runs two already: its share, however many lanes it has
    queue.done(("a", 0))
    assert queue.pop() == (("a", 2), "a2")


def test_a_client_arriving_while_a_backlog_is_worked_through_is_next():
    queue: FairQueue[str] = FairQueue(share=10)
    for i in range(5):
        queue.push("backlog", f"a{i}", "client-a")
    assert queue.pop() == ("backlog", "a0")
    queue.push("one-call", "b0", "client-b")  # b was never served: a was, just now
    assert drain(queue, 2) == ["b0", "a1"]
    assert queue.pop() == ("backlog", "a2")
    queue.push("later-call", "b1", "client-b")  # b comes back: its last turn was before a's last two
    assert drain(queue, 2) == ["b1", "a3"]
    queue.push("third-call", "b2", "client-b")
    queue.push("fourth-call", "b3", "client-b")  # b's two calls: one turn each, a's between them
    assert drain(queue, 3) == ["b2", "a4", "b3"]


def test_a_clients_calls_take_turns_within_its_share():
    queue: FairQueue[str] = FairQueue(share=4)
    for job in range(3):
        queue.push("search", f"s{job}", "client")
    queue.push("fetch", "f0", "client")
    assert drain(queue, 4) == ["s0", "f0", "s1", "s2"]


def test_lanes_of_no_client_are_clients_of_their_own():
    queue: FairQueue[str] = FairQueue(share=1)
    queue.push("x", "x0")
    queue.push("x", "x1")
    queue.push("y", "y0")
    assert drain(queue, 3) == ["x0", "y0"]  # each lane runs one: its own share
    queue.done("x")
    assert queue.pop() == ("x", "x1")


def test_a_job_not_ready_is_passed_over_not_waited_for():
    queue: FairQueue[str] = FairQueue(share=3)
    queue.push("call", "busy-origin", "a")
    queue.push("call", "free-origin", "a")
    queue.push("other", "busy-origin-b", "b")
    ready = lambda job: not job.startswith("busy")  # noqa: E731
    assert queue.pop(ready) == ("call", "free-origin")
    assert queue.pop(ready) is None
    assert queue.pop() == ("other", "busy-origin-b")  # b's turn comes before a's next


def test_shares_per_client_and_no_limit():
    queue: FairQueue[str] = FairQueue(lambda client: None if client == "local" else 1)
    for i in range(3):
        queue.push("local-line", f"l{i}", "local")
        queue.push(("named", i), f"n{i}", "named")
    assert sorted(drain(queue, 10)) == ["l0", "l1", "l2", "n0"]


def test_removed_and_finished_lanes_are_forgotten():
    queue: FairQueue[str] = FairQueue(share=2)
    queue.push("a", "a0", "client")
    queue.push("b", "b0", "client")
    assert queue.pop() == ("a", "a0")
    assert queue.remove(lambda lane, job: lane != "b") == ["b0"]
    queue.done("a")
    assert len(queue) == 0
    assert queue.running == {}
    assert queue._client_of == {}
    assert not queue._clients


operations = st.lists(st.one_of(
    st.tuples(st.just("push"), st.integers(0, 3), st.integers(0, 3)),  # client (3: no client), lane
    st.tuples(st.just("pop"), st.just(0), st.just(0)),
    st.tuples(st.just("done"), st.integers(0, 50), st.just(0)),
), max_size=120)


@given(operations, st.integers(1, 3))
@settings(max_examples=40, deadline=None)
def test_turns_keep_their_promises(ops, share):
    queue: FairQueue[tuple[str, int]] = FairQueue(share=share)
    pushed: dict[str, list[int]] = {}
    popped: dict[str, list[int]] = {}
    running: list[tuple[str, str]] = []  # (lane, client key) of jobs running
    serial = 0
    passed_over: dict[str, int] = {}  # pops of other clients while a client could run
    keys: set = set()
    for op, a, b in ops:
        if op == "push":
            client = None if a == 3 else f"c{a}"
            lane = f"{client or 'own'}-{b}" if client else f"own-{b}"
            serial += 1
            queue.push(lane, (lane, serial), client)
            pushed.setdefault(lane, []).append(serial)
        elif op == "pop":
            key_of = dict(queue._client_of)
            keys.update(key_of.values())
            waiting = {key_of[lane] for lane in pushed if len(pushed[lane]) > len(popped.get(lane, []))}
            eligible = {k for k in waiting if queue.running.get(k, 0) < share}
            picked = queue.pop()
            if picked is None:
                assert not eligible  # nothing passed over that could run
                continue
            lane, (job_lane, number) = picked
            assert lane == job_lane
            popped.setdefault(lane, []).append(number)
            key = key_of[lane]
            running.append((lane, key))
            assert queue.running[key] <= share
            for other in eligible - {key}:  # each other client goes ahead of it once at most
                passed_over[other] = passed_over.get(other, 0) + 1
                assert passed_over[other] <= len(keys) - 1
            passed_over.pop(key, None)
        elif running:
            lane, _ = running.pop(a % len(running))
            queue.done(lane)
    for lane, numbers in popped.items():
        assert numbers == pushed[lane][:len(numbers)]  # each lane in the order it was given
    assert len(queue) == sum(len(v) for v in pushed.values()) - sum(len(v) for v in popped.values())
