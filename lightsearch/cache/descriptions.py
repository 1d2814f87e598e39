"""What each source publishes, described from its discovery documents only.

A source's description is the set of its discovery documents a crawl has read (feeds,
sitemaps and sitemap indexes, home, hub and listing pages), each kept as a bounded sample
of the entries it names: the index terms of each entry's title, slug and feed summary,
never an article body, never a URL. Selection scores sources by the query against them,
and discovery reads first the documents that name the most likely relevant pages
(plan/estimates.py); the classic resource descriptions of federated search, gathered from
what every search reads anyway.

Two kinds of description exist:

* a **summary file**, prebuilt for a catalog by ``lightsearch sources describe`` and
  loaded when a process starts (``LIGHT_SOURCE_SUMMARY``, by default the file
  ``<catalog>.summary.json`` beside the catalog file), so a cold process starts informed;
* the **learned** descriptions of the documents this process's searches read, kept with
  the discovery records in the completed-record cache and updated as searches run (a
  search with no record cache, the cold benchmark's, learns nothing).

Every bound is a constant here: rows per document, terms per row, documents per source,
children per index, sources learned, and the summary file's size. A summary file is
read as untrusted input: what does not fit the shape is dropped and counted, and a file
that cannot be read at all is ``invalid_settings`` naming the setting.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from lightsearch.cache.sizing import held_bytes
from lightsearch.documents.urlkey import canonical_url
from lightsearch.errors import LightSearchError, quote_untrusted
from lightsearch.timestamps import parse_stamp, utc_stamp

FORMAT = "lightsearch-source-descriptions"
FORMAT_VERSION = 1
# Kinds of discovery document: an urlset sitemap, a sitemap index, a feed, a listing or
# hub page, a seed (home) page.
KINDS = ("sitemap", "index", "feed", "listing", "seed")
SAMPLE_ROWS = 200  # entries kept per document; a larger document is sampled evenly
ROW_TERMS = 24  # index terms kept per entry (a feed summary is long)
MAX_DOCUMENTS = 128  # documents per source; the least recently described go first
MAX_CHILDREN = 500  # child sitemaps kept per index
MAX_SOURCES = 512  # sources a process learns about
# What the learned descriptions may hold in memory (cache/sizing.py), least recently
# described sources first out; a description's terms are a page's words, of any length.
LEARNED_MAX_BYTES = 16 * 1024 * 1024
SUMMARY_MAX_BYTES = 32 * 1024 * 1024
SETTING = "LIGHT_SOURCE_SUMMARY"


def age_seconds(seen: str, now: datetime | None = None) -> float:
    """Seconds since ``seen`` (ISO 8601); infinite when it cannot be read."""
    when = parse_stamp(seen)
    if when is None:
        return float("inf")
    return max(0.0, ((now or datetime.now(timezone.utc)) - when).total_seconds())


@dataclass(frozen=True)
class DocumentDescription:
    """One discovery document as a sample of the entries it names."""

    url: str
    kind: str
    entries: int  # pages (an index: child sitemaps) it names
    rows: tuple[frozenset[str], ...] = ()  # a sample of its entries' terms
    children: tuple[str, ...] = ()  # an index's child sitemaps
    seen: str = ""  # when it was read, ISO 8601

    @property
    def scale(self) -> float:
        """Entries each sampled row stands for."""
        return self.entries / len(self.rows) if self.rows else 0.0

    @cached_property
    def postings(self) -> dict[str, tuple[int, ...]]:
        """term -> the rows carrying it (built once per description, when first scored)."""
        index: dict[str, list[int]] = {}
        for i, row in enumerate(self.rows):
            for term in row:
                index.setdefault(term, []).append(i)
        return {t: tuple(rows) for t, rows in index.items()}

    @property
    def key(self) -> str:
        return canonical_url(self.url)


def describe(url: str, kind: str, entries: Sequence[Any], *, children: Sequence[str] = (),
             seen: str | None = None, terms: Callable[[Any], Iterable[str]] | None = None) -> DocumentDescription:
    """A document's description from its entries' terms, sampled evenly when there are
    more than ``SAMPLE_ROWS`` (a sitemap may name 50,000 pages). ``terms`` reads an entry's
    terms when the entries are not terms already: only the sampled entries are read."""
    total = len(entries)
    if total > SAMPLE_ROWS:
        picked = [entries[(i * total) // SAMPLE_ROWS] for i in range(SAMPLE_ROWS)]
    else:
        picked = list(entries)
    rows = tuple(frozenset(list(dict.fromkeys(terms(e) if terms else e))[:ROW_TERMS]) for e in picked)
    return DocumentDescription(url=url, kind=kind, entries=total, rows=rows,
                               children=tuple(children[:MAX_CHILDREN]), seen=seen or utc_stamp())


@dataclass
class SourceDescriptions:
    """Descriptions of the documents of many sources, bounded per source and in sources,
    and in memory when ``max_bytes`` is given (the learned ones; a summary file's are
    bounded by the file's size)."""

    documents: OrderedDict[str, OrderedDict[str, DocumentDescription]] = field(default_factory=OrderedDict)
    max_bytes: int | None = None
    held: int = 0
    _weights: dict[tuple[str, str], int] = field(default_factory=dict, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def put(self, source_id: str, doc: DocumentDescription) -> None:
        if self.max_bytes is not None:
            doc.postings  # noqa: B018 - built now (it would be at its first scoring), so it is weighed
        weight = held_bytes(doc) if self.max_bytes is not None else 0
        if self.max_bytes is not None and weight > self.max_bytes:
            return
        with self._lock:
            docs = self.documents.get(source_id)
            if docs is None:
                docs = self.documents[source_id] = OrderedDict()
                while len(self.documents) > MAX_SOURCES:
                    self._drop_source(next(iter(self.documents)))
            self._drop(source_id, docs, doc.key)
            docs[doc.key] = doc
            self._weights[(source_id, doc.key)] = weight
            self.held += weight
            while len(docs) > MAX_DOCUMENTS:
                self._drop(source_id, docs, next(iter(docs)))
            self.documents.move_to_end(source_id)
            while self.max_bytes is not None and self.held > self.max_bytes:
                oldest = next(iter(self.documents))
                older = self.documents[oldest]
                self._drop(oldest, older, next(iter(older)))
                if not older:
                    del self.documents[oldest]

    def _drop(self, source_id: str, docs: OrderedDict[str, DocumentDescription], key: str) -> None:
        if docs.pop(key, None) is not None:
            self.held -= self._weights.pop((source_id, key), 0)

    def _drop_source(self, source_id: str) -> None:
        docs = self.documents.pop(source_id)
        for key in list(docs):
            self.held -= self._weights.pop((source_id, key), 0)

    def of(self, source_id: str) -> list[DocumentDescription]:
        with self._lock:
            return list(self.documents.get(source_id, {}).values())

    def __len__(self) -> int:
        return sum(len(d) for d in self.documents.values())

    def clear(self) -> None:
        with self._lock:
            self.documents.clear()
            self._weights.clear()
            self.held = 0


# ---------------------------------------------------------------------- summary files
@dataclass
class Summary:
    """A prebuilt summary file: its descriptions and where they came from."""

    descriptions: SourceDescriptions
    built: str = ""
    catalog: dict[str, str] = field(default_factory=dict)
    origins: dict[str, tuple[str, ...]] = field(default_factory=dict)
    dropped: int = 0  # documents in the file that did not fit the shape
    path: str = ""


def encode_document(doc: DocumentDescription) -> dict[str, Any]:
    """One description as JSON data: its terms once, its rows as indexes into them."""
    vocab: dict[str, int] = {}
    rows = [[vocab.setdefault(t, len(vocab)) for t in sorted(row)] for row in doc.rows]
    out: dict[str, Any] = {"url": doc.url, "kind": doc.kind, "entries": doc.entries, "seen": doc.seen,
                           "terms": list(vocab), "rows": rows}
    if doc.children:
        out["children"] = list(doc.children)
    return out


def decode_document(raw: Any) -> DocumentDescription | None:
    """The description :func:`encode_document` wrote, or None for anything that does not
    fit its shape and bounds (a summary file and a cached record are untrusted input)."""
    if not isinstance(raw, dict):
        return None
    url, kind, entries, terms, rows = (raw.get(k) for k in ("url", "kind", "entries", "terms", "rows"))
    if not (isinstance(url, str) and url.startswith(("http://", "https://")) and len(url) <= 2048
            and kind in KINDS and isinstance(entries, int) and not isinstance(entries, bool) and entries >= 0
            and isinstance(terms, list) and all(isinstance(t, str) and len(t) <= 64 for t in terms)
            and isinstance(rows, list) and len(rows) <= SAMPLE_ROWS):
        return None
    decoded = []
    for row in rows:
        if not isinstance(row, list) or len(row) > ROW_TERMS:
            return None
        if not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(terms) for i in row):
            return None
        decoded.append(frozenset(terms[i] for i in row))
    children = raw.get("children", [])
    if not isinstance(children, list) or not all(isinstance(c, str) and c.startswith(("http://", "https://"))
                                                 and len(c) <= 2048 for c in children):
        return None
    seen = raw.get("seen", "")
    return DocumentDescription(url=url, kind=kind, entries=max(entries, len(decoded)), rows=tuple(decoded),
                               children=tuple(children[:MAX_CHILDREN]), seen=seen if isinstance(seen, str) else "")


def encode_summary(descriptions: SourceDescriptions, *, catalog: dict[str, str],
                   origins: dict[str, Sequence[str]], built: str | None = None, note: str = "") -> str:
    sources = [{"id": sid, "origins": list(origins.get(sid, ())),
                "documents": [encode_document(d) for d in descriptions.of(sid)]}
               for sid in sorted(descriptions.documents)]
    data = {"format": FORMAT, "version": FORMAT_VERSION, "built": built or utc_stamp(), "catalog": catalog,
            **({"note": note} if note else {}), "sources": sources}
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _invalid(path: Path, message: str) -> LightSearchError:
    return LightSearchError("invalid_settings", f"setting {SETTING}: {message}",
                            {"key": SETTING, "value": quote_untrusted(str(path))})


def decode_summary(text: str, path: Path) -> Summary:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise _invalid(path, f"the summary file is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != FORMAT_VERSION:
        raise _invalid(path, f"not a {FORMAT} version {FORMAT_VERSION} file")
    sources = data.get("sources")
    if not isinstance(sources, list):
        raise _invalid(path, "its 'sources' must be a list")
    summary = Summary(descriptions=SourceDescriptions(), path=str(path))
    built, catalog = data.get("built"), data.get("catalog")
    summary.built = built if isinstance(built, str) else ""
    summary.catalog = {k: v for k, v in catalog.items() if isinstance(v, str)} if isinstance(catalog, dict) else {}
    for entry in sources[:MAX_SOURCES]:
        sid = entry.get("id") if isinstance(entry, dict) else None
        docs = entry.get("documents") if isinstance(entry, dict) else None
        if not isinstance(sid, str) or not isinstance(docs, list):
            summary.dropped += 1
            continue
        origins = entry.get("origins")
        if isinstance(origins, list) and all(isinstance(o, str) for o in origins):
            summary.origins[sid] = tuple(origins)
        for raw in docs[:MAX_DOCUMENTS]:
            doc = decode_document(raw)
            if doc is None:
                summary.dropped += 1
            else:
                summary.descriptions.put(sid, doc)
    return summary


def combine(*summaries: Summary | None) -> Summary | None:
    """One view of several summaries (a catalog's and its user catalog's)."""
    present = [s for s in summaries if s is not None]
    if len(present) <= 1:
        return present[0] if present else None
    out = Summary(descriptions=SourceDescriptions(), built=present[0].built, catalog=present[0].catalog)
    for summary in present:
        for sid in list(summary.descriptions.documents):
            for doc in summary.descriptions.of(sid):
                out.descriptions.put(sid, doc)
        out.origins.update(summary.origins)
        out.dropped += summary.dropped
    return out


_SUMMARIES: dict[tuple[str, float], Summary] = {}


def summary_path(setting: str | None, catalog_path: str) -> Path | None:
    """The summary file a process loads: the setting's, or ``<catalog>.summary.json``
    beside the catalog file when there is one; none when the setting is empty."""
    if setting == "":
        return None
    if setting:
        return Path(setting)
    if not catalog_path:
        return None
    beside = Path(catalog_path).with_suffix(".summary.json")
    return beside if beside.is_file() else None


def load_summary(path: Path | None) -> Summary | None:
    """The summary file at ``path`` (memoised by path and modification time)."""
    if path is None:
        return None
    try:
        stat = path.stat()
        key = (str(path.resolve()), stat.st_mtime)
    except OSError as exc:
        raise _invalid(path, f"the summary file cannot be read: {exc}") from None
    if key not in _SUMMARIES:
        if stat.st_size > SUMMARY_MAX_BYTES:
            raise _invalid(path, f"the summary file is larger than {SUMMARY_MAX_BYTES} bytes")
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeError) as exc:
            raise _invalid(path, f"the summary file cannot be read: {exc}") from None
        _SUMMARIES[key] = decode_summary(text, path)
    return _SUMMARIES[key]
