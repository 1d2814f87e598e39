"""Property tests of the shared-state record decoders: any bytes, any JSON, any valid
record with one field replaced by anything: a valid record or a counted drop, never an
exception (hostile Redis records: RecursionError, TypeError, OverflowError)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from lightsearch.cache.records import StoredResponse
from lightsearch.cache.robots import RobotsRules
from lightsearch.documents import Document
from lightsearch.fleet.integrity import Misfit, Seal
from lightsearch.fleet.link import FleetLink
from lightsearch.fleet.records import decode_document, decode_response
from lightsearch.fleet.robots import decode_rules
from lightsearch.fleet.searches import decode_answer
from lightsearch.fleet.shapes import SuspensionRecord, parse
from lightsearch.fleet.store import RedisStore
from lightsearch.providers.engines.answers import Answer, answer_from_record

NOW = time.time()
PROPERTY = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20)

VALID = {
    "document": {"url": "https://a.test/p", "source_id": "a", "title": "t", "text": "x", "retrieved_at": "",
                 "language": None, "published_at": None, "modified_at": None, "original_url": None, "status": 200,
                 "partial": False, "discovered_via": "page", "expires_at": NOW + 60},
    "response": {"url": "https://a.test/f", "status": 200, "headers": {"Content-Type": ["text/xml"]},
                 "body": "PHJzcy8+", "retrieved_at": "", "expires_at": NOW + 60},
    "rules": {"verdict": "rules", "text": "User-agent: *\nDisallow: /x", "detail": "", "cause": "", "reason": "",
              "expires_at": NOW + 60},
    "answer": {"answer": {"provider": "wikipedia", "hits": [], "notes": [], "engines": {}, "elapsed_ms": 1},
               "stored": NOW, "expires": NOW + 60},
    "suspension": {"reason": "captcha", "until": NOW + 60, "failures": 1},
}
DECODERS = {
    "document": (decode_document, Document),
    "response": (decode_response, StoredResponse),
    "rules": (decode_rules, RobotsRules),
    "answer": (decode_answer, tuple),
    "suspension": (lambda raw, now: parse(SuspensionRecord, raw), SuspensionRecord),
}
HOSTILE = [b"[" * 200_000, b'{"a": 1e999}', b'{"until": ' + b"9" * 400 + b"}", b"\xff\xfe", b"", b"null",
           b'{"text": 12345}', b'{"title": {"a": 1}}', b"9" * 5000]


def decodes_or_misfits(kind: str, raw: bytes) -> object:
    """The decoded value (of the decoder's type), or None for a Misfit; nothing else."""
    decode, cls = DECODERS[kind]
    try:
        value = decode(raw, NOW)
    except Misfit:
        return None
    assert isinstance(value, cls)
    return value


def check_document(value: Document) -> None:
    for name in ("url", "source_id", "title", "text", "retrieved_at", "discovered_via"):
        assert isinstance(getattr(value, name), str)
    assert isinstance(value.status, int)
    assert isinstance(value.expires_at, float)


@PROPERTY
@given(kind=st.sampled_from(sorted(DECODERS)), raw=st.binary(max_size=300))
@example(kind="document", raw=HOSTILE[0])
def test_any_bytes_decode_or_misfit(kind, raw):
    decodes_or_misfits(kind, raw)


@PROPERTY
@given(kind=st.sampled_from(sorted(DECODERS)), value=json_values)
def test_any_json_decodes_or_misfits(kind, value):
    decodes_or_misfits(kind, json.dumps(value, allow_nan=True).encode())


@PROPERTY
@given(kind=st.sampled_from(sorted(DECODERS)), data=st.data())
def test_a_valid_record_with_one_field_replaced(kind, data):
    record = dict(VALID[kind])
    field = data.draw(st.sampled_from(sorted(record)), label="field")
    record[field] = data.draw(json_values, label="value")
    value = decodes_or_misfits(kind, json.dumps(record, allow_nan=True).encode())
    if kind == "document" and value is not None:
        check_document(value)


def test_the_valid_records_decode():
    for kind, record in VALID.items():
        decode, cls = DECODERS[kind]
        assert isinstance(decode(json.dumps(record).encode(), NOW), cls)
    for raw in HOSTILE:
        for kind in DECODERS:
            decodes_or_misfits(kind, raw)


@PROPERTY
@given(record=json_values | st.fixed_dictionaries(
    {"provider": st.text(max_size=10), "hits": st.lists(json_values, max_size=3), "notes": json_values,
     "engines": json_values, "elapsed_ms": json_values}))
def test_any_cached_answer_record_is_an_answer_or_none(record):
    answer = answer_from_record(record)
    assert answer is None or isinstance(answer, Answer)


def test_an_answer_survives_its_record():
    from lightsearch.providers.engines.base import EngineHit

    hit = EngineHit(title="t", url="https://a.test/", snippet="s", engines=["wikipedia"],
                    extra={"points": 3, "bad": object()}, score=0.5)
    back = answer_from_record(Answer("wikipedia", [hit], ["n"], {"wikipedia": {"status": "ok", "ms": 1,
                                                                                "count": 1}}, 5).to_record())
    assert back.hits[0].title == "t"
    assert back.hits[0].extra == {"points": 3}  # what is not JSON is not kept
    assert back.engines["wikipedia"]["count"] == 1


# ------------------------------------------------------------------ the seal and the store's one door
@PROPERTY
@given(payload=st.binary(max_size=200), junk=st.binary(max_size=80), flip=st.integers(min_value=0, max_value=300))
def test_the_seal_opens_only_what_it_sealed(payload, junk, flip):
    seal = Seal("s" * 40, "p:")
    sealed = seal.seal("records", "doc:x", payload)
    assert seal.open("records", "doc:x", sealed) == payload
    tampered = bytearray(sealed)
    tampered[flip % len(tampered)] ^= 0x01
    for value, key in ((bytes(tampered), "doc:x"), (sealed, "doc:y"), (junk, "doc:x")):
        try:
            seal.open("records", key, value)
        except Misfit:
            continue
        raise AssertionError("a value that was not sealed for this key opened")
    with pytest.raises(Misfit, match="signature"):
        Seal("t" * 40, "p:").open("records", "doc:x", sealed)


@PROPERTY
@given(raw=st.binary(max_size=300) | json_values.map(lambda v: b"u1" + json.dumps(v, allow_nan=True).encode()))
@example(raw=b"u1" + b"[" * 200_000)
def test_the_stores_decoder_never_raises_and_counts(raw):
    link = FleetLink("redis://127.0.0.1:1/0", "prop:", 0.1, 1.0)  # never connects: _decode reads no Redis
    store = RedisStore(link, "records", 10, 1 << 20)
    value = store._decode(("doc:x", NOW + 60), raw, decode_document)
    assert value is None or isinstance(value, Document)
    assert (value is None) == (link.drops == 1)
    assert store._decode(("doc:x", NOW + 60), raw, decode_document) is value  # remembered either way
    assert link.drops <= 1  # a bad record is paid for once
