"""The robots cache: parsed robots.txt verdicts per origin, shared by every search.

The bound: at most 24 hours, 64 origins, 4 MiB of rules, least recently used out first.
An entry weighs what it holds: the rules protego parsed from the digest of the file
(the group that binds the crawler and the sitemaps, documents/robots_digest.py), estimated from
them (:func:`~lightsearch.documents.robots_digest.parsed_bytes`), never the body they came
from. Only definite answers are kept (rules from a complete 2xx body, "allow all" for a
4xx, and the block a complete file gives when the rules that bind us are past their
bounds: that file says the same to every search until it changes, and reading it again is
the heaviest robots work there is, a 500 KiB body through a worker); a failed fetch blocks
the origin for that search only, so the next search asks again.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from protego import Protego

from lightsearch.cache import SharedInstances
from lightsearch.cache.lru import BoundedLRU
from lightsearch.documents.robots_digest import parsed_bytes

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings


OVER_BOUNDS = "robots_rules"  # the reason of a block a complete file gives: its rules for us are past their bounds


@dataclass
class RobotsRules:
    """What an origin's robots.txt says, as used by the robots middleware.

    ``verdict`` is ``rules`` (a parsed file), ``allow`` (unavailable: 4xx, too many
    redirects) or ``block`` (unreachable, incomplete or past the rules' bounds: 5xx,
    timeout, cut or oversized; ``reason`` :data:`OVER_BOUNDS` for a complete file whose
    rules for ``agent`` are past their bounds). ``text`` is what protego parses: for rules read from an
    origin, the digest of its file for ``agent`` (documents/robots_digest.py); ``agent`` is ""
    for rules that bind every crawler as written. ``rp`` mirrors Scrapy's robot parsers,
    so ``robots_parsed`` receivers can read ``robotparser.rp.sitemaps``.
    """

    verdict: str
    text: str = ""
    detail: str = ""
    cause: str = "robots_unreachable"  # the code a block is reported with (tls_error, ...)
    reason: str = ""  # the refusal's details.reason when the guard or a bound refused it
    agent: str = ""
    rp: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.verdict == "rules" and self.rp is None:
            self.rp = Protego.parse(self.text)

    def allowed(self, url: str, user_agent: str) -> bool:
        if self.verdict == "block":
            return False
        if self.verdict == "allow" or self.rp is None:
            return True
        return bool(self.rp.can_fetch(url, user_agent))

    @property
    def sitemaps(self) -> list[str]:
        return list(self.rp.sitemaps) if self.rp is not None else []

    @property
    def storable(self) -> bool:
        """Whether this is the file's own answer, the same for every search while the file is
        fresh (rules, "allow", or rules past their bounds), not a failed or cut fetch's."""
        return self.verdict != "block" or self.reason == OVER_BOUNDS

    def binds(self, agent: str) -> bool:
        """Whether these rules were read for ``agent`` (or for every crawler)."""
        return not self.agent or self.agent == agent.strip().lower()

    @property
    def size(self) -> int:
        """What the entry holds, in bytes: the parsed rules (an upper bound), their text
        and the detail."""
        return parsed_bytes(self.text) + len(self.detail) + 64


class MemoryRobotsCache(SharedInstances):
    """In-process store; ``LIGHT_ROBOTS_CACHE`` selects it (empty disables caching)."""

    def __init__(self, max_origins: int, max_bytes: int, max_age: float) -> None:
        self.max_age = max_age
        self.lru: BoundedLRU[RobotsRules] = BoundedLRU(max_origins, max_bytes)
        self._claims: dict[str, float] = {}

    @classmethod
    def bounds(cls, settings: BaseSettings) -> tuple[Any, ...]:
        return (
            settings.getint("LIGHT_ROBOTS_CACHE_MAX_ORIGINS"),
            settings.getint("LIGHT_ROBOTS_CACHE_MAX_BYTES"),
            settings.getfloat("LIGHT_ROBOTS_CACHE_MAX_AGE_SECS"),
        )

    def get(self, origin: str) -> RobotsRules | None:
        return self.lru.get(origin)

    def put(self, origin: str, rules: RobotsRules, expires_at: float) -> bool:
        if not rules.storable:
            return False
        return self.lru.put(origin, rules, rules.size, expires_at)

    def claim(self, origin: str, secs: float) -> bool:
        """True when this caller should fetch the origin's rules now: concurrent searches
        of the process (each with its own crawl) then fetch robots.txt once, not each."""
        now = time.monotonic()
        if self._claims.get(origin, 0.0) > now:
            return False
        self._claims[origin] = now + secs
        if len(self._claims) > 4 * self.lru.max_entries:
            self._claims = {o: t for o, t in self._claims.items() if t > now}
        return True

    def release(self, origin: str) -> None:
        self._claims.pop(origin, None)

    def __len__(self) -> int:
        return len(self.lru)

    def clear(self) -> None:
        self.lru.clear()
        self._claims.clear()
