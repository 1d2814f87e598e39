"""What a finished crawl hands back: its items, the sources it consulted, the per-source
errors, the discovery documents it read, why it stopped, and its counters."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lightsearch.crawl.budget import STOP_REASON


@dataclass
class CrawlOutcome:
    items: list[Any] = field(default_factory=list)
    consulted: set[str] = field(default_factory=set)
    source_errors: list[dict[str, Any]] = field(default_factory=list)
    read: list[dict[str, Any]] = field(default_factory=list)  # discovery documents (crawl/signals.py)
    stats: dict[str, Any] = field(default_factory=dict)
    close_reason: str | None = None

    @property
    def stop_reason(self) -> str:
        return self.stats.get(STOP_REASON) or "completed"

    def stat(self, key: str, default: int = 0) -> int:
        return int(self.stats.get(key, default))
