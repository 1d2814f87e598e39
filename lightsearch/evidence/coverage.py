"""Coverage: how likely the evidence answers the query (a score in 0..1) and a level.

For a ranking that measures its hits (Light: ranking/rank.py), the score is the estimated
probability that one of the first three hits is relevant, from a logistic model
(:data:`MODEL`) of what the ranking measured of those hits and of what the search saw:

    phrased      the idf-weighted share of the query's adjacent word pairs a hit holds in
                 the same order (its wording, not only its words), averaged over the first
                 three hits (a missing hit counts 0); a query of one term has no pairs, and
                 its wording is its word: the hits' idf-weighted share of it stands in;
    pages        how many pages the ranking saw (read by the search, and records of
                 earlier searches joining it), as ``log(1 + n) / log(1 + 1000)``, at most
                 1: a larger sample is likelier to hold a relevant page;
    unread lead  how far the best candidate the search left unread outscores the best it
                 read, by the frontier's scores of what the sources say of their pages
                 (titles, slugs, feed items; evidence/reach.py): a search that left its
                 best candidates unread may have missed the answer.

The score never falls when a hit holds more of the query's wording or the ranking saw more
pages, and never rises when a better candidate is left unread. The weights were fitted on
judged searches of the Cranfield and HeQ worlds, cold and in a stream, Cranfield also in
two other site shapes, with every weight held to its sign and each world weighing the
same, its shapes and modes sharing its weight (``benchmarks/coverage_fit.py``; the fit,
the inputs measured and left out, and the figures per world in docs/EVALUATION.md). The
levels are cut from the probability where they say what they mean:

- ``none``: no hit;
- ``weak``: under ``WEAK_BELOW`` (more likely than not, no relevant document among the
  first three), or no fetched page content at all (snippets only: the score is capped at
  ``SNIPPET_ONLY_CAP``);
- ``strong``: from ``STRONG_FROM``;
- ``partial``: between.

A provider without a frontier (no :class:`~lightsearch.evidence.reach.Reach`) is taken to
have seen the hits it shows and to have left nothing better unread.

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

# the intercept, then each input's weight (benchmarks/coverage_fit.py --monotone --weigh world
# --features phrased3,ranked,unreadlead)
MODEL = {"intercept": -0.90, "phrased": 7.89, "pages": 1.53, "unread_lead": -2.23}
# pages at which the ``pages`` input reaches 1
PAGES_FULL = 1000
WEAK_BELOW = 0.5
STRONG_FROM = 0.85
SNIPPET_ONLY_CAP = 0.3
SHARE_WEAK_BELOW = 0.55
SHARE_STRONG_FROM = 0.7


def coverage(evidence: Sequence[Evidence], terms: Iterable[str] = (), reach: Reach | None = None) -> dict[str, Any]:
    """Evidence quality of a search, 0..1 plus a level, from what was actually retrieved;
    ``reach``: what the search saw and read of its frontier (evidence/reach.py)."""
    if not evidence:
        return {"score": 0.0, "level": "none"}
    if evidence[0].strength is not None:
        score = probability(evidence, reach, paired=len(set(terms)) != 1)
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


def inputs(evidence: Sequence[Evidence], reach: Reach | None = None, *, paired: bool = True) -> dict[str, float]:
    """The model's inputs, each in 0..1 (the module's text says what each is); ``paired``:
    False for a query of one term, whose hits' share of it stands in for ``phrased``."""
    first = evidence[:3]
    pages = max(reach.pages if reach is not None else 0, len(evidence))
    wording = [e.phrased if paired else (e.weighted if e.weighted is not None else e.matched) for e in first]
    return {
        "phrased": sum(_clip(x) for x in wording) / 3,
        "pages": min(1.0, math.log1p(pages) / math.log1p(PAGES_FULL)),
        "unread_lead": reach.unread_lead if reach is not None else 0.0,
    }


def probability(evidence: Sequence[Evidence], reach: Reach | None = None, *, paired: bool = True) -> float:
    """The model's estimate that a relevant document is among the first three hits."""
    z = MODEL["intercept"] + sum(MODEL[name] * x for name, x in inputs(evidence, reach, paired=paired).items())
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
