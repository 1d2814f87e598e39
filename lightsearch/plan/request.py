"""Validation of a search request against the bounds of docs/BOUNDS.md.

Checked before anything is crawled so a bad request costs nothing and the error names
the bound it broke.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from lightsearch.errors import invalid_input
from lightsearch.filters import NO_FILTERS, Filters, build_filters
from lightsearch.ranking.tokenize import tokenize
from lightsearch.windows import RECENCY_WINDOWS


@dataclass(frozen=True)
class SearchRequest:
    queries: tuple[str, ...]
    max_results: int = 8
    recency: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    # the call's domains, region and dates (lightsearch/filters.py), checked
    filters: Filters = NO_FILTERS
    # Each query's index terms, tokenized once here; selection, the crawl's candidate
    # scores, ranking, excerpts and coverage all read these.
    terms: tuple[tuple[str, ...], ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "terms", tuple(tuple(tokenize(q)) for q in self.queries))

    @property
    def all_terms(self) -> frozenset[str]:
        return frozenset(t for terms in self.terms for t in terms)

    @property
    def query(self) -> str:
        return " | ".join(self.queries)


def _check_query(q: Any, *, max_chars: int, max_words: int) -> str:
    if not isinstance(q, str):
        raise invalid_input("query must be text", parameter="query", bound="type", got=type(q).__name__)
    text = " ".join(q.split())
    if not text:
        raise invalid_input("query must not be empty", parameter="query", bound="non_empty")
    if len(text) > max_chars:
        raise invalid_input(
            f"query must be at most {max_chars} characters long", parameter="query",
            bound="max_chars", limit=max_chars, got=len(text),
        )
    words = len(text.split())
    if words > max_words:
        raise invalid_input(
            f"query must have at most {max_words} words", parameter="query",
            bound="max_words", limit=max_words, got=words,
        )
    return text


def build_request(
    query: str | Sequence[str] | None = None,
    *,
    queries: Sequence[str] | None = None,
    max_results: Any = 8,
    recency: Any = None,
    max_queries: int = 5,
    max_chars: int = 400,
    max_words: int = 50,
    max_results_limit: int = 20,
    include_domains: Any = None,
    exclude_domains: Any = None,
    region: Any = None,
    after: Any = None,
    before: Any = None,
) -> SearchRequest:
    """Turn loose caller input into a validated :class:`SearchRequest` or raise ``invalid_input``.

    ``include_domains``, ``exclude_domains``, ``region``, ``after`` and ``before`` are the
    call's filters (:func:`lightsearch.filters.build_filters`)."""
    if query is not None and queries is not None:
        raise invalid_input("give either query or queries, not both", bound="one_of")
    if queries is None:
        if query is None:
            raise invalid_input("query is required", parameter="query", bound="non_empty")
        queries = [query] if isinstance(query, str) else query
    if isinstance(queries, str) or not isinstance(queries, Sequence):
        raise invalid_input("queries must be a list of text", parameter="queries", bound="type")
    if not 1 <= len(queries) <= max_queries:
        raise invalid_input(
            f"queries: give 1 to {max_queries} of them, not {len(queries)}", parameter="queries",
            bound="max_queries", limit=max_queries, got=len(queries),
        )
    checked = tuple(_check_query(q, max_chars=max_chars, max_words=max_words) for q in queries)
    if isinstance(max_results, bool) or not isinstance(max_results, int):
        raise invalid_input("maxResults must be an integer", parameter="maxResults", bound="maxResults")
    if not 1 <= max_results <= max_results_limit:
        raise invalid_input(
            f"maxResults must be between 1 and {max_results_limit}", parameter="maxResults",
            bound="maxResults", limit=max_results_limit, got=max_results,
        )
    if recency is not None and recency not in RECENCY_WINDOWS:
        raise invalid_input(
            f"recency must be one of {', '.join(RECENCY_WINDOWS)}", parameter="recency",
            bound="recency", got=str(recency)[:40], allowed=list(RECENCY_WINDOWS),
        )
    # Duplicate queries would only double-count in fusion.
    unique = tuple(dict.fromkeys(checked))
    filters = build_filters(include_domains, exclude_domains, region, after, before)
    return SearchRequest(queries=unique, max_results=max_results, recency=recency, filters=filters)
