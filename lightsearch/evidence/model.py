"""The shapes every provider hands to the envelope: one piece of evidence, and the limits
of one result (defaults and ranges in :mod:`lightsearch.schema`, ``RESULT_*``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

#: Every result says its text and metadata are passive, untrusted evidence.
TRUST = {"trust": "volatile_external", "carryPolicy": "never"}


@dataclass(frozen=True)
class ResultLimits:
    """The byte and size limits of one result (defaults in ``schema.py``)."""

    text_max_bytes: int = 16 * 1024
    result_max_bytes: int = 64 * 1024
    content_max_chars: int = 1200
    receipt_max_entries: int = 20
    # what the transport guard lets through: a hit URL it would refuse is dropped
    allowed_ports: frozenset[int] = frozenset({80, 443, 8080, 8443})
    trusted_hosts: frozenset[str] = frozenset()
    # the user's own private sites a Light search read (crawl/guard/private.py)
    private_origins: frozenset[str] = frozenset()

    @classmethod
    def from_settings(cls, settings: BaseSettings, *, text_key: str = "RESULT_TEXT_MAX_BYTES") -> ResultLimits:
        """``text_key`` lets Light keep its own validated ``LIGHT_TEXT_MAX_BYTES``."""
        try:
            ports = frozenset(int(p) for p in settings.getlist("LIGHT_ALLOWED_PORTS", sorted(cls.allowed_ports)))
            hosts = frozenset(h.lower().rstrip(".") for h in settings.getdict("LIGHT_HOST_MAP"))
        except (TypeError, ValueError):  # bad values are invalid_settings where they are used
            ports, hosts = cls.allowed_ports, cls.trusted_hosts
        return cls(
            text_max_bytes=settings.getint(text_key, cls.text_max_bytes),
            result_max_bytes=settings.getint("RESULT_MAX_BYTES", cls.result_max_bytes),
            content_max_chars=settings.getint("RESULT_CONTENT_MAX_CHARS", cls.content_max_chars),
            receipt_max_entries=settings.getint("RESULT_RECEIPT_MAX_ENTRIES", cls.receipt_max_entries),
            allowed_ports=ports,
            trusted_hosts=hosts,
        )


@dataclass
class Evidence:
    """One hit as a provider retrieved it: everything the envelope needs, provider-neutral.

    ``content`` is fetched page text (whole or an excerpt; the envelope clips it to the
    per-source budget); None means only ``snippet`` (e.g. a search engine's description)
    is available. ``retrieval`` and ``retrieval_error`` follow
    :class:`lightsearch.evidence.receipts.SourceRecord`. ``matched`` is the share of query terms
    found in the source (0..1); None lets coverage compute it from the hit's own text.
    ``weighted`` is that share with each term weighted by its idf, when the provider knows
    the weights (coverage prefers it). ``strength`` and ``phrased`` are the ranking's
    further measures of how much of the query a hit carries (Light's: ranking/rank.py
    ``RankedDocument``), from which coverage is calibrated.
    ``extra`` holds optional provider-specific hit fields (camelCase wire names).
    """

    title: str
    url: str
    source: str
    snippet: str = ""
    content: str | None = None
    source_name: str | None = None
    published_at: str | None = None
    modified_at: str | None = None
    retrieved_at: str | None = None
    score: float = 0.0
    original_url: str | None = None
    language: str | None = None
    retrieval: str = "fetched"
    retrieval_error: str | None = None
    extraction_clipped: bool = False
    content_clipped: bool = False
    matched: float | None = None
    weighted: float | None = None
    strength: float | None = None
    phrased: float | None = None
    extra: dict[str, Any] = field(default_factory=dict)
