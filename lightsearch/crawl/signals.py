"""Signals of lightsearch's own, sent on the crawler's signal manager.

A crawl reports what happened through these and through its items; :func:`lightsearch.crawl.run.run_crawl`
collects them into a :class:`lightsearch.crawl.outcome.CrawlOutcome`, so nothing travels back
through spider attributes.
"""

#: Sent by the query controller at the hard deadline or on cancellation: every download
#: in flight is cancelled at once instead of being waited for.
abort_requested = object()

#: ``source_id``: a source gave this crawl something it could read.
source_consulted = object()

#: ``error``: a per-source diagnostic (source, url, stage, code, message, ...).
source_failed = object()
