"""The single-page spider behind web_fetch: one URL, its redirects, one response.

Redirects and meta refreshes are followed here, not by Scrapy's RedirectMiddleware, so
that each hop is re-checked by the transport guard (:mod:`lightsearch.crawl.guard.urls`) with
a precise error, counted against ``WEB_FETCH_MAX_REDIRECTS``, and recorded. Every hop
is still a request through the downloader middlewares (robots, budgets) and the guarded
download handler. The spider yields what happened as one item (:class:`FetchedPage` or
:class:`FetchRefused`); the caller
(:class:`lightsearch.providers.fetch.WebFetch`) turns it into a result or an error.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from dataclasses import dataclass, field
from typing import Any

from scrapy import Request, Spider
from scrapy.http import Response
from twisted.python.failure import Failure
from w3lib.html import get_meta_refresh

from lightsearch.crawl.guard import GuardRefusal
from lightsearch.crawl.guard.urls import check_url


@dataclass
class FetchedPage:
    """The last hop's response, or the failure that ended the fetch, and every hop taken."""

    hops: list[str]
    response: Response | None = None
    failure: BaseException | None = None


@dataclass
class FetchRefused:
    """A hop the spider would not take (a refused or malformed redirect, a loop, too many)."""

    code: str
    message: str
    details: dict[str, Any] = field(default_factory=dict)


_HOP_META = {"dont_redirect": True, "handle_httpstatus_all": True, "dont_merge_cookies": True}


class FetchSpider(Spider):
    name = "fetch"
    # any caller's URL: a kept connection would outlive the call (crawl/kept_connections.py)
    custom_settings = {"LIGHT_KEEP_CONNECTIONS": False}

    def __init__(
        self,
        url: str,
        *,
        max_redirects: int = 5,
        allowed_ports: Collection[int] = (80, 443, 8080, 8443),
        trusted_hosts: Collection[str] = (),
        meta_refresh_max_delay: float = 10.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.url = url
        self.max_redirects = max_redirects
        self.allowed_ports = allowed_ports
        self.trusted_hosts = trusted_hosts
        self.meta_refresh_max_delay = meta_refresh_max_delay
        self.hops: list[str] = [url]

    async def start(self) -> AsyncIterator[Request]:
        yield self._hop(self.url)

    def _hop(self, url: str) -> Request:
        return Request(url, callback=self.parse, errback=self.failed, dont_filter=True,
                       meta=dict(_HOP_META))

    def parse(self, response: Response) -> Any:
        location = response.headers.get(b"Location")
        if 300 <= response.status < 400 and location:
            yield from self._follow(response, location.decode("latin-1"), "redirect")
            return
        if response.status == 200 and self.meta_refresh_max_delay > 0 and _is_html(response):
            delay, target = get_meta_refresh(response.text[:65536], response.url)
            if target and delay is not None and delay <= self.meta_refresh_max_delay:
                yield from self._follow(response, target, "meta_refresh")
                return
        yield FetchedPage(response=response, hops=list(self.hops))

    def _follow(self, response: Response, location: str, kind: str) -> Any:
        if len(self.hops) > self.max_redirects:
            yield FetchRefused("network_error", f"more than {self.max_redirects} redirects",
                               {"reason": "too_many_redirects", "hops": list(self.hops)})
            return
        try:
            request = self._hop(response.urljoin(location))
            check_url(request.url, allowed_ports=self.allowed_ports,
                      trusted_hosts=self.trusted_hosts)
        except GuardRefusal as exc:
            yield FetchRefused(exc.code, f"{kind} refused: {exc}",
                               {**exc.details(), "hop": len(self.hops), "hops": list(self.hops)})
            return
        except ValueError as exc:
            yield FetchRefused("invalid_url", f"{kind} to a malformed URL: {exc}",
                               {"hop": len(self.hops), "hops": list(self.hops)})
            return
        if request.url in self.hops:
            yield FetchRefused("network_error", f"{kind} loop at {request.url}",
                               {"reason": "redirect_loop", "hops": list(self.hops)})
            return
        self.hops.append(request.url)
        yield request

    def failed(self, failure: Failure) -> Any:
        yield FetchedPage(failure=failure.value, hops=list(self.hops))


def _is_html(response: Response) -> bool:
    ctype = response.headers.get(b"Content-Type", b"").decode("latin-1").lower()
    return "html" in ctype
