"""Shared state of one invocation's budgets: hops, time, encoded and decoded bytes.

The counters live in the crawler's stats (``light/*`` keys), so every component reads
the same numbers and the query controller reports them without knowing who counted.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from lightsearch.crawl.failures import CodedRefusal
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.statscollectors import StatsCollector

HOPS = "light/hops"
ENCODED = "light/bytes/encoded"
DECODED = "light/bytes/decoded"
STOP_REASON = "light/stop_reason"
HOPS_BY_STAGE = "light/hops/stage/"  # + stage: where the hops went (scrapy evaluate reports it)


def hop_stage(meta: dict) -> str:
    """The discovery stage a hop serves, named as the evaluation report names it."""
    if meta.get("robots_fetch"):
        return "robots"
    stage = meta.get("stage") or "other"
    if stage == "sitemap":
        return "child_sitemap" if meta.get("sitemap_child") else "sitemap_index"
    return {"seed": "home", "explore": "hub", "listing": "listing", "page": "article"}.get(stage, stage)


def record_stop(stats: StatsCollector, reason: str) -> None:
    """Keep the first reason the search stopped early; later ones are consequences."""
    if not stats.get_value(STOP_REASON):
        stats.set_value(STOP_REASON, reason)
    stats.inc_value(f"light/budget/stopped/{reason}")


class HopGate:
    """The one place a hop is claimed: right before bytes go out on a connection.

    Requests wait in Scrapy's download slots after the middlewares have seen them, so a
    budget checked only in a middleware would let queued requests start after the soft
    deadline or past the hop budget. The download handler claims every hop here, after
    the politeness limiter let it through, so the count is exact and no hop starts late.
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        self.crawler = crawler
        self.max_hops = settings.getint("LIGHT_MAX_HOPS")
        self.max_encoded = settings.getint("LIGHT_MAX_ENCODED_BYTES")
        self.max_decoded = settings.getint("LIGHT_MAX_DECODED_BYTES")
        self.soft_deadline = settings.getfloat("LIGHT_SOFT_DEADLINE_SECS")
        self.hops = 0

    def started(self) -> float:
        """When the search started: its frontier's clock (plan/frontier.py)."""
        return frontier_of(self.crawler).started

    def refusal(self) -> str | None:
        """The budget that forbids a new hop now, or None."""
        stats = self.crawler.stats
        if time.monotonic() - self.started() >= self.soft_deadline:
            return "soft_deadline"
        if self.hops >= self.max_hops:
            return "hops"
        if stats.get_value(ENCODED, 0) >= self.max_encoded:
            return "encoded_bytes"
        if stats.get_value(DECODED, 0) >= self.max_decoded:
            return "decoded_bytes"
        return None

    def claim(self, url: str, stage: str | None = None) -> None:
        reason = self.refusal()
        if reason is not None:
            record_stop(self.crawler.stats, reason)
            raise BudgetExceeded(reason, f"{reason} budget reached before {url}")
        self.hops += 1
        self.crawler.stats.set_value(HOPS, self.hops)
        if stage:
            self.crawler.stats.inc_value(HOPS_BY_STAGE + stage)


class BudgetExceeded(CodedRefusal):
    """The search's own budget stopped the hop: the search's limit, not the origin's fault."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason  # hops | soft_deadline | deadline | encoded_bytes | decoded_bytes | ...

    @property
    def code(self) -> str:  # type: ignore[override]
        if self.reason in ("soft_deadline", "deadline"):
            return "timeout"
        if self.reason in ("encoded_bytes", "decoded_bytes"):
            return "too_large"
        return "network_error"
