"""``recency``, ``after`` and ``before`` as filters: hits dated outside the window are
dropped, undated ones kept.

Preferring news sources (plan/selection.py) does not stop a two-week-old page answering a
``week`` search; the window is applied to each hit's declared date (published, else
modified). A hit without a readable date is kept, because the absence of a date says
nothing about age; the notes say how many were dropped and how many are undated.
``after``/``before`` (:class:`lightsearch.filters.Filters`) are days, inclusive, compared
with the hit's date in UTC; every provider applies them here, whatever its own API did
with them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from typing import Any, TypeVar

from lightsearch.filters import Filters
from lightsearch.ranking.rank import RankedDocument
from lightsearch.timestamps import parse_stamp
from lightsearch.windows import RECENCY_WINDOWS

T = TypeVar("T")


def parse_date(value: str | None) -> datetime | None:
    """An ISO 8601 date or date-time (a web page's claim: anything unreadable is None)."""
    if not value or not isinstance(value, str):
        return None
    return parse_stamp(value) or parse_stamp(value.strip()[:10])


def within_recency(
    ranked: Sequence[RankedDocument], recency: str, now: datetime | None = None,
) -> tuple[list[RankedDocument], int, list[str]]:
    """The hits inside the window (undated kept), how many were dropped, the undated URLs."""
    window = RECENCY_WINDOWS.get(recency)
    if window is None:
        return list(ranked), 0, []
    now = now or datetime.now(timezone.utc)
    return _split(ranked, lambda hit: (hit.document.published_at, hit.document.modified_at),
                  lambda hit: hit.document.url, lambda when: (now - when).total_seconds() <= window)


def recency_note(recency: str, dropped: int, undated: int) -> str:
    return (f"recency {recency}: {dropped} hit(s) dated outside the window were dropped; "
            f"{undated} undated hit(s) were kept (their age is unknown)")


def within_dates(items: Sequence[T], filters: Filters, stamps: Callable[[T], Sequence[Any]],
                 url_of: Callable[[T], str]) -> tuple[list[T], int, list[str]]:
    """The items dated inside ``after``/``before`` (undated kept), how many were dropped,
    the undated URLs. ``stamps(item)`` are its dates, the first readable one counts."""
    if not filters.dates:
        return list(items), 0, []
    return _split(items, stamps, url_of, lambda when: filters.in_window(when.astimezone(timezone.utc).date()))


def _split(items: Sequence[T], stamps: Callable[[T], Sequence[Any]], url_of: Callable[[T], str],
           inside: Callable[[datetime], bool]) -> tuple[list[T], int, list[str]]:
    """The items whose first readable date is ``inside`` (undated kept), how many were
    dropped, the undated URLs."""
    kept: list[T] = []
    undated: list[str] = []
    dropped = 0
    for item in items:
        when = next((d for d in (parse_date(s) for s in stamps(item)) if d is not None), None)
        if when is None:
            undated.append(url_of(item))
            kept.append(item)
        elif inside(when):
            kept.append(item)
        else:
            dropped += 1
    return kept, dropped, undated


def dates_note(filters: Filters, dropped: int, undated: int, who: str = "") -> str:
    prefix = f"{who}: " if who else ""
    return (f"{prefix}{filters.window_words()}: {dropped} hit(s) dated outside the window were dropped; "
            f"{undated} undated hit(s) were kept (their age is unknown)")
