"""The completed-record cache: extracted documents and discovery responses (feeds,
sitemaps, home, hub and listing pages), shared by every search in the process.

The bound: "Completed-document cache: 500 documents, 16 MiB of serialized content";
"separate calls share only completed records". A record goes in only when it is
complete (never a partial download, never a ``noindex`` page) and storable by its
origin's directives; it keeps its original retrieval time.

Discovery responses live inside the same bounds, in a reserved share of them
(``LIGHT_RECORD_CACHE_DISCOVERY_SHARE``, half): documents never evict a discovery record
while the discovery records fit in that share (cache/lru.py). Under one plain LRU a
stream of searches evicted the site maps with the articles it read (~6 discovery hops a
search spent re-reading them), though every search reads the maps and few read the same
article twice. A cache of their own beside the documents'
(``LIGHT_DISCOVERY_CACHE_MAX_RECORDS``/``_BYTES``) remains an opt-in profile beyond the
seed's bounds.

Beside them the cache keeps what the discovery documents it saw say each source
publishes (``descriptions``, cache/descriptions.py): small, bounded term samples that
selection and discovery planning read; they go when the cache is cleared.

The bounds describe serialized content, as the seed says; what the records hold in memory
is bounded too, at ``HELD_PER_CONTENT_BYTE`` times the byte bound (cache/lru.py,
``max_held``). A document in memory is its text (one, two or four bytes a character, by
the widest character in it) and its token list beside it: about twice its JSON for a page
of ASCII or Hebrew, three times for English with one curly quote, more than five times for
ASCII with one emoji (docs/UNTRUSTED_WORK.md).
"""

from __future__ import annotations

import json
import sys
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.descriptions import LEARNED_MAX_BYTES, SourceDescriptions
from lightsearch.cache.lru import BoundedLRU
from lightsearch.cache.site_entries import KEY_PREFIX, SiteEntry
from lightsearch.cache.sizing import held_bytes
from lightsearch.documents.urlkey import canonical_url

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from lightsearch.documents import Document


@dataclass(frozen=True)
class StoredResponse:
    """A discovery response as received (decoded), enough to rebuild a Scrapy response."""

    url: str
    status: int
    headers: dict[str, list[str]]
    body: bytes
    retrieved_at: str
    expires_at: float


def response_size(record: StoredResponse) -> int:
    return len(record.body) + sum(len(k) + sum(map(len, v)) for k, v in record.headers.items())


def document_size(doc: Document) -> int:
    return len(json.dumps(doc.to_dict(), ensure_ascii=False).encode("utf-8"))


# Memory the records may hold per byte of the content bound: real pages (two to three times
# their JSON) fit in it, so only a shape whose memory dwarfs its content is bounded sooner.
HELD_PER_CONTENT_BYTE = 4


def document_held(doc: Document) -> int:
    """What a document holds in memory: its fields, and its token list (the list: the
    terms themselves are the tokenizer's, shared by every document that uses them)."""
    return held_bytes(doc.to_dict()) + sys.getsizeof(doc.tokens)


class MemoryRecordCache(SharedInstances):
    """In-process store; ``LIGHT_RECORD_CACHE`` selects it (empty disables caching)."""

    def __init__(self, max_records: int, max_bytes: int, discovery_share: float = 0.5,
                 max_responses: int = 0, max_response_bytes: int = 0) -> None:
        reserve = max(0.0, min(1.0, discovery_share))
        self.lru: BoundedLRU[Any] = BoundedLRU(max_records, max_bytes, reserve_entries=int(max_records * reserve),
                                               reserve_bytes=int(max_bytes * reserve),
                                               max_held=HELD_PER_CONTENT_BYTE * max_bytes)
        # the opt-in profile: discovery responses in a cache of their own
        self.responses: BoundedLRU[StoredResponse] | None = (
            BoundedLRU(max_responses, max_response_bytes, max_held=HELD_PER_CONTENT_BYTE * max_response_bytes)
            if max_responses > 0 and max_response_bytes > 0 else None)
        # original URL -> canonical URL of a redirected document; bounded like the records,
        # and an alias whose document is gone is dropped when it is met.
        self._aliases: OrderedDict[str, str] = OrderedDict()
        self._max_aliases = max_records
        # what the discovery documents read here say each source publishes
        self.descriptions = SourceDescriptions(max_bytes=LEARNED_MAX_BYTES)

    @classmethod
    def bounds(cls, settings: BaseSettings) -> tuple[Any, ...]:
        return (settings.getint("LIGHT_RECORD_CACHE_MAX_RECORDS"), settings.getint("LIGHT_RECORD_CACHE_MAX_BYTES"),
                settings.getfloat("LIGHT_RECORD_CACHE_DISCOVERY_SHARE"),
                settings.getint("LIGHT_DISCOVERY_CACHE_MAX_RECORDS"), settings.getint("LIGHT_DISCOVERY_CACHE_MAX_BYTES"))

    # ------------------------------------------------------------------ documents
    def put_document(self, doc: Document, expires_at: float) -> bool:
        key = canonical_url(doc.url)
        stored = self.lru.put("doc:" + key, doc, document_size(doc), expires_at, held=document_held(doc))
        if stored and doc.original_url:
            alias = canonical_url(doc.original_url)
            self._aliases.pop(alias, None)
            self._aliases[alias] = key
            while len(self._aliases) > self._max_aliases:
                self._aliases.popitem(last=False)
        return stored

    def get_document(self, url: str) -> Document | None:
        key = canonical_url(url)
        doc = self.lru.get("doc:" + key)
        if doc is None and key in self._aliases:
            doc = self.lru.get("doc:" + self._aliases[key])
            if doc is None:
                del self._aliases[key]
        return doc

    def documents(self) -> list[Document]:
        """Every fresh document (expired ones are dropped on the way)."""
        return self.lru.values(protected=False)

    # ------------------------------------------------------------------ discovery responses
    def put_response(self, record: StoredResponse) -> bool:
        held = held_bytes(record)
        if self.responses is not None:
            return self.responses.put(canonical_url(record.url), record, response_size(record), record.expires_at,
                                      held=held)
        return self.lru.put("map:" + canonical_url(record.url), record, response_size(record), record.expires_at,
                            protected=True, held=held)

    def get_response(self, url: str) -> StoredResponse | None:
        if self.responses is not None:
            return self.responses.get(canonical_url(url))
        return self.lru.get("map:" + canonical_url(url))

    # ------------------------------------------------------------------ sites probed on the spot
    def put_site(self, entry: SiteEntry, expires_at: float) -> bool:
        """Keep what a search learned of a site outside the catalog (cache/site_entries.py), in
        the discovery share: it is the map the next search of that site starts from."""
        raw = entry.encoded()
        kept = SiteEntry.decode(entry.domain, raw)  # what fits the bound, as a reader sees it
        if kept is None:
            return False
        return self.lru.put("map:" + KEY_PREFIX + entry.domain, kept, len(raw), expires_at, protected=True,
                            held=held_bytes(kept))

    def get_site(self, domain: str) -> SiteEntry | None:
        return self.lru.get("map:" + KEY_PREFIX + domain)

    # ------------------------------------------------------------------ housekeeping
    def __len__(self) -> int:
        return len(self.lru) + (len(self.responses) if self.responses is not None else 0)

    @property
    def bytes(self) -> int:
        return self.lru.bytes + (self.responses.bytes if self.responses is not None else 0)

    def clear(self) -> None:
        self.lru.clear()
        if self.responses is not None:
            self.responses.clear()
        self._aliases.clear()
        self.descriptions.clear()
