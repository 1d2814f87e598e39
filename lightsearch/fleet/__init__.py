"""A fleet of workers sharing state on Redis.

Every shared thing of one process (the politeness limiter, the completed-record and
discovery cache, robots rules, engine suspensions, the search TTL cache) sits behind a
setting naming its class. ``FLEET_REDIS_URL`` (or the ``LIGHTSEARCH_REDIS_URL``
environment variable) swaps in the classes of this package (`lightsearch.config.COMPONENTS`
names them), which keep the same
interfaces and the same bounds, fleet-wide. When Redis does not answer within
``FLEET_REDIS_TIMEOUT_MS`` a worker uses its own in-process components, says so, and
asks Redis again after ``FLEET_REDIS_RETRY_SECS``: no search fails because of Redis.
"""
