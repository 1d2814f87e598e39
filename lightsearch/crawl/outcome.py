"""What a finished crawl hands back: its items, the sources it consulted, the per-source
errors, the discovery documents it read, what it spent of its budgets and why it stopped,
and its stats."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lightsearch.crawl.budget import Spent


@dataclass
class CrawlOutcome:
    items: list[Any] = field(default_factory=list)
    consulted: set[str] = field(default_factory=set)
    source_errors: list[dict[str, Any]] = field(default_factory=list)
    read: list[dict[str, Any]] = field(default_factory=list)  # discovery documents (crawl/signals.py)
    stats: dict[str, Any] = field(default_factory=dict)
    close_reason: str | None = None
    #: What the crawl spent of its budgets (crawl/budget.py): counted by the crawl itself,
    #: so it holds whatever stats collector the crawl ran with.
    spent: Spent = field(default_factory=Spent)

    @property
    def stop_reason(self) -> str:
        return self.spent.stop_reason or "completed"

    def stat(self, key: str, default: int = 0) -> int:
        return int(self.stats.get(key, default))
