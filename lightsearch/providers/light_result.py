"""Light's result: ranked documents as evidence, and ``meta.lightSearch`` on the envelope."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from scrapy.settings import BaseSettings

from lightsearch.evidence.envelope import build_envelope
from lightsearch.evidence.excerpts import excerpt, excerpt_clipped
from lightsearch.evidence.model import Evidence, ResultLimits
from lightsearch.evidence.reach import Reach
from lightsearch.filters import Filters
from lightsearch.ranking.rank import RankedDocument
from lightsearch.ranking.tokenize import tokenize

MAX_SOURCE_ERRORS = 20


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
            content_clipped=excerpt_clipped(passage, doc.text),
            matched=r.matched,
            weighted=r.weighted,
            strength=r.strength,
            phrased=r.phrased,
        ))
    return out


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
    terms: Iterable[str] | None = None,
    filters: Filters | None = None,
    private_origins: frozenset[str] = frozenset(),
    reach: Reach | None = None,
) -> dict[str, Any]:
    """Light's envelope: :func:`build_envelope` plus ``meta.lightSearch``.

    ``settings`` supplies the ``RESULT_*`` limits; ``text_max_bytes`` stays Light's own
    (``LIGHT_TEXT_MAX_BYTES``, validated on the first search). ``private_origins``: the
    user's own private sites of the catalog, whose hits are kept (crawl/guard/private.py).
    ``reach``: what the search read of its frontier's best candidates (evidence/reach.py),
    reported as ``meta.lightSearch.reach`` and weighed by coverage.
    """
    base = ResultLimits.from_settings(settings) if settings is not None else ResultLimits()
    limits = replace(base, text_max_bytes=text_max_bytes, private_origins=private_origins)
    terms = set(tokenize(query) if terms is None else terms)
    evidence = light_evidence(ranked[:max_results], source_names, terms, limits.content_max_chars,
                              cached_urls)
    cached = set(cached_urls)
    # source IDs may include fresh cached evidence besides the selected sources.
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
        # what coverage was judged from, per hit shown (ranking/rank.py, RankedDocument)
        "relevance": [{"matched": r.matched, "weighted": r.weighted, "bm25": r.bm25, "strength": r.strength,
                       "titled": r.titled, "phrased": r.phrased} for r in ranked[:max_results]],
    }
    if reach is not None:
        light_meta["reach"] = reach.as_dict()
    return build_envelope(
        provider="light", query=query, evidence=evidence, limits=limits, stop_reason=stop_reason,
        notes=notes, meta={"lightSearch": light_meta}, terms=terms, filters=filters, reach=reach,
    )
