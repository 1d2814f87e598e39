"""What every engine shares: the query it is given, the hits it returns, one guarded
request with the retry rule (429/503 honour ``Retry-After``, capped and inside the
deadline), and the reading of its answer. An engine returns hits or raises a
:class:`ProviderError`; challenge pages, shells and markup it does not recognise are
errors, never an empty success.

An answer is untrusted bytes (2 MiB at most): it is read as every body off the network
is (lightsearch/isolation/apart.py), by a parser whose work is capped, here when it is
small and in a worker of the pool otherwise, within the search's deadline
(:meth:`Engine.read`). JSON is loaded and cut to a bounded shape
(documents/boundedjson.py) before an engine walks it, so an engine's own loop over its
results is bounded too.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import json
import os
import re
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, ClassVar, TypeVar
from urllib.parse import urlsplit

from scrapy.settings import BaseSettings
from w3lib.html import remove_tags

from lightsearch.errors import LightSearchError
from lightsearch.filters import NO_FILTERS, Filters, with_operators
from lightsearch.isolation import tasks as isolated
from lightsearch.isolation.apart import small
from lightsearch.isolation.lanes import Lane
from lightsearch.providers.apiclient import ApiClient, ApiResponse, ProviderError, retry_after_secs
from lightsearch.timestamps import parse_stamp, utc_stamp

_SPACES = re.compile(r"\s+")
T = TypeVar("T")
RECENCY_DAYS = {"hour": 1 / 24, "day": 1, "week": 7, "month": 31, "year": 366}


@dataclass(frozen=True)
class EngineQuery:
    """One query as every engine sees it; ``when`` is a Google-News-style window (1h, 7d);
    ``filters`` the call's domains and dates (its region is already in ``region``)."""

    text: str
    max_results: int = 8
    recency: str | None = None
    region: str | None = None  # "us-en": country-language, DuckDuckGo's kl form
    when: str | None = None
    filters: Filters = NO_FILTERS

    @property
    def country(self) -> str | None:
        return self.region.split("-")[0] if self.region and "-" in self.region else None

    @property
    def language(self) -> str | None:
        return self.region.split("-")[1] if self.region and "-" in self.region else None

    def with_sites(self, notes: list[str] | None, engine: str, *, max_chars: int = 400,
                   max_words: int = 50) -> str:
        """The query text with ``site:``/``-site:`` operators for the call's domains, for an
        engine that reads them; a note when the included domains do not all fit."""
        text, included = with_operators(self.text, self.filters, max_chars=max_chars, max_words=max_words)
        if not included and notes is not None:
            notes.append(f"{engine}: {len(self.filters.include_domains)} includeDomains do not fit in its query "
                         "as site: operators; its results were filtered instead")
        return text


@dataclass
class EngineHit:
    title: str
    url: str
    snippet: str = ""
    published_at: str | None = None
    source_name: str | None = None
    content: str = ""  # page text (Light brings it), empty for a snippet
    engines: list[str] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    score: float = 0.0


def clean(value: Any) -> str:
    """Markup stripped, entities decoded, whitespace collapsed; non-text is ''."""
    if not isinstance(value, str):
        return ""
    return _SPACES.sub(" ", html.unescape(remove_tags(value))).strip()


def iso(value: Any) -> str | None:
    """A date (ISO string, epoch seconds, or RFC 822) as ISO 8601 UTC, else None."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        try:
            parsed: datetime | None = datetime.fromtimestamp(float(value), timezone.utc)
        except (ValueError, OverflowError, OSError):
            return None
    else:
        parsed = parse_stamp(value, rfc822=True)
    return utc_stamp(parsed) if parsed else None


def web_url(value: Any) -> str | None:
    if isinstance(value, str) and urlsplit(value).scheme in ("http", "https") and urlsplit(value).hostname:
        return value
    return None


def script_language(text: str) -> str | None:
    """The language a query's script implies (Hebrew -> he), None for Latin or mixed."""
    counts: dict[str, int] = {}
    for ch in text:
        if ch.isalpha() and ord(ch) > 0x24F:
            name = unicodedata.name(ch, "").split(" ")[0]
            counts[name] = counts.get(name, 0) + 1
    if not counts:
        return None
    script = max(counts, key=counts.get)
    return {"HEBREW": "he", "ARABIC": "ar", "CYRILLIC": "ru", "GREEK": "el", "CJK": "zh",
            "HIRAGANA": "ja", "KATAKANA": "ja", "HANGUL": "ko", "THAI": "th",
            "DEVANAGARI": "hi"}.get(script)


def digest(value: Any) -> str | None:
    """A secret as it may appear in a cache key or an identity: its SHA-256, never itself."""
    if value is None:
        return None
    return hashlib.sha256(str(value).encode("utf-8", "surrogatepass")).hexdigest()


def resolve_key(settings: BaseSettings, environ: Any, key_setting: str | None, key_env: str | None) -> str | None:
    """An engine's key: the setting, else the environment variable; trimmed, None when blank."""
    if key_setting is None:
        return None
    raw = settings.get(key_setting)
    if raw is None and key_env:
        raw = (os.environ if environ is None else environ).get(key_env)
    return raw.strip() or None if isinstance(raw, str) else None


class Engine:
    """One engine. Subclasses set ``name`` and implement :meth:`search`."""

    name: ClassVar[str] = "engine"
    key_setting: ClassVar[str | None] = None  # a setting whose absence makes it unavailable
    key_env: ClassVar[str | None] = None
    https_only: ClassVar[bool] = True
    #: the settings that say where this engine is asked: two configurations that differ in
    #: one of them (or in the key) are two different engines to suspend (:meth:`identity`)
    endpoint_settings: ClassVar[tuple[str, ...]] = ()

    def __init__(self, settings: BaseSettings, environ: dict[str, str] | None = None) -> None:
        self.settings = settings
        self.environ = os.environ if environ is None else environ
        self.client = ApiClient(settings, provider=self.name,
                                max_bytes=settings.getint("WEB_SEARCH_RESPONSE_MAX_BYTES"),
                                ca_file=settings.get("WEB_SEARCH_TLS_CA_FILE"),
                                https_only=self.https_only, user_agent=self.user_agent())

    def user_agent(self) -> str:
        return self.settings.get("USER_AGENT") or "lightsearch"

    @property
    def key(self) -> str | None:
        return resolve_key(self.settings, self.environ, self.key_setting, self.key_env)

    def identity(self) -> str:
        """Who this engine is, as suspensions see it: its name, endpoints, key (hashed), the
        host map and CA that decide which server answers. A captcha from one SearXNG
        instance rests that instance, not another configuration's."""
        parts = {"name": self.name, "key": digest(self.key),
                 "endpoints": {k: self.settings.get(k) for k in self.endpoint_settings},
                 "hostMap": self.settings.getdict("LIGHT_HOST_MAP"),
                 "ca": self.settings.get("WEB_SEARCH_TLS_CA_FILE")}
        raw = json.dumps(parts, sort_keys=True, default=repr, ensure_ascii=False)
        return f"{self.name}@{hashlib.sha256(raw.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"

    def unavailable(self) -> str | None:
        """Why this engine cannot be asked at all (no key, no instance), or None."""
        if self.key_setting is not None and self.key is None:
            return f"no API key ({self.key_setting})"
        return None

    def out_of_scope(self, query: EngineQuery) -> str | None:
        """Why this engine cannot answer ``query`` within its filters (an engine that only
        answers for its own site, which they leave out), or None."""
        return None

    def error(self, code: str, message: str, **details: Any) -> ProviderError:
        return ProviderError(code, message, self.name, **details)

    async def search(self, query: EngineQuery, deadline: float,
                     notes: list[str] | None = None) -> list[EngineHit]:
        """Hits, best first, or a ProviderError; ``notes`` collects what a caller should know."""
        raise NotImplementedError

    # ------------------------------------------------------------------ request
    async def fetch(self, method: str, url: str, *, deadline: float, **kw: Any) -> ApiResponse:
        """The request, retried once on 429/503 when ``Retry-After`` fits in the deadline
        (capped at ``WEB_SEARCH_RETRY_MAX_SECS``); the response of the last try."""
        timeout = self.settings.getfloat("WEB_SEARCH_ENGINE_TIMEOUT_SECS")
        cap = self.settings.getfloat("WEB_SEARCH_RETRY_MAX_SECS")
        response = await self.client.request(method, url, timeout=timeout, deadline=deadline, **kw)
        if response.status in (429, 503):
            wait = retry_after_secs(response.header("retry-after"))
            if wait is not None and wait <= cap and time.monotonic() + wait + 0.2 < deadline:
                await asyncio.sleep(wait)
                response = await self.client.request(method, url, timeout=timeout, deadline=deadline, **kw)
        return response

    def status_error(self, response: ApiResponse) -> ProviderError | None:
        """The error a non-200 status means for an API engine (keys, limits, outages)."""
        status = response.status
        if status == 200:
            return None
        if status in (401, 403):
            return self.error("provider_auth", f"{self.name} refused the request (HTTP {status})",
                              status=status)
        if status == 429:
            wait = retry_after_secs(response.header("retry-after"))
            return self.error("provider_rate_limited", f"{self.name} rate limit reached (HTTP 429)",
                              status=status, resetSecs=wait)
        if status >= 500:
            return self.error("provider_unavailable", f"{self.name} answered HTTP {status}", status=status)
        return self.error("provider_bad_response", f"{self.name} answered HTTP {status}", status=status)

    async def json(self, response: ApiResponse, deadline: float) -> Any:
        """The answer's JSON, cut to a bounded shape; the status's error, or
        ``provider_bad_response`` when it is not JSON."""
        error = self.status_error(response)
        if error is not None:
            raise error
        return (await self.read(response, isolated.json_answer, response.body, deadline=deadline)).value

    async def read(self, response: ApiResponse, task: Callable[..., T], *args: Any, deadline: float,
                   here: bool = True) -> T:
        """``task(*args)`` over this answer: here when the body is small (and ``here``: the
        task's work is capped), in a worker of the pool otherwise, ending at ``deadline``
        (monotonic). Whatever stops it is this engine's ProviderError."""
        if here and small(len(response.body)):
            try:
                return task(*args)
            except LightSearchError as exc:
                raise self.reading_error(exc, response) from None
        lane = Lane(self.settings, name=self.name, deadline_at=deadline)
        try:
            return await lane.run(task, *args, what=f"the {self.name} answer")
        except LightSearchError as exc:
            raise self.reading_error(exc, response) from None
        finally:
            lane.close()

    def reading_error(self, exc: LightSearchError, response: ApiResponse) -> ProviderError:
        """An answer that could not be read, as this engine's error."""
        if isinstance(exc, ProviderError):
            return exc
        reason = exc.details.get("reason")
        details = {k: v for k, v in exc.details.items() if k != "provider"}
        if exc.code.startswith("provider_"):
            return self.error(exc.code, exc.message, **details)
        if exc.code == "timeout" and reason == "deadline":
            return self.error("provider_timeout", f"{self.name}'s answer was not read within the search deadline",
                              reason="deadline")
        if exc.code in ("timeout", "too_large"):  # the pool's time or memory limit
            return self.error("provider_bad_response", f"{self.name}'s answer could not be read: {exc.message}",
                              reason=reason or exc.code, status=response.status)
        if exc.code == "parse_error" and reason == "unparseable":
            return self.error("provider_bad_response", f"{self.name} did not answer JSON",
                              reason="unparseable", status=response.status)
        return self.error("provider_bad_response", f"{self.name}'s answer could not be read: {exc.message}",
                          reason=reason or exc.code, status=response.status)

    def unrecognised(self, what: str) -> ProviderError:
        return self.error("provider_bad_response", f"{self.name} answered {what}", reason="unrecognised")
