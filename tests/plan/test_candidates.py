"""Candidate scores draw on what the sources publish: the described entries' term counts
as a background, and the titles they give the pages a sitemap names by URL alone."""

from __future__ import annotations

from lightsearch.cache.descriptions import describe
from lightsearch.plan.candidates import CandidateScorer, DescribedTitles, entry_terms
from lightsearch.ranking.tokenize import tokenize

ARCHIVE = "https://journal.test/papers/page/1"


def _listing(*entries: tuple[str, str]):
    """A described listing page naming these (URL, title) entries."""
    return describe(ARCHIVE, "listing", [entry_terms([title], url) for url, title in entries])


def test_a_sitemap_entry_is_scored_by_the_title_its_description_gives_it():
    """The slug holds the title's first words only; "flutter" is further on. A cold
    search that reads the sitemap and not the archive page would score the paper as not
    about flutter at all."""
    url = "https://journal.test/papers/12-aeroelastic-problems-of-high-speed"
    listing = _listing((url, "Aeroelastic problems of high speed aircraft: flutter of heated wings"),
                       ("https://journal.test/papers/13-boundary-layers", "Boundary layers"))
    query = set(tokenize("flutter of heated wings"))
    titles = DescribedTitles(query, {"journal": [listing]})
    assert titles.terms("journal", url) == frozenset(tokenize("flutter heated wings"))
    plain = CandidateScorer([query])
    informed = CandidateScorer([query], described=titles)
    assert plain.score_many([(url, (), url)], "journal")[0][0] == 0.0
    assert informed.score_many([(url, (), url)], "journal")[0][0] == 1.0


def test_only_an_entry_carrying_every_term_of_the_url_lends_its_title():
    url = "https://journal.test/papers/14-heated-wings"
    listing = _listing(("https://journal.test/papers/15-heated-wings", "Heated wings in flutter"))
    titles = DescribedTitles(set(tokenize("flutter")), {"journal": [listing]})
    assert titles.terms("journal", url) == frozenset()  # another paper's number
    assert titles.terms("other-source", "https://journal.test/papers/15-heated-wings") == frozenset()


def test_two_entries_a_url_could_be_lend_only_what_both_carry():
    """A URL whose terms two described entries carry (a page listed twice, or two pages a
    slug cannot tell apart) is lent the query terms common to both."""
    url = "https://journal.test/papers/heated-wings"
    archive = _listing((url, "Heated wings in flutter"))
    home = describe("https://journal.test/", "seed", [entry_terms(["Heated wings: panel flutter at Mach 3"], url)])
    query = set(tokenize("panel flutter mach"))
    titles = DescribedTitles(query, {"journal": [archive, home]})
    assert titles.terms("journal", url) == frozenset(tokenize("flutter"))


def test_a_feed_summary_adds_nothing_to_a_score_and_lends_nothing():
    """A feed entry's summary holds more words than a title or a slug: an entry is scored
    on its title as a sitemap entry on its slug, and a feed's description lends no summary
    to the sitemap entry of the same page."""
    query = set(tokenize("panel flutter"))
    url = "https://journal.test/papers/21-a-note"
    feed = describe("https://journal.test/feed.xml", "feed",
                    [entry_terms(["A note", "On panel flutter of heated wings"], url)])
    assert DescribedTitles(query, {"journal": [feed]}).rows == {}
    scorer = CandidateScorer([query])
    (summarised, _), (titled, _) = scorer.score_many(
        [(url, ["A note"], url), ("https://journal.test/papers/22-panel-flutter", ["Panel flutter"], None)],
        "journal", summaries=["On panel flutter of heated wings", ""])
    assert summarised == 0.0
    assert titled > 0.0


def test_a_sitemap_description_lends_nothing():
    """A sitemap's entries are their URLs' terms: nothing a URL does not say already."""
    url = "https://journal.test/papers/16-heated-wings"
    sitemap = describe("https://journal.test/sitemap-1.xml", "sitemap", [entry_terms((), url)])
    assert DescribedTitles(set(tokenize("heated")), {"journal": [sitemap]}).rows == {}


def test_the_background_keeps_a_topic_word_rare_in_an_on_topic_pool():
    """Every candidate the search has seen so far is about flutter (it read the sitemap
    whose entries name it most): counted over them alone, "flutter" weighs nothing and a
    page matching "aircraft" outscores one matching "flutter"."""
    query = set(tokenize("flutter aircraft"))
    background = ({"flutter": 20.0, "aircraft": 300.0}, 3000.0)
    for scorer, flutter_wins in ((CandidateScorer([query]), False), (CandidateScorer([query], background), True)):
        for i in range(30):
            scorer.score(f"https://x/{i}", [f"flutter report {i}"])
        flutter, _ = scorer.score("https://x/f", ["flutter of panels"])
        aircraft, _ = scorer.score("https://x/a", ["aircraft noise"])
        assert (flutter > aircraft) is flutter_wins


def test_a_query_naming_an_acronym_finds_the_page_named_in_full():
    """A question names the rabbi רשב"י; the sitemap names his article by its title's
    words, the listing by its title: both are scored on the acronym's initials."""
    query = set(tokenize('מיהו בנו של רשב״י?'))
    url = "https://wiki.test/wiki/12-%D7%A8%D7%91%D7%99-%D7%A9%D7%9E%D7%A2%D7%95%D7%9F-%D7%91%D7%A8-%D7%99%D7%95%D7%97%D7%90%D7%99"
    other = "https://wiki.test/wiki/13-%D7%A8%D7%91%D7%9F-%D7%92%D7%9E%D7%9C%D7%99%D7%90%D7%9C"
    scorer = CandidateScorer([query])
    (by_slug, _), (unrelated, _) = scorer.score_many([(url, (), url), (other, (), other)], "wiki")
    assert by_slug > 0
    assert unrelated == 0.0
    (by_title, _), = CandidateScorer([query]).score_many([("https://wiki.test/?p=12", ["רבי שמעון בר יוחאי"], None)])
    assert by_title > 0
