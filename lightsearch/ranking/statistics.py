"""Corpus statistics for one search's ranking: how common each query term is in the
catalog as a whole, not in the handful of pages the search read.

BM25 weighs a term by how rare it is in the collection. A search reads the pages it
judged most likely to answer it, so a term of its topic is in nearly all of them: counted
over those pages, the topic's own words weigh nothing and a page matching only a common
word of the query outranks the pages about it. Two other witnesses of the collection
exist, each biased its own way:

* what the sources publish (cache/descriptions.py): the titles, slugs and summaries of
  the entries their feeds, sitemaps and listing pages name, sampled over the catalog as
  a federated search samples its collections (plan/estimates.py counts them). An entry
  shows a term only when its title or slug carries it, so these rows see the words of a
  topic well and the words of prose (``shown``, ``found``, ``includ``) hardly at all;
* the pages the search ranks (and, in a process that keeps them, the pages earlier
  searches read): whole texts, but chosen for the query's words.

The estimate joins both as likelihoods. A term is in a share ``p`` of the collection's
pages, and a page that holds it shows it in its listed entry with probability ``r`` (its
*title visibility*). The ``k`` of ``N`` described entries that carry it are binomial in
``p * r``; the ranked pages that hold it, and which of them carry it in their title, say
how visible it is (``r``, with a Beta prior around the pages' own share of title words);
the ``s`` of the ``n`` ranked pages that hold it are binomial in ``p``, each counted as
``SAMPLE_WEIGHT`` of a page drawn at random, because the search chose them. The share is
the maximum a posteriori ``p``: a topic word the entries show often keeps the rarity they
give it however many read pages hold it; a prose word that no entry shows but many read
pages hold, with none in their titles, is common (small ``r``, large ``p``). With no
description at all the estimate is the ranked pages' own document frequency, as before.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

# What one ranked page says of the collection's frequency of a term, against a page drawn
# at random: the search chose its pages for the query's words. Chosen with
# ``PRIOR_STRENGTH`` by re-ranking the pages searches of the Cranfield and HeQ worlds read
# (benchmarks/statistics_fit.py).
SAMPLE_WEIGHT = 0.25
# Pseudo-pages of the prior on a term's title visibility, whose mode is the ranked pages'
# share of title words.
PRIOR_STRENGTH = 4.0
# Title visibilities tried first (log-spaced, 1/1000 to 0.999): the likelihood is
# maximised in closed form over the share for each, the best refined.
_LOG_VISIBILITY = tuple(math.log(10 ** (-3 + 3 * i / 15) * 0.999) for i in range(16))
_GOLDEN = (math.sqrt(5) - 1) / 2


class Background(NamedTuple):
    """What the sources publish as term statistics: ``df`` described entries carrying each
    term, of ``entries`` described entries in all (plan/estimates.py)."""

    df: Mapping[str, float]
    entries: float


@dataclass(frozen=True)
class Observed:
    """What the ranked pages show of one term: ``pages`` of ``ranked`` pages hold it,
    ``titled`` of those in their title."""

    pages: int
    titled: int
    ranked: int


def lucene_idf(df: float, n: float) -> float:
    """Lucene's idf, ``log(1 + (n - df + 0.5) / (df + 0.5))``: positive however common."""
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def title_share(pages: Iterable[tuple[int, int]]) -> float:
    """The share of a page's distinct terms its title carries, pooled over ``pages``
    (each ``(distinct terms, of them in the title)``): the prior of a term's visibility."""
    held = titled = 0
    for distinct, in_title in pages:
        held += distinct
        titled += in_title
    if not held:
        return 0.1
    return min(0.9, max(0.01, titled / held))


def _share_given(r: float, k: float, n_rows: float, s: float, n: float, w: float) -> float:
    """The ``p`` maximising ``k log(pr) + (N-k) log(1-pr) + w s log p + w (n-s) log(1-p)``
    for a fixed ``r``: the root in (0, 1) of the quadratic its derivative gives."""
    a = k + w * s
    miss = n_rows - k
    neg = w * (n - s)
    if a <= 0:
        return 0.0
    a2 = r * (a + miss + neg)
    a1 = -(a * (1 + r) + miss * r + neg)
    if a2 <= 0:
        return min(1.0, -a / a1) if a1 < 0 else 1.0
    disc = max(0.0, a1 * a1 - 4 * a2 * a)
    p = (-a1 - math.sqrt(disc)) / (2 * a2)
    return min(1.0, max(0.0, p))


def collection_share(observed: Observed, rows: float, entries: float, prior: float, *,
                     sample_weight: float | None = None, strength: float | None = None) -> float:
    """The estimated share of the collection's pages holding the term (module text): the
    posterior's mode, over a log-spaced grid of title visibilities refined by golden-section
    search around the best."""
    s, th, n = observed.pages, observed.titled, observed.ranked
    k = min(rows, entries)
    w = SAMPLE_WEIGHT if sample_weight is None else sample_weight
    strength = PRIOR_STRENGTH if strength is None else strength
    alpha = 1.0 + strength * prior
    beta = 1.0 + strength * (1.0 - prior)

    def fit(log_r: float) -> tuple[float, float]:
        r = math.exp(log_r)
        p = _share_given(r, k, entries, s, n, w)
        if p <= 0.0:
            return -math.inf, 0.0
        q = p * r
        ll = (k * math.log(q) if k else 0.0) + (entries - k) * math.log(max(1e-300, 1.0 - q))
        ll += w * (s * math.log(p) + ((n - s) * math.log(max(1e-300, 1.0 - p)) if n > s else 0.0))
        ll += (th + alpha - 1.0) * math.log(r) + (s - th + beta - 1.0) * math.log(1.0 - r)
        return ll, p

    grid = [fit(x) for x in _LOG_VISIBILITY]
    best = max(range(len(grid)), key=lambda i: grid[i][0])
    if grid[best][0] == -math.inf:
        share = 0.0
    else:
        lo = _LOG_VISIBILITY[max(0, best - 1)]
        hi = _LOG_VISIBILITY[min(len(grid) - 1, best + 1)]
        a, b = hi - _GOLDEN * (hi - lo), lo + _GOLDEN * (hi - lo)
        fa, fb = fit(a)[0], fit(b)[0]
        for _ in range(16):  # golden section: the bracket shrinks to 1/2000 of two grid steps
            if fa >= fb:
                hi, b, fb = b, a, fa
                a = hi - _GOLDEN * (hi - lo)
                fa = fit(a)[0]
            else:
                lo, a, fa = a, b, fb
                b = lo + _GOLDEN * (hi - lo)
                fb = fit(b)[0]
        refined = fit((lo + hi) / 2)
        share = refined[1] if refined[0] >= grid[best][0] else grid[best][1]
    # never rarer than one page in the described and ranked collection together
    floor = 0.5 / (entries + n) if entries + n else 0.5
    return min(1.0, max(share, floor))


def collection_idf(terms: Iterable[str], observed: Mapping[str, Observed], background: Background | None,
                   prior: float) -> dict[str, float]:
    """Each term's idf from its estimated share of the collection (``lucene_idf`` over as
    many pages as were described and ranked). Without a background, the ranked pages'
    own Lucene idf."""
    out: dict[str, float] = {}
    for term in set(terms):
        seen = observed.get(term) or Observed(0, 0, _ranked(observed))
        if background is None or background.entries <= 0:
            out[term] = lucene_idf(seen.pages, seen.ranked)
            continue
        share = collection_share(seen, background.df.get(term, 0.0), background.entries, prior)
        size = background.entries + seen.ranked
        out[term] = lucene_idf(share * size, size)
    return out


def _ranked(observed: Mapping[str, Observed]) -> int:
    return next((o.ranked for o in observed.values()), 0)


def observe(token_sets: Sequence[set[str]], title_sets: Sequence[set[str]], terms: Iterable[str]
            ) -> dict[str, Observed]:
    """What ``token_sets`` (each ranked page's query terms) and ``title_sets`` (those in its
    title) show of each term."""
    n = len(token_sets)
    pages: dict[str, int] = dict.fromkeys(terms, 0)
    titled: dict[str, int] = dict.fromkeys(pages, 0)
    for held, title in zip(token_sets, title_sets, strict=True):
        for t in held:
            if t in pages:
                pages[t] += 1
                if t in title:
                    titled[t] += 1
    return {t: Observed(pages[t], titled[t], n) for t in pages}
