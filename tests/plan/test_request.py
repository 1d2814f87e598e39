import pytest

from lightsearch.errors import LightSearchError
from lightsearch.plan.request import build_request


@pytest.mark.parametrize(
    ("kwargs", "bound"),
    [
        ({"query": ""}, "non_empty"),
        ({"query": "   \n\t "}, "non_empty"),
        ({"query": None}, "non_empty"),
        ({"query": "x" * 401}, "max_chars"),
        ({"query": " ".join(["word"] * 51)}, "max_words"),
        ({"query": 42}, "type"),
        ({"query": [b"bytes"]}, "type"),
        ({"queries": ["a", "b", "c", "d", "e", "f"]}, "max_queries"),
        ({"queries": []}, "max_queries"),
        ({"query": "ok", "max_results": 0}, "maxResults"),
        ({"query": "ok", "max_results": 21}, "maxResults"),
        ({"query": "ok", "max_results": "5"}, "maxResults"),
        ({"query": "ok", "recency": "decade"}, "recency"),
    ],
)
def test_bad_input_names_the_bound(kwargs, bound):
    with pytest.raises(LightSearchError) as info:
        build_request(**kwargs)
    assert info.value.code == "invalid_input"
    assert info.value.details["bound"] == bound
    assert info.value.to_dict()["error"]["message"]


def test_limits_are_inclusive():
    req = build_request(" ".join(["w"] * 50), max_results=20, recency="week")
    assert len(req.queries[0].split()) == 50
    assert build_request("x" * 400).queries == ("x" * 400,)


def test_queries_are_normalised_and_deduplicated():
    req = build_request(queries=["  solar   power ", "solar power", "wind"])
    assert req.queries == ("solar power", "wind")


def test_the_query_is_tokenized_once_into_the_request():
    """Selection, the crawl, ranking and the envelope read ``request.terms``."""
    from lightsearch.ranking.tokenize import tokenize

    request = build_request(queries=["Solar panels in Eilat", "חשמל סולארי"])
    assert request.terms == tuple(tuple(tokenize(q)) for q in request.queries)
    assert request.all_terms == {t for q in request.queries for t in tokenize(q)}
    assert request.terms[0]  # a real query has terms
