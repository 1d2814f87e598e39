"""Choose which catalog sources one invocation crawls.

A query in Hebrew script is answered from Hebrew sources and an English one from English
sources; topic words then rank the sources of that language, recency favours news, and
a diversity penalty keeps six sources from all being of one kind. The rank order is
kept: the crawl spends its first hops on the best-ranked sources.

What a source publishes decides more than its topic words when it is known: a source
described by its feeds, sitemaps and listing pages (cache/descriptions.py) gains up to
``description_weight`` points by its share of the likely relevant pages the described
sources of its language hold (plan/estimates.py, ReDDE's estimate over the entries they
name); the hand-written topic words stay as the prior, and decide alone for sources no
search has described yet.

Fewer sources than the bound are chosen when the scores say so: with 24 hops, robots.txt
and one or two discovery documents per source eat most of the budget, so a source scoring
under half of the best one costs more hops than it is likely to repay. At least
``min_sources`` are always kept, because topic words are a coarse guide.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lightsearch.plan.catalog import Catalog, Source
from lightsearch.plan.estimates import Estimates
from lightsearch.plan.request import SearchRequest
from lightsearch.ranking.tokenize import is_hebrew, tokenize

_KIND_PRIOR = {"reference": 1.0, "news": 0.6, "science": 0.4, "technology": 0.4, "government": 0.3}
_FRESH_RECENCY = {"hour", "day", "week"}
# Points a source gains by its share of the likely relevant pages of its language's
# described sources: four topic words' worth, so evidence of what it publishes outweighs
# a few hand-written words.
DESCRIPTION_WEIGHT = 8.0


@dataclass(frozen=True)
class SelectedSource:
    source: Source
    score: float
    rank: int


def _topic_terms(source: Source) -> set[str]:
    terms: set[str] = set()
    for topic in source.topics:
        terms.update(tokenize(topic))
    terms.update(tokenize(source.name))
    return terms


_HEBREW_WORD = re.compile(r"[\u05d0-\u05ea]{2,}")
_LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def query_languages(request: SearchRequest) -> set[str]:
    """A query with any Hebrew word is asked of Hebrew sources, and of English ones too when
    it also carries Latin words (a brand or a term of art inside a Hebrew question);
    majority script alone left "מה זה ChatGPT" with no source in a Hebrew catalog."""
    languages: set[str] = set()
    for q in request.queries:
        if _HEBREW_WORD.search(q) or is_hebrew(q):
            languages.add("he")
            if _LATIN_WORD.search(q):
                languages.add("en")
        else:
            languages.add("en")
    return languages


def score_source(source: Source, query_terms: set[str], recency: str | None) -> float:
    overlap = len(_topic_terms(source) & query_terms)
    score = 2.0 * overlap + _KIND_PRIOR.get(source.kind, 0.0)
    if recency in _FRESH_RECENCY and source.kind == "news":
        score += 3.0
    elif recency and source.kind == "news":
        score += 1.0
    return score


def _held(catalog: Catalog, languages: set[str], estimates: Estimates | None) -> dict[str, float]:
    """Each source's estimate of the likely relevant pages it holds. A source no search has
    described is credited with the mean of its language's described ones: unknown is not
    nothing, and one described source among undescribed ones must hold more than the
    average of what is known to gain on them (a few old feed titles matching a common word
    once lifted a source over one that held the answer)."""
    if estimates is None:
        return {}
    held: dict[str, float] = {}
    for lang in languages:
        pool = [s for s in catalog.sources if s.language == lang]
        known = {s.id: estimates.source(s.id) for s in pool if estimates.described.get(s.id)}
        prior = sum(known.values()) / len(known) if known else 0.0
        held.update({s.id: known.get(s.id, prior) for s in pool})
    return held


def select_sources(
    catalog: Catalog,
    request: SearchRequest,
    max_sources: int = 6,
    *,
    min_sources: int = 3,
    keep_ratio: float = 0.5,
    estimates: Estimates | None = None,
    description_weight: float = DESCRIPTION_WEIGHT,
) -> list[SelectedSource]:
    """Up to ``max_sources`` sources, best first, fair across the query languages."""
    languages = query_languages(request)
    query_terms = set(request.all_terms)
    pools: dict[str, list[tuple[float, Source]]] = {}
    held = _held(catalog, languages, estimates)
    most = {lang: max((held.get(s.id, 0.0) for s in catalog.sources if s.language == lang), default=0.0)
            for lang in languages}
    for source in catalog.sources:
        if source.language in languages:
            score = score_source(source, query_terms, request.recency)
            if most[source.language] > 0:
                score += description_weight * held.get(source.id, 0.0) / most[source.language]
            pools.setdefault(source.language, []).append((score, source))
    for pool in pools.values():
        pool.sort(key=lambda pair: (-pair[0], pair[1].id))
    chosen: list[tuple[float, Source]] = []
    kind_count: dict[str, int] = {}
    # Round-robin over languages; inside one, greedy with a penalty for a repeated kind.
    while len(chosen) < max_sources and any(pools.values()):
        for lang in sorted(pools):
            pool = pools[lang]
            if not pool or len(chosen) >= max_sources:
                continue
            best_i = max(
                range(len(pool)),
                key=lambda i: pool[i][0] - 1.5 * kind_count.get(pool[i][1].kind, 0),
            )
            score, source = pool.pop(best_i)
            kind_count[source.kind] = kind_count.get(source.kind, 0) + 1
            chosen.append((score, source))
    best: dict[str, float] = {}
    kept_per_lang: dict[str, int] = {}
    per_lang_min = max(1, -(-min_sources // max(1, len(pools))))
    kept: list[tuple[float, Source]] = []
    for score, source in chosen:
        lang = source.language
        best.setdefault(lang, score)
        if kept_per_lang.get(lang, 0) < per_lang_min or score >= keep_ratio * best[lang]:
            kept.append((score, source))
            kept_per_lang[lang] = kept_per_lang.get(lang, 0) + 1
    return [SelectedSource(source=s, score=sc, rank=i) for i, (sc, s) in enumerate(kept)]
