"""The loop a pool worker runs: receive a task, run it, send its outcome, until the pipe
closes. Runs in the worker process only.

A task is ``(function, args, budget_secs)``; the outcome is ``("ok", value)``,
``("error", (code, message, details))`` for a :class:`~lightsearch.errors.LightSearchError`
or any other exception (``extraction_failed``), or ``("memory", None)``, followed by the
worker's peak resident size; ``("ready", None, peak)`` first says the worker is up. After a
``MemoryError``, or once its peak memory passed half its limit, the worker says so and
exits: the pool starts a fresh one.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from typing import Any

from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.isolation import limits

_deadline: float | None = None


def task_deadline() -> float | None:
    """The monotonic time at which the pool will kill the running task: work that can stop
    early with a partial result (a PDF read page by page) stops before it."""
    return _deadline


def serve(conn: Any, memory_bytes: int) -> None:
    """Run tasks from ``conn`` until it closes."""
    global _deadline
    # Ctrl-C reaches the whole process group: the parent decides what stops, not the worker.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Standard output may be a protocol (the MCP server over stdio): nothing a library of a
    # worker prints may land in it. Warnings of the parsers about hostile markup are noise.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.close(devnull)
    logging.getLogger().setLevel(logging.ERROR)
    limits.apply_memory_limit(memory_bytes)
    recycle_at = int(memory_bytes * limits.RECYCLE_SHARE)
    try:
        conn.send(("ready", None, limits.peak_rss_bytes()))
        while True:
            fn, args, budget = conn.recv()
            _deadline = time.monotonic() + budget
            kind, value = _run(fn, args)
            _deadline = None
            peak = limits.peak_rss_bytes()
            try:
                conn.send((kind, value, peak))
            except MemoryError:
                kind = "memory"
                conn.send((kind, None, peak))
            except (OSError, EOFError):
                raise
            except Exception as exc:  # an unpicklable result: a bug, reported as such
                conn.send(("error", ("extraction_failed", f"the result could not be returned "
                                     f"({type(exc).__name__})", {"exception": type(exc).__name__}), peak))
            if kind == "memory" or peak > recycle_at:
                break
    except (EOFError, OSError):  # the pool closed the pipe: nothing more to do
        pass
    finally:
        conn.close()


def _run(fn: Any, args: tuple[Any, ...]) -> tuple[str, Any]:
    try:
        return ("ok", fn(*args))
    except MemoryError:
        return ("memory", None)
    except LightSearchError as exc:
        return ("error", (exc.code, exc.message, dict(exc.details)))
    except RecursionError:
        return ("error", ("extraction_failed", "the document is nested too deeply to be read",
                          {"exception": "RecursionError"}))
    except Exception as exc:  # the document is hostile input: nothing escapes raw
        return ("error", ("extraction_failed", f"the document could not be read ({type(exc).__name__}: "
                          f"{quote_untrusted(str(exc))})", {"exception": type(exc).__name__}))
