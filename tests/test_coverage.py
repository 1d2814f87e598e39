"""Coverage: evidence quality from what was retrieved; snippet-only is at most weak."""

from __future__ import annotations

from lightsearch.documents import Document
from lightsearch.evidence.coverage import coverage
from lightsearch.evidence.model import Evidence
from lightsearch.providers.light_result import light_evidence
from lightsearch.ranking.rank import rank_documents
from lightsearch.ranking.tokenize import tokenize


def ev(i: int, *, content: bool, matched: float | None = 1.0, source: str | None = None) -> Evidence:
    return Evidence(title=f"Europa Clipper {i}", url=f"https://x.test/{i}", source=source or f"s{i}",
                    snippet="Europa Clipper flyby", content="Europa Clipper flyby. " * 20 if content else None,
                    matched=matched, retrieval="fetched" if content else "search_result")


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
    assert coverage(hits)["level"] == "strong"  # 0.5 + 0.1 + 0.2 = 0.8


def test_partial_and_weak_levels():
    # One source, one page, half the terms: 0.25 + 0.1 + 0.1 = 0.45.
    assert coverage([ev(0, content=True, matched=0.5, source="a")]) == {"score": 0.45, "level": "partial"}
    # Content but no term found: 0 + 0.1 + 0.1.
    assert coverage([ev(0, content=True, matched=0.0, source="a")])["level"] == "weak"


def test_match_is_computed_from_the_hit_text_when_the_provider_has_none():
    hits = [ev(0, content=False, matched=None)]
    assert coverage(hits, tokenize("europa clipper"))["score"] == 0.3  # capped: snippet only
    assert coverage(hits, tokenize("walrus tusk"))["score"] == 0.1  # 0 match + 0.1 breadth


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
