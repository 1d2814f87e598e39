"""``recency`` as a filter: hits dated outside the window are dropped, undated ones kept.

Preferring news sources (plan/selection.py) does not stop a two-week-old page answering a
``week`` search; the window is applied to each hit's declared date (published, else
modified). A hit without a readable date is kept, because the absence of a date says
nothing about age; the notes say how many were dropped and how many are undated.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timezone

from lightsearch.ranking.rank import RankedDocument
from lightsearch.windows import RECENCY_WINDOWS


def parse_date(value: str | None) -> datetime | None:
    """An ISO 8601 date or date-time (a web page's claim: anything unreadable is None)."""
    if not value or not isinstance(value, str):
        return None
    text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        try:
            when = datetime.fromisoformat(text[:10])
        except ValueError:
            return None
    return when if when.tzinfo else when.replace(tzinfo=timezone.utc)


def within_recency(
    ranked: Sequence[RankedDocument], recency: str, now: datetime | None = None,
) -> tuple[list[RankedDocument], int, list[str]]:
    """The hits inside the window (undated kept), how many were dropped, the undated URLs."""
    window = RECENCY_WINDOWS.get(recency)
    if window is None:
        return list(ranked), 0, []
    now = now or datetime.now(timezone.utc)
    kept: list[RankedDocument] = []
    undated: list[str] = []
    dropped = 0
    for hit in ranked:
        doc = hit.document
        when = parse_date(doc.published_at) or parse_date(doc.modified_at)
        if when is None:
            undated.append(doc.url)
            kept.append(hit)
        elif (now - when).total_seconds() <= window:
            kept.append(hit)
        else:
            dropped += 1
    return kept, dropped, undated


def recency_note(recency: str, dropped: int, undated: int) -> str:
    return (f"recency {recency}: {dropped} hit(s) dated outside the window were dropped; "
            f"{undated} undated hit(s) were kept (their age is unknown)")
