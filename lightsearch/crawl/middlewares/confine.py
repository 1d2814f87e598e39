"""Keep a search's redirects on its sources' admitted origins.

A catalog source vouches for its own origins only: a redirect that leaves them (to a
link shortener, a tracker, another site, or an internal address behind a public name)
would put unvetted content under the source's name. The spider never schedules an
off-source link; this middleware refuses the redirect hops Scrapy's redirect middleware
makes, before robots.txt or any connection for the new origin. robots.txt fetches may
redirect across origins (RFC 9309 §2.3.1.2) and are not confined; web_fetch, whose
frontier has no sources, is confined by the transport guard alone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from lightsearch.crawl.failures import CodedRefusal
from lightsearch.errors import quote_untrusted
from lightsearch.plan.frontier import frontier_of

if TYPE_CHECKING:
    from scrapy import Request
    from scrapy.crawler import Crawler
    from typing_extensions import Self

REFUSED = "light/redirects/refused"


class RedirectRefused(CodedRefusal):
    """A redirect that leaves the origins its catalog source vouches for."""

    code = "redirect_refused"
    reason = "off_source"


class RedirectConfinementMiddleware:
    def __init__(self, crawler: Crawler) -> None:
        self.crawler = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    def process_request(self, request: Request) -> None:
        if not request.meta.get("redirect_urls") or request.meta.get("robots_fetch"):
            return
        # the sources a crawl's frontier vouches for (plan/frontier.py)
        source = frontier_of(self.crawler).source(request.meta.get("source_id", ""))
        if source is None or source.admits(request.url):
            return
        self.crawler.stats.inc_value(REFUSED)
        # the hosts, quoted word-safe: a redirect target is the origin's to write
        raise RedirectRefused(
            f"redirect from host {quote_untrusted(urlsplit(request.meta['redirect_urls'][0]).hostname or '')} to "
            f"host {quote_untrusted(urlsplit(request.url).hostname or '')} leaves the origins of source {source.id}"
        )
