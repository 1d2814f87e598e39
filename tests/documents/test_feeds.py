import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lightsearch.documents.feeds import FeedError, parse_feed, read_feed
from lightsearch.documents.xmlsafe import (
    clean_char_refs,
    clean_declaration,
    without_internal_subset,
)
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


def test_a_body_naming_a_local_file_is_not_opened():
    # feedparser.parse(bytes) tries the bytes as a file name first
    path = shared_data("feeds", "real-rss", "yahoo_news_rss_2019-11-17.xml")
    assert parse_feed(path.read_bytes())
    with pytest.raises(FeedError):
        parse_feed(str(path).encode())


def test_entries_without_a_usable_link_are_dropped_and_counted():
    body = (b'<rss version="2.0"><channel><item><link>http://[</link></item><item><title>no link</title></item>'
            b"<item><link>h://:x</link></item><item><link>/relative/ok</link></item></channel></rss>")
    feed = read_feed(body)
    assert [e.link for e in feed.entries] == ["/relative/ok"]
    assert feed.dropped == 3


def test_json_feed_title_and_bad_items():
    body = b'{"title": "Notes", "items": [7, {"id": "1234"}, {"url": "http://["}, {"url": "/a", "title": [1]}]}'
    feed = read_feed(body)
    assert feed.title == "Notes"
    assert [(e.link, e.title) for e in feed.entries] == [("/a", "")]
    assert feed.dropped == 3


@pytest.mark.parametrize(("body", "expected"), [
    (b'<?xml version="1.0" encoding="\x80"?><r/>', b'<?xml version="1.0"?><r/>'),
    (b"<?xml version='1.0' encoding='\x00' standalone='yes'?><r/>", b"<?xml version='1.0' standalone='yes'?><r/>"),
    (b'<?xml version="1.0" encoding="x-no-such-codec"?><r/>', b'<?xml version="1.0"?><r/>'),
    (b'<?xml version="1.0" encoding="windows-1255"?><r/>', b'<?xml version="1.0" encoding="windows-1255"?><r/>'),
    (b'<r encoding="\x80"/>', b'<r encoding="\x80"/>'),
])
def test_clean_declaration(body, expected):
    assert clean_declaration(body) == expected


def test_clean_char_refs():
    body = b"&#xD800;&#55296;&#0;&#x110000;&#99999999999999999999;&#x5D0;&#60;&#x1F600;"
    assert clean_char_refs(body) == b"&#xFFFD;" * 5 + b"&#x5D0;&#60;&#x1F600;"


# ------------------------------------------------------------------------ entities
def entity_tree(levels: int, fan: int, trick: bool = True) -> bytes:
    """A feed whose title is an entity expanding to fan**levels copies of "lol" ("billion
    laughs"); ``trick`` declares an entity whose value holds ``<x`` first, which hid the
    declarations after it from feedparser's own DOCTYPE filter."""
    decl = b'<!ENTITY t "<x>">\n' if trick else b""
    ents = b'<!ENTITY lol "lol">\n' + b"".join(
        b'<!ENTITY lol%d "%s">\n' % (i, (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;") * fan)
        for i in range(1, levels + 1))
    return (b'<?xml version="1.0"?>\n<!DOCTYPE rss [\n' + decl + ents + b"]>\n"
            b'<rss version="2.0"><channel><title>&lol%d;</title><item><title>&lol%d;</title>'
            b"<link>https://x.test/a</link><description>&lol%d;</description></item></channel></rss>"
            % (levels, levels, levels))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(st.integers(1, 9), st.integers(2, 10), st.booleans(), st.sampled_from(["utf-8", "utf-16"]))
@example(5, 10, True, "utf-8")  # 100,000 expansions from 590 bytes, within expat's allowance
@example(9, 10, True, "utf-8")  # a billion: past expat's 8 MiB allowance
def test_no_entity_of_a_feed_is_expanded(levels, fan, trick, encoding):
    body = entity_tree(levels, fan, trick)
    if encoding != "utf-8":
        body = body.decode().replace('version="1.0"', 'version="1.0" encoding="utf-16"', 1).encode(encoding)
    try:
        feed = read_feed(body)
    except FeedError:
        return  # nothing read is nothing expanded
    texts = [feed.title or ""] + [t for e in feed.entries for t in (e.title, e.summary)]
    assert sum(len(t) for t in texts) < 200  # the references stay references (or nothing)


def test_the_internal_subset_goes_and_the_rest_stays():
    body = (b'<?xml version="1.0"?><!-- <x> --><!DOCTYPE rss PUBLIC "-//x[" "y>" [<!ENTITY a "]<x>">'
            b"<!-- ] --><!ENTITY b 'c'>]><rss>&a;</rss>")
    assert without_internal_subset(body) == (b'<?xml version="1.0"?><!-- <x> --><!DOCTYPE rss PUBLIC "-//x[" "y>" >'
                                             b"<rss>&a;</rss>")
    assert without_internal_subset(b"<rss/><!DOCTYPE x [<!ENTITY a 'b'>]>") == b"<rss/><!DOCTYPE x [<!ENTITY a 'b'>]>"
    assert without_internal_subset(b"<!DOCTYPE x [<!ENTITY a 'b'>") == b""  # never ends: nothing after is markup
