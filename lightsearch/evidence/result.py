"""Result envelopes: the one shape every provider returns, and the ``web_fetch`` finish.

A provider (Light, Brave, any keyless engine) turns what it retrieved into a list of
:class:`Evidence` and calls :func:`build_envelope`; the envelope then computes, in this
order, so that each step sees the final form of the one before:

1. per-source clipping of page text to an excerpt (:func:`clip_excerpt`),
2. coverage from the evidence actually retrieved (:func:`coverage`),
3. the bounded model text (:func:`lightsearch.evidence.render.render`),
4. ``meta.webSources`` receipts from what that text kept (:mod:`lightsearch.evidence.receipts`).

Every result carries ``trust: "volatile_external"`` and ``carryPolicy: "never"``: all web
text and metadata are passive, untrusted evidence. Optional fields (``content``,
``publishedAt``, ``meta.webSources``, ...) stay optional, so clients may ignore them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from typing import Any

from scrapy.settings import BaseSettings

from lightsearch.evidence.receipts import (
    SourceRecord,
    attach_web_sources,
    receipt_entry,
    result_bytes,
)
from lightsearch.evidence.render import clip_utf8, render, render_result, utf8_len
from lightsearch.ranking.rank import RankedDocument
from lightsearch.ranking.tokenize import tokenize

TRUST = {"trust": "volatile_external", "carryPolicy": "never"}
MAX_SOURCE_ERRORS = 20
#: Bytes of model text a hit's header (title, source, date, URL lines) takes, roughly.
HIT_OVERHEAD_BYTES = 320
#: Bytes of model text the preamble and fences take, roughly.
FRAME_BYTES = 512
#: No excerpt is clipped below this many bytes to make a fair share.
MIN_EXCERPT_BYTES = 160


@dataclass(frozen=True)
class ResultLimits:
    """The byte and size limits of one result (defaults in ``settings.py``, issue 6 block)."""

    text_max_bytes: int = 16 * 1024
    result_max_bytes: int = 64 * 1024
    content_max_chars: int = 1200
    receipt_max_entries: int = 20

    @classmethod
    def from_settings(cls, settings: BaseSettings, *, text_key: str = "RESULT_TEXT_MAX_BYTES") -> ResultLimits:
        """``text_key`` lets Light keep its own validated ``LIGHT_TEXT_MAX_BYTES``."""
        return cls(
            text_max_bytes=settings.getint(text_key, cls.text_max_bytes),
            result_max_bytes=settings.getint("RESULT_MAX_BYTES", cls.result_max_bytes),
            content_max_chars=settings.getint("RESULT_CONTENT_MAX_CHARS", cls.content_max_chars),
            receipt_max_entries=settings.getint("RESULT_RECEIPT_MAX_ENTRIES", cls.receipt_max_entries),
        )


@dataclass
class Evidence:
    """One hit as a provider retrieved it: everything the envelope needs, provider-neutral.

    ``content`` is fetched page text (whole or an excerpt; the envelope clips it to the
    per-source budget); None means only ``snippet`` (e.g. a search engine's description)
    is available. ``retrieval`` and ``retrieval_error`` follow
    :class:`lightsearch.evidence.receipts.SourceRecord`. ``matched`` is the share of query terms
    found in the source (0..1); None lets coverage compute it from the hit's own text.
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
    extra: dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------- coverage
WEAK_BELOW = 0.35
STRONG_FROM = 0.7
SNIPPET_ONLY_CAP = 0.3


def coverage(evidence: Sequence[Evidence], terms: Iterable[str] = ()) -> dict[str, Any]:
    """Evidence quality of a search, 0..1 plus a level, from what was actually retrieved.

    match   = mean share of query terms found, over the top three hits
    content = min(1, hits carrying fetched page content / 3)
    breadth = min(1, distinct sources / 2)
    score   = 0.5 * match + 0.3 * content + 0.2 * breadth
    With no fetched page content at all (snippets only) the score is capped at 0.3, so
    snippet-only evidence is at most ``weak``. Levels: ``none`` (no hits), ``weak``
    (< 0.35), ``partial`` (< 0.7), ``strong``.
    """
    if not evidence:
        return {"score": 0.0, "level": "none"}
    terms = set(terms)
    top = evidence[:3]
    match = sum(_matched(e, terms) for e in top) / len(top)
    with_content = sum(1 for e in evidence if e.content)
    sources = len({e.source for e in evidence})
    score = 0.5 * match + 0.3 * min(1.0, with_content / 3) + 0.2 * min(1.0, sources / 2)
    if not with_content:
        score = min(score, SNIPPET_ONLY_CAP)
    score = round(min(1.0, max(0.0, score)), 3)
    level = "weak" if score < WEAK_BELOW else "partial" if score < STRONG_FROM else "strong"
    return {"score": score, "level": level}


def _matched(e: Evidence, terms: set[str]) -> float:
    if e.matched is not None:
        return max(0.0, min(1.0, e.matched))
    if not terms:
        return 0.0
    found = set(tokenize(f"{e.title}\n{e.snippet}\n{e.content or ''}"))
    return len(terms & found) / len(terms)


# ---------------------------------------------------------------------------- clipping
def clip_excerpt(text: str, max_chars: int, max_bytes: int) -> tuple[str, bool]:
    """``text`` cut to ``max_chars`` characters and ``max_bytes`` UTF-8 bytes, on a word end.

    Returns the excerpt and whether anything was cut (per-source clipping).
    """
    if len(text) <= max_chars and utf8_len(text) <= max_bytes:
        return text, False
    ellipsis = "…"
    cut = clip_utf8(text[: max(0, max_chars - 1)], max(0, max_bytes - utf8_len(ellipsis)))
    space = cut.rfind(" ")
    if space > len(cut) // 2:
        cut = cut[:space]
    return cut.rstrip() + ellipsis, True


def excerpt_budget(limits: ResultLimits, hits_with_content: int) -> int:
    """Bytes of page text each hit may show: a fair share of the text limit after headers."""
    n = max(1, hits_with_content)
    share = (limits.text_max_bytes - FRAME_BYTES - n * HIT_OVERHEAD_BYTES) // n
    return max(MIN_EXCERPT_BYTES, share)


# ---------------------------------------------------------------------------- envelope
def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def hit_dict(e: Evidence, content: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": e.title,
        "url": e.url,
        "snippet": e.snippet,
        "source": e.source,
        "sourceName": e.source_name or e.source,
        "retrievedAt": e.retrieved_at or now_iso(),
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
) -> dict[str, Any]:
    """The search result every provider returns (see DESIGN.md, web_search output).

    ``extra`` adds top-level provider fields (e.g. Brave's ``sourceFetchErrors``) before
    ``meta``; ``terms`` are the query's index terms (default: ``tokenize(query)``);
    ``token`` fixes the fence token (tests only).
    """
    terms = set(tokenize(query) if terms is None else terms)
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
        "coverage": coverage(evidence, terms),
        "stopReason": stop_reason,
        "notes": list(notes),
        **TRUST,
        **(extra or {}),
        "meta": dict(meta or {}),
    }
    rendering = render(result, limits.text_max_bytes, token=token)
    result["text"] = rendering.text
    entries = [receipt_entry(r, p) for r, p in zip(records, rendering.presence, strict=True)]
    attach_web_sources(result, entries, limits.result_max_bytes, max_entries=limits.receipt_max_entries)
    return result


def render_text(result: dict[str, Any], max_bytes: int) -> str:
    """Kept for callers written before :mod:`lightsearch.evidence.render`; same renderer."""
    return render_result(result, max_bytes)


# ---------------------------------------------------------------------------- web_fetch
def finish_fetch(
    result: dict[str, Any],
    limits: ResultLimits,
    *,
    extraction_clipped: bool = False,
    cached: bool = False,
    token: str | None = None,
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
    rendering = render(result, limits.text_max_bytes, token=token)
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


# ---------------------------------------------------------------------------- Light
_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")


def excerpt(text: str, terms: Iterable[str], max_chars: int) -> str:
    """Up to ``max_chars`` of consecutive sentences of ``text``, around its densest match.

    The snippet is the few sentences richest in query terms; the excerpt widens that to
    the per-source budget: it starts one sentence before the best three-sentence window
    and reads on, then back, so the model gets the passage in context.
    """
    sentences = [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]
    if not sentences:
        return ""
    terms = set(terms)
    found = [set(tokenize(s)) & terms for s in sentences]
    best = max(range(len(sentences)), key=lambda i: (len(set().union(*found[i : i + 3])), -i))
    start = end = max(0, best - 1)
    used = 0
    while end < len(sentences) and used + len(sentences[end]) + 1 <= max_chars:
        used += len(sentences[end]) + 1
        end += 1
    while start > 0 and used + len(sentences[start - 1]) + 1 <= max_chars:
        start -= 1
        used += len(sentences[start]) + 1
    if end == start:  # one sentence longer than the budget: clip_excerpt cuts it
        end = start + 1
    return ("…" if start > 0 else "") + " ".join(sentences[start:end])


def light_evidence(
    ranked: Sequence[RankedDocument],
    source_names: dict[str, str],
    terms: Iterable[str],
    content_chars: int,
    cached_urls: Iterable[str] = (),
) -> list[Evidence]:
    """Light's ranked documents as evidence; the excerpt is the page's best passage.

    ``cached_urls`` are documents that came from the completed-document cache rather
    than this crawl (their receipts say ``cached``).
    """
    terms = set(terms)
    cached = set(cached_urls)
    out = []
    for r in ranked:
        doc = r.document
        passage = excerpt(doc.text, terms, content_chars) if doc.text else ""
        out.append(Evidence(
            title=doc.title,
            url=doc.url,
            source=doc.source_id,
            snippet=r.snippet,
            content=passage or None,
            source_name=source_names.get(doc.source_id, doc.source_id),
            published_at=doc.published_at,
            modified_at=doc.modified_at,
            retrieved_at=doc.retrieved_at,
            score=r.score,
            original_url=doc.original_url,
            language=doc.language,
            retrieval="cached" if doc.url in cached else "fetched",
            extraction_clipped=doc.partial,
            content_clipped=_words(passage.strip("…")) < _words(doc.text),
            matched=r.matched,
        ))
    return out


def _words(text: str) -> int:
    return len(" ".join(text.split()))


def assemble(
    *,
    query: str,
    ranked: Sequence[RankedDocument],
    max_results: int,
    stop_reason: str,
    notes: list[str],
    catalog: dict[str, Any],
    selected: list[str],
    consulted: list[str],
    counts: dict[str, int],
    source_errors: list[dict[str, Any]],
    source_names: dict[str, str],
    text_max_bytes: int,
    elapsed_ms: int,
    settings: BaseSettings | None = None,
    cached_urls: Iterable[str] = (),
) -> dict[str, Any]:
    """Light's envelope: :func:`build_envelope` plus ``meta.lightSearch``.

    ``settings`` supplies the ``RESULT_*`` limits; ``text_max_bytes`` stays Light's own
    (``LIGHT_TEXT_MAX_BYTES``, validated on the first search).
    """
    base = ResultLimits.from_settings(settings) if settings is not None else ResultLimits()
    limits = replace(base, text_max_bytes=text_max_bytes)
    terms = set(tokenize(query))
    evidence = light_evidence(ranked[:max_results], source_names, terms, limits.content_max_chars,
                              cached_urls)
    cached = set(cached_urls)
    # Seed 000: source IDs may include fresh cached evidence besides the selected sources.
    cached_sources = sorted({e.source for e in evidence if e.url in cached} - set(selected))
    light_meta = {
        "catalog": catalog,
        "sources": {"selected": selected, "consulted": consulted, "cached": cached_sources},
        "stopReason": stop_reason,
        "counts": counts,
        "sourceErrors": source_errors[:MAX_SOURCE_ERRORS],
        "sourceErrorsOmitted": max(0, len(source_errors) - MAX_SOURCE_ERRORS),
        "retrievedAt": {e.url: e.retrieved_at for e in evidence},
        "elapsedMs": elapsed_ms,
    }
    return build_envelope(
        provider="light", query=query, evidence=evidence, limits=limits, stop_reason=stop_reason,
        notes=notes, meta={"lightSearch": light_meta}, terms=terms,
    )


__all__ = [
    "TRUST", "Evidence", "ResultLimits", "assemble", "build_envelope", "clip_excerpt", "coverage",
    "finish_fetch", "light_evidence", "render_text", "result_bytes",
]
