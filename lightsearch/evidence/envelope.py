"""Result envelopes: the one shape every provider returns, and the ``web_fetch`` finish.

A provider (Light, Brave, any keyless engine) turns what it retrieved into a list of
:class:`Evidence` and calls :func:`build_envelope`; the envelope then computes, in this
order, so that each step sees the final form of the one before:

1. per-source clipping of page text to an excerpt (:func:`lightsearch.evidence.excerpts.clip_excerpt`),
2. coverage from the evidence actually retrieved (:func:`lightsearch.evidence.coverage.coverage`),
3. the bounded model text (:func:`lightsearch.evidence.render.render`),
4. ``meta.webSources`` receipts from what that text kept (:mod:`lightsearch.evidence.receipts`).

Before step 1 every field of the evidence is cleaned as the model text is and every hit
URL normalised; a hit whose URL the transport guard would refuse is dropped with a note
(:mod:`lightsearch.evidence.hygiene`), and so is a hit the call's domain filters do not
admit (``includeDomains``/``excludeDomains``): every provider pushes them down as far as
it can, and this is where it is made sure, once for all of them, that no hit on an
excluded domain is ever returned. The finished result's other strings (notes, meta,
provider fields) are cleaned the same way, so ``structuredContent`` and ``-o json`` carry
nothing the model text would not.

Every result carries ``trust: "volatile_external"`` and ``carryPolicy: "never"``: all web
text and metadata are passive, untrusted evidence. Optional fields (``content``,
``publishedAt``, ``meta.webSources``, ...) stay optional, so clients may ignore them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from lightsearch.evidence.coverage import coverage
from lightsearch.evidence.excerpts import clip_excerpt, excerpt_budget
from lightsearch.evidence.hygiene import clean_evidence, clean_structured, handed_out
from lightsearch.evidence.model import TRUST, Evidence, ResultLimits
from lightsearch.evidence.outbound_links import LinkJudge
from lightsearch.evidence.reach import Reach
from lightsearch.evidence.receipts import SourceRecord, attach_web_sources, receipt_entry
from lightsearch.evidence.render import render
from lightsearch.filters import Filters, domain_notes, filtered
from lightsearch.ranking.tokenize import tokenize
from lightsearch.timestamps import utc_stamp


def hit_dict(e: Evidence, content: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": e.title,
        "url": e.url,
        "snippet": e.snippet,
        "source": e.source,
        "sourceName": e.source_name or e.source,
        "retrievedAt": e.retrieved_at or utc_stamp(),
        "score": e.score,
    }
    if e.published_at:
        out["publishedAt"] = e.published_at
    if e.modified_at:
        out["modifiedAt"] = e.modified_at
    if e.original_url and e.original_url != e.url:
        out["originalUrl"] = e.original_url
    if e.language:
        out["language"] = e.language
    if content:
        out["content"] = content
    out.update(e.extra)
    return out


def results_view(hits: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The invoke endpoint's ``results``: ``[{title, url, snippet, publishedAt?}]``."""
    out = []
    for h in hits:
        item = {"title": h["title"], "url": h["url"], "snippet": h["snippet"]}
        if h.get("publishedAt"):
            item["publishedAt"] = h["publishedAt"]
        out.append(item)
    return out


def build_envelope(
    *,
    provider: str,
    query: str,
    evidence: Sequence[Evidence],
    limits: ResultLimits,
    stop_reason: str = "completed",
    notes: Sequence[str] = (),
    meta: dict[str, Any] | None = None,
    extra: dict[str, Any] | None = None,
    terms: Iterable[str] | None = None,
    token: str | None = None,
    results: bool = False,
    filters: Filters | None = None,
    reach: Reach | None = None,
) -> dict[str, Any]:
    """The search result every provider returns (docs/USING.md shows its fields).

    ``extra`` adds top-level provider fields (e.g. Brave's ``sourceFetchErrors``) before
    ``meta``; ``terms`` are the query's index terms (default: ``tokenize(query)``);
    ``token`` fixes the fence token (tests only); ``results`` adds the invoke endpoint's
    ``results`` view of the (cleaned) hits; ``filters`` are the call's (hits they do not admit are
    dropped with a note, and ``meta.filters`` reports them as applied); ``reach``: what
    the search read of its frontier's best candidates, when the provider has a frontier
    (Light's; evidence/reach.py), which coverage weighs.
    """
    terms = set(tokenize(query) if terms is None else terms)
    evidence, dropped = clean_evidence(evidence, limits)
    meta = dict(meta or {})
    if filters:
        evidence, off = filtered(evidence, filters, lambda e: (e.url, e.extra.get("publisherUrl")))
        dropped.extend(domain_notes(off, filters))
        meta["filters"] = filters.to_dict()
    budget = excerpt_budget(limits, sum(1 for e in evidence if e.content))
    hits, records = [], []
    for e in evidence:
        content, clipped = (clip_excerpt(e.content, limits.content_max_chars, budget)
                            if e.content else (None, False))
        hits.append(hit_dict(e, content))
        records.append(SourceRecord(
            title=e.title, url=e.url, retrieval=e.retrieval, original_url=e.original_url,
            error=e.retrieval_error, extraction_clipped=e.extraction_clipped,
            per_source_clipped=bool(content) and (clipped or e.content_clipped),
        ))
    result: dict[str, Any] = {
        "query": query,
        "provider": provider,
        "hits": hits,
        "coverage": coverage(evidence, terms, reach),
        "stopReason": stop_reason,
        "notes": [*notes, *dropped],
        **TRUST,
        **({"results": results_view(hits)} if results else {}),
        **(extra or {}),
        "meta": meta,
    }
    result = clean_structured(result, keep=("text", "hits"))  # the hits were cleaned as evidence
    rendering = render(result, limits.text_max_bytes, token=token)
    result["text"] = rendering.text
    entries = [receipt_entry(r, p) for r, p in zip(records, rendering.presence, strict=True)]
    attach_web_sources(result, entries, limits.result_max_bytes, max_entries=limits.receipt_max_entries)
    return result


def finish_fetch(
    result: dict[str, Any],
    limits: ResultLimits,
    *,
    extraction_clipped: bool = False,
    cached: bool = False,
    token: str | None = None,
    names: Mapping[str, str] | None = None,
) -> str:
    """Render a web_fetch success for the model, store it as ``text``, attach the receipt.

    ``result`` is web_fetch's dict (``url``, ``originalUrl``, ``title``, the page window
    in ``content``, ``truncated``, ...). As in a search envelope, ``text`` is the bounded,
    fenced text the model reads, so the receipt describes exactly the text returned.
    ``truncated`` (the ``maxChars`` window) is the per-source clipping; final-output
    clipping is the text byte limit; ``extraction_clipped`` is the page itself. Returns
    the text.
    """
    result.update(TRUST)
    result.pop("text", None)  # a stale rendering must not be rendered or counted
    # every field as the model text shows it, and the page's own text with no refused link;
    # the page window is cleaned where it is read
    cleaned = clean_structured(result, keep=("content",))
    judge = LinkJudge(limits.allowed_ports, base=cleaned.get("url") if isinstance(cleaned.get("url"), str) else None)
    for key in ("title", "byline"):  # page text, like the content (cleaned where it was read)
        if isinstance(cleaned.get(key), str):
            cleaned[key] = handed_out(cleaned[key], judge)
    result.clear()
    result.update(cleaned)
    rendering = render(result, limits.text_max_bytes, token=token, names=names)
    result["text"] = rendering.text
    record = SourceRecord(
        title=result.get("title") or result.get("url", ""),
        url=result.get("url", ""),
        retrieval="cached" if cached else "fetched",
        original_url=result.get("originalUrl"),
        extraction_clipped=extraction_clipped,
        per_source_clipped=bool(result.get("truncated")),
    )
    entry = receipt_entry(record, rendering.presence[0] if rendering.presence else None)
    attach_web_sources(result, [entry], limits.result_max_bytes)
    return rendering.text
