"""The engine modes as one web_search provider: ``fallback``, ``fused``/``auto``, or one engine
alone.

Nothing an engine does escapes as an exception: a failure becomes a note and a
``meta.engines`` entry, a suspended engine is skipped with its reason and time left, and
``provider: "none"`` is answered only when every engine failed. Answers are cached for
``WEB_SEARCH_CACHE_TTL_SECS`` by query, mode, recency, region and the configuration
(:func:`~lightsearch.providers.engines.answers.configuration`), as records rendered again
for each caller (:mod:`~lightsearch.providers.engines.answers`); an engine is suspended by
its identity (endpoints and key), so one configuration's failures never rest another's.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scrapy.settings import Settings

from lightsearch.cache import load_cache
from lightsearch.errors import LightSearchError, SearchCancelled
from lightsearch.filters import Filters, domain_notes, filtered
from lightsearch.fleet.link import link_of, shared_state_notes, snapshot
from lightsearch.plan.request import SearchRequest
from lightsearch.providers.apiclient import ProviderError
from lightsearch.providers.engines import ENGINES, build_engine, engine_name
from lightsearch.providers.engines.answers import Answer, answer_from_record, configuration
from lightsearch.providers.engines.base import Engine, EngineHit, EngineQuery
from lightsearch.providers.recency import dates_note, within_dates
from lightsearch.providers.search_call import SearchingProvider
from lightsearch.ranking.fusion import RRF_K
from lightsearch.ranking.normalize import dedupe_key, prefer, strip_trackers
from lightsearch.schema import validate

TECHNICAL = re.compile(
    r"\b(python|javascript|typescript|rust|golang|java|c\+\+|api|sdk|bug|error|exception|library|framework|"
    r"linux|docker|kubernetes|sql|database|compiler|github|npm|pip|llm|gpu|programming|code|kernel|"
    r"http|json|css|html|react|async|regex|git)\b", re.I)
NEWSY = re.compile(r"\b(news|today|latest|breaking|yesterday|this week|announced|election|headlines|"
                   r"20[2-3]\d)\b", re.I)


@dataclass
class Outcome:
    """How one engine did: ``ok``, ``empty``, ``failed``, ``skipped``, ``suspended``."""

    engine: str
    status: str
    ms: int = 0
    hits: list[EngineHit] = field(default_factory=list)
    error: dict[str, Any] | None = None
    # hits the call's filters dropped: on excluded / other domains, dated outside the window
    dropped: dict[str, int] = field(default_factory=dict)

    def meta(self) -> dict[str, Any]:
        out: dict[str, Any] = {"status": self.status, "ms": self.ms, "count": len(self.hits)}
        if self.error:
            out["error"] = self.error
        return out


def suspension_kind(error: ProviderError) -> str:
    reason = error.details.get("reason")
    if reason == "captcha":
        return "captcha"
    if error.code == "provider_rate_limited" or reason == "too_many_requests":
        return "too_many_requests"
    if error.code in ("provider_blocked", "provider_auth"):
        return "access_denied"
    return "error"


def fuse(outcomes: Sequence[Outcome], weights: dict[str, float], max_results: int) -> list[EngineHit]:
    """Weighted reciprocal-rank fusion by normalised URL; each hit keeps every engine that
    returned it, the https spelling, the longest snippet, and any page text."""
    merged: dict[str, EngineHit] = {}
    scores: dict[str, float] = {}
    first_seen: dict[str, int] = {}
    for outcome in outcomes:
        weight = float(weights.get(outcome.engine, 1.0))
        seen_here: set[str] = set()
        rank = 0
        for hit in outcome.hits:
            key = dedupe_key(hit.url)
            if key in seen_here:
                continue
            seen_here.add(key)
            rank += 1
            scores[key] = scores.get(key, 0.0) + weight / (RRF_K + rank)
            tags = hit.engines or [outcome.engine]
            have = merged.get(key)
            if have is None:
                first_seen[key] = len(first_seen)
                merged[key] = EngineHit(title=hit.title, url=strip_trackers(hit.url), snippet=hit.snippet,
                                        published_at=hit.published_at, source_name=hit.source_name,
                                        content=hit.content, engines=list(tags), extra=dict(hit.extra))
                continue
            have.url = strip_trackers(prefer(have.url, hit.url))
            have.engines.extend(t for t in tags if t not in have.engines)
            if len(hit.snippet) > len(have.snippet):
                have.snippet = hit.snippet
            have.content = have.content or hit.content
            have.published_at = have.published_at or hit.published_at
            have.source_name = have.source_name or hit.source_name
            for k, v in hit.extra.items():
                have.extra.setdefault(k, v)
    order = sorted(scores, key=lambda k: (-scores[k], first_seen[k]))[:max_results]
    top = scores[order[0]] if order else 1.0
    out = []
    for key in order:
        hit = merged[key]
        hit.score = round(scores[key] / top, 4)
        out.append(hit)
    return out


def hit_urls(hit: EngineHit) -> tuple[str, Any]:
    """Where a hit is, for the domain filters: its URL, and the publisher's site when the
    URL is a news service's link to it (Google News)."""
    return (hit.url, hit.extra.get("publisherUrl"))


def hit_dates(hit: EngineHit) -> tuple[Any, ...]:
    return (hit.published_at, hit.extra.get("modifiedAt"))


def admitted(hits: list[EngineHit], filters: Filters) -> tuple[list[EngineHit], dict[str, int]]:
    """One engine's hits the call's filters admit (whatever the engine did with them), and
    how many each rule dropped."""
    if not filters.domains and not filters.dates:
        return hits, {}
    kept, dropped = filtered(hits, filters, hit_urls)
    kept, dropped["dated"], _ = within_dates(kept, filters, hit_dates, lambda h: h.url)
    return kept, dropped


def filter_notes(filters: Filters, outcomes: Sequence[Outcome], hits: Sequence[EngineHit]) -> list[str]:
    """What the call's filters dropped, over every engine, in one set of notes."""
    if not filters.domains and not filters.dates:
        return []
    total: dict[str, int] = {}
    for outcome in outcomes:
        for why, n in outcome.dropped.items():
            total[why] = total.get(why, 0) + n
    notes = domain_notes(total, filters)
    if filters.dates:
        undated = sum(1 for h in hits if not any(hit_dates(h)))
        notes.append(dates_note(filters, total.get("dated", 0), undated))
    return notes


class EngineSearch(SearchingProvider):
    """web_search over the engines: ``mode`` is ``fallback``, ``fused`` or an engine name."""

    def __init__(self, settings: Settings, mode: str = "fused", environ: dict[str, str] | None = None) -> None:
        super().__init__(settings, environ)
        validate(settings, ("WEB_SEARCH_",))
        self.mode = "fused" if mode == "auto" else mode
        self.environ = environ
        self.provider = self.mode
        self._engines: dict[str, Engine] = {}
        self.suspensions = load_cache(settings, "WEB_SEARCH_SUSPENSION")
        self.cache = load_cache(settings, "WEB_SEARCH_CACHE")
        self.configuration = configuration(settings, environ)
        self.cache_misfits = 0  # cached records that did not fit their shape (dropped)

    def engine(self, name: str) -> Engine:
        if name not in self._engines:
            self._engines[name] = build_engine(name, self.settings, self.environ)
        return self._engines[name]

    # ------------------------------------------------------------------ public
    async def search_request(self, request: SearchRequest, *, when: str | None = None) -> dict[str, Any]:
        """One engine search; ``region`` (else ``WEB_SEARCH_REGION``) and the call's filters
        reach every engine in its own terms (operators, parameters), and the hits are
        filtered again before they are fused. ``when`` is the news window (web_news)."""
        recency = request.recency
        region = request.filters.region or self.settings.get("WEB_SEARCH_REGION")
        key = self.cache_key(request, recency, region, when)
        started = time.monotonic()
        link = link_of(self.settings)
        before = snapshot(link)
        call_notes: list[str] = []
        if self.cache is not None:
            cached = self.cache.get(key)
            if cached is not None:
                record, age = cached
                answer = answer_from_record(record)
                if answer is not None:
                    return self.envelope(answer, request, link, before, cached_age=age)
                self.cache_misfits += 1
                call_notes.append("a cached answer did not fit its declared shape and was dropped; the engines "
                                  "were asked again")
        deadline = started + self.deadline_secs()
        try:
            answer = await self._answer(request, region, when, deadline, started)
        except (SearchCancelled, asyncio.CancelledError):
            raise SearchCancelled(details={"provider": self.mode}) from None
        if self.cache is not None and answer.provider != "none":
            self.cache.put(key, answer.to_record(), self.settings.getfloat("WEB_SEARCH_CACHE_TTL_SECS"))
        answer.notes[:0] = call_notes
        return self.envelope(answer, request, link, before)

    def cache_key(self, request: SearchRequest, recency: str | None, region: str | None, when: str | None) -> str:
        """Everything that changes the answer: the configuration's digest, the mode, the
        queries and the call's parameters (hashed: a key is short whatever the queries)."""
        raw = json.dumps([self.configuration, self.mode, request.queries, request.max_results, recency, region, when,
                          request.filters.to_dict()], ensure_ascii=False)
        return "answer:" + hashlib.sha256(raw.encode("utf-8", "surrogatepass")).hexdigest()

    def envelope(self, answer: Answer, request: SearchRequest, link: Any, before: tuple[int, int], *,
                 cached_age: float | None = None) -> dict[str, Any]:
        """The web_search envelope of ``answer``, rendered now: a fresh fence token, fields
        cleaned, receipts of this text. A cached answer is rendered the same way."""
        from lightsearch.providers.hit_result import engine_result

        notes = [*answer.notes, *shared_state_notes(before, link)]
        result = engine_result(request=request, provider=answer.provider, mode=self.mode, hits=answer.hits,
                               notes=notes, engines=answer.engines, settings=self.settings,
                               elapsed_ms=answer.elapsed_ms, cached_age=cached_age)
        if link is not None:
            result["meta"]["sharedState"] = link.status()
        return result

    async def _answer(self, request: SearchRequest, region: str | None, when: str | None,
                      deadline: float, started: float) -> Answer:
        notes: list[str] = []
        if self.mode == "fallback":
            outcomes, provider = await self.fallback(request, region, when, deadline, notes,
                                                     self.settings.getlist("WEB_SEARCH_FALLBACK_ORDER"))
        elif self.mode in ("fused", "web_news"):
            outcomes = await self.concurrently(self.members(request), request, region, when, deadline, notes)
            answered_by = "fused" if self.mode == "fused" else "news"
            provider = answered_by if any(o.status in ("ok", "empty") for o in outcomes) else "none"
        else:
            chain = ["ddg_html", "ddg_lite"] if engine_name(self.mode) == "duckduckgo" else [self.mode]
            outcomes, provider = await self.fallback(request, region, when, deadline, notes, chain)
        weights = self.settings.getdict("WEB_SEARCH_FUSED_WEIGHTS")
        answered = [o for o in outcomes if o.status == "ok"]
        if self.mode not in ("fused", "web_news"):
            answered = [o for o in answered if o.engine == provider]
        hits = self.arrange(fuse(answered, weights, request.max_results))
        notes.extend(filter_notes(request.filters, outcomes, hits))
        return Answer(provider, hits, notes, {o.engine: o.meta() for o in outcomes},
                      int((time.monotonic() - started) * 1000))

    def deadline_secs(self) -> float:
        return self.settings.getfloat("WEB_SEARCH_DEADLINE_SECS")

    def arrange(self, hits: list[EngineHit]) -> list[EngineHit]:
        """The final order of the fused hits (web_news puts recency within relevance)."""
        return hits

    def members(self, request: SearchRequest) -> list[str]:
        text = " ".join(request.queries)
        names = []
        for raw in self.settings.getlist("WEB_SEARCH_FUSED_ENGINES"):
            name = engine_name(raw)
            if name == "hn" and not TECHNICAL.search(text):
                continue
            if name == "news" and not (request.recency or request.filters.dates or NEWSY.search(text)):
                continue
            names.append(name)
        if self.settings.getbool("WEB_SEARCH_FUSED_LIGHT") and "light" not in names:
            names.append("light")
        return names

    async def fallback(self, request: SearchRequest, region: str | None, when: str | None, deadline: float,
                       notes: list[str], order: Sequence[str]) -> tuple[list[Outcome], str]:
        outcomes: list[Outcome] = []
        provider = "none"
        for raw in order:
            name = engine_name(raw)
            outcome = await self.run(name, request, region, when, deadline, notes)
            outcomes.append(outcome)
            if outcome.status == "ok":
                return outcomes, name
            if outcome.status == "empty":
                provider = provider if provider != "none" else name
                notes.append(f"{name}: no results; trying the next engine")
        return outcomes, provider

    async def concurrently(self, names: Sequence[str], request: SearchRequest, region: str | None,
                           when: str | None, deadline: float, notes: list[str]) -> list[Outcome]:
        tasks = [asyncio.ensure_future(self.run(n, request, region, when, deadline, notes)) for n in names]
        try:
            return list(await asyncio.gather(*tasks))
        finally:
            for task in tasks:
                task.cancel()

    async def run(self, name: str, request: SearchRequest, region: str | None, when: str | None,
                  deadline: float, notes: list[str]) -> Outcome:
        """One engine over every query of the request, inside the deadline; never raises
        (but cancellation)."""
        if name not in ENGINES:
            notes.append(f"{name}: unknown engine")
            return Outcome(name, "skipped", error={"code": "invalid_settings", "message": "unknown engine"})
        engine = self.engine(name)
        why = engine.unavailable()
        if why:
            notes.append(f"{name}: skipped, {why}")
            return Outcome(name, "skipped", error={"code": "unavailable", "message": why})
        if self.suspensions is not None:
            held = self.suspensions.active(engine.identity())
            if held is not None:
                left = held.left(self.suspensions.clock())
                notes.append(f"{name}: suspended after {held.reason}, {left:.0f} s left")
                return Outcome(name, "suspended", error={"code": "suspended", "reason": held.reason,
                                                          "secsLeft": round(left)})
        queries = [EngineQuery(q, request.max_results, request.recency, region, when, request.filters)
                   for q in request.queries]
        why = engine.out_of_scope(queries[0])
        if why:
            notes.append(f"{name}: skipped, {why}")
            return Outcome(name, "skipped", error={"code": "out_of_scope", "message": why})
        started = time.monotonic()
        try:
            results = await asyncio.wait_for(
                asyncio.gather(*(self._one(engine, q, deadline, notes) for q in queries), return_exceptions=True),
                timeout=max(0.0, deadline - time.monotonic()))
        except asyncio.TimeoutError:
            results = [ProviderError("provider_timeout", f"{name} did not answer within the search deadline",
                                     name, reason="deadline")]
        ms = int((time.monotonic() - started) * 1000)
        errors = [r for r in results if isinstance(r, BaseException)]
        lists = [r for r in results if not isinstance(r, BaseException)]
        for r in errors:
            if isinstance(r, asyncio.CancelledError):
                raise r
        if not lists:
            error = errors[0] if isinstance(errors[0], ProviderError) else ProviderError(
                "provider_network_error", f"{name} failed: {type(errors[0]).__name__}", name, reason="unexpected")
            if self.suspensions is not None:
                self.suspensions.failed(engine.identity(), suspension_kind(error), error.retry_after)
            notes.append(f"{name}: {error.code}: {error.message}")
            return Outcome(name, "failed", ms, error={"code": error.code, "message": error.message,
                                                      **{k: v for k, v in error.details.items()
                                                         if k in ("reason", "status", "resetSecs")}})
        if self.suspensions is not None:
            self.suspensions.succeeded(engine.identity())
        hits = fuse([Outcome(name, "ok", hits=h) for h in lists], {}, request.max_results) if len(lists) > 1 \
            else lists[0]
        for hit in hits:
            hit.engines = hit.engines or [name]
        hits, dropped = admitted(list(hits), request.filters)
        return Outcome(name, "ok" if hits else "empty", ms, hits=hits, dropped=dropped)

    async def _one(self, engine: Engine, query: EngineQuery, deadline: float, notes: list[str]) -> list[EngineHit]:
        try:
            return await engine.search(query, deadline, notes)
        except (ProviderError, asyncio.CancelledError):
            raise
        except LightSearchError as exc:
            raise ProviderError(exc.code if exc.code.startswith("provider_") else "provider_bad_response",
                                exc.message, engine.name) from None
        except Exception as exc:  # a parser bug must not become a raw exception out of the search
            raise ProviderError("provider_bad_response", f"{engine.name} response could not be read: "
                                f"{type(exc).__name__}", engine.name, reason="parser") from None
