"""The one HTTP limits policy (crawl/http_limits.py): read from the settings, strictly for a
crawl and leniently for an API client, and a body's layers decoded within a bound."""

from __future__ import annotations

import gzip
import zlib

import pytest

from lightsearch.config import make_settings
from lightsearch.crawl.failures import ResponseRefused
from lightsearch.crawl.http_limits import (
    DecodingRefused,
    HttpLimits,
    decode_layers,
    refuse_stacked_encodings,
)


def test_the_policy_is_the_settings_and_a_bad_value_never_stops_an_api_client():
    settings = make_settings({"LIGHT_RESPONSE_MAX_HEADERS": 20, "LIGHT_RESPONSE_MAX_ENCODINGS": 3})
    assert HttpLimits.from_settings(settings) == HttpLimits(max_headers=20, max_encodings=3)
    bad = make_settings({"LIGHT_RESPONSE_MAX_HEADERS": "lots", "LIGHT_RESPONSE_MAX_HEADER_BYTES": 1})
    with pytest.raises(ValueError, match="lots"):
        HttpLimits.from_settings(bad)
    assert HttpLimits.from_settings(bad, strict=False) == HttpLimits()


def test_layers_are_decoded_within_the_bound_and_a_bomb_stops_there():
    body = b"peat " * 1000
    assert decode_layers(gzip.compress(zlib.compress(body)), ["deflate", "gzip"], 10_000) == body
    with pytest.raises(DecodingRefused) as info:
        decode_layers(gzip.compress(b"\0" * 10_000_000), ["gzip"], 10_000)
    assert info.value.reason == "too_large"
    with pytest.raises(DecodingRefused) as info:
        decode_layers(body, ["br"], 10_000)
    assert info.value.reason == "encoding"


def test_stacked_encodings_over_the_limit_are_refused_across_lines():
    refuse_stacked_encodings([b"gzip", b"gzip"], 2)
    with pytest.raises(ResponseRefused) as info:
        refuse_stacked_encodings([b"gzip, gzip", b"deflate"], 2)
    assert info.value.reason == "encoding_layers"
