"""The completed-record cache of the whole fleet: documents and discovery responses.

The same interface and the same rules as ``cache.records.MemoryRecordCache`` (only
complete, storable records go in; each keeps its original retrieval time; 500 records
and 16 MiB serialized, discovery responses inside them in a reserved share, now
fleet-wide), stored as JSON (never pickle: whoever can write to Redis must not be able to
run code in a worker), sealed with the fleet's key and read back against a declared shape
(:mod:`lightsearch.fleet.shapes`): a record that does not verify, does not fit, or says it
expired is dropped and counted, never served. Each record's TTL is its own freshness
lifetime. A redirect alias leads only to a document that names the alias's URL as its own
original URL, so a rewritten alias cannot swap one page's evidence for another's.

A search lists every fresh document to join them to its evidence; the store keeps the
documents this worker already decoded and asks Redis only for the ones it has not seen.
"""

from __future__ import annotations

import base64
import contextlib
import json
from typing import TYPE_CHECKING, Any

from lightsearch.cache import SharedInstances
from lightsearch.cache.records import (
    MemoryRecordCache,
    StoredResponse,
    document_size,
    response_size,
)
from lightsearch.cache.site_entries import KEY_PREFIX, SiteEntry
from lightsearch.documents import Document
from lightsearch.documents.urlkey import canonical_url
from lightsearch.fleet.integrity import Misfit
from lightsearch.fleet.link import FleetLink, SharedStateUnavailable
from lightsearch.fleet.shapes import DocumentRecord, ResponseRecord, SiteRecord, parse
from lightsearch.fleet.store import RedisStore

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

_MAP = "map:"  # discovery responses' keys in the records namespace
DECODED_KEEP = 1000  # decoded records a worker keeps beside Redis (twice the record bound)


def encode_response(record: StoredResponse) -> bytes:
    return json.dumps({"url": record.url, "status": record.status, "headers": record.headers,
                       "body": base64.b64encode(record.body).decode("ascii"),
                       "retrieved_at": record.retrieved_at, "expires_at": record.expires_at}).encode("utf-8")


def decode_response(raw: bytes, now: float) -> StoredResponse:
    """A discovery response read back from Redis; Misfit when it does not fit or expired."""
    data = parse(ResponseRecord, raw)
    if data.expires_at <= now:
        raise Misfit("expired")
    try:
        body = base64.b64decode(data.body, validate=True)
    except ValueError:
        raise Misfit("shape") from None
    return StoredResponse(url=data.url, status=data.status, headers={k: list(v) for k, v in data.headers.items()},
                          body=body, retrieved_at=data.retrieved_at, expires_at=data.expires_at)


def decode_document(raw: bytes, now: float) -> Document:
    """A document read back from Redis; Misfit when it does not fit or expired."""
    data = parse(DocumentRecord, raw)
    if data.expires_at <= now:
        raise Misfit("expired")
    return Document(**data.model_dump())


def decode_site(raw: bytes, now: float, domain: str) -> SiteEntry:
    """The entry of ``domain`` read back from Redis; Misfit when it does not fit (an entry
    of another site stored under this one's key does not), or expired."""
    data = parse(SiteRecord, raw)
    if data.expires_at <= now:
        raise Misfit("expired")
    entry = SiteEntry.from_dict(domain, data.model_dump(exclude={"expires_at"}))
    if entry is None:
        raise Misfit("shape")
    return entry


class RedisRecordCache(SharedInstances):
    """``LIGHT_RECORD_CACHE = "lightsearch.fleet.records.RedisRecordCache"``."""

    def __init__(self, link: FleetLink, max_records: int, max_bytes: int, discovery_share: float = 0.5,
                 max_responses: int = 0, max_response_bytes: int = 0) -> None:
        self.link = link
        reserve = max(0.0, min(1.0, discovery_share))
        self.store = RedisStore(link, "records", max_records, max_bytes, protected_prefix=_MAP,
                                reserve_entries=int(max_records * reserve), reserve_bytes=int(max_bytes * reserve))
        # the opt-in profile: discovery responses in a namespace of their own
        self.responses = (RedisStore(link, "discovery", max_responses, max_response_bytes)
                          if max_responses > 0 and max_response_bytes > 0 else None)
        self.fallback = MemoryRecordCache(max_records, max_bytes, discovery_share, max_responses,
                                          max_response_bytes)
        # Each worker learns source descriptions from the discovery records it reads (the
        # records are the fleet's; the descriptions are derived, small, and in process).
        self.descriptions = self.fallback.descriptions

    @classmethod
    def bounds(cls, settings: BaseSettings) -> tuple[Any, ...]:
        return (FleetLink.from_settings(settings), *MemoryRecordCache.bounds(settings))

    # ------------------------------------------------------------------ documents
    def put_document(self, doc: Document, expires_at: float) -> bool:
        key = "doc:" + canonical_url(doc.url)
        # the record says when it expires: a reader drops it then, whatever Redis's TTL says
        raw = json.dumps({**doc.to_dict(), "expires_at": expires_at}, ensure_ascii=False).encode("utf-8")
        try:
            stored = self.store.put(key, raw, document_size(doc), expires_at)
            if stored and doc.original_url:
                alias = self.link.key("records", "alias", canonical_url(doc.original_url))
                ttl = max(1, int((expires_at - self.store.clock()) * 1000))
                self.link.call(lambda c: c.set(alias, key, px=ttl))
        except SharedStateUnavailable:
            return self.fallback.put_document(doc, expires_at)
        if stored:
            self.store.remember(key, expires_at, doc)
        return stored

    def get_document(self, url: str) -> Document | None:
        key = "doc:" + canonical_url(url)
        try:
            doc = self.store.get_decoded(key, decode_document)
            if doc is None:
                doc = self._aliased(key[4:])
        except SharedStateUnavailable:
            return self.fallback.get_document(url)
        return doc

    def _aliased(self, alias: str) -> Document | None:
        """The document a redirect alias leads to, when it really is that URL's document."""
        target = self.link.call(lambda c: c.get(self.link.key("records", "alias", alias)))
        if not target:
            return None
        try:
            key = target.decode("utf-8") if isinstance(target, bytes) and len(target) <= 4 * 8192 else None
        except UnicodeDecodeError:
            key = None
        if key is None or not key.startswith("doc:"):
            self.link.drop("records", "alias")
            return None
        doc = self.store.get_decoded(key, decode_document)
        if doc is not None and (not doc.original_url or canonical_url(doc.original_url) != alias):
            self.link.drop("records", "alias")
            return None
        return doc

    def documents(self) -> list[Document]:
        """Every fresh document of the fleet (expired ones are dropped on the way)."""
        try:
            return self.store.fresh_decoded("doc:", decode_document)
        except SharedStateUnavailable:
            return self.fallback.documents()

    # ------------------------------------------------------------------ discovery responses
    def put_response(self, record: StoredResponse) -> bool:
        store, key = self._response_key(record.url)
        try:
            return store.put(key, encode_response(record), response_size(record), record.expires_at)
        except SharedStateUnavailable:
            return self.fallback.put_response(record)

    def get_response(self, url: str) -> StoredResponse | None:
        store, key = self._response_key(url)
        try:
            return store.get_decoded(key, decode_response)
        except SharedStateUnavailable:
            return self.fallback.get_response(url)

    # ------------------------------------------------------------------ sites probed on the spot
    def put_site(self, entry: SiteEntry, expires_at: float) -> bool:
        raw = entry.encoded()
        kept = SiteEntry.decode(entry.domain, raw)
        if kept is None:
            return False
        payload = json.dumps({**kept.to_dict(), "expires_at": expires_at}, ensure_ascii=False,
                             separators=(",", ":")).encode("utf-8")
        try:
            stored = self.store.put(_MAP + KEY_PREFIX + entry.domain, payload, len(raw), expires_at)
        except SharedStateUnavailable:
            return self.fallback.put_site(entry, expires_at)
        if stored:
            self.store.remember(_MAP + KEY_PREFIX + entry.domain, expires_at, kept)
        return stored

    def get_site(self, domain: str) -> SiteEntry | None:
        try:
            return self.store.get_decoded(_MAP + KEY_PREFIX + domain, lambda raw, now: decode_site(raw, now, domain))
        except SharedStateUnavailable:
            return self.fallback.get_site(domain)

    def _response_key(self, url: str) -> tuple[RedisStore, str]:
        if self.responses is not None:
            return self.responses, canonical_url(url)
        return self.store, _MAP + canonical_url(url)

    # ------------------------------------------------------------------ housekeeping
    def _stores(self) -> list[RedisStore]:
        return [self.store] + ([self.responses] if self.responses is not None else [])

    def __len__(self) -> int:
        try:
            return sum(store.stats()[0] for store in self._stores())
        except SharedStateUnavailable:
            return len(self.fallback)

    @property
    def bytes(self) -> int:
        try:
            return sum(store.stats()[1] for store in self._stores())
        except SharedStateUnavailable:
            return self.fallback.bytes

    def clear(self) -> None:
        self.fallback.clear()
        with contextlib.suppress(SharedStateUnavailable):
            for store in self._stores():  # the records namespace holds the aliases too
                store.clear()
