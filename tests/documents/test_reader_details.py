"""What a user of web_fetch sees at once: links that lead where the page's links lead,
no wiki ``[edit]`` controls in the text, and titles without the site's name, the same in
fetch and in search hits. Pages are read through real fetches of the offline origins (and
a loopback site added per test); search hits through real Light crawls and the engine
replay."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from lxml.html import fromstring

from lightsearch.documents.anchors import resolve_links
from lightsearch.documents.cleaning import edit_controls
from lightsearch.documents.readable import extract_readable
from lightsearch.documents.titles import without_site_name
from lightsearch.offline_origins.engine_replay import EngineReplay
from lightsearch.offline_origins.replay import merge_settings
from lightsearch.providers import load_provider
from lightsearch.providers.fetch import WebFetch
from lightsearch.providers.light import LightSearch
from tests.conftest import ROBOTS_ALLOW, coroutine_test, shared_data

WIKI = "https://en.wikipedia.org/wiki/Photosynthesis"
SITE = "docs.details.test"
_LINK = re.compile(r"\]\(([^)\s]+)\)")


def paragraphs(words: str, n: int = 6) -> str:
    return "".join(f"<p>{words} Paragraph {i} says more about harbour tides, gauges and how the "
                   f"readings are kept over the seasons of the year.</p>" for i in range(n))


@pytest.fixture
def site(origins):
    body = ("<!doctype html><html><head><title>Tide gauges | Harbour Docs</title>"
            "<base href='/manual/v2/'></head><body><main><h1>Tide gauges</h1>"
            "<p>See <a href='gauges.html'>the gauge list</a>, <a href='../v1/old.html'>the old manual</a>, "
            "<a href='#calibration'>calibration</a>, <a href='/about'>about</a> and "
            "<a href='/print?id=7&amp;section=2&amp;param=x&amp;not=1'>the printable page</a>.</p>"
            + paragraphs("Gauges.")
            + "<h2 id='calibration'>Calibration [<a href='/w/index.php?title=Tides&amp;action=edit&amp;section=2'>"
              "edit</a>]</h2>" + paragraphs("Calibration.")
            + "</main></body></html>")
    plain = body.replace("<base href='/manual/v2/'>", "")
    origins.add_site(SITE, {"/robots.txt": ROBOTS_ALLOW,
                            "/manual/tides/gauges": {"body": body},
                            "/manual/tides/plain": {"body": plain}})
    return {**origins.settings(), "LOG_LEVEL": "ERROR"}


# ----------------------------------------------------------------------------- links
@coroutine_test
async def test_markdown_links_are_resolved_against_the_page_not_the_sites_root(offline_settings):
    page = await WebFetch.from_settings(offline_settings).fetch(WIKI, markdown=True)
    links = _LINK.findall(page["content"])
    assert f"{WIKI}#cite_note-1" in links  # a footnote stays on its page
    assert not [link for link in links if link.startswith("https://en.wikipedia.org#")]


@coroutine_test
async def test_relative_links_follow_the_pages_path_and_its_base_href(site):
    fetch = WebFetch.from_settings(site)
    based = _LINK.findall((await fetch.fetch(f"https://{SITE}/manual/tides/gauges", markdown=True))["content"])
    assert f"https://{SITE}/manual/v2/gauges.html" in based
    assert f"https://{SITE}/manual/v1/old.html" in based
    assert f"https://{SITE}/manual/v2/#calibration" in based
    assert f"https://{SITE}/about" in based
    # "&sect", "&para" and "&not" are HTML entities even without a semicolon: not here
    assert f"https://{SITE}/print?id=7&section=2&param=x&not=1" in based
    plain = _LINK.findall((await fetch.fetch(f"https://{SITE}/manual/tides/plain", markdown=True))["content"])
    assert f"https://{SITE}/manual/tides/gauges.html" in plain
    assert f"https://{SITE}/manual/v1/old.html" in plain
    assert f"https://{SITE}/manual/tides/plain#calibration" in plain


@hsettings(max_examples=40, deadline=None)
@given(href=st.text(max_size=80), base=st.text(max_size=40))
def test_resolving_hostile_links_never_raises(href, base):
    tree = fromstring("<html><head><base href='x'></head><body><a href='y'>a</a></body></html>")
    for el, value in ((tree.find(".//base"), base), (tree.find(".//a"), href)):
        try:
            el.set("href", value)
        except ValueError:  # a string lxml itself refuses never reaches a page's tree
            return
    resolve_links(tree, "https://example.test/a/b")
    assert tree.find(".//a").get("href") is not None


# ----------------------------------------------------------------------------- edit controls
@coroutine_test
async def test_wiki_edit_links_are_not_part_of_the_text(offline_settings, site):
    fetch = WebFetch.from_settings(offline_settings)
    for markdown in (True, False):
        content = (await fetch.fetch(WIKI, markdown=markdown))["content"]
        assert "History of discovery" in content
        assert "edit" not in re.findall(r"\w+", content.lower())
        assert "action=edit" not in content
    docs = (await WebFetch.from_settings(site).fetch(f"https://{SITE}/manual/tides/gauges", markdown=True))["content"]
    assert "Calibration" in docs
    for control in ("[edit]", "\\[\\]", "[]"):
        assert control not in docs


def test_edit_controls_are_told_by_their_markup_and_address_in_any_language_not_by_a_word():
    body = fromstring(
        "<html><body><h2>מבנה<span class='mw-editsection'><span>[</span><a href='/w/index.php?title=X"
        "&amp;action=edit&amp;section=1'>עריכת קוד מקור</a><span>]</span></span></h2>"
        "<h2>Aufbau <a href='/w/index.php?title=X&amp;veaction=edit&amp;section=2'>Bearbeiten</a></h2>"
        "<div class='secedit editbutton_section'><button>Edit</button></div>"
        "<h3>Notes <a href='/w/index.php?title=X&amp;action=edit'>a long link text that is no control of "
        "the page at all, far past the length of one</a></h3>"
        "<p>The <a href='/w/index.php?title=Draft&amp;action=edit'>committee's draft</a> and "
        "<a href='/blog/editors-choice'>the editors' choice</a>.</p></body></html>").find("body")
    found = edit_controls(body)
    assert sorted(el.tag for el in found) == ["a", "div", "span"]
    assert "committee's draft" in body.text_content()


# ----------------------------------------------------------------------------- titles
@coroutine_test
async def test_a_title_that_only_repeats_the_site_name_says_it_once(offline_settings):
    page = await WebFetch.from_settings(offline_settings).fetch("https://www.nasa.gov/")
    assert page["title"] == "NASA"
    assert without_site_name("NASA | NASA", "https://www.nasa.gov/") == "NASA"
    assert extract_readable("<html><head><title>Harbour Docs - Harbour Docs</title>"
                            "<meta property='og:site_name' content='Harbour Docs'></head><body><main>"
                            + paragraphs("x") + "</main></body></html>", "https://h.test/").title == "Harbour Docs"


@coroutine_test
async def test_light_hits_carry_the_title_web_fetch_gives_the_page(offline_settings):
    result = await LightSearch.from_settings(offline_settings).search("photosynthesis chloroplasts calvin cycle")
    hit = next(h for h in result["hits"] if h["url"] == WIKI)
    page = await WebFetch.from_settings(offline_settings).fetch(WIKI)
    assert hit["title"] == page["title"] == "Photosynthesis"
    assert all(not h["title"].endswith("- Wikipedia") for h in result["hits"])


@pytest.fixture(scope="module")
def replay():
    server = EngineReplay(shared_data("search-provider-responses")).start()
    yield server
    server.stop()


def engine(replay, mode):
    replay.reset()
    return load_provider(merge_settings(replay.settings(), {
        "WEB_SEARCH_PROVIDER": mode, "LOG_LEVEL": "ERROR", "WEB_SEARCH_SUSPENSION": None,
        "WEB_SEARCH_CACHE": None}), environ={})


@coroutine_test
async def test_engine_hits_lose_the_site_name_the_page_title_carries(replay):
    ddg = await engine(replay, "ddg_html").search("eino", max_results=10)
    titles = {h["url"]: h["title"] for h in ddg["hits"]}
    assert titles["https://en.wikipedia.org/wiki/Eino"] == "Eino"
    assert titles["https://github.com/cloudwego/eino"].startswith("cloudwego/eino: The ultimate")  # GitHub's page
    assert titles["https://www.cloudwego.io/docs/eino/"] == "Eino: User Manual"  # "| CloudWeGo"
    searx = await engine(replay, "searxng").search("rust ownership")
    titles = {h["url"]: h["title"] for h in searx["hits"]}
    assert titles["https://en.wikipedia.org/wiki/Rust_(programming_language)"] == "Rust (programming language)"
    # a book's name is no site name of doc.rust-lang.org: the title stays whole
    assert titles["https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html"] == \
        "What is Ownership? - The Rust Programming Language"
    assert all(h["title"] in searx["text"] for h in searx["hits"])


@hsettings(max_examples=60, deadline=None)
@given(title=st.text(max_size=120), url=st.one_of(st.none(), st.text(max_size=60)),
       name=st.one_of(st.none(), st.text(max_size=30)))
def test_a_hit_title_loses_at_most_its_site_parts_whatever_it_holds(title, url, name):
    stripped = without_site_name(title, url, [name])
    assert stripped in " ".join(title.split()) or stripped == title
    assert stripped.strip() or not title.strip()  # never an empty title for a non-empty one


def test_the_one_walk_for_head_tags_and_headings_finds_what_the_xpaths_found_in_a_second_top_level_element():
    """A page's markup may go on after ``</html>``: libxml2 makes a second top-level
    element, which ``//meta`` reads; the reader's one walk for meta tags, JSON-LD, titles
    and headings must read it too."""
    from lxml import etree

    from lightsearch.documents.pagemeta import _head_tags
    from lightsearch.documents.readable import _parsed
    from lightsearch.documents.titles import headings

    html = ("<html><head><title>Tide tables</title></head><body><p>x</p></body></html>\n"
            "<html><head><meta name='author' content='Jane Roe'>"
            "<script type='application/ld+json'>{\"@type\": \"NewsArticle\", \"headline\": \"Tides\"}</script>"
            "<title>Second</title></head><body><h1>The headline</h1></body></html>")
    tree = _parsed(html)
    assert tree.getnext() is not None  # the premise: two top-level elements
    metas, scripts = _head_tags(tree)
    assert metas == etree.XPath("//meta[@content][@property or @name or @itemprop]")(tree)
    assert len(metas) == 1
    assert scripts == [str(v) for v in etree.XPath("//script[@type='application/ld+json']/text()")(tree)]
    titles, texts, h1s = headings(tree)
    assert titles == etree.XPath("//title")(tree)
    assert len(titles) == 2
    assert [str(t) for t in texts] == [str(t) for t in etree.XPath("//title[1]//text()")(tree)]
    assert h1s == etree.XPath("//body//h1")(tree)
    assert len(h1s) == 1
    assert extract_readable(html).byline == "Jane Roe"


_PAGE_PIECES = st.sampled_from([
    "<!DOCTYPE html>", '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" '
    '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd">', "< ! doctype x/y>", "<!doctype a/b><p>",
    "<html", "<html lang='en'/>", "<html xmlns='http://www.w3.org/1999/xhtml' />", " />", "/>", "\n", "\r\n",
    "\x00", "\x0b", "\x1f", "\ufffe", "\uffff", "\t", "<p>x</p>", "é", "日本", "<body>", " "])


@hsettings(max_examples=80, deadline=None)
@given(st.lists(_PAGE_PIECES, max_size=14).map("".join))
def test_the_readers_repair_of_a_page_is_trafilaturas(html):
    """The reader repairs a page as trafilatura's loader does (``repair_faulty_html``),
    without that repair's pass over the whole page when no character it removes is there:
    the same UTF-8 bytes for the parser to read."""
    from trafilatura.utils import repair_faulty_html

    from lightsearch.documents.readable import _repaired

    beginning = html[:50].lower()
    expected = repair_faulty_html(html, beginning)
    for data in (html.encode("utf-8"), None):
        assert _repaired(html, beginning, data) == expected.encode("utf-8")


def test_the_readers_repair_looks_for_the_characters_trafilatura_removes():
    """The characters the reader looks for before it leaves the repair's regular
    expression out are exactly those the expression removes."""
    from trafilatura.utils import INVALID_XML_CHARS

    from lightsearch.documents.readable import _REMOVED_CHARS

    removed = {chr(c) for c in range(0x10000) if INVALID_XML_CHARS.match(chr(c))}
    removed |= {chr(c) for c in range(0x10000, 0x110000, 0x101) if INVALID_XML_CHARS.match(chr(c))}
    assert removed == set(_REMOVED_CHARS)


_SCRIPTED_PAGE = (
    "<!doctype html><html><head><title>Moraine notes</title>\n"
    "<style>body { color: red }</style>\n  <script>var tracking = 'Moraine sediment field notes';</script>\n"
    "<noscript><style>.x { display: none }</style></noscript>"
    "<script type='application/ld+json'>{\"@type\": \"NewsArticle\", \"articleBody\": \"%s\"}</script>\n"
    "<script src='/app.js'></script></head><body><script>var a = 1;</script> Lead words %s"
    "<div><span>Kept</span> before <script>var b = 2;</script> and after the script.<style>p {}</style></div>"
    "</body></html>")


def test_trafilatura_reads_the_page_with_its_scripts_set_aside_to_the_same_text_and_the_page_is_left_as_it_was():
    """The reader sets the page's scripts (but JSON-LD) and styles aside while trafilatura
    reads it (trafilatura deletes them all, keeping their tails, but copies them first):
    trafilatura's text is what it reads from the whole page (here its JSON-LD
    articleBody, the one script it reads, when the body holds little; the text around a
    script, joined), and the page is the same page afterwards, every script and style
    back in its place with its tail."""
    import copy

    import trafilatura
    from lxml import etree

    from lightsearch.documents.readable import _parsed, _trafilatura

    body_text = " ".join(["Glacial moraines record the advance and retreat of ice sheets."] * 8)
    for body in ("<div></div>", f"<article><h1>Moraines</h1><p>{body_text} <script>x()</script>Tail.</p></article>"):
        html = _SCRIPTED_PAGE % (body_text, body)
        tree = _parsed(html)
        before = etree.tostring(tree)
        whole = trafilatura.extract(copy.deepcopy(tree), include_comments=False, include_tables=True, fast=True,
                                    deduplicate=False) or ""
        assert "Glacial moraines record" in whole  # the premise: the article is read, from the body or JSON-LD
        for markdown in (False, True):
            text = _trafilatura(tree, None, markdown)
            assert etree.tostring(tree) == before
            if not markdown:
                assert text == whole.strip()


def test_the_scripts_come_back_when_trafilatura_fails(monkeypatch):
    """An error inside trafilatura leaves the page whole."""
    from lxml import etree

    import lightsearch.documents.readable as readable

    tree = readable._parsed(_SCRIPTED_PAGE % ("x", "<p>Some text</p>"))
    before = etree.tostring(tree)

    def broken(*_args, **_kwargs):
        assert tree.find("head/style") is None  # set aside while it runs
        assert tree.find("body/div/script") is None
        assert "before  and after" in etree.tostring(tree, encoding=str)  # the tail joined, as trafilatura joins it
        raise RuntimeError("broken")

    monkeypatch.setattr(readable, "_trafilatura_once", broken)
    with pytest.raises(RuntimeError):
        readable._trafilatura(tree, None, False)
    assert etree.tostring(tree) == before


def test_runs_of_sibling_scripts_join_their_tails_in_order_and_come_back_in_place():
    """Thousands of sibling scripts and styles, some first in their parent, each with a
    tail: set aside, their tails read in document order where trafilatura's deletion
    joins them; put back, the page is the same page."""
    from lxml import etree

    from lightsearch.documents.readable import _parsed, _scripts_set_aside

    runs = "".join(f"<script>s{k}</script>t{k} <style>c{k}</style>" for k in range(3000))
    tree = _parsed(f"<html><body><div>{runs}<p>Body</p>{runs}</div></body></html>")
    before = etree.tostring(tree)
    with _scripts_set_aside(tree):
        div = tree.find("body/div")
        assert len(div) == 1
        assert div.text == "".join(f"t{k} " for k in range(3000))
        assert div[0].tail == div.text
    assert etree.tostring(tree) == before


def test_trafilatura_reads_real_pages_with_their_scripts_set_aside_to_the_same_text():
    """On recorded article pages (the shared benchmark's first 60), trafilatura's text with
    the scripts and styles set aside is its text of the whole page, and the page is as it
    was: a trafilatura that read a script other than JSON-LD would fail here."""
    import copy
    import gzip

    from lxml import etree

    from lightsearch.documents.cleaning import prune_unseen
    from lightsearch.documents.readable import _parsed, _trafilatura, _trafilatura_once

    pages = sorted(shared_data("article-extraction-benchmark", "html").glob("*.html.gz"))[:60]
    assert pages
    for path in pages:
        tree = _parsed(gzip.decompress(path.read_bytes()).decode("utf-8", "replace"))
        prune_unseen(tree)
        before = etree.tostring(tree)
        whole = _trafilatura_once(copy.deepcopy(tree), None, False)
        assert _trafilatura(tree, None, False) == whole, path.name
        assert etree.tostring(tree) == before, path.name
