"""A bounded pool of worker processes for work on untrusted bytes, and the lanes callers
queue in.

Why processes, and why this pool: a thread running trafilatura or pypdf on a hostile
page cannot be stopped, and it holds the GIL the event loop needs; a process can be
killed, and the kernel caps its memory. Workers are forked from a fork server that has
imported the extraction stack once (``multiprocessing``'s ``forkserver``: never a fork
of the process that runs the Twisted reactor and its threads), so a new worker costs a
few milliseconds, not the second a fresh interpreter spends importing trafilatura.

pebble's ``ProcessPool`` (per-task timeout, a replaced worker, an mp context, an
initializer) is not used. It stops a late worker with ``SIGTERM`` and waits 3 s before
``SIGKILL``, its manager loop blocked meanwhile: a task inside a C call ignores the
Python-level handler, so a limit fires seconds late (docs/UNTRUSTED_WORK.md). It writes
every task it is given into one pipe shared by the workers, so fairness needs a queue in
front of it anyway (and a task cancelled there still runs). A worker that dies while no
task runs marks the whole pool broken ("Unexpected error within the Pool" for every later
task), and workers share that pipe under a lock across processes, which a worker killed
while it holds it keeps for 60 s. This pool gives each worker its own pipe, kills with
``SIGKILL`` at once, replaces any worker that ends, and dispatches only to an idle
worker from the lanes' fair queue (:mod:`~lightsearch.isolation.fairness`).

One thread per pool (a daemon) does all the bookkeeping: it starts workers, sends tasks,
receives outcomes, and kills a worker whose task is over its time limit, whose caller
cancelled, or whose lane was closed. Callers get ``concurrent.futures.Future`` objects,
awaited from the event loop through a :class:`~lightsearch.isolation.lanes.Lane`.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Hashable
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from multiprocessing.connection import wait
from typing import Any

from lightsearch.errors import LightSearchError
from lightsearch.isolation import limits, tasks
from lightsearch.isolation.fairness import FairQueue

logger = logging.getLogger(__name__)

# Imported once by the fork server, so that every worker starts with them: the module
# that keeps workers from importing the main script first, then the tasks and the
# extraction stack they use (trafilatura, lxml and our documents modules).
PRELOAD = ["lightsearch.isolation.forkserved", "lightsearch.isolation.tasks", *tasks.PRELOAD]
WORKER_NAME = "lightsearch-worker"
SPAWN_RETRY_SECS = 1.0
# A worker that ends this soon after it was sent a task most likely died before it (an idle
# worker killed from outside, in the moment before the pool saw it): the task is sent to
# another worker, once. A task that kills its worker at once is tried twice, no more.
RESEND_WITHIN_SECS = 0.25
# A task still running after DEMOTE_AFTER_SECS (far longer than an ordinary page takes:
# docs/UNTRUSTED_WORK.md) goes on at a lower CPU priority (nice DEMOTED_NICE), so on a
# busy machine the short tasks of other callers, and the event loop's process, are
# served first: the fair queue gives every caller a worker, this gives it the CPU. A
# process cannot raise its own priority back, so a demoted worker is replaced once its
# task ends.
DEMOTE_AFTER_SECS = 1.0
DEMOTED_NICE = 10


def _context() -> Any:
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        # Applies to the process's one fork server, if it is not running yet.
        ctx.set_forkserver_preload(PRELOAD)
    return ctx


def start_fork_server() -> None:
    """Start the process's fork server now, with SIGINT ignored, when the pool uses one and
    this is the main thread (only it may change how a signal is handled; elsewhere the
    pool's thread starts the server when it first needs a worker).

    A terminal's Ctrl-C reaches every process of its group. The fork server ignores SIGINT
    only once its imports are done (a second or so); interrupted before, it prints a
    traceback and the pool has no worker. Started while SIGINT is ignored it keeps it
    ignored (Python leaves an ignored SIGINT alone), and so do the workers it forks."""
    if threading.current_thread() is not threading.main_thread():
        return
    if _context().get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver

    # Only the spawn itself (milliseconds) runs with SIGINT ignored: a Ctrl-C in it is lost.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        forkserver.ensure_running()
    finally:
        signal.signal(signal.SIGINT, previous)


@dataclass(eq=False)
class _Job:
    fn: Callable[..., Any]
    args: tuple[Any, ...]
    future: Future
    lane: Hashable
    client: Hashable | None  # whose call it is (None: the lane takes turns as a client of its own)
    budget: float
    deadline_at: float | None
    what: str
    late: Callable[[str], LightSearchError]  # its error when its deadline passes first
    abort: LightSearchError | None = None  # the lane was closed while the job ran
    attempts: int = 0


@dataclass(eq=False)
class _Worker:
    process: Any
    conn: Any
    ready: bool = False
    job: _Job | None = None
    kill_at: float = 0.0
    budget: float = 0.0
    sent_at: float = 0.0
    demoted: bool = False
    by_deadline: bool = False  # its kill time is the call's deadline, not the task's own limit


@dataclass
class PoolStats:
    tasks: int = 0
    killed_time: int = 0
    killed_memory: int = 0
    killed_cancelled: int = 0
    demoted: int = 0
    workers_started: int = 0
    peak_worker_rss: int = 0
    pids: deque[int] = field(default_factory=lambda: deque(maxlen=64))  # the latest workers started


class WorkerPool:
    """``workers`` processes, each under ``memory_bytes`` of address space."""

    def __init__(self, workers: int, memory_bytes: int) -> None:
        self.size = max(1, workers)
        self.memory_bytes = memory_bytes
        self.stats = PoolStats()
        self._queue: FairQueue[_Job] = FairQueue(share=max(1, self.size // 2))
        self._lock = threading.Lock()
        self._workers: list[_Worker] = []
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._thread: threading.Thread | None = None
        self._closing = False
        self._retry_at = 0.0
        self._ctx: Any = None

    # ------------------------------------------------------------------ callers' side
    def start(self) -> None:
        """Start the workers in the background (idempotent; never blocks)."""
        with self._lock:
            if self._thread is not None or self._closing:
                return
            self._thread = threading.Thread(target=self._manage, name="lightsearch-pool", daemon=True)
            self._thread.start()

    def submit(self, lane: Hashable, fn: Callable[..., Any], args: tuple[Any, ...], *, budget: float,
               deadline_at: float | None = None, what: str = "the document",
               client: Hashable | None = None,
               late: Callable[[str], LightSearchError] | None = None) -> Future:
        """Queue ``fn(*args)`` in ``lane`` (a call of ``client``: lanes of one client share
        its turns); it may run ``budget`` seconds once started, and never past
        ``deadline_at`` (monotonic). Stopped by that deadline, it fails with ``late(what)``
        (by default :func:`late_error`), stopped by its budget with ``extraction_time``."""
        future: Future = Future()
        job = _Job(fn, args, future, lane, client, budget, deadline_at, what, late or late_error)
        with self._lock:
            if self._closing:
                raise LightSearchError("cancelled", "the worker pool is shutting down", {"reason": "shutdown"})
            self._queue.push(lane, job, client)
        future.add_done_callback(lambda _f: self._wake())
        self.start()
        self._wake()
        return future

    def cancel_lane(self, lane: Hashable, error: LightSearchError) -> None:
        """Fail every queued job of ``lane`` with ``error``, and kill its running ones."""
        with self._lock:
            for job in self._queue.remove(lambda key, _job: key != lane):
                _fail(job.future, error)
            for worker in self._workers:
                if worker.job is not None and worker.job.lane == lane:
                    worker.job.abort = error
        self._wake()

    def busy(self) -> bool:
        with self._lock:
            return bool(len(self._queue)) or any(w.job is not None for w in self._workers)

    def worker_pids(self) -> list[int]:
        with self._lock:
            return [w.process.pid for w in self._workers if w.process.pid]

    def close(self, timeout: float = 2.0) -> None:
        """Stop the workers and the thread; queued work fails with ``cancelled``."""
        with self._lock:
            self._closing = True
            thread = self._thread
        self._wake()
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        if thread is None or not thread.is_alive():
            self._stop_all()
            for fd in (self._wake_r, self._wake_w):
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _finished(self, lane: Hashable) -> None:
        """A job of ``lane`` stopped running (or was dropped before it ran)."""
        with self._lock:  # the fair queue is shared with the callers' threads
            self._queue.done(lane)

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # full (already woken) or closed
            os.write(self._wake_w, b"!")

    # ------------------------------------------------------------------ the pool's thread
    def _manage(self) -> None:
        try:
            while True:
                with self._lock:
                    if self._closing:
                        return
                spawning = self._spawn_one()
                self._dispatch()
                busy = [w for w in self._workers if w.job is not None or not w.ready]
                waiting = [self._wake_r, *(w.conn for w in busy), *(w.process.sentinel for w in self._workers)]
                ready = set(wait(waiting, 0 if spawning else self._timeout()))
                if self._wake_r in ready:
                    with contextlib.suppress(OSError):
                        while os.read(self._wake_r, 4096):
                            pass
                for worker in busy:
                    if worker.conn in ready and worker in self._workers and not self._receive(worker):
                        self._ended(worker)
                for worker in list(self._workers):
                    if worker.process.sentinel in ready:
                        self._ended(worker)
                self._enforce()
        except Exception:  # the pool's own bug: fail what waits, never hang a caller
            logger.exception("the worker pool's thread failed")
            with self._lock:
                self._closing = True
        finally:
            self._stop_all()

    def _spawn_one(self) -> bool:
        """Start one missing worker; True when more are missing."""
        if len(self._workers) >= self.size or time.monotonic() < self._retry_at:
            return False
        if self._ctx is None:
            self._ctx = _context()
        from lightsearch.isolation.worker import serve

        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(target=serve, args=(child, self.memory_bytes), name=WORKER_NAME, daemon=True)
        try:
            process.start()
        except Exception as exc:  # no process could be started (fork server gone, EAGAIN...)
            parent.close()
            child.close()
            self._start_failed(repr(exc))
            return False
        child.close()
        with self._lock:
            self._workers.append(_Worker(process, parent))
        self.stats.workers_started += 1
        self.stats.pids.append(process.pid)
        return len(self._workers) < self.size

    def _start_failed(self, why: str) -> None:
        """A worker could not be started, or ended before it was ready: try again in a
        while, and meanwhile fail what waits if no worker is up to run it."""
        self._retry_at = time.monotonic() + SPAWN_RETRY_SECS
        logger.warning("the worker pool could not start a worker: %s", why)
        if not any(w.ready for w in self._workers):
            error = LightSearchError("extraction_failed", "no worker process could be started to read the "
                                     "document", {"reason": "workers_unavailable"})
            with self._lock:
                for job in self._queue.remove(lambda _lane, _job: False):
                    _fail(job.future, error)

    def _dispatch(self) -> None:
        # is_alive() reaps a worker that died while idle, before a task is sent to it
        idle = [w for w in self._workers if w.ready and w.job is None and w.process.is_alive()]
        while idle:
            with self._lock:
                picked = self._queue.pop()
            if picked is None:
                return
            lane, job = picked
            if job.future.done():  # cancelled while it waited
                self._finished(lane)
                continue
            now = time.monotonic()
            budget = job.budget if job.deadline_at is None else min(job.budget, job.deadline_at - now)
            if budget <= 0:
                self._finished(lane)
                _fail(job.future, job.late(job.what))
                continue
            worker = idle.pop()
            try:
                worker.conn.send((job.fn, job.args, budget))
            except (BrokenPipeError, ConnectionError, EOFError):
                with self._lock:
                    self._queue.done(lane)
                    self._queue.push(lane, job, job.client)  # it never started: it waits for another worker
                self._kill(worker)
                continue
            except Exception as exc:  # an argument that cannot be pickled: a caller's bug
                self._finished(lane)
                _fail(job.future, LightSearchError("extraction_failed", f"the task could not be sent to a "
                                                   f"worker ({type(exc).__name__})", {"reason": "pickling"}))
                continue
            worker.job, worker.kill_at, worker.budget, worker.sent_at = job, now + budget, budget, now
            worker.by_deadline = budget < job.budget
            job.attempts += 1
            self.stats.tasks += 1

    def _timeout(self) -> float | None:
        kills = [w.kill_at for w in self._workers if w.job is not None]
        kills += [w.sent_at + DEMOTE_AFTER_SECS for w in self._workers if w.job is not None and not w.demoted]
        if not kills:
            return None if len(self._workers) >= self.size else SPAWN_RETRY_SECS
        return max(0.0, min(kills) - time.monotonic())

    def _receive(self, worker: _Worker) -> bool:
        """Read one message of ``worker``; False when its pipe is closed."""
        try:
            kind, value, peak = worker.conn.recv()
        except (EOFError, OSError):
            return False
        self.stats.peak_worker_rss = max(self.stats.peak_worker_rss, peak)
        if kind == "ready":
            worker.ready = True
            return True
        job, worker.job = worker.job, None
        if worker.demoted:
            self._kill(worker)  # idle now; a fresh worker takes its place at full priority
        if job is None:
            return True
        self._finished(job.lane)
        if job.abort is not None:
            _fail(job.future, job.abort)
        elif kind == "ok":
            _settle(job.future, value)
        elif kind == "memory":
            self.stats.killed_memory += 1
            _fail(job.future, limits.memory_exceeded(job.what, self.memory_bytes))
        else:
            code, message, details = value
            _fail(job.future, LightSearchError(code, message, details))
        return True

    def _ended(self, worker: _Worker) -> None:
        """A worker's process ended (after a recycle, or killed by the kernel)."""
        with contextlib.suppress(Exception):
            if worker.job is not None and worker.conn.poll(0):
                self._receive(worker)  # its outcome came before its end
        if worker not in self._workers:
            return
        worker.process.join(0.5)
        job = worker.job
        self._remove(worker)
        if not worker.ready:
            self._start_failed(f"it exited with code {worker.process.exitcode} before it was ready")
        if job is None or job.future.done():
            return
        if job.abort is None and job.attempts < 2 and time.monotonic() - worker.sent_at < RESEND_WITHIN_SECS:
            with self._lock:
                self._queue.push(job.lane, job, job.client)
            return
        self.stats.killed_memory += 1
        _fail(job.future, job.abort or limits.worker_died(job.what, self.memory_bytes, worker.process.exitcode))

    def _enforce(self) -> None:
        now = time.monotonic()
        for worker in list(self._workers):
            job = worker.job
            if job is None:
                continue
            if job.future.cancelled():
                self.stats.killed_cancelled += 1
                self._kill(worker)
            elif job.abort is not None:
                self.stats.killed_cancelled += 1
                self._kill(worker)
                _fail(job.future, job.abort)
            elif now >= worker.kill_at:
                self.stats.killed_time += 1
                self._kill(worker)
                # stopped by its call's deadline, it says so (a search then says why it stopped)
                _fail(job.future, job.late(job.what) if worker.by_deadline
                      else limits.time_exceeded(job.what, worker.budget))
            elif not worker.demoted and now >= worker.sent_at + DEMOTE_AFTER_SECS:
                worker.demoted = True
                self.stats.demoted += 1
                with contextlib.suppress(OSError):
                    os.setpriority(os.PRIO_PROCESS, worker.process.pid,
                                   max(os.getpriority(os.PRIO_PROCESS, 0), DEMOTED_NICE))
        with self._lock:
            self._queue.remove(lambda _lane, job: not job.future.done())

    def _kill(self, worker: _Worker) -> None:
        with contextlib.suppress(OSError):
            os.kill(worker.process.pid, signal.SIGKILL)
        worker.process.join(1.0)
        self._remove(worker)

    def _remove(self, worker: _Worker) -> None:
        if worker.job is not None:
            self._finished(worker.job.lane)
            worker.job = None
        with contextlib.suppress(OSError):
            worker.conn.close()
        with self._lock:
            if worker in self._workers:
                self._workers.remove(worker)

    def _stop_all(self) -> None:
        error = LightSearchError("cancelled", "the worker pool was shut down", {"reason": "shutdown"})
        with self._lock:
            queued = self._queue.remove(lambda _lane, _job: False)
            workers = list(self._workers)
        for job in queued:
            _fail(job.future, error)
        for worker in workers:
            if worker.job is not None:
                _fail(worker.job.future, error)
            with contextlib.suppress(OSError):
                worker.conn.close()  # an idle worker reads EOF and exits
        for worker in workers:
            worker.process.join(0.2)
            if worker.process.is_alive():
                with contextlib.suppress(OSError):
                    os.kill(worker.process.pid, signal.SIGKILL)
                worker.process.join(1.0)
            self._remove(worker)


def _settle(future: Future, value: Any) -> None:
    with contextlib.suppress(InvalidStateError):
        future.set_result(value)


def _fail(future: Future, error: BaseException) -> None:
    if isinstance(error, LightSearchError):  # one error may end many tasks: each gets its own
        error = LightSearchError(error.code, error.message, dict(error.details))
    with contextlib.suppress(InvalidStateError):
        future.set_exception(error)


# ---------------------------------------------------------------------- the process's pools
_pools: dict[tuple[int, int], WorkerPool] = {}
_pools_lock = threading.Lock()


def pool_for(workers: int, memory_bytes: int) -> WorkerPool:
    """The process's pool of this size and memory limit (one, in practice)."""
    key = (workers, memory_bytes)
    with _pools_lock:
        pool = _pools.get(key)
        if pool is None or pool._closing:
            pool = _pools[key] = WorkerPool(workers, memory_bytes)
        return pool


def shutdown_pools() -> None:
    """Stop every pool's workers (at exit, and between tests)."""
    with _pools_lock:
        pools = list(_pools.values())
        _pools.clear()
    for pool in pools:
        pool.close()


def kill_workers() -> None:
    """Kill every pool's workers and the fork server at once, waiting for nothing and taking
    no lock: for a process that must end now (it may be called from a signal handler).

    The fork server would end by itself once this process is gone, but only after its
    imports: until then it holds this process's stdout and stderr open, and a pipe reading
    them would wait. ``_forkserver._forkserver_pid`` is multiprocessing's own record of it
    (docs/PRIVATE_API.md). Its socket's temporary folder, which multiprocessing removes at
    a normal exit, goes too."""
    for pool in list(_pools.values()):
        for worker in list(pool._workers):
            with contextlib.suppress(Exception):
                os.kill(worker.process.pid, signal.SIGKILL)
    if "multiprocessing.forkserver" in sys.modules:
        server = getattr(sys.modules["multiprocessing.forkserver"], "_forkserver", None)
        pid = getattr(server, "_forkserver_pid", None)
        if isinstance(pid, int) and pid > 0:
            import shutil
            from multiprocessing import util

            with contextlib.suppress(Exception):
                os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(Exception):
                shutil.rmtree(util.get_temp_dir(), ignore_errors=True)


def release_pools() -> None:
    """Stop the pools nothing is waiting on; the next task starts workers again (from the
    fork server, which stays: milliseconds, not the imports)."""
    with _pools_lock:
        idle = [key for key, pool in _pools.items() if not pool.busy()]
        pools = [_pools.pop(key) for key in idle]
    for pool in pools:
        pool.close()


def _forget_pools() -> None:
    """In a child forked from this process: the pools' threads did not come along."""
    _pools.clear()


atexit.register(shutdown_pools)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools)


def late_error(what: str) -> LightSearchError:
    """A task whose call's deadline passed before it ran or ended."""
    return LightSearchError("timeout", f"the call's deadline passed before {what} was read", {"reason": "deadline"})
