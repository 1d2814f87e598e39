"""Per-engine suspension, as SearXNG does it: an engine that answered with a captcha, a
rate limit or an access denial is not asked again until its time is up, so one block
does not turn into a ban. Chosen by ``WEB_SEARCH_SUSPENSION`` (a class path); the bundled
store is process memory.

Durations (SearXNG's ``search.suspended_times``): captcha 1 h; too many requests the
``Retry-After`` or 3 min; access denied 3 min; any other error 5 s per consecutive
failure up to 2 min. A success resets the engine.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from lightsearch.cache import SharedInstances

CAPTCHA_SECS = 3600.0
TOO_MANY_REQUESTS_SECS = 180.0
ACCESS_DENIED_SECS = 180.0
ERROR_STEP_SECS = 5.0
ERROR_MAX_SECS = 120.0
#: the longest rest: an engine's ``Retry-After`` is its own to write, and must not retire it
MAX_SUSPENSION_SECS = CAPTCHA_SECS


@dataclass
class Suspension:
    reason: str
    until: float
    failures: int

    def left(self, now: float) -> float:
        return max(0.0, self.until - now)


def suspension_secs(kind: str, failures: int, retry_after: float | None = None) -> float:
    """How long an engine rests after a failure of ``kind`` (the ``failures``-th in a row)."""
    if kind == "captcha":
        return CAPTCHA_SECS
    if kind == "too_many_requests":
        if retry_after and retry_after > 0:
            return min(float(retry_after), MAX_SUSPENSION_SECS)
        return TOO_MANY_REQUESTS_SECS
    if kind == "access_denied":
        return ACCESS_DENIED_SECS
    return min(ERROR_MAX_SECS, ERROR_STEP_SECS * max(1, failures))


class MemorySuspensions(SharedInstances):
    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock
        self._state: dict[str, Suspension] = {}
        self._lock = threading.Lock()

    @classmethod
    def bounds(cls, settings: Any) -> tuple[Any, ...]:
        return ()

    def active(self, engine: str) -> Suspension | None:
        """The engine's suspension while it lasts, else None."""
        with self._lock:
            state = self._state.get(engine)
            if state is None or state.left(self.clock()) <= 0:
                return None
            return state

    def failed(self, engine: str, kind: str, retry_after: float | None = None) -> Suspension:
        with self._lock:
            previous = self._state.get(engine)
            failures = (previous.failures if previous else 0) + 1
            secs = suspension_secs(kind, failures, retry_after)
            state = self._state[engine] = Suspension(kind, self.clock() + secs, failures)
            return state

    def succeeded(self, engine: str) -> None:
        with self._lock:
            self._state.pop(engine, None)

    def clear(self) -> None:
        with self._lock:
            self._state.clear()
