"""The one timestamp format: written the same everywhere, read from untrusted text without
ever raising."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

from hypothesis import given
from hypothesis import strategies as st

from lightsearch.providers.engines.base import iso
from lightsearch.providers.recency import parse_date
from lightsearch.timestamps import parse_stamp, utc_stamp

STAMP = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ"


def test_written_in_utc_to_the_second_with_z():
    assert utc_stamp(datetime(2026, 3, 1, 12, 0, 0, 999999, tzinfo=timezone.utc)) == "2026-03-01T12:00:00Z"
    assert utc_stamp(datetime(2026, 3, 1, 13, 30, tzinfo=timezone(timedelta(hours=1, minutes=30)))) \
        == "2026-03-01T12:00:00Z"
    assert utc_stamp(datetime(2026, 3, 1, 12, 0)) == "2026-03-01T12:00:00Z"  # naive is UTC
    now = datetime.now(timezone.utc)
    stamped = parse_stamp(utc_stamp())
    assert stamped is not None
    assert abs((stamped - now).total_seconds()) < 60


def test_read_iso_and_on_request_email_dates():
    utc = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
    for text in ("2026-03-01T12:00:00Z", " 2026-03-01T12:00:00z ", "2026-03-01T14:00:00+02:00",
                 "2026-03-01T12:00:00", "2026-03-01T12:00:00.000Z"):
        assert parse_stamp(text) == utc, text
    assert parse_stamp("2026-03-01") == datetime(2026, 3, 1, tzinfo=timezone.utc)
    email = "Sun, 01 Mar 2026 12:00:00 GMT"
    assert parse_stamp(email) is None
    assert parse_stamp(email, rfc822=True) == utc
    for bad in (None, 7, "", "   ", "yesterday", "2026-13-01", "Z", "\x00" * 50):
        assert parse_stamp(bad, rfc822=True) is None, bad


def test_a_zone_that_leaves_the_calendar_is_no_date():
    # Before the helper, an engine's or Brave's date like these raised OverflowError out of
    # the hit mapping instead of leaving the hit undated (Brave reads its dates with iso too).
    for text in ("0001-01-01T00:00:00+05:00", "9999-12-31T23:00:00-05:00"):
        assert parse_stamp(text) is None
        assert iso(text) is None
        assert parse_date(text).date() == date.fromisoformat(text[:10])  # a page's claim: its day


@given(st.one_of(st.text(max_size=40), st.integers(), st.floats(), st.none(), st.booleans()))
def test_hostile_dates_give_a_stamp_or_none(value):
    for read in (iso, parse_date):
        out = read(value)
        if read is parse_date:
            assert out is None or out.tzinfo is not None
        else:
            assert out is None or (isinstance(out, str) and re.fullmatch(STAMP, out)), out


@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.timezones()))
def test_what_is_written_reads_back(when):
    stamp = utc_stamp(when)
    assert parse_stamp(stamp) == when.astimezone(timezone.utc).replace(microsecond=0)
