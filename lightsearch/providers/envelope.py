"""Brave hits in the common ``web_search`` envelope, with nothing provider-specific
outside ``provider`` and the provider's own ``meta`` entry.

Coverage reports the evidence actually retrieved: a hit whose page was read counts as
content, one with only the provider's snippet does not, so a snippet-only search is at
most ``weak`` (seed 000, "Brave source retrieval").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scrapy.settings import Settings

from lightsearch.ranking.tokenize import tokenize
from lightsearch.request import SearchRequest
from lightsearch.result import TRUST, render_text

WEAK_CEILING = 0.34  # below the weak/partial boundary of lightsearch.result.coverage


def term_match(hit: Any, queries: Sequence[str]) -> float:
    """Best share of one query's terms found in the hit's title, snippet and content."""
    tokens = set(tokenize(f"{hit.title}\n{hit.snippet}\n{hit.content}"))
    best = 0.0
    for query in queries:
        terms = set(tokenize(query))
        if terms:
            best = max(best, len(terms & tokens) / len(terms))
    return best


def coverage(hits: Sequence[Any], queries: Sequence[str]) -> dict[str, Any]:
    """The Light formula (lightsearch.result.coverage) over Brave hits; snippet-only is capped weak."""
    if not hits:
        return {"score": 0.0, "level": "none"}
    top = hits[:3]
    match = sum(term_match(h, queries) for h in top) / len(top)
    content = sum(1 for h in hits if h.content)
    sources = len({h.source for h in hits})
    score = 0.5 * match + 0.3 * min(1.0, content / 3) + 0.2 * min(1.0, sources / 2)
    if not content:
        score = min(score, WEAK_CEILING)
    score = round(min(1.0, score), 3)
    level = "weak" if score < 0.35 else "partial" if score < 0.7 else "strong"
    return {"score": score, "level": level}


def hit_dict(hit: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "title": hit.title,
        "url": hit.url,
        "snippet": hit.snippet,
        "source": hit.source,
        "sourceName": hit.source_name,
        "retrievedAt": hit.retrieved_at,
        "score": hit.score,
    }
    for key, value in (("publishedAt", hit.published_at), ("modifiedAt", hit.modified_at),
                       ("originalUrl", hit.original_url), ("language", hit.language)):
        if value:
            out[key] = value
    return out


def brave_result(
    *,
    request: SearchRequest,
    hits: Sequence[Any],
    notes: list[str],
    source_fetch_errors: list[dict[str, Any]],
    api_requests: int,
    settings: Settings,
    elapsed_ms: int,
) -> dict[str, Any]:
    stop_reason = "completed"
    result: dict[str, Any] = {
        "query": request.query,
        "provider": "brave",
        "hits": [hit_dict(h) for h in hits],
        "coverage": coverage(hits, request.queries),
        "stopReason": stop_reason,
        "notes": notes,
        "sourceFetchErrors": source_fetch_errors,
        **TRUST,
        "meta": {
            "brave": {
                "apiRequests": api_requests,
                "sourceFetches": {
                    "attempted": sum(1 for h in hits if h.fetch),
                    "retrieved": sum(1 for h in hits if h.content),
                    "failed": len(source_fetch_errors),
                },
                "retrievedAt": {h.url: h.retrieved_at for h in hits},
                "elapsedMs": elapsed_ms,
            },
        },
    }
    result["text"] = render_text(result, settings.getint("LIGHT_TEXT_MAX_BYTES"))
    return result
