"""What a search learned of a site it probed on the spot: the site's entry.

A call's ``includeDomains`` may name a site the catalog does not hold; Light then reads it
as discovery reads any source (robots.txt, the home page, the feeds it declares, the
sitemaps robots.txt lists) within the search's own bounds. What that read found is kept as
an entry, so the next search of the site starts from it: the home page it settled on
(after a redirect to ``www.``), the feeds and sitemaps found, the language of its pages,
and the descriptions of its discovery documents (cache/descriptions.py: their entries'
index terms, never a body), which tell the next search which sitemaps name the pages it
wants. An entry lives in the completed-record cache, under its bounds and in its
discovery share, for ``LIGHT_ADHOC_ENTRY_SECS``; in a fleet it is a sealed record on Redis
like the others.

An entry is never a catalog entry: nothing here is written to the bundled or the user
catalog (``lightsearch sources add`` does that, when a user asks). Read back, it is
untrusted input: every URL it names must be on the site's own two origins
(``https://DOMAIN`` and ``https://www.DOMAIN``), its lists and descriptions are bounded,
and one that does not fit is dropped whole.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lightsearch.cache.descriptions import DocumentDescription, decode_document, encode_document

MAX_FEEDS = 4
MAX_SITEMAPS = 16
MAX_DOCUMENTS = 16  # descriptions kept with an entry, the most recently read first
MAX_ENTRY_BYTES = 256 * 1024  # an entry's serialized size; descriptions give way first
LANGUAGES = ("en", "he")
KEY_PREFIX = "site:"  # an entry's key in the record cache (inside its discovery share)


def site_origins(domain: str) -> tuple[str, str]:
    """The two origins a site probed on the spot may be read on."""
    return f"https://{domain}", f"https://www.{domain}"


def on_site(url: Any, domain: str) -> bool:
    """``url`` is an https URL on ``domain`` or ``www.domain``, on the default port."""
    if not isinstance(url, str) or len(url) > 2048:
        return False
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return False
    return (parts.scheme == "https" and port in (None, 443) and not parts.username and not parts.password
            and (parts.hostname or "") in (domain, f"www.{domain}"))


@dataclass(frozen=True)
class SiteEntry:
    domain: str
    seed: str
    feeds: tuple[str, ...] = ()
    sitemaps: tuple[str, ...] = ()
    language: str = ""
    probed: str = ""  # when a search first read the site, ISO 8601
    documents: tuple[DocumentDescription, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"domain": self.domain, "seed": self.seed, "feeds": list(self.feeds),
                "sitemaps": list(self.sitemaps), "language": self.language, "probed": self.probed,
                "documents": [encode_document(d) for d in self.documents]}

    def encoded(self) -> bytes:
        """The entry as JSON, within ``MAX_ENTRY_BYTES``: descriptions are left out, the
        oldest first, until it fits."""
        entry = self
        while True:
            raw = json.dumps(entry.to_dict(), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
            if len(raw) <= MAX_ENTRY_BYTES or not entry.documents:
                return raw
            entry = SiteEntry(entry.domain, entry.seed, entry.feeds, entry.sitemaps, entry.language,
                              entry.probed, entry.documents[1:])

    @classmethod
    def from_dict(cls, domain: str, raw: Any) -> SiteEntry | None:
        """The entry of ``domain`` read back, or None when it does not fit the shape."""
        if not isinstance(raw, dict) or raw.get("domain") != domain:
            return None
        seed, feeds, sitemaps = raw.get("seed"), raw.get("feeds"), raw.get("sitemaps")
        language, probed, documents = raw.get("language", ""), raw.get("probed", ""), raw.get("documents", [])
        if not on_site(seed, domain) or language not in ("", *LANGUAGES) \
                or not isinstance(probed, str) or len(probed) > 64:
            return None
        for urls, most in ((feeds, MAX_FEEDS), (sitemaps, MAX_SITEMAPS)):
            if not isinstance(urls, list) or len(urls) > most or not all(on_site(u, domain) for u in urls):
                return None
        if not isinstance(documents, list) or len(documents) > MAX_DOCUMENTS:
            return None
        docs = [decode_document(d) for d in documents]
        if any(d is None or not on_site(d.url, domain) for d in docs):
            return None
        return cls(domain=domain, seed=seed, feeds=tuple(feeds), sitemaps=tuple(sitemaps), language=language,
                   probed=probed, documents=tuple(d for d in docs if d is not None))

    @classmethod
    def decode(cls, domain: str, raw: bytes) -> SiteEntry | None:
        try:
            return cls.from_dict(domain, json.loads(raw))
        except (ValueError, RecursionError):
            return None
