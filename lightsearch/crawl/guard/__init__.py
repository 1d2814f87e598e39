"""The transport guard: which addresses and URLs a lightsearch crawl may connect to.

Three small parts, used together by the download handler for every hop (first request,
each redirect, each meta refresh, robots.txt): :mod:`.urls` checks the URL exactly as
Scrapy will request it, :mod:`.resolver` answers the name, and :mod:`.addresses`
classifies every answer from the address classes (not from a list of bad examples).
The handler then connects to the vetted address itself, so no second lookup can rebind.
"""

from __future__ import annotations

from lightsearch.crawl.failures import CodedRefusal


class GuardRefusal(CodedRefusal):
    """A hop refused before any connection was made; ``code`` is the web_fetch error code."""

    code = "blocked_address"

    def __init__(self, message: str, *, reason: str, url: str = "", address: str | None = None) -> None:
        super().__init__(message)
        self.reason = reason
        self.url = url
        self.address = address

    def details(self) -> dict[str, str]:
        out = {"reason": self.reason}
        if self.url:
            out["url"] = self.url
        if self.address:
            out["address"] = self.address
        return out


class InvalidURL(GuardRefusal):
    """The URL is not one lightsearch fetches (scheme, userinfo, port, malformed host)."""

    code = "invalid_url"


class BlockedAddress(GuardRefusal):
    """The host is, names or resolves to an address that is not public."""

    code = "blocked_address"
