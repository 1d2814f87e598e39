"""Coverage: how likely the evidence answers the query (a score in 0..1) and a level.

For a ranking that measures its hits (Light: ranking/rank.py), the score is the estimated
probability that one of the first three hits is relevant, from a logistic model of two
things the ranking measured of them, each a share of the query in 0..1 that does not
depend on how many of the search's pages were on its topic (the term weights are the
catalog's), each averaged over the first three hits (a missing hit counts 0):

    strength  a hit's BM25 score over that of an average page holding each query term
              once (how strongly it matches);
    phrased   the idf-weighted share of the query's adjacent word pairs a hit holds in
              the same order (its wording, not only its words).

The constants were fitted on judged searches of the Cranfield and HeQ worlds in every
site shape, cold and in a stream, each weighing the same (``benchmarks/coverage_fit.py``;
the fit and its figures in docs/EVALUATION.md). The share of a hit's terms in its title,
also measured, raised the fit on Cranfield and lowered it on HeQ, whose titles are names:
it is not used. The levels are cut from the score:

- ``none``: no hit;
- ``weak``: under ``WEAK_BELOW``, or no fetched page content at all (snippets only: the
  score is capped at ``SNIPPET_ONLY_CAP``);
- ``strong``: from ``STRONG_FROM``;
- ``partial``: between.

Hits without those measures (Brave's and the engines', judged by their snippets) are
scored by the plain share of the query's terms their text carries, as ``0.6 * the first
hit's share + 0.4 * the mean of the first three``, with the same levels at the shares of
``SHARE_WEAK_BELOW`` and ``SHARE_STRONG_FROM``: no judged searches of theirs calibrate it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from lightsearch.evidence.model import Evidence
from lightsearch.evidence.reach import Reach
from lightsearch.ranking.tokenize import tokenize

# intercept, strength, phrased (benchmarks/coverage_fit.py --features strength3,phrased3)
MODEL = (-0.60, 0.87, 5.71)
WEAK_BELOW = 0.4
STRONG_FROM = 0.85
SNIPPET_ONLY_CAP = 0.3
SHARE_WEAK_BELOW = 0.55
SHARE_STRONG_FROM = 0.7


def coverage(evidence: Sequence[Evidence], terms: Iterable[str] = (), reach: Reach | None = None) -> dict[str, Any]:
    """Evidence quality of a search, 0..1 plus a level, from what was actually retrieved."""
    if not evidence:
        return {"score": 0.0, "level": "none"}
    if evidence[0].strength is not None:
        score = probability(evidence)
        level = "weak" if score < WEAK_BELOW else "strong" if score >= STRONG_FROM else "partial"
    else:
        terms = set(terms)
        shares = [_share(e, terms) for e in evidence[:3]]
        top, mean3 = shares[0], sum(shares) / 3
        score = 0.6 * top + 0.4 * mean3
        level = "weak" if top < SHARE_WEAK_BELOW else "strong" if top >= SHARE_STRONG_FROM else "partial"
    if not any(e.content for e in evidence):
        score, level = min(score, SNIPPET_ONLY_CAP), "weak"
    return {"score": round(min(1.0, max(0.0, score)), 3), "level": level}


def probability(evidence: Sequence[Evidence]) -> float:
    """The model's estimate that a relevant document is among the first three hits."""
    first = evidence[:3]
    strength = sum(_clip(e.strength) for e in first) / 3
    phrased = sum(_clip(e.phrased) for e in first) / 3
    intercept, *weights = MODEL
    z = intercept + sum(w * x for w, x in zip(weights, (strength, phrased), strict=True))
    return 1.0 / (1.0 + math.exp(-z))


def _clip(value: float | None) -> float:
    return 0.0 if value is None else max(0.0, min(1.0, value))


def _share(e: Evidence, terms: set[str]) -> float:
    known = e.weighted if e.weighted is not None else e.matched
    if known is not None:
        return max(0.0, min(1.0, known))
    if not terms:
        return 0.0
    found = set(tokenize(f"{e.title}\n{e.snippet}\n{e.content or ''}"))
    return len(terms & found) / len(terms)
