import pytest

from lightsearch.documents.feeds import FeedError, parse_feed
from tests.conftest import shared_data


def test_json_feed_from_shared_data():
    entries = parse_feed(shared_data("sitemaps-feeds-trafilatura", "feed.json").read_bytes())
    assert entries
    assert all(e.link.startswith("http") for e in entries)


def test_atom_and_rss_from_shared_data():
    for name in ("feed1.atom", "feed2.rss"):
        entries = parse_feed(shared_data("sitemaps-feeds-trafilatura", name).read_bytes())
        assert entries, name
        assert entries[0].title


def test_hebrew_rss_from_shared_data():
    body = shared_data("feeds", "hebrew", "ynet_news_rss_2021-10-07_repaired.xml").read_bytes()
    entries = parse_feed(body)
    assert len(entries) == 30
    assert any("\u05d0" <= ch <= "\u05ea" for ch in entries[0].title)


@pytest.mark.parametrize("body", [b"<html><body>not a feed</body></html>", b"{\"items\": 3}", b"{oops"])
def test_unreadable_feeds_raise(body):
    with pytest.raises(FeedError):
        parse_feed(body)
