"""Source presentation receipts: ``meta.webSources`` version 1.

A receipt tells a client, per source, what the tool retrieved and how much of it the
model was actually shown. It is computed *after* the model text is rendered, from what
the final bounded text kept (:class:`lightsearch.evidence.render.Presence`), so a page that was
fetched but did not fit is reported as ``reference`` or ``omitted``, never ``content``.

Receipts are optional metadata and the lowest priority of a result: when adding one
would push the serialized result past its byte limit, entries are dropped from the end
(the lowest-ranked sources) and ``omittedSourceCount`` counts them; when not even an
empty receipt fits, the result keeps its shape without one. Titles and URLs in a receipt
remain untrusted passive data. A receipt says what the tool returned, not what a model
later read or cited.

Entry::

    {"title": str, "url": str, "originalUrl"?: str,
     "retrieval": "fetched" | "cached" | "search_result" | "failed", "error"?: str,
     "presentation": "omitted" | "reference" | "snippet" | "content",
     "contentTruncated": ["extraction"?, "perSource"?, "finalOutput"?]}
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lightsearch.evidence.render import Presence, clean_untrusted

VERSION = 1
RETRIEVAL = ("fetched", "cached", "search_result", "failed")
PRESENTATION = ("omitted", "reference", "snippet", "content")
CLIPPING = ("extraction", "perSource", "finalOutput")
MAX_TITLE_CHARS = 300


@dataclass
class SourceRecord:
    """What a provider knows about one source before rendering.

    ``retrieval``: ``fetched`` (page read in this call), ``cached`` (a completed record
    from the document cache), ``search_result`` (only a search engine's title, URL and
    snippet; no page fetch attempted) or ``failed`` (a page fetch was attempted and
    failed; ``error`` holds its code). ``extraction_clipped``: the page text itself is
    incomplete (body cut at the response size limit, extraction clipped).
    ``per_source_clipped``: the excerpt handed to the renderer is shorter than the text.
    """

    title: str
    url: str
    retrieval: str = "fetched"
    original_url: str | None = None
    error: str | None = None
    extraction_clipped: bool = False
    per_source_clipped: bool = False


def receipt_entry(record: SourceRecord, presence: Presence | None) -> dict[str, Any]:
    """One receipt entry; ``presence`` None means the source is not in the text at all."""
    status = presence.status if presence is not None else "omitted"
    clipped = []
    if record.extraction_clipped:
        clipped.append("extraction")
    if record.per_source_clipped:
        clipped.append("perSource")
    if presence is None or presence.final_cut:
        clipped.append("finalOutput")
    entry: dict[str, Any] = {
        "title": clean_untrusted(record.title)[:MAX_TITLE_CHARS],
        "url": record.url,
    }
    if record.original_url and record.original_url != record.url:
        entry["originalUrl"] = record.original_url
    entry["retrieval"] = record.retrieval
    if record.error:
        entry["error"] = record.error
    entry["presentation"] = status
    entry["contentTruncated"] = clipped
    return entry


def web_sources(entries: Sequence[dict[str, Any]], omitted: int = 0) -> dict[str, Any]:
    return {"version": VERSION, "entries": list(entries), "omittedSourceCount": omitted}


def result_bytes(result: dict[str, Any]) -> int:
    """The size a result is bounded by: its compact JSON form, UTF-8 encoded."""
    return len(json.dumps(result, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def attach_web_sources(
    result: dict[str, Any],
    entries: Sequence[dict[str, Any]],
    max_result_bytes: int,
    *,
    max_entries: int | None = None,
    extra_bytes: int = 0,
) -> dict[str, Any] | None:
    """Put ``meta.webSources`` on ``result`` as far as the byte limit allows; return it.

    Existing output and metadata are never shrunk to make room. ``extra_bytes`` counts
    output that travels with ``result`` but is not inside it (e.g. a separately returned
    model text). Returns None, leaving ``result`` exactly as it was, when not even an
    empty receipt fits.
    """
    entries = list(entries)
    keep = len(entries) if max_entries is None else min(len(entries), max_entries)
    had_meta = "meta" in result
    meta = result.setdefault("meta", {})
    budget = max_result_bytes - extra_bytes

    def fits(k: int) -> bool:
        meta["webSources"] = web_sources(entries[:k], len(entries) - k)
        return result_bytes(result) <= budget

    # Sizes grow with k, so binary-search the largest k that fits.
    if not fits(0):
        del meta["webSources"]
        if not had_meta:
            del result["meta"]
        return None
    low, high = 0, keep
    while low < high:
        mid = (low + high + 1) // 2
        if fits(mid):
            low = mid
        else:
            high = mid - 1
    meta["webSources"] = web_sources(entries[:low], len(entries) - low)
    return meta["webSources"]
