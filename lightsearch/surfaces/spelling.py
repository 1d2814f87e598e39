"""How the command lines spell the API's parameters.

An error about a parameter names it the way the caller wrote it: ``maxResults`` in a tool
call, ``--max-results`` on a command line; the read-on hint of a long page says
``--start-index N`` there. Both command lines (``scrapy ...`` and ``lightsearch ...``) pass
this mapping to the front door and the renderer, which write their words with it.
"""

FLAGS = {"maxResults": "--max-results", "recency": "--recency", "maxChars": "--max-chars",
         "startIndex": "--start-index", "when": "--when", "query": "the query", "queries": "the queries",
         "urls": "the URLs", "url": "the URL", "provider": "--provider", "raw": "--raw", "format": "--format",
         "includeComments": "--comments",
         "includeDomains": "--include-domain", "excludeDomains": "--exclude-domain", "region": "--region",
         "after": "--after", "before": "--before"}


def domain_list(values: list[str] | None) -> list[str] | None:
    """A repeatable ``--include-domain``/``--exclude-domain`` flag's values, each of which
    may be a comma-separated list; None when the flag was not given."""
    if not values:
        return None
    return [part.strip() for value in values for part in value.split(",") if part.strip()]
