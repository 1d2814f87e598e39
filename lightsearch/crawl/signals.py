"""Signals of lightsearch's own, sent on the crawler's signal manager.

A crawl reports what happened through these and through its items; :func:`lightsearch.crawl.run.run_crawl`
collects them into a :class:`lightsearch.crawl.outcome.CrawlOutcome`, so nothing travels back
through spider attributes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: Sent by the query controller at the hard deadline or on cancellation: every download
#: in flight is cancelled at once instead of being waited for.
abort_requested = object()

#: ``source_id``: a source gave this crawl something it could read.
source_consulted = object()

#: ``error``: a per-source diagnostic (source, url, stage, code, message, ...).
source_failed = object()

#: ``read``: a discovery document a source gave this crawl (source, url as read, stage,
#: ``child`` for a sitemap an index or a description named, ``named``: the entries or
#: on-site page links it names). What a site probed on the spot is learned from.
discovery_read = object()


def report_source_error(crawler: Crawler, source_id: str, url: str, stage: str, code: str, message: str = "",
                        **extra: Any) -> None:
    """Send ``source_failed`` with one source's diagnostic, in the one shape collected."""
    error = {"source": source_id, "url": url, "stage": stage, "code": code, "message": message, **extra}
    crawler.signals.send_catch_log(source_failed, error=error)
