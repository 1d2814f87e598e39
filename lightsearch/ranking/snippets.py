"""Cut the passage of a document that best answers the query.

A snippet is evidence the agent reads instead of the page, so it should be the densest
window of query terms, cut on sentence boundaries where possible, not the page's first
lines (which are usually navigation leftovers or a lede about something else).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from lightsearch.ranking.tokenize import tokenize

_SENTENCE = re.compile(r"(?<=[.!?。])\s+|\n+")


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE.split(text) if s and s.strip()]


def best_passage(text: str, query_terms: Iterable[str], max_chars: int = 280) -> str:
    """The window of consecutive sentences, at most ``max_chars`` long, richest in query terms."""
    terms = set(query_terms)
    sentences = _sentences(text)
    if not sentences:
        return ""
    token_sets = [set(tokenize(s)) & terms for s in sentences]
    best_score, best_range = -1.0, (0, 1)
    for start in range(len(sentences)):
        length, seen, score = 0, set(), 0.0
        for end in range(start, len(sentences)):
            length += len(sentences[end]) + 1
            if length > max_chars and end > start:
                break
            new = token_sets[end] - seen
            seen |= new
            # Distinct terms count most; a little credit for an early position.
            score = len(seen) + 0.01 * len(token_sets[end])
            if score > best_score + 1e-9:
                best_score, best_range = score, (start, end + 1)
        if best_score >= len(terms) and terms:
            break
    passage = " ".join(sentences[best_range[0] : best_range[1]])
    if len(passage) > max_chars:
        cut = passage[: max_chars - 1]
        space = cut.rfind(" ")
        passage = (cut[:space] if space > max_chars // 2 else cut).rstrip() + "…"
    if best_range[0] > 0:
        passage = "…" + passage
    return passage
