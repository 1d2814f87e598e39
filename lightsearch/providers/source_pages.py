"""Optional source-page fetches for API providers, through the web_fetch path.

A provider's snippet is the provider's summary, not the page; reading the top pages gives
the agent evidence it can cite and lets coverage say so. Each page goes through
:class:`~lightsearch.providers.fetch.WebFetch` (transport guard, robots, size limits), all in
parallel, each within its own timeout and together within what is left of the search
deadline. A page that fails keeps its hit: the failure is recorded on the hit (for its
receipt) and returned for ``sourceFetchErrors``. Only the caller's cancellation ends the
search here.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from scrapy.settings import Settings

from lightsearch.errors import LightSearchError

# Time kept back from the search deadline so that assembling the result still fits.
DEADLINE_RESERVE_SECS = 1.0
# web_fetch aborts its own crawl on timeout; this is how long we wait for it to do so.
ABORT_GRACE_SECS = 2.0


def fetch_settings(settings: Settings, timeout: float) -> Settings:
    """web_fetch settings for one source read: its deadline is the page timeout."""
    s = settings.copy()
    s.set("WEB_FETCH_DEADLINE_SECS", timeout, priority="cmdline")
    return s


async def fetch_sources(hits: Sequence[Any], settings: Settings, *,
                        remaining_secs: float) -> list[dict[str, Any]]:
    """Read the top ``BRAVE_SOURCE_FETCH_PAGES`` hits' pages in place; return the failures.

    A successful read sets ``hit.content`` (and fills dates the provider did not give);
    every attempt leaves ``hit.fetch`` = ``{"status": "ok"|"failed"|"timeout", ...}``.
    """
    from lightsearch.providers.fetch import WebFetch

    pages = max(0, settings.getint("BRAVE_SOURCE_FETCH_PAGES"))
    timeout = min(settings.getfloat("BRAVE_SOURCE_FETCH_TIMEOUT_SECS"),
                  remaining_secs - DEADLINE_RESERVE_SECS - ABORT_GRACE_SECS)
    targets = list(hits[:pages])
    if not targets:
        return []
    errors: list[dict[str, Any]] = []
    if timeout <= 0:
        for hit in targets:
            errors.append(_failed(hit, "timeout", "no time was left in the search deadline", {}))
        return errors
    fetcher = WebFetch(fetch_settings(settings, timeout))
    max_chars = settings.getint("BRAVE_SOURCE_FETCH_MAX_CHARS")
    outcomes = await asyncio.gather(*(
        _read(fetcher, hit.url, max_chars, timeout) for hit in targets
    ))
    for hit, outcome in zip(targets, outcomes, strict=True):
        if isinstance(outcome, LightSearchError):
            code = "timeout" if outcome.code == "timeout" else outcome.code
            errors.append(_failed(hit, code, outcome.message, outcome.details))
            continue
        hit.content = outcome.get("content") or ""  # the page window; "text" is model text
        hit.content_truncated = bool(outcome.get("truncated"))
        hit.content_partial = bool(outcome.get("partial"))
        hit.published_at = hit.published_at or outcome.get("publishedAt")
        hit.modified_at = outcome.get("modifiedAt")
        hit.retrieved_at = outcome.get("retrievedAt") or hit.retrieved_at
        final = outcome.get("url") or hit.url
        if final != hit.url:
            hit.original_url, hit.url = hit.url, final
        hit.fetch = {"status": "ok", "httpStatus": outcome.get("status"),
                     "totalChars": outcome.get("totalChars")}
    return errors


async def _read(fetcher: Any, url: str, max_chars: int, timeout: float) -> dict[str, Any] | LightSearchError:
    """One page, or the error that stopped it; never raises except on cancellation."""
    try:
        return await asyncio.wait_for(fetcher.fetch(url, max_chars=max_chars),
                                      timeout=timeout + ABORT_GRACE_SECS)
    except asyncio.TimeoutError:
        return LightSearchError("timeout", f"the page did not arrive within {timeout:g} s",
                                {"timeoutSecs": timeout})
    except LightSearchError as exc:
        return exc
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a fetch bug must not cost the search its hits
        return LightSearchError("network_error", str(exc) or type(exc).__name__,
                                {"reason": type(exc).__name__})


def _failed(hit: Any, code: str, message: str, details: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = {"url": hit.url, "code": code, "message": message[:300]}
    if isinstance(details.get("status"), int):
        entry["status"] = details["status"]
    hit.fetch = {"status": "timeout" if code == "timeout" else "failed", "error": code}
    return entry
