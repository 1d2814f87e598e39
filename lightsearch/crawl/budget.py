"""One crawl's budgets and what it has spent of them: hops, time, encoded and decoded bytes.

The counts live in a :class:`CrawlBudget`, an object the crawl owns (``crawl/run.py``
attaches it before the crawl starts, as it attaches the frontier) and every component
reaches through the crawler with :func:`budget_of`. The components that enforce a rule
count on it and ask it; none reads Scrapy's stats collector, so the budgets hold whatever
``STATS_CLASS`` is. The stats only mirror the counts (``light/*`` keys) for whoever
reads a crawl's stats; the caller reads them from the crawl's outcome
(:attr:`CrawlOutcome.spent <lightsearch.crawl.outcome.CrawlOutcome.spent>`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, NoReturn

from lightsearch.crawl.failures import CodedRefusal
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from collections.abc import Mapping

    from scrapy.crawler import Crawler

# The stats keys the budget mirrors its counts to.
HOPS = "light/hops"
ENCODED = "light/bytes/encoded"
DECODED = "light/bytes/decoded"
STOP_REASON = "light/stop_reason"
HOPS_BY_STAGE = "light/hops/stage/"  # + stage: where the hops went (scrapy evaluate reports it)

# The crawler attribute the budget is kept under: read and written only here.
_ATTRIBUTE = "lightsearch_budget"


def hop_stage(meta: dict) -> str:
    """The discovery stage a hop serves, named as the evaluation report names it."""
    if meta.get("robots_fetch"):
        return "robots"
    stage = meta.get("stage") or "other"
    if stage == "sitemap":
        return "child_sitemap" if meta.get("sitemap_child") else "sitemap_index"
    return {"seed": "home", "explore": "hub", "listing": "listing", "page": "article"}.get(stage, stage)


@dataclass(frozen=True)
class Spent:
    """What a crawl spent of its budgets, and the first reason it stopped early (or None)."""

    hops: int = 0
    encoded: int = 0
    decoded: int = 0
    by_stage: Mapping[str, int] = field(default_factory=dict)
    stop_reason: str | None = None


class CrawlBudget:
    """The budgets of one crawl (``LIGHT_MAX_HOPS``, ``LIGHT_SOFT_DEADLINE_SECS``,
    ``LIGHT_MAX_ENCODED_BYTES``, ``LIGHT_MAX_DECODED_BYTES``) and the counts against them.

    Its clock is the frontier's (plan/frontier.py :attr:`~lightsearch.plan.frontier.Frontier.started`):
    a search's budgets start when the search does, before its crawl is built.
    """

    def __init__(self, crawler: Crawler) -> None:
        settings = crawler.settings
        self._crawler = crawler
        self.max_hops = settings.getint("LIGHT_MAX_HOPS")
        self.max_encoded = settings.getint("LIGHT_MAX_ENCODED_BYTES")
        self.max_decoded = settings.getint("LIGHT_MAX_DECODED_BYTES")
        self.soft_deadline = settings.getfloat("LIGHT_SOFT_DEADLINE_SECS")
        self.hard_deadline = settings.getfloat("LIGHT_DEADLINE_SECS")
        self.hops = 0
        self.encoded = 0
        self.decoded = 0
        self.by_stage: dict[str, int] = {}
        self.stop_reason: str | None = None

    @property
    def started(self) -> float:
        """When the crawl's search started: its frontier's clock."""
        return frontier_of(self._crawler).started

    def remaining(self) -> float:
        """Seconds left before the hard deadline."""
        return self.hard_deadline - (time.monotonic() - self.started)

    def past_soft_deadline(self) -> bool:
        """No new hop may start: the soft deadline has passed."""
        return time.monotonic() - self.started >= self.soft_deadline

    def hops_spent(self) -> bool:
        return self.hops >= self.max_hops

    def bytes_spent(self) -> str | None:
        """The byte budget spent (``encoded_bytes``, ``decoded_bytes``), or None."""
        if self.encoded >= self.max_encoded:
            return "encoded_bytes"
        if self.decoded >= self.max_decoded:
            return "decoded_bytes"
        return None

    def refusal(self) -> str | None:
        """The budget that forbids a new hop now, or None."""
        if self.past_soft_deadline():
            return "soft_deadline"
        if self.hops_spent():
            return "hops"
        return self.bytes_spent()

    def check(self, url: str) -> None:
        """Raise :class:`BudgetExceeded` when a budget forbids a hop to ``url`` now."""
        reason = self.refusal()
        if reason is not None:
            self.refuse(reason, url)

    def refuse(self, reason: str, url: str) -> NoReturn:
        """Stop the crawl for ``reason`` (the first one kept) and refuse the hop to ``url``."""
        self.stop(reason)
        raise BudgetExceeded(reason, f"{reason} budget reached before {url}")

    def claim(self, url: str, stage: str | None = None) -> None:
        """Count a hop about to go out, or raise :class:`BudgetExceeded` if none may."""
        self.check(url)
        self.hops += 1
        self._mirror(HOPS, self.hops)
        if stage:
            count = self.by_stage[stage] = self.by_stage.get(stage, 0) + 1
            self._mirror(HOPS_BY_STAGE + stage, count)

    def add_encoded(self, size: int) -> bool:
        """Count bytes received on the wire; True once the encoded budget is spent."""
        self.encoded += size
        self._mirror(ENCODED, self.encoded)
        if self.encoded >= self.max_encoded:
            self.stop("encoded_bytes")
            return True
        return False

    def add_decoded(self, size: int, *, reservation: bool = False) -> bool:
        """Count decoded bytes (negative: the part of a reservation not used); True once
        the decoded budget is spent. A ``reservation`` (what a decompression may produce,
        counted before it runs) stops no crawl by itself: the real size replaces it."""
        self.decoded += size
        self._mirror(DECODED, self.decoded)
        if not reservation and self.decoded >= self.max_decoded:
            self.stop("decoded_bytes")
            return True
        return False

    def stop(self, reason: str) -> None:
        """Keep the first reason the crawl stopped early; later ones are consequences."""
        if self.stop_reason is None:
            self.stop_reason = reason
            self._mirror(STOP_REASON, reason)
        stats = getattr(self._crawler, "stats", None)
        if stats is not None:
            stats.inc_value(f"light/budget/stopped/{reason}")

    def spent(self) -> Spent:
        return Spent(self.hops, self.encoded, self.decoded, MappingProxyType(dict(self.by_stage)),
                     self.stop_reason)

    def _mirror(self, key: str, value: object) -> None:
        stats = getattr(self._crawler, "stats", None)
        if stats is not None:
            stats.set_value(key, value)


def attach_budget(crawler: Crawler) -> CrawlBudget:
    """Give a crawl its budget (the crawl runner does, before it starts)."""
    budget = CrawlBudget(crawler)
    setattr(crawler, _ATTRIBUTE, budget)
    return budget


def budget_of(crawler: Crawler) -> CrawlBudget:
    """The budget attached to ``crawler``; a crawler made without one (a test's
    ``get_crawler``) gets one on first asking."""
    budget = getattr(crawler, _ATTRIBUTE, None)
    return budget if budget is not None else attach_budget(crawler)


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
