"""A task that never finishes, for the tests of deadlines: sent to a real worker in place
of an extraction (by reference, so the worker imports this small module), it holds its
worker until the pool kills it."""

from __future__ import annotations

import time
from typing import Any


def forever(*_args: Any) -> None:
    time.sleep(3600)


def busy(*_args: Any) -> None:
    """Burns CPU until killed: a reading whose cost no input cap foresaw."""
    while True:
        sum(range(10_000))
