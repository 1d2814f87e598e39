"""Name resolution for the transport guard: every A/AAAA answer, for the handler to vet.

The download handler resolves the host itself (Scrapy's ``DNS_RESOLVER`` returns a
single address and the connection would resolve again, which is how DNS rebinding slips
past a check), classifies every answer, and connects to the vetted address. The
resolver class is a setting (``LIGHT_RESOLVER``), and ``LIGHT_RESOLVER_OVERRIDES``
answers chosen names from configuration, so the adversarial resolver rows of
reliability.md §9.2 run without DNS. Overrides are answers, not exceptions: they are
classified like any other answer.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from twisted.internet.error import DNSLookupError

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from typing_extensions import Self


class ResolveTimeout(DNSLookupError, TimeoutError):
    """The resolver did not answer within ``DNS_TIMEOUT``."""


class SystemResolver:
    """The platform resolver (``getaddrinfo``), all records, with a timeout.

    ``LIGHT_RESOLVER_OVERRIDES`` maps a host to a list of addresses (the answer to every
    lookup), a list of such lists (successive lookups, the last one repeating: a
    rebinding server), or one of ``"nxdomain"``, ``"servfail"``, ``"timeout"``.
    """

    def __init__(self, timeout: float = 5.0, overrides: dict[str, Any] | None = None) -> None:
        self.timeout = timeout
        self.overrides = {k.lower().rstrip("."): v for k, v in (overrides or {}).items()}
        self.lookups: dict[str, int] = {}

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        settings = crawler.settings
        return cls(settings.getfloat("DNS_TIMEOUT", 5.0), settings.getdict("LIGHT_RESOLVER_OVERRIDES"))

    async def resolve(self, host: str, port: int) -> list[str]:
        """Every address ``host`` resolves to, in the resolver's order; DNSLookupError if none."""
        key = host.lower().rstrip(".")
        count = self.lookups[key] = self.lookups.get(key, 0) + 1
        if key in self.overrides:
            return self._override(key, self.overrides[key], count)
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, port, type=socket.SOCK_STREAM), timeout=self.timeout
            )
        except asyncio.TimeoutError:
            raise ResolveTimeout(f"DNS lookup of {host!r} timed out") from None
        except (OSError, UnicodeError) as exc:
            raise DNSLookupError(f"DNS lookup of {host!r} failed: {exc}") from None
        answers: list[str] = []
        for family, _type, _proto, _canon, sockaddr in infos:
            if family in (socket.AF_INET, socket.AF_INET6):
                address = sockaddr[0]
                if family == socket.AF_INET6 and sockaddr[3]:
                    address = f"{address}%{sockaddr[3]}"
                if address not in answers:
                    answers.append(address)
        if not answers:
            raise DNSLookupError(f"DNS lookup of {host!r} returned no address")
        return answers

    @staticmethod
    def _override(host: str, answer: Any, count: int) -> list[str]:
        if isinstance(answer, str):
            kind = answer.lower()
            if kind == "timeout":
                raise ResolveTimeout(f"DNS lookup of {host!r} timed out")
            raise DNSLookupError(f"DNS lookup of {host!r} failed: {kind}")
        answers: Sequence[Any] = list(answer)
        if answers and not isinstance(answers[0], str):
            answers = answers[min(count, len(answers)) - 1]
            if isinstance(answers, str):
                return SystemResolver._override(host, answers, count)
        if not answers:
            raise DNSLookupError(f"DNS lookup of {host!r} returned no address")
        return [str(a) for a in answers]
