"""Coverage: how well the evidence actually retrieved answers the query (0..1 and a level)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lightsearch.evidence.model import Evidence
from lightsearch.ranking.tokenize import tokenize

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
