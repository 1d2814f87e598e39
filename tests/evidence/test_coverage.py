"""Coverage: evidence quality from what was retrieved; snippet-only is at most weak; the
level follows how much of the query the top hits carry, not how many there are."""

from __future__ import annotations

from lightsearch.documents import Document
from lightsearch.evidence.coverage import coverage
from lightsearch.evidence.model import Evidence
from lightsearch.providers.light import LightSearch
from lightsearch.providers.light_result import light_evidence
from lightsearch.ranking.rank import rank_documents
from lightsearch.ranking.tokenize import tokenize
from tests.conftest import coroutine_test


def ev(i: int, *, content: bool, matched: float | None = 1.0, source: str | None = None,
       weighted: float | None = None) -> Evidence:
    return Evidence(title=f"Europa Clipper {i}", url=f"https://x.test/{i}", source=source or f"s{i}",
                    snippet="Europa Clipper flyby", content="Europa Clipper flyby. " * 20 if content else None,
                    matched=matched, weighted=weighted, retrieval="fetched" if content else "search_result")


def test_empty_is_none():
    assert coverage([]) == {"score": 0.0, "level": "none"}


def test_content_rich_is_strong():
    cov = coverage([ev(i, content=True) for i in range(4)])
    assert cov == {"score": 1.0, "level": "strong"}


def test_snippet_only_is_at_most_weak_even_with_perfect_matches():
    cov = coverage([ev(i, content=False) for i in range(8)])
    assert cov["level"] == "weak"
    assert cov["score"] <= 0.3


def test_one_fetched_page_lifts_snippets_out_of_weak():
    hits = [ev(0, content=True)] + [ev(i, content=False) for i in range(1, 5)]
    assert coverage(hits)["level"] == "strong"


def test_partial_and_weak_levels():
    # the best hit carries 60% of the query, so do the next two: 0.6 * 0.6 + 0.4 * 0.6
    assert coverage([ev(i, content=True, matched=0.6) for i in range(3)]) == {"score": 0.6, "level": "partial"}
    # one hit carrying the whole query is strong evidence (one paragraph may answer it)
    assert coverage([ev(0, content=True), ev(1, content=True, matched=0.2)]) == {"score": 0.76, "level": "strong"}
    # many pages, many sources, but the best carries a third of the query: weak
    assert coverage([ev(i, content=True, matched=0.3) for i in range(8)])["level"] == "weak"
    assert coverage([ev(0, content=True, matched=0.0)])["level"] == "weak"


def test_the_idf_weighted_share_decides_when_the_provider_has_it():
    # half the words, but only the common ones: weak, though the plain share says partial
    hits = [ev(i, content=True, matched=0.5, weighted=0.2) for i in range(3)]
    assert coverage(hits)["level"] == "weak"
    hits = [ev(i, content=True, matched=0.5, weighted=0.9) for i in range(3)]
    assert coverage(hits)["level"] == "strong"


def test_match_is_computed_from_the_hit_text_when_the_provider_has_none():
    hits = [ev(0, content=False, matched=None)]
    assert coverage(hits, tokenize("europa clipper"))["score"] == 0.3  # capped: snippet only
    assert coverage(hits, tokenize("walrus tusk")) == {"score": 0.0, "level": "weak"}


def test_light_documents_carry_content_and_rank_matches():
    docs = [
        Document(url=f"https://nasa.test/{i}", source_id=src, title="Europa Clipper flyby",
                 text="Europa Clipper passes Earth in December. " * 40, retrieved_at="2026-12-01T00:00:00Z")
        for i, src in enumerate(["nasa", "npr", "nasa"])
    ]
    ranked = rank_documents(docs, ["europa clipper flyby"])
    evidence = light_evidence(ranked, {"nasa": "NASA"}, tokenize("europa clipper flyby"), 300)
    assert all(e.content and e.content_clipped for e in evidence)
    assert coverage(evidence)["level"] == "strong"


@coroutine_test
async def test_unrelated_pages_are_not_shown_as_evidence(offline_settings):
    """The offline catalog holds one page on Webb's exoplanet spectra; Wikipedia's coral reef
    and photosynthesis pages share only "atmosphere" with the query and score a tenth of it.
    They were shown as hits, under coverage "strong"."""
    result = await LightSearch.from_settings(offline_settings).search("james webb exoplanet atmosphere")
    titles = [h["title"] for h in result["hits"]]
    assert titles[0].startswith("How Webb Reads the Atmospheres")
    assert not any("Wikipedia" in t for t in titles)
    assert any("not shown as evidence" in n and "far below the best hit" in n for n in result["notes"])
    assert result["meta"]["lightSearch"]["counts"]["withheldFarBelow"] >= 2
    assert len(result["hits"]) == 1  # the one page that is about it, as evidence on its own


@coroutine_test
async def test_a_search_whose_best_evidence_is_unrelated_says_weak_and_tells_the_model(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search("volcanic ash aviation engine damage")
    assert result["hits"]  # a page sharing "engine" with the query, and nothing else of it
    assert result["coverage"]["level"] == "weak"
    assert "Coverage is weak: the best hits share little of what the query asks" in result["text"]


# ---------------------------------------------------------------- the calibrated score
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from lightsearch.evidence.coverage import STRONG_FROM, WEAK_BELOW, inputs, probability  # noqa: E402
from lightsearch.evidence.reach import reach_of  # noqa: E402

shares = st.floats(0.0, 1.0)
measured = st.tuples(shares, shares)  # strength, phrased
PAPERS = [f"https://journal.test/paper-{i}" for i in range(12)]


def light(i: int, strength: float, phrased: float) -> Evidence:
    return Evidence(title=f"t{i}", url=f"https://x.test/{i}", source="s", content="page text",
                    matched=1.0, weighted=1.0, strength=strength, phrased=phrased)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.lists(measured, min_size=1, max_size=5), st.integers(0, 4), st.integers(0, 1), st.floats(0.0, 1.0),
       st.integers(0, 2000), st.integers(0, 500))
def test_more_of_the_query_in_a_first_hit_or_more_pages_seen_never_lowers_the_score(hits, which, measure, more,
                                                                                     pages, extra):
    which %= len(hits)
    before = [light(i, *m) for i, m in enumerate(hits)]
    raised = list(hits[which])
    raised[measure] = min(1.0, raised[measure] + more)
    after = [light(i, *(raised if i == which else m)) for i, m in enumerate(hits)]
    seen = reach_of({}, [], pages=pages)
    p = probability(after, seen)
    assert p >= probability(before, seen)
    assert probability(after, reach_of({}, [], pages=pages + extra)) >= p
    assert all(0.0 <= x <= 1.0 for x in inputs(after, seen).values())
    cov = coverage(after, reach=seen)
    assert cov["score"] == round(p, 3)
    assert cov["level"] == ("weak" if p < WEAK_BELOW else "strong" if p >= STRONG_FROM else "partial")


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(st.dictionaries(st.sampled_from(PAPERS), st.floats(0.0, 1.0), max_size=12),
       st.sets(st.sampled_from(PAPERS)), st.sampled_from(PAPERS), measured)
def test_reading_another_candidate_never_lowers_the_score(pool, read, more, hit):
    evidence = [light(0, *hit)]
    assert probability(evidence, reach_of(pool, read | {more})) >= probability(evidence, reach_of(pool, read))


def test_hits_about_the_query_in_its_own_words_are_strong_and_a_stray_word_is_weak():
    about = [light(i, 1.0, 0.6) for i in range(3)]
    assert coverage(about)["level"] == "strong"
    stray = [light(0, 0.2, 0.0)]
    assert coverage(stray)["level"] == "weak"


def test_a_query_of_one_term_is_judged_by_the_hits_holding_it():
    """One term has no adjacent pairs: the hits' share of the term stands in for the wording."""
    held = [Evidence(title=f"t{i}", url=f"https://x.test/{i}", source="s", content="kubernetes",
                     matched=1.0, weighted=1.0, strength=0.9, phrased=0.0) for i in range(3)]
    assert coverage(held, ["kubernetes"])["level"] == "strong"
    assert coverage(held, ["kubernetes", "operator"])["level"] == "weak"  # two terms, no pair held


def test_a_search_that_left_its_best_candidates_unread_says_weak():
    """Fourteen papers read, the three shown carrying a little of the query's wording: as
    likely as not the answer. The same search, when the frontier's two best candidates
    (by the sources' titles) were left unread and what it read scored far below them,
    more likely missed it."""
    hits = [light(i, 0.6, phrased) for i, phrased in enumerate((0.12, 0.08, 0.05))]
    pool = {url: 0.9 - 0.05 * i for i, url in enumerate(PAPERS)}
    everything = reach_of(pool, PAPERS, pages=14)
    assert everything.unread_lead == 0.0
    assert coverage(hits, reach=everything)["level"] == "partial"
    left = reach_of({**pool, PAPERS[0]: 0.9, PAPERS[1]: 0.85, **dict.fromkeys(PAPERS[2:], 0.1)}, PAPERS[2:], pages=14)
    assert left.unread_lead > 0.7
    assert coverage(hits, reach=left)["level"] == "weak"


def test_snippets_only_stay_weak_whatever_the_measures_say():
    hits = [Evidence(title="t", url="https://x.test/0", source="s", strength=1.0, phrased=1.0)]
    assert coverage(hits) == {"score": 0.3, "level": "weak"}
