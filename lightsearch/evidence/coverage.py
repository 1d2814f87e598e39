"""Coverage: how well the evidence actually retrieved answers the query (0..1 and a level).

A hit's *share* is the part of the query it carries: the idf-weighted share of the query's
terms found in it when the provider knows the weights (Light: ranking/rank.py, with the
catalog's described entries as background), else the plain share of the terms found.
Coverage reads the top three hits:

    top   = the first hit's share
    mean3 = the mean share of the first three (a missing hit counts 0)
    score = 0.6 * top + 0.4 * mean3

and the level says what a model may take from them:

- ``none``: no hit;
- ``weak``: the best hit carries under ``WEAK_BELOW`` of the query, or there is no fetched
  page content at all (snippets only: the score is capped at ``SNIPPET_ONLY_CAP``);
- ``strong``: the best hit carries at least ``STRONG_TOP`` of the query;
- ``partial``: anything between.

The thresholds were set against judged relevance (``scrapy evaluate`` reports, per
level, how often the top three hold a relevant document, and how often a search whose
top ten hold none said weak or none), over 1,508 searches of the Cranfield world (cold
and in a stream) and the HeQ world: ``strong`` searches held a relevant document in their
top three in 70% (Cranfield cold), 89% (Cranfield stream) and 99% (HeQ) of searches, and
77%, 70% and 87% of the searches whose top ten held none said ``weak``. A second
condition on the mean of the first three made ``strong`` rare where one document answers
the question (HeQ) and did not lift Cranfield's; the counts of hits and of sources, which
the first version weighed, said nothing of relevance at all.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from lightsearch.evidence.model import Evidence
from lightsearch.ranking.tokenize import tokenize

WEAK_BELOW = 0.55
STRONG_TOP = 0.7
SNIPPET_ONLY_CAP = 0.3


def coverage(evidence: Sequence[Evidence], terms: Iterable[str] = ()) -> dict[str, Any]:
    """Evidence quality of a search, 0..1 plus a level, from what was actually retrieved."""
    if not evidence:
        return {"score": 0.0, "level": "none"}
    terms = set(terms)
    shares = [_share(e, terms) for e in evidence[:3]]
    top, mean3 = shares[0], sum(shares) / 3
    score = 0.6 * top + 0.4 * mean3
    if top < WEAK_BELOW:
        level = "weak"
    elif top >= STRONG_TOP:
        level = "strong"
    else:
        level = "partial"
    if not any(e.content for e in evidence):
        score, level = min(score, SNIPPET_ONLY_CAP), "weak"
    return {"score": round(min(1.0, max(0.0, score)), 3), "level": level}


def _share(e: Evidence, terms: set[str]) -> float:
    known = e.weighted if e.weighted is not None else e.matched
    if known is not None:
        return max(0.0, min(1.0, known))
    if not terms:
        return 0.0
    found = set(tokenize(f"{e.title}\n{e.snippet}\n{e.content or ''}"))
    return len(terms & found) / len(terms)
