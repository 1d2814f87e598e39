"""The one timestamp format of every result and record, written and read here.

Every date we write (a hit's ``retrievedAt`` and ``publishedAt``, a page's PDF dates, a
rate limit's ``resetAt``, when a source description was seen or a summary built) is ISO
8601 in UTC to the second, with ``Z`` for the zone: ``2026-03-01T12:00:00Z``. Dates we
read come from pages, feeds, engines and caches, so they are untrusted: :func:`parse_stamp`
returns an aware UTC datetime or None, never an exception, whatever the text. A date
without a zone is taken as UTC (what engines and feeds that omit it mean).

This module imports nothing of the project, so every floor may use it.
"""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from typing import Any


def utc_stamp(when: datetime | None = None) -> str:
    """``when`` (now when None) as ``YYYY-MM-DDTHH:MM:SSZ``; a naive ``when`` is UTC.
    An aware ``when`` so far from UTC that it leaves the calendar raises OverflowError:
    give it what :func:`parse_stamp` returned (or a datetime of our own)."""
    if when is None:
        when = datetime.now(timezone.utc)
    elif when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return when.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def parse_stamp(text: Any, *, rfc822: bool = False) -> datetime | None:
    """An ISO 8601 date or date-time (``Z``/``z`` for UTC accepted, surrounding blanks
    ignored) as an aware UTC datetime; with ``rfc822``, an email/HTTP date
    (``Sat, 01 Mar 2026 12:00:00 GMT``, what feeds and headers carry) too. None for
    anything else, including a date whose zone would carry it off the calendar
    (``0001-01-01T00:00:00+05:00``)."""
    if not isinstance(text, str):
        return None
    text = text.strip()
    iso = text[:-1] + "+00:00" if text[-1:] in ("Z", "z") else text
    try:
        when = datetime.fromisoformat(iso)
    except ValueError:
        if not rfc822:
            return None
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    try:
        return when.replace(tzinfo=timezone.utc) if when.tzinfo is None else when.astimezone(timezone.utc)
    except OverflowError:
        return None
