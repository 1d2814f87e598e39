"""How every command ends: one exit and error discipline for ``lightsearch ...`` and
``scrapy search|news|read|evaluate``.

=====  ==========================================================================
0      the command got what it asked for (a search with zero hits included)
1      it ran and failed: one ``ERROR: code: message`` line on stderr, or
       ``{"error": {...}}`` on stdout with ``-o json``/``jsonl``
2      it was called wrong and did nothing: the parser's usage message, or
       ``ERROR: invalid_...: ...`` for a value it checked (a flag's range, a
       setting, a URL, a file)
130    interrupted (Ctrl-C)
141    its output was closed early (``| head -3``): silent, as a tool that SIGPIPE ends
=====  ==========================================================================

No traceback reaches a person unless asked for (``--debug``): an unexpected exception is
``ERROR: internal_error: ...`` with status 1.

Ctrl-C. These commands make no Scrapy ``CrawlerProcess`` (whose shutdown handlers would
stop a reactor they do not own), and the reactor is started without signal handlers
(crawl/runtime.py), so the one SIGINT handler is this module's, installed when the command
starts. Outside the command's event loop it does what Python's own does (raise
``KeyboardInterrupt``); while the loop runs, the first Ctrl-C cancels the command's task,
so its crawl is aborted, its downloads stopped and the offline origins shut down. If that
has not finished within :data:`GRACE_SECS`, or at a second Ctrl-C, the process ends at
once. Either way it ends through :func:`hard_exit`: the extraction workers are killed and
the process exits without joining threads (the reactor's thread pool, asyncio's default
executor, servers' threads), since a thread stuck in a blocking call would otherwise hold
the interpreter's exit. Nothing is printed: the terminal has echoed ``^C``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from lightsearch.errors import LightSearchError

OK, FAILED, USAGE, INTERRUPTED, BROKEN_PIPE = 0, 1, 2, 130, 141
#: After the first Ctrl-C, how long the command's own cleanup may take before the process
#: ends regardless.
GRACE_SECS = 0.6
#: Output formats whose errors are JSON on stdout.
JSON_OUTPUTS = ("json", "jsonl")


def status_of(code: str) -> int:
    """The exit status of an error code: the caller's values (``invalid_*``) are a usage
    error, anything else a failure."""
    return USAGE if code.startswith("invalid_") else FAILED


# ------------------------------------------------------------------------------ Ctrl-C
class _Interrupts:
    """The process's SIGINT handling while a command runs (see the module docstring)."""

    def __init__(self) -> None:
        self.loop: asyncio.AbstractEventLoop | None = None
        self.task: asyncio.Task[Any] | None = None
        self.cancelled = False
        self.debug = False
        self.cleanups: list[Callable[[], None]] = []
        self._exiting = threading.Lock()

    def handler(self, signum: int, frame: Any) -> None:
        task, loop = self.task, self.loop
        if task is None or loop is None or task.done():
            raise KeyboardInterrupt
        if self.cancelled:  # the second Ctrl-C: now
            hard_exit(INTERRUPTED)
        self.cancelled = True
        timer = threading.Timer(GRACE_SECS, hard_exit, (INTERRUPTED,))
        timer.daemon = True
        timer.start()
        loop.call_soon_threadsafe(task.cancel)


INTERRUPTS = _Interrupts()


def on_hard_exit(cleanup: Callable[[], None]) -> Callable[[], None]:
    """Run ``cleanup`` (quick, lock-free: it may run inside a signal handler) if the
    process ends through :func:`hard_exit`; returns a function that unregisters it."""
    INTERRUPTS.cleanups.append(cleanup)

    def forget() -> None:
        with contextlib.suppress(ValueError):
            INTERRUPTS.cleanups.remove(cleanup)

    return forget


def hard_exit(status: int) -> None:
    """End the process now with ``status``: registered cleanups, the extraction workers
    killed, output flushed, and no thread waited for. With ``--debug`` an interrupted
    process first prints every thread's stack (what it was doing)."""
    if not INTERRUPTS._exiting.acquire(blocking=False):
        threading.Event().wait()  # another thread is ending the process
    for cleanup in reversed(INTERRUPTS.cleanups):
        with contextlib.suppress(Exception):
            cleanup()
    if "lightsearch.isolation.pool" in sys.modules:
        with contextlib.suppress(Exception):
            sys.modules["lightsearch.isolation.pool"].kill_workers()
    if INTERRUPTS.debug and status == INTERRUPTED:
        import faulthandler

        with contextlib.suppress(Exception):
            faulthandler.dump_traceback(all_threads=True)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


def run_async(coro: Coroutine[Any, Any, Any]) -> Any:
    """``asyncio.run(coro)``, its task cancelled by the first Ctrl-C (which then ends the
    command with status 130 once its cleanup has run)."""

    async def main() -> Any:
        INTERRUPTS.loop, INTERRUPTS.task = asyncio.get_running_loop(), asyncio.current_task()
        try:
            return await coro
        finally:
            INTERRUPTS.loop = INTERRUPTS.task = None

    try:
        return asyncio.run(main())
    finally:
        if INTERRUPTS.cancelled:  # however the task ended, the person asked it to stop
            hard_exit(INTERRUPTED)


# ------------------------------------------------------------------------------ errors
def error_dict(exc: LightSearchError) -> dict[str, Any]:
    """The error object every surface shows: cleaned as every result's strings are, the
    parameter named as the command line spells it."""
    from lightsearch.evidence.hygiene import clean_structured
    from lightsearch.surfaces.spelling import FLAGS

    return clean_structured(exc.to_dict(FLAGS))["error"]


def report_error(error: dict[str, Any], output: str | None) -> None:
    """Print an error object: JSON on stdout for ``-o json``/``jsonl``, else one
    ``ERROR: code: message`` line on stderr."""
    if output in JSON_OUTPUTS:
        from lightsearch.surfaces.terminal import terminal_json

        print(terminal_json({"error": error}, indent=2 if output == "json" else None))
    else:
        from lightsearch.evidence.render import error_line

        print(error_line(error), file=sys.stderr)


def internal_error(exc: BaseException) -> dict[str, Any]:
    from lightsearch.errors import quote_untrusted

    return {"code": "internal_error",
            "message": f"unexpected {type(exc).__name__}: {quote_untrusted(str(exc), 160)} (a bug: run again "
                       "with --debug for the traceback, and please report it)",
            "details": {"exception": type(exc).__name__}}


def _silence_output() -> None:
    """Point stdout and stderr at /dev/null, so the interpreter's last flush of what is
    still buffered does not fail again on the closed pipe."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            os.dup2(devnull, stream.fileno())
    os.close(devnull)


def run_command(main: Callable[[], int], *, debug: bool = False, output: str | None = None) -> int:
    """Run a command's ``main`` under the discipline above and return its exit status
    (or end the process, when it was interrupted)."""
    INTERRUPTS.debug = debug
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGINT, INTERRUPTS.handler)
    try:
        try:
            status = main()
            sys.stdout.flush()  # here, where a closed pipe is still ours to handle
            return status
        except LightSearchError as exc:
            report_error(error_dict(exc), output)
            return status_of(exc.code)
        except BrokenPipeError:
            _silence_output()
            return BROKEN_PIPE
        except KeyboardInterrupt:
            hard_exit(INTERRUPTED)
        except asyncio.CancelledError:
            if INTERRUPTS.cancelled:
                hard_exit(INTERRUPTED)
            raise
        except SystemExit:
            raise
        except Exception as exc:
            if debug:
                import traceback

                traceback.print_exc()
            report_error(internal_error(exc), output)
            return FAILED
    except BrokenPipeError:  # the error itself could not be written
        _silence_output()
        return BROKEN_PIPE
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
        INTERRUPTS.debug = INTERRUPTS.cancelled = False
    return FAILED  # pragma: no cover (hard_exit does not return)
