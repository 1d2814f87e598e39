"""What an engine search found, before it is rendered: the record the search cache keeps.

The cache never keeps an envelope. An envelope holds the model text with its fence token,
and receipts sized for that text; served again, the same token would reach every caller
of the cache, and whatever the stored text said (a planted ``SYSTEM OVERRIDE``, a record
written into a shared Redis) would be the model text. The cache keeps this record, and a
hit is rendered from it through the one envelope, as a fresh answer is: a fresh fence
token, every field cleaned, receipts computed from the text actually returned.

A record read back from a cache is untrusted (the fleet's Redis, or an engine's answer
kept in memory): :func:`answer_from_record` checks it against :class:`AnswerRecord`, a
declared shape (strict types, lengths, counts, finite numbers), and returns None for one
that does not fit. The cache key (:func:`configuration`) says everything that changes the
answer, so two configurations never see each other's answers.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from scrapy.settings import BaseSettings
from scrapy.utils.misc import load_object

from lightsearch.providers.engines import ENGINES
from lightsearch.providers.engines.base import EngineHit, digest, resolve_key

#: Settings that never change what an answer says: where shared state lives, how long
#: answers are kept, how callers are limited and served.
NOT_IN_ANSWER = ("FLEET_", "WEB_SEARCH_CACHE", "WEB_SEARCH_SUSPENSION", "WEB_TOOLS_", "WEB_RETRIEVAL_",
                 "WEB_INVOKE_", "WEB_SERVE_")
ANSWER_PREFIXES = ("LIGHT_", "WEB_", "BRAVE_", "RESULT_")

Scalar = Annotated[str, Field(max_length=8192)] | int | float | bool | None
Short = Annotated[str, Field(max_length=64)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False, frozen=True)


class HitRecord(_Strict):
    title: Annotated[str, Field(max_length=8192)]
    url: Annotated[str, Field(min_length=1, max_length=8192)]
    snippet: Annotated[str, Field(max_length=65536)] = ""
    published_at: Annotated[str, Field(max_length=64)] | None = None
    source_name: Annotated[str, Field(max_length=1024)] | None = None
    content: Annotated[str, Field(max_length=1 << 20)] = ""
    engines: Annotated[list[Short], Field(max_length=32)] = []
    extra: Annotated[dict[Short, Scalar], Field(max_length=32)] = {}
    score: Annotated[float, Field(ge=-1e9, le=1e9)] = 0.0


class EngineRecord(_Strict):
    status: Short
    ms: Annotated[int, Field(ge=0, le=10**9)]
    count: Annotated[int, Field(ge=0, le=10**6)]
    error: Annotated[dict[Short, Scalar], Field(max_length=32)] | None = None


class AnswerRecord(_Strict):
    provider: Annotated[str, Field(max_length=64, pattern=r"^[A-Za-z0-9_.\-]+$")]
    hits: Annotated[list[HitRecord], Field(max_length=100)]
    notes: Annotated[list[Annotated[str, Field(max_length=4096)]], Field(max_length=64)]
    engines: Annotated[dict[Short, EngineRecord], Field(max_length=64)]
    elapsed_ms: Annotated[int, Field(ge=0, le=10**9)]


@dataclass
class Answer:
    """One engine search's findings: who answered, the fused hits, notes, how each engine did."""

    provider: str
    hits: list[EngineHit]
    notes: list[str]
    engines: dict[str, dict[str, Any]] = field(default_factory=dict)
    elapsed_ms: int = 0

    def to_record(self) -> dict[str, Any]:
        """A JSON-able copy for a cache (nothing shared with this object)."""
        hits = [{"title": h.title, "url": h.url, "snippet": h.snippet, "published_at": h.published_at,
                 "source_name": h.source_name, "content": h.content, "engines": list(h.engines),
                 "extra": {k: v for k, v in h.extra.items() if _scalar(v)}, "score": float(h.score)}
                for h in self.hits]
        return json.loads(json.dumps({"provider": self.provider, "hits": hits, "notes": list(self.notes),
                                      "engines": self.engines, "elapsed_ms": int(self.elapsed_ms)},
                                     ensure_ascii=False, default=str))


def _scalar(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def answer_from_record(record: Any) -> Answer | None:
    """The answer a cached record holds, or None when it does not fit :class:`AnswerRecord`."""
    try:
        data = AnswerRecord.model_validate(record)
    except ValidationError:
        return None
    except Exception:  # a record is untrusted: whatever it provokes is a misfit, not an error
        return None
    hits = [EngineHit(title=h.title, url=h.url, snippet=h.snippet, published_at=h.published_at,
                      source_name=h.source_name, content=h.content, engines=list(h.engines),
                      extra=dict(h.extra), score=h.score) for h in data.hits]
    engines = {name: e.model_dump(exclude_none=True) for name, e in data.engines.items()}
    return Answer(data.provider, hits, list(data.notes), engines, data.elapsed_ms)


def configuration(settings: BaseSettings, environ: Any = None) -> str:
    """A digest of every setting that can change an answer: endpoints, the engine set and
    weights, regions, the result bounds, the host map, Light's catalog, and each engine's
    key (as its own digest: no key reaches a cache key). Two configurations in one process
    or one fleet share answers only when this is equal."""
    values = {k: digest(v) if k.endswith(("_KEY", "_TOKEN")) else v for k, v in settings.copy_to_dict().items()
              if k.startswith(ANSWER_PREFIXES) and not k.startswith(NOT_IN_ANSWER)}
    values["USER_AGENT"] = settings.get("USER_AGENT")
    for path in set(ENGINES.values()):
        cls = load_object(path)
        if cls.key_setting:
            values[cls.key_setting] = digest(resolve_key(settings, environ, cls.key_setting, cls.key_env))
    raw = json.dumps(values, sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()
