"""Work on untrusted bytes, apart from the event loop and under limits the OS enforces.

HTML main-text extraction, PDF reading and the parses whose cost grows with the body
(feeds, sitemaps, the links of a page) run in a bounded pool of worker processes
(:mod:`~lightsearch.isolation.pool`): each task has a wall-time limit, after which its
worker is killed and replaced, and each worker has a memory limit
(:mod:`~lightsearch.isolation.limits`). Callers queue fairly (one
:class:`~lightsearch.isolation.lanes.Lane` per search or fetch call,
:mod:`~lightsearch.isolation.fairness`); what a worker runs is in
:mod:`~lightsearch.isolation.tasks`.
"""
