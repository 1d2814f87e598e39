"""DuckDuckGo's result pages read in one walk (documents/serp.py): the recorded pages read
as before, and hostile ones (thousands of result links, snippets far from their links,
nested blocks, long titles) within the caps, each element visited once."""

from __future__ import annotations

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lightsearch.documents.pagescan import MAX_ELEMENTS, parse_page
from lightsearch.documents.serp import MAX_RESULTS, MAX_TEXT_CHARS, read_ddg
from tests.conftest import shared_data

PROPERTY = settings(max_examples=15, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def recorded(*parts: str) -> str:
    return shared_data("search-provider-responses", *parts).read_text("utf-8", "replace")


def lite_page(links: int, snippets_every: int = 1, title: str = "t") -> str:
    rows = []
    for i in range(links):
        rows.append(f"<tr><td><a rel='nofollow' href='//duckduckgo.com/l/?uddg=https%3A%2F%2Fr{i}.test%2F'"
                    f" class='result-link'>{title} {i}</a></td></tr>")
        if i % snippets_every == 0:
            rows.append(f"<tr><td class='result-snippet'>snippet {i}</td></tr>")
    return "<html><body><form><input name=q></form><table>" + "".join(rows) + "</table></body></html>"


def test_the_recorded_lite_page():
    page = read_ddg(recorded("duckduckgo_lite", next(p.name for p in shared_data(
        "search-provider-responses", "duckduckgo_lite").iterdir() if p.suffix == ".html")), lite=True)
    assert page.blocks == len(page.results) == 10
    assert all(r.href and r.title and r.snippet for r in page.results)
    assert "search_form" in page.markers


def test_each_lite_link_gets_the_first_snippet_after_it():
    page = read_ddg(lite_page(6, snippets_every=3), lite=True)
    assert [r.snippet for r in page.results] == ["snippet 0", "snippet 3", "snippet 3", "snippet 3", "", ""]


@PROPERTY
@given(st.integers(0, 2_000), st.integers(1, 50), st.sampled_from(["t", "long " * 2000]))
@example(14_000, 1, "t")  # a lite answer of 1 MiB: 14,000 links
def test_a_lite_page_is_read_in_one_walk(links, every, title):
    html = lite_page(links, every, title)
    page = read_ddg(html, lite=True)
    assert page.visited == min(sum(1 for _ in parse_page(html).iter()), MAX_ELEMENTS + 1)
    assert page.blocks <= links
    assert len(page.results) == min(links, MAX_RESULTS, page.blocks)
    assert all(len(r.title) <= MAX_TEXT_CHARS and len(r.snippet) <= MAX_TEXT_CHARS for r in page.results)


@PROPERTY
@given(st.integers(0, 3000), st.booleans())
@example(2000, True)
def test_an_html_page_with_nested_or_many_blocks(blocks, nested):
    block = ('<div class="result results_links"><a class="result__a" href="https://h.test/{i}">T{i}</a>'
             '<a class="result__snippet">S{i}</a>')
    html = "<html><body><div id=links>" + "".join(block.format(i=i) + ("" if nested else "</div>")
                                                 for i in range(blocks))
    page = read_ddg(html, lite=False)
    assert len(page.results) <= MAX_RESULTS
    assert "results_list" in page.markers
    for result in page.results:
        assert result.href is not None
        assert result.title.startswith("T")
        assert result.snippet.startswith("S")


def test_markers_of_a_challenge_and_a_shell():
    assert "challenge" in read_ddg('<form id="challenge-form"><input name=q></form>', lite=False).markers
    assert "shell" in read_ddg('<div id="react-root-zci"></div>', lite=False).markers
    assert "no_results" in read_ddg('<div class="no-results">No results.</div>', lite=False).markers
    assert read_ddg("<html><body><p>No</p><p>results</p></body></html>", lite=True).text == "No results"
