"""The declared shape of every record the fleet reads back from Redis.

A record is parsed and checked in one pass (pydantic's JSON parser: nesting deeper than a
few hundred levels is a validation error, not a ``RecursionError``): exact fields, their
types (strict: ``"12345"`` is no integer and ``12345`` no string), lengths, ranges, and
finite numbers only (``1e999`` and a 400-digit float are refused, not ``inf`` or an
``OverflowError``). :func:`parse` returns the model or raises
:class:`~lightsearch.fleet.integrity.Misfit`; it never raises anything else.

The bounds are the largest a record this code writes can hold (a value larger than its
namespace's byte bound is never even fetched, see :mod:`lightsearch.fleet.store`).
"""

from __future__ import annotations

from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from lightsearch.documents.robots_digest import MAX_TEXT_BYTES as ROBOTS_TEXT
from lightsearch.fleet.integrity import Misfit

M = TypeVar("M", bound=BaseModel)

MAX_URL = 8192
MAX_STAMP = 64
MAX_NAME = 512
MAX_TEXT = 32 * 1024 * 1024
#: A wall-clock time a record may carry: finite, and before the year 10000.
MAX_EPOCH = 253_402_300_799.0

Url = Annotated[str, Field(min_length=1, max_length=MAX_URL, pattern=r"^[hH][tT][tT][pP][sS]?://")]
Stamp = Annotated[str, Field(max_length=MAX_STAMP)]
Name = Annotated[str, Field(max_length=MAX_NAME)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]
Epoch = Annotated[float, Field(ge=0.0, le=MAX_EPOCH)]


class Record(BaseModel):
    """Strict, exact, finite: the shape every fleet record is declared with."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class DocumentRecord(Record):
    url: Url
    source_id: Name
    title: Annotated[str, Field(max_length=65536)]
    text: Text
    retrieved_at: Stamp
    language: Annotated[str, Field(max_length=35)] | None = None
    published_at: Stamp | None = None
    modified_at: Stamp | None = None
    original_url: Url | None = None
    status: Annotated[int, Field(ge=100, le=599)] = 200
    partial: bool = False
    discovered_via: Annotated[str, Field(max_length=32)] = "page"
    expires_at: Epoch


class ResponseRecord(Record):
    url: Url
    status: Annotated[int, Field(ge=100, le=599)]
    headers: Annotated[dict[Annotated[str, Field(max_length=256)],
                            Annotated[list[Annotated[str, Field(max_length=16384)]], Field(max_length=64)]],
                       Field(max_length=256)]
    body: Text  # base64
    retrieved_at: Stamp
    expires_at: Epoch


class RulesRecord(Record):
    verdict: Annotated[str, Field(pattern=r"^(rules|allow|block)$")]
    text: Annotated[str, Field(max_length=ROBOTS_TEXT)]  # a digest (documents/robots_digest.py)
    detail: Annotated[str, Field(max_length=4096)]
    cause: Annotated[str, Field(max_length=64)]
    reason: Annotated[str, Field(max_length=64)]
    expires_at: Epoch
    agent: Annotated[str, Field(max_length=MAX_NAME)] = ""


class SiteRecord(Record):
    """What a search learned of a site probed on the spot (cache/site_entries.py checks the rest:
    every URL on the site's own origins, each description's shape)."""

    domain: Annotated[str, Field(min_length=1, max_length=253)]
    seed: Url
    feeds: Annotated[list[Url], Field(max_length=4)]
    sitemaps: Annotated[list[Url], Field(max_length=16)]
    language: Annotated[str, Field(max_length=8)]
    probed: Stamp
    documents: Annotated[list[dict[str, Any]], Field(max_length=16)]
    expires_at: Epoch


class SuspensionRecord(Record):
    reason: Annotated[str, Field(max_length=64)]
    until: Epoch
    failures: Annotated[int, Field(ge=1, le=1_000_000)]


class AnswerEnvelope(Record):
    """A cached search answer: the answer's own shape is the engines' to declare
    (:mod:`lightsearch.providers.engines.answers`); here only its frame."""

    answer: dict[str, Any]
    stored: Epoch
    expires: Epoch


def parse(model: type[M], raw: bytes) -> M:
    """``raw`` JSON as ``model``, or :class:`Misfit` (``json`` or ``shape``)."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        kinds = {e.get("type") for e in exc.errors(include_url=False, include_context=False, include_input=False)}
        raise Misfit("json" if "json_invalid" in kinds else "shape") from None
    except Exception:  # whatever else hostile bytes provoke: still a misfit, never a raise
        raise Misfit("json") from None
