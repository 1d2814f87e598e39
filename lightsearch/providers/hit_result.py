"""Search-engine hits (Brave's, the keyless engines') as evidence, and their ``web_search`` result.

The counterpart of :mod:`lightsearch.providers.light_result` for providers that answer
with a list of hits rather than crawled pages; both hand their evidence to the one
envelope every provider returns (:func:`lightsearch.evidence.envelope.build_envelope`).
Only ``provider``, the top-level ``sourceFetchErrors`` and ``meta.braveSearch`` (or
``meta.engines``/``meta.engineSearch``) are the provider's own; hits, coverage, the model
text and the ``meta.webSources`` receipts come from the envelope exactly as for Light. A
hit whose page was read carries it as content (receipt retrieval ``fetched``); a hit whose
page fetch failed keeps its snippet (retrieval ``failed`` with the error code); a hit never
fetched is a ``search_result``. Coverage therefore reports the evidence actually retrieved:
snippets alone are at most ``weak``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy.settings import BaseSettings

from lightsearch.documents.titles import without_site_name
from lightsearch.evidence.envelope import build_envelope
from lightsearch.evidence.excerpts import excerpt, excerpt_clipped
from lightsearch.evidence.model import Evidence, ResultLimits
from lightsearch.plan.request import SearchRequest
from lightsearch.ranking.tokenize import tokenize


def term_match(hit: Any, per_query: Sequence[Sequence[str]]) -> float:
    """Best share of one query's terms in the hit's title, snippet and page text (as Light's
    ``matched``: a hit answering one of several queries fully is a full match)."""
    tokens = set(tokenize(f"{hit.title}\n{hit.snippet}\n{hit.content}"))
    best = 0.0
    for query_terms in per_query:
        terms = set(query_terms)
        if terms:
            best = max(best, len(terms & tokens) / len(terms))
    return best


def brave_evidence(hit: Any, per_query: Sequence[Sequence[str]], content_chars: int) -> Evidence:
    """One Brave hit as evidence; a read page contributes the passage around its best match
    (as Light's pages do), not its first characters, which are often navigation."""
    terms = {t for query_terms in per_query for t in query_terms}
    passage = excerpt(hit.content, terms, content_chars) if hit.content else ""
    status = hit.fetch.get("status")
    if hit.content:
        retrieval, error = "fetched", None
    elif status in ("failed", "timeout"):
        retrieval, error = "failed", hit.fetch.get("error")
    else:
        retrieval, error = "search_result", None
    return Evidence(
        title=without_site_name(hit.title, hit.url, [hit.source_name]),
        url=hit.url,
        source=hit.source,
        snippet=hit.snippet,
        content=passage or None,
        source_name=hit.source_name,
        published_at=hit.published_at,
        modified_at=hit.modified_at,
        retrieved_at=hit.retrieved_at,
        score=hit.score,
        original_url=hit.original_url,
        language=hit.language,
        retrieval=retrieval,
        retrieval_error=error,
        extraction_clipped=hit.content_partial,
        content_clipped=hit.content_truncated or excerpt_clipped(passage, hit.content),
        matched=term_match(hit, per_query),
    )


def brave_result(
    *,
    request: SearchRequest,
    hits: Sequence[Any],
    notes: list[str],
    source_fetch_errors: list[dict[str, Any]],
    api_requests: int,
    settings: BaseSettings,
    elapsed_ms: int,
) -> dict[str, Any]:
    """The ``web_search`` envelope of one Brave search."""
    limits = ResultLimits.from_settings(settings)
    items = [brave_evidence(h, request.terms, limits.content_max_chars) for h in hits]
    brave_meta = {
        "apiRequests": api_requests,
        "sourceFetches": {
            "enabled": settings.getbool("BRAVE_SOURCE_FETCH"),
            "attempted": sum(1 for h in hits if h.fetch),
            "retrieved": sum(1 for h in hits if h.content),
            "failed": len(source_fetch_errors),
        },
        "retrievedAt": {e.url: e.retrieved_at for e in items},
        "elapsedMs": elapsed_ms,
    }
    return build_envelope(
        provider="brave",
        query=request.query,
        evidence=items,
        limits=limits,
        notes=notes,
        meta={"braveSearch": brave_meta},
        extra={"sourceFetchErrors": source_fetch_errors},
        terms=set(request.all_terms),
        filters=request.filters,
    )


def engine_evidence(hit: Any, per_query: Sequence[Sequence[str]], content_chars: int) -> Evidence:
    """An engine hit as evidence: a snippet (``search_result``), or page text when the
    engine read the page (Light in a fused search)."""
    from urllib.parse import urlsplit

    terms = {t for query_terms in per_query for t in query_terms}
    passage = excerpt(hit.content, terms, content_chars) if hit.content else ""
    source = (urlsplit(hit.url).hostname or "").lower().removeprefix("www.")
    extra = {"engines": list(hit.engines)}
    extra.update({k: v for k, v in hit.extra.items() if v is not None})
    return Evidence(
        title=without_site_name(hit.title, hit.url, [hit.source_name]), url=hit.url, source=source,
        snippet=hit.snippet, content=passage or None,
        source_name=hit.source_name, published_at=hit.published_at, score=hit.score,
        retrieval="fetched" if hit.content else "search_result", matched=term_match(hit, per_query),
        extra=extra,
    )


def engine_result(
    *,
    request: SearchRequest,
    provider: str,
    mode: str,
    hits: Sequence[Any],
    notes: list[str],
    engines: dict[str, Any],
    settings: BaseSettings,
    elapsed_ms: int,
    cached_age: float | None = None,
) -> dict[str, Any]:
    """The ``web_search`` envelope of a fallback, fused or single-engine search; ``engines``
    is each engine's outcome (``meta.engines``), ``cached_age`` the age of a cached answer."""
    limits = ResultLimits.from_settings(settings)
    items = [engine_evidence(h, request.terms, limits.content_max_chars) for h in hits]
    cached = {"cached": False} if cached_age is None else {"cached": True, "cacheAgeSecs": round(cached_age, 1)}
    return build_envelope(
        provider=provider,
        query=request.query,
        evidence=items,
        limits=limits,
        stop_reason="completed" if provider != "none" else "all_engines_failed",
        notes=notes,
        meta={"engines": dict(engines), "engineSearch": {"mode": mode, "elapsedMs": elapsed_ms}},
        extra=cached,
        terms=set(request.all_terms),
        results=True,
        filters=request.filters,
    )
