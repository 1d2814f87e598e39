"""Shared state of one invocation's budgets: hops, time, encoded and decoded bytes.

The counters live in the crawler's stats (``light/*`` keys), so every component reads
the same numbers and the query controller reports them without knowing who counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scrapy.statscollectors import StatsCollector

HOPS = "light/hops"
ENCODED = "light/bytes/encoded"
DECODED = "light/bytes/decoded"
STOP_REASON = "light/stop_reason"


def record_stop(stats: StatsCollector, reason: str) -> None:
    """Keep the first reason the search stopped early; later ones are consequences."""
    if not stats.get_value(STOP_REASON):
        stats.set_value(STOP_REASON, reason)
    stats.inc_value(f"light/budget/stopped/{reason}")
