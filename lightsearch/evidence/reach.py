"""Reach: how much of what the search's frontier judged likely relevant the search read.

The measures of the hits (ranking/rank.py) say how much of the query the pages read carry;
they cannot see a relevant page that was never read. The frontier can: it scored every
candidate the sources named (titles, slugs, feed items, plan/candidates.py) against the
query, read or not. A search that read its best candidates has seen what its sources
offered; one that left better-scored candidates unread may have missed the answer.

:func:`reach_of` takes the frontier's final candidate scores and the URLs the ranking saw
(pages read by this search and records of earlier ones joining it) and keeps the best
``TOP`` candidates by score, each with whether it was read. From them:

- :attr:`Reach.read_share`: the share of the best ``k`` candidates' score mass read, 0..1
  (1 when every one of them was read; none scored: 1, nothing was left unread);
- :attr:`Reach.unread_lead`: how far the best unread candidate outscores the best read
  one, 0..1 (0 when none does);
- :attr:`Reach.best`: the best candidate's score, 0..1 (how much of the query the
  sources' own descriptions of their pages carry at all);
- :attr:`Reach.pages`: how many pages the ranking saw (read by this search, and records
  of earlier searches joining it): the larger the sample, the likelier it holds a
  relevant page;
- :attr:`Reach.kept`: how many of them the ranking kept as hits (they carry something of
  the query besides function words and score at least a fraction of its best hit,
  ranking/rank.py): few kept of many seen, the best hits stand out from the sample.
  Reported for fitting coverage (``benchmarks/coverage_fit.py``, ``selective``); the
  score does not weigh it (docs/EVALUATION.md says why);
- :attr:`Reach.hits`: the frontier's score of each hit shown (0 for a hit it never
  scored, a record of an earlier search), to set the hits beside the best candidate.

Every measure is bounded to 0..1; ``read_share`` does not fall when another candidate is
read, ``unread_lead`` does not rise.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from lightsearch.documents.urlkey import canonical_url

# How many of the best candidates are kept (what the envelope's meta reports).
TOP = 20
# How many of the best candidates ``read_share`` weighs.
SHARE_OF = 10


@dataclass(frozen=True)
class Reach:
    """The best candidates of a search's frontier, best first: (score in 0..1, read)."""

    top: tuple[tuple[float, bool], ...] = ()
    hits: tuple[float, ...] = ()
    scored: int = 0  # candidates sharing a term with the query
    pages: int = 0  # pages the ranking saw
    kept: int = 0  # of them, kept as hits

    def read_share(self, k: int = SHARE_OF) -> float:
        first = self.top[:k]
        mass = sum(score for score, _ in first)
        if mass <= 0:
            return 1.0
        return min(1.0, sum(score for score, read in first if read) / mass)

    @property
    def unread_lead(self) -> float:
        best_read = max((s for s, read in self.top if read), default=0.0)
        best_unread = max((s for s, read in self.top if not read), default=0.0)
        return max(0.0, min(1.0, best_unread - best_read))

    @property
    def best(self) -> float:
        return max(0.0, min(1.0, self.top[0][0])) if self.top else 0.0

    def as_dict(self) -> dict[str, object]:
        """``meta.lightSearch.reach``: the measures and the best candidates."""
        return {"readShare": round(self.read_share(), 4), "unreadLead": round(self.unread_lead, 4),
                "best": round(self.best, 4), "top": [[round(s, 4), int(r)] for s, r in self.top],
                "hits": [round(s, 4) for s in self.hits], "scored": self.scored,
                "pages": self.pages, "kept": self.kept}


def _key(url: str) -> str:
    try:
        return canonical_url(url)
    except ValueError:  # a URL w3lib cannot read is its own key
        return url


def reach_of(scores: Mapping[str, float], read: Iterable[str], hits: Iterable[str] = (),
             pages: int = 0, top: int = TOP, kept: int = 0) -> Reach:
    """The frontier's ``scores`` (candidate URL -> score) against the URLs ``read``, and
    the scores of the ``hits`` shown (their URLs, best first); ``pages``: how many pages
    the ranking saw, ``kept``: how many of them it kept as hits.

    A candidate is read when its canonical URL is among those read; scores outside 0..1
    (and NaN) are clipped; candidates scored 0 share nothing with the query and are left
    out. Ties keep the candidates read first, so a search is not judged by the order in
    which the frontier met equal candidates. Only the candidates scoring at least the
    ``top``-th best score are put in canonical form (a stream search scores thousands).
    """
    top = max(0, top)
    clipped: dict[str, float] = {}
    for url, score in scores.items():
        value = float(score)
        value = 0.0 if value != value else max(0.0, min(1.0, value))  # NaN: nothing known
        if value > 0:
            clipped[url] = value
    floor = heapq.nlargest(top, clipped.values())[-1] if 0 < top < len(clipped) else 0.0
    best: dict[str, float] = {}
    for url, value in clipped.items():
        if value >= floor:
            key = _key(url)
            best[key] = max(value, best.get(key, 0.0))
    seen = {_key(u) for u in read}
    ranked = sorted(((s, key in seen) for key, s in best.items()), key=lambda p: (-p[0], not p[1]))
    shown = tuple(clipped.get(u) or best.get(_key(u), 0.0) for u in hits)
    return Reach(tuple(ranked[:top]), shown, scored=len(clipped), pages=max(0, int(pages)), kept=max(0, int(kept)))
