"""The time windows a call can ask for, defined once.

``recency`` (web_search) prefers pages from the last hour, day, week, month or year;
``when`` (web_news) bounds how recent news is, in the spelling news engines use. Each
``when`` implies the ``recency`` Light selects its sources with, and Google News takes
``when`` as its own ``when:`` operator. This module imports nothing, so a command's help
can name the choices without loading an engine.
"""

from __future__ import annotations

# recency -> its length in seconds
RECENCY_WINDOWS = {
    "hour": 3600,
    "day": 86400,
    "week": 7 * 86400,
    "month": 31 * 86400,
    "year": 366 * 86400,
}

# when -> the recency it implies (the narrowest recency window that holds it)
NEWS_WINDOWS = {
    "1h": "hour",
    "12h": "day",
    "1d": "day",
    "7d": "week",
    "30d": "month",
    "1y": "year",
}
DEFAULT_NEWS_WINDOW = "1d"

# recency -> the news window of the same length (what an engine's ``when:`` gets)
WHEN_OF_RECENCY = {"hour": "1h", "day": "1d", "week": "7d", "month": "30d", "year": "1y"}
