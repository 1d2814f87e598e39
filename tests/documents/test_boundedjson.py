"""JSON answers cut to a bounded shape (documents/boundedjson.py): whatever an API sends,
what is handed on holds at most MAX_VALUES values, lists of MAX_ITEMS, strings of
MAX_STRING characters, MAX_DEPTH levels; an answer inside the bounds comes back whole."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lightsearch.documents.boundedjson import (
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_LOADED,
    MAX_STRING,
    MAX_VALUES,
    cut,
    load_bounded,
)
from lightsearch.errors import LightSearchError
from tests.conftest import shared_data

PROPERTY = settings(max_examples=30, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def shape(value, depth=0):
    """(values, deepest level, longest list, longest string or key) of a JSON value."""
    if isinstance(value, list):
        inner = [shape(v, depth + 1) for v in value]
        return (1 + sum(i[0] for i in inner), max([depth] + [i[1] for i in inner]),
                max([len(value)] + [i[2] for i in inner]), max([0] + [i[3] for i in inner]))
    if isinstance(value, dict):
        inner = [shape(v, depth + 1) for v in value.values()]
        return (1 + len(value) + sum(i[0] for i in inner), max([depth] + [i[1] for i in inner]),
                max([0] + [i[2] for i in inner]), max([0] + [len(k) for k in value] + [i[3] for i in inner]))
    return 1, depth, 0, len(value) if isinstance(value, str) else 0


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20)
                     | st.builds(lambda n: "x" * n, st.sampled_from([0, MAX_STRING + 5])),
                     lambda inner: st.lists(inner, max_size=250) | st.dictionaries(st.text(max_size=8), inner, max_size=30),
                     max_leaves=400)


@PROPERTY
@given(_JSON)
def test_what_is_handed_on_is_bounded(value):
    bounded(value)


def test_wide_and_deep_answers_are_cut_at_their_bounds():
    bounded(json.loads(b"[" + b",".join([b"[[[[[[[[[[]]]]]]]]]]"] * 20_000) + b"]"))  # 400 KiB of small arrays
    bounded({f"k{i}": 0 for i in range(200_000)})
    bounded(json.loads("[" * 500 + "]" * 500))


def bounded(value):
    out = cut(value)
    values, depth, longest_list, longest_string = shape(out.value)
    assert values <= MAX_VALUES + MAX_DEPTH
    assert depth <= MAX_DEPTH
    assert longest_list <= MAX_ITEMS
    assert longest_string <= MAX_STRING
    if not out.cut:
        assert out.value == value


def test_real_answers_come_back_whole():
    root = shared_data("search-provider-responses")
    bodies = [p.read_bytes() for p in sorted(root.rglob("*.json")) if p.is_file()]
    assert bodies
    for body in bodies:
        out = load_bounded(body)
        assert not out.cut
        assert out.value == json.loads(body)


def test_a_body_that_would_make_too_many_objects_is_refused_unread():
    with pytest.raises(LightSearchError) as info:
        load_bounded(b"[" + b"0," * MAX_LOADED + b"0]")
    assert (info.value.code, info.value.details["reason"]) == ("too_large", "json_values")
    assert len(load_bounded(b"[" + b"0," * (MAX_LOADED - 2) + b"0]").value) == MAX_ITEMS


@pytest.mark.parametrize("body", [b"{", b"[" * 100_000, b"\xff", b"<html>"])
def test_what_is_not_json_is_a_parse_error(body):
    with pytest.raises(LightSearchError) as info:
        load_bounded(body)
    assert (info.value.code, info.value.details["reason"]) == ("parse_error", "unparseable")
