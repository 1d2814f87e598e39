"""The worker pool on its own: real worker processes, real kills.

A task over its time limit has its worker killed and replaced; one over the memory limit
fails with ``MemoryError`` in its worker (the kernel's ``RLIMIT_AS``); a worker killed
from outside is replaced; a cancelled caller kills its task; lanes take turns; nothing
is left running after a shutdown. Tasks are stdlib functions (``time.sleep``,
``bytearray``): the worker runs whatever picklable function it is given.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lightsearch.clients import calls_for
from lightsearch.config import make_settings
from lightsearch.errors import LightSearchError
from lightsearch.isolation import pool as pools
from lightsearch.isolation import tasks
from lightsearch.isolation.lanes import Lane
from lightsearch.isolation.pool import WorkerPool
from lightsearch.ranking.rank import RankingStopped, rank_documents
from tests.conftest import coroutine_test

MiB = 1024 * 1024


def lane(**settings) -> Lane:
    return Lane(make_settings({"LIGHT_POOL_WORKERS": 2, **settings}), name="test")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie not yet reaped still "exists": it must not be running
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            return fh.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_until(check, timeout: float = 10.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.05)
    return check()


async def busy_pid(pool: WorkerPool) -> int:
    for _ in range(200):
        with pool._lock:
            running = [w.process.pid for w in pool._workers if w.job is not None]
        if running:
            return running[0]
        await asyncio.sleep(0.05)
    raise AssertionError("no task started")


# ---------------------------------------------------------------------- time
@coroutine_test
async def test_a_task_over_its_time_limit_is_killed_and_its_worker_replaced():
    work = lane(LIGHT_POOL_TASK_SECS=1.0)
    assert await work.run(tasks.light_document, {"html": "<p>x</p>", "url": "https://a.test/",
                                                 "source_id": "s", "retrieved_at": "now"}) is not None
    started = time.monotonic()
    task = asyncio.ensure_future(work.run(time.sleep, 60, what="the stuck page"))
    pid = await busy_pid(work.pool)
    with pytest.raises(LightSearchError) as info:
        await task
    assert time.monotonic() - started < 30  # killed at about 1 s, never the task's 60
    assert info.value.code == "timeout"
    assert info.value.details["reason"] == "extraction_time"
    assert "the stuck page" in info.value.message
    assert wait_until(lambda: not alive(pid))
    # the next task runs on a fresh worker
    assert await work.run(sum, [1, 2, 3]) == 6


@coroutine_test
async def test_a_lane_deadline_stops_the_task_with_the_callers_error():
    def late(what: str) -> LightSearchError:
        return LightSearchError("deadline_exceeded", f"too late for {what}", {"reason": "deadline"})

    work = Lane(make_settings({"LIGHT_POOL_TASK_SECS": 60}), deadline_at=time.monotonic() + 1.0, late=late)
    with pytest.raises(LightSearchError) as info:
        await work.run(time.sleep, 60)
    assert info.value.code in ("deadline_exceeded", "timeout")
    with pytest.raises(LightSearchError) as info:
        await work.run(sum, [1])  # past the deadline: refused before it is queued
    assert info.value.code == "deadline_exceeded"


# ---------------------------------------------------------------------- memory
@coroutine_test
async def test_a_task_over_the_memory_limit_is_too_large_and_the_pool_goes_on():
    work = lane(LIGHT_POOL_WORKER_MAX_BYTES=256 * MiB)
    with pytest.raises(LightSearchError) as info:
        await work.run(bytearray, 1024 * MiB, what="the huge page")
    assert info.value.code == "too_large"
    assert info.value.details["reason"] == "extraction_memory"
    assert info.value.details["limitBytes"] == 256 * MiB
    assert await work.run(len, "still here") == 10


@coroutine_test
async def test_a_worker_killed_from_outside_is_reported_and_replaced():
    work = lane()
    task = asyncio.ensure_future(work.run(time.sleep, 30))
    pid = await busy_pid(work.pool)
    await asyncio.sleep(pools.RESEND_WITHIN_SECS * 2)  # well into its task: not sent again
    os.kill(pid, signal.SIGKILL)  # as the kernel's OOM killer would
    with pytest.raises(LightSearchError) as info:
        await task
    assert info.value.code == "too_large"
    assert info.value.details["reason"] == "extraction_memory"
    # an idle worker killed too: the pool replaces it, it does not break
    os.kill(work.pool.worker_pids()[0], signal.SIGKILL)
    for _ in range(4):
        assert await work.run(abs, -3) == 3


# ---------------------------------------------------------------------- cancellation
@coroutine_test
async def test_a_cancelled_caller_kills_its_task():
    work = lane()
    task = asyncio.ensure_future(work.run(time.sleep, 60))
    pid = await busy_pid(work.pool)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert wait_until(lambda: not alive(pid))


@coroutine_test
async def test_closing_a_lane_fails_its_queued_and_running_tasks():
    work = lane()
    other = lane()
    running = [asyncio.ensure_future(work.run(time.sleep, 60)) for _ in range(3)]
    kept = asyncio.ensure_future(other.run(time.sleep, 0.2))
    await busy_pid(work.pool)
    work.close(LightSearchError("timeout", "the call's deadline passed", {"reason": "deadline"}))
    for task in running:
        with pytest.raises(LightSearchError) as info:
            await task
        assert info.value.details["reason"] == "deadline"
    assert await kept is None  # time.sleep returns None


# ---------------------------------------------------------------------- fairness
@coroutine_test
async def test_a_caller_with_many_slow_tasks_does_not_hold_another_callers_task():
    slow = lane()  # two workers: each lane runs one task at a time
    quick = lane()
    finished: list[str] = []

    async def run(work: Lane, name: str, secs: float) -> None:
        await work.run(time.sleep, secs)
        finished.append(name)

    bombs = [asyncio.ensure_future(run(slow, f"slow{i}", 1.0)) for i in range(2)]
    await asyncio.sleep(0.3)
    await run(quick, "quick", 0.01)
    assert finished[0] == "quick"  # the slow lane still has a task waiting, queued before it
    await asyncio.gather(*bombs)


@coroutine_test
async def test_a_clients_many_calls_do_not_hold_another_clients_call():
    settings = make_settings({"LIGHT_POOL_WORKERS": 2})  # one worker a client
    with calls_for("client-a"):  # a lane takes the client of the call that makes it
        calls_of_a = [Lane(settings, name=f"a{i}") for i in range(3)]
    call_of_b = Lane(settings, name="b", client="client-b")
    assert {lane.client for lane in calls_of_a} == {"client-a"}
    finished: list[str] = []

    async def run(work: Lane, secs: float) -> None:
        await work.run(time.sleep, secs)
        finished.append(work.key[0])

    slow = [asyncio.ensure_future(run(lane, 30)) for lane in calls_of_a]
    await busy_pid(calls_of_a[0].pool)
    await run(call_of_b, 0.01)  # a's calls, one per lane, took their turns first
    try:
        assert finished == ["b"]
        with calls_of_a[0].pool._lock:
            running = [w.job.lane for w in calls_of_a[0].pool._workers if w.job is not None]
        assert len(running) == 1  # a runs its share: one worker, however many calls it has
    finally:
        for lane in calls_of_a:
            lane.close()
        await asyncio.gather(*slow, return_exceptions=True)


def test_a_task_stopped_by_its_calls_deadline_says_the_deadline():
    """A task whose call's deadline comes before its own time limit is stopped there, with
    the call's own error for it (``late``), not the task limit's: a search whose pages were
    cut by its deadline then says ``deadline``, whoever noticed first."""
    work = lane()

    def late(what: str) -> LightSearchError:
        return LightSearchError("timeout", f"the call's deadline passed before {what} was read", {"reason": "deadline",
                                                                                                "mine": True})

    stopped = work.pool.submit(work.key, time.sleep, (60,), budget=30.0, deadline_at=time.monotonic() + 0.5,
                               what="the page", late=late)
    with pytest.raises(LightSearchError) as info:
        stopped.result(timeout=60)
    assert info.value.details == {"reason": "deadline", "mine": True}
    # its own limit first: the task's time limit
    limited = work.pool.submit(work.key, time.sleep, (60,), budget=0.5, deadline_at=time.monotonic() + 30,
                               what="the page", late=late)
    with pytest.raises(LightSearchError) as info:
        limited.result(timeout=60)
    assert info.value.details["reason"] == "extraction_time"


@coroutine_test
async def test_a_long_task_goes_on_at_a_lower_priority_and_its_worker_is_then_replaced():
    work = lane()
    task = asyncio.ensure_future(work.run(time.sleep, pools.DEMOTE_AFTER_SECS + 1.5))
    pid = await busy_pid(work.pool)
    assert os.getpriority(os.PRIO_PROCESS, pid) < pools.DEMOTED_NICE
    await asyncio.sleep(pools.DEMOTE_AFTER_SECS + 0.7)
    assert os.getpriority(os.PRIO_PROCESS, pid) == pools.DEMOTED_NICE
    await task
    assert wait_until(lambda: not alive(pid))
    assert await work.run(os.getpid) != pid


@pytest.mark.parametrize(("key", "value"), [("LIGHT_POOL_WORKERS", "four"), ("LIGHT_POOL_WORKERS", 0),
                                        ("LIGHT_POOL_TASK_SECS", 0.01), ("LIGHT_POOL_WORKER_MAX_BYTES", 1024)])
@coroutine_test
async def test_bad_pool_settings_are_invalid_settings_naming_the_key(key, value):
    from lightsearch import LightSearch
    from lightsearch.providers.fetch import WebFetch

    for engine, call in ((LightSearch, "search"), (WebFetch, "fetch")):
        with pytest.raises(LightSearchError) as info:
            await getattr(engine.from_settings({key: value}), call)("https://example.com/")
        assert (info.value.code, info.value.details["key"]) == ("invalid_settings", key)


# ---------------------------------------------------------------------- shutdown
@coroutine_test
async def test_shutdown_leaves_no_worker_running():
    work = lane()
    assert await work.run(sum, [2, 2]) == 4
    pids = list(work.pool.stats.pids)
    assert pids
    pools.shutdown_pools()
    assert wait_until(lambda: not any(alive(pid) for pid in pids))
    assert await lane().run(sum, [1, 1]) == 2  # a new pool starts on demand


def test_workers_do_not_run_the_main_script_again(tmp_path):
    """Workers start from a fork server that never imports the parent's main script: a
    script without an ``if __name__ == "__main__"`` guard searches once, not once more in
    every worker."""
    script = tmp_path / "unguarded.py"
    script.write_text(textwrap.dedent("""
        import asyncio, os
        from lightsearch.isolation import tasks
        from lightsearch.isolation.lanes import Lane
        from lightsearch.config import make_settings
        print("main", os.getpid(), flush=True)

        async def main():
            work = Lane(make_settings({"LIGHT_POOL_WORKERS": 2}))
            doc = await work.run(tasks.light_document, {"html": "<article><p>One paragraph of text.</p></article>",
                                 "url": "https://a.test/", "source_id": "s", "retrieved_at": "now"})
            print("text", doc.text, flush=True)

        asyncio.run(main())
    """), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=90,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert [line for line in lines if line.startswith("main")] == [lines[0]]
    assert "text One paragraph of text." in lines


# ---------------------------------------------------------------------- ranking
def test_ranking_stops_between_documents_when_asked():
    from lightsearch.documents import Document

    docs = [Document(url=f"https://a.test/{i}", source_id="s", title=f"tide {i}", text="tide tables " * 50,
                     retrieved_at="now") for i in range(50)]
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 10

    with pytest.raises(RankingStopped):
        rank_documents(docs, ["tide tables"], should_stop=stop)
    assert len(asked) == 11
    assert [r.document.url for r in rank_documents(docs, ["tide tables"])][:1] == ["https://a.test/0"]
