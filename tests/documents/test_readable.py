"""web_fetch's extraction on the classes of page it once misread.

Each page in tests/reader_pages/ is our own writing and shows one class: hidden content,
page furniture, a paragraph the page repeats, titles that only agreement gets right.
Every rule is checked on both sides: what must go is gone, what must stay stayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from trafilatura.utils import load_html

from lightsearch.documents.cleaning import prune_unseen
from lightsearch.documents.readable import extract_readable

PAGES = Path(__file__).parent / "reader_pages"
URL = "https://news.example.org/2026/12/story"


def read(name: str, **kw):
    return extract_readable((PAGES / name).read_text(encoding="utf-8"), URL, **kw)


def test_hidden_elements_are_not_article_text():
    page = read("hidden_content.html")
    for gone in ("Subscribers only", "Screen-reader-hidden", "invisible placeholder", "Menu: News",
                 "Template text"):
        assert gone not in page.text
    for kept in ("resumed its crossings", "forty passengers", "every forty minutes"):
        assert kept in page.text


def test_galleries_players_and_read_on_links_are_furniture():
    page = read("furniture.html")
    for gone in ("Frost on the blossom", "press play", "Read more: Beekeepers", "cider houses",
                 "Orchard Weekly Newsletter", "Thanks for signing up"):
        assert gone not in page.text
    for kept in ("single night of frost", "insured only part", "thin the surviving fruit"):
        assert kept in page.text


def test_a_paragraph_the_page_repeats_is_kept_as_often():
    text = read("repeated_paragraph.html").text
    chorus = "Turn the wheel and grind the grain, the river brings the water back again, and the wheel turns round."
    assert text.count(chorus) == 2
    assert text.count("The notebook's owner") == 1
    # markdown mode keeps the repeat too
    assert read("repeated_paragraph.html", markdown=True).text.count(chorus) == 2


def test_a_single_paragraph_is_not_multiplied():
    html = ("<html><body><article><p>" + "A sentence that appears exactly once in the page. " * 3
            + "</p><div><p>" + "A sentence that appears exactly once in the page. " * 3 + "</p></div></article></body></html>")
    # the same text in two places that are not consecutive siblings is not a repeat run
    text = extract_readable(html, URL).text
    assert text.count("appears exactly once") <= 6


@pytest.mark.parametrize(("page", "title"), [
    ("title_placeholder_h1.html", "New reading room opens at the county library"),
    ("title_site_banner.html", "Rail line to the coast will close for two weekends"),
    ("title_specific_headline.html", "Budget 2027: what the new tax bands mean for renters"),
    ("hidden_content.html", "Harbour ferry returns after repairs"),
    ("furniture.html", "Orchard growers count the cost of a late frost"),
])
def test_title_by_agreement_with_the_site_name_stripped(page, title):
    assert read(page).title == title


def test_title_without_agreement_is_the_pages_own_title_minus_the_site():
    html = ("<html><head><title>Winter opening hours - Museum of Clocks</title>"
            "<meta property='og:site_name' content='Museum of Clocks'></head>"
            "<body><h1>Welcome</h1><p>" + "The museum keeps shorter hours in winter. " * 10 + "</p></body></html>")
    assert extract_readable(html, "https://clocks.example.org/hours").title == "Winter opening hours"


def test_the_article_is_never_pruned_with_its_furniture():
    """A furniture word on the element holding the article ("entry-content-read-more") or
    a hidden wrapper around the <h1> must not take the article with it."""
    body = "<p>" + "The council approved the new bridge across the river after a long debate. " * 8 + "</p>"
    html = (f"<html><body><div class='entry-content entry-content-read-more'>{body}{body}</div>"
            "<div class='gallery'><p>Caption one of the gallery.</p></div></body></html>")
    tree = load_html(html)
    counts = prune_unseen(tree)
    assert counts["furniture"] == 1
    assert "approved the new bridge" in tree.text_content()
    assert "Caption one" not in tree.text_content()
    page = extract_readable(html, URL)
    assert "approved the new bridge" in page.text


def test_a_page_that_hides_everything_until_a_script_runs_is_still_read():
    body = "".join(f"<p>Paragraph {i} of the story about the harbour and its ferries, told at length.</p>"
                   for i in range(8))
    html = f"<html><body><div style='display:none' id='app'>{body}</div></body></html>"
    assert "Paragraph 5" in extract_readable(html, URL).text


def test_prune_counts_what_went():
    counts = prune_unseen(load_html((PAGES / "hidden_content.html").read_text(encoding="utf-8")))
    assert counts["hidden"] >= 4
    counts = prune_unseen(load_html((PAGES / "furniture.html").read_text(encoding="utf-8")))
    assert counts["furniture"] >= 2


def test_markdown_keeps_headings_lists_tables_code_and_links_in_order():
    text = read("structured.html", markdown=True).text
    order = ["## Requirements", "- Python 3.11 or newer", "## Install", "pip install tide-table",
             "| Harbour | Constituents", "## Further reading",
             "[theory chapter](https://docs.example.org/theory)",
             "- [List of harbours](https://docs.example.org/harbours)",
             "- [Changelog](https://docs.example.org/changelog)"]
    positions = [text.find(part) for part in order]
    assert -1 not in positions, [p for p, at in zip(order, positions, strict=True) if at == -1]
    assert positions == sorted(positions)
    assert "Docs home" not in text  # the page's navigation stays out


def test_plain_text_keeps_paragraph_breaks_and_no_link_syntax():
    text = read("structured.html").text
    assert "\n" in text
    assert "](" not in text


def test_a_body_split_into_same_class_sections_is_read_whole_in_page_order():
    """Class: the article cut into sibling containers of one class between ad slots."""
    text = read("split_body.html").text
    order = ["handed the station over", "oil burned by the lamp", "county archive", "first swallow",
             "publish the transcriptions"]
    at = [text.find(part) for part in order]
    assert -1 not in at, text
    assert at == sorted(at)
    for gone in ("Advertisement", "weekly newsletter", "All rights reserved"):
        assert gone not in text


def test_a_second_copy_of_the_article_is_dropped():
    """Class: the same article twice in the page (an AMP or infinite-scroll copy)."""
    text = read("copied_body.html").text
    assert text.count("Sleeper trains will run again") == 1
    assert text.count("second train on Fridays") == 1


def test_a_schedule_that_repeats_its_rows_keeps_every_day():
    """The other side of the copy rule: a plan repeating one day's routine is content."""
    text = read("repeated_schedule.html").text
    assert text.count("carry at least two litres of water") == 3
    assert text.count("eat something small") == 3
    assert "climbs steeply to the lighthouse" in text


def test_the_headline_and_dateline_are_not_repeated_above_the_body_and_the_standfirst_stays():
    """The headline is ``title`` and the dateline is no prose; the standfirst is the
    article's own words (readers and the multilingual evaluation count it as text)."""
    page = read("headline_standfirst.html")
    assert page.title == "River otters are back in the city centre"
    assert page.text.startswith("Otters have been seen under three bridges"), page.text[:200]
    assert "River otters are back" not in page.text
    assert "12 November 2026" not in page.text
    assert page.text.index("forty years") < page.text.index("Volunteers counting birds")


def test_a_lead_paragraph_copied_into_the_description_is_kept():
    """The other side: many sites copy the first paragraph into <meta description>."""
    text = read("lead_in_description.html").text
    assert text.startswith("The central library will open until ten")


def test_a_list_of_other_stories_and_the_copyright_line_do_not_end_the_article():
    """Class: the body ends with links to other articles and a copyright line; a
    sentence that carries one link is still the article's (the other side)."""
    text = read("tail_links.html").text
    for gone in ("Bridge repairs close", "Christmas market opens", "All rights reserved",
                 "https://news.example.org/2026/12/story"):
        assert gone not in text
    assert text.startswith("The island ferry will run four times a day")
    assert "winter page" in text
    assert "change them free of charge" in text


def test_a_closing_code_fence_is_followed_by_a_blank_line_in_markdown():
    text = read("structured.html", markdown=True).text
    fence = text.index("tide-table --harbour dover --next 4\n```")
    assert text[fence:].split("```", 1)[1].startswith("\n\n### Harbours")


def test_a_lead_paragraph_in_its_own_block_before_the_body_is_kept_after_the_standfirst():
    """Class: the lead sits in a block of its own class before the body
    container trafilatura picks. The standfirst in the header (the meta description, in
    the same words) is the article's own words too: web_fetch returns no description, so
    it comes back above the lead (it was once left out)."""
    text = read("lead_block.html").text
    assert text.startswith("The old bridge is open again after eight months of work."), text[:120]
    assert text.index("open again after eight months") < text.index("reopened to traffic") \
        < text.index("four million pounds")
    assert "2 November 2026" not in text


def test_a_standfirst_the_page_does_not_show_as_its_description_is_not_made_up():
    """The other side: a header paragraph that is not the meta description (a byline, a
    caption) is not put back as a standfirst."""
    html = (PAGES / "lead_block.html").read_text(encoding="utf-8").replace(
        '<p class="standfirst">The old bridge is open again after eight months of work.</p>',
        '<p class="standfirst">Reporting by the county desk, with pictures from our readers on both banks.</p>')
    text = extract_readable(html, URL).text
    assert text.startswith("The old stone bridge over the river reopened"), text[:120]
    assert "Reporting by the county desk" not in text


def test_a_lead_block_written_without_a_paragraph_is_kept():
    """Class: the lead block before the body holds its text alone, with no ``<p>`` (a
    "perex" ``<div>``); it is kept above the body as a lead paragraph is."""
    html = (PAGES / "lead_block.html").read_text(encoding="utf-8").replace(
        '<div class="article-lead"><p>', '<div class="article-lead">').replace(
        'last spring.</p></div>', 'last spring.</div>')
    text = extract_readable(html, URL).text
    assert text.count("reopened to traffic") == 1
    assert text.index("reopened to traffic") < text.index("four million pounds")


def test_a_dateline_and_byline_paragraph_before_the_body_is_no_lead():
    """The other side of the lead block: a paragraph there that holds the page's date
    element (the signature line: publisher, date, author) is its dateline, not its lead;
    the lead paragraph beside it is still kept."""
    signature = ('<p class="signature"><span>County News</span> | <time datetime="2026-11-02T08:10">'
                 '02.11.2026 at 08:10</time> | Updated 03.11.2026 at 09:30 | By Ann Hale (with Tom Reed and '
                 'the county desk)</p>')
    html = (PAGES / "lead_block.html").read_text(encoding="utf-8").replace(
        '<div class="article-lead"><p>', f'<div class="article-lead">{signature}<p>')
    text = extract_readable(html, URL).text
    assert "Ann Hale" not in text
    assert "08:10" not in text
    assert text.index("reopened to traffic") < text.index("four million pounds")


# ------------------------------------------------------------------ evidence, not class words
def test_a_class_word_on_the_body_container_does_not_prune_the_body():
    """Class: a theme's ``entry themeform share`` holds the article; the page's
    evidence (it holds the core paragraphs) keeps it, while the real share bar inside it
    and the gallery beside it go."""
    page = read("body_in_share_container.html")
    assert page.text.startswith("The last bus from the town"), page.text[:200]
    assert "tickets will cost the same" in page.text
    for gone in ("About us: the Valley Post", "Email this story", "photographed by a reader"):
        assert gone not in page.text


def test_blocks_of_one_kind_that_make_up_the_page_are_not_pruned_as_hidden():
    """The other side: a list article that hides its later sections until a click; the
    hidden sections together are most of the page, so they stay."""
    sections = "".join(f"<div class='slide-section' hidden><h3>{n}. A bench by the river</h3><p>Bench number {n} "
                       "stands where the towpath bends, and walkers stop there to watch the boats go through the "
                       "lock on a summer evening.</p></div>" for n in range(2, 9))
    html = ("<html><head><title>Eight benches by the river</title></head><body><article><h1>Eight benches by the "
            "river</h1><div class='slide-section'><p>Bench number 1 is the oldest, put there by the parish in the "
            f"year the lock was rebuilt, and it still faces the water.</p></div>{sections}"
            "<div aria-hidden='true'><p>Menu: News, Sport, Weather</p></div></article></body></html>")
    text = extract_readable(html, URL).text
    assert "Bench number 5 stands" in text
    assert "Menu: News" not in text


def test_a_heading_that_is_not_the_title_stays_and_the_title_and_dateline_go():
    page = read("headline_is_not_the_title.html")
    assert page.title == "Harbour wall repairs begin"
    assert page.text.startswith("After the storms of 2026"), page.text[:200]
    assert "Harbour wall repairs begin" not in page.text
    assert "Published 3 March 2026" not in page.text


def test_teasers_and_an_appeal_beside_a_split_body_are_not_joined():
    """Class: same-class sections that are not the article: related stories
    in a rail (a linked headline each) and a donation appeal."""
    text = read("teasers_and_appeals_beside_a_split_body.html").text
    assert "a petition with four hundred names" in text  # the split body is read whole
    for gone in ("Donate today", "The lock keepers at the weir", "cleared the old towpath"):
        assert gone not in text


def test_the_further_posts_of_a_blog_index_are_not_joined():
    text = read("blog_index.html").text
    assert "runner beans have finally come up" in text
    assert "Turning the compost heap" not in text


def test_a_read_on_label_goes_with_its_link_and_an_appeal_ends_nothing():
    text = read("labels_and_appeals.html").text
    for gone in ("Lesen Sie auch", "Brückenbau im Nachbarort", "Jetzt abonnieren"):
        assert gone not in text
    assert "Im Sommer soll die Fähre auch abends fahren" in text
    assert "Schülerausweis vorzeigen" in text


def test_a_section_heading_of_a_reference_page_is_not_a_label():
    items = "".join(f"<li><a href='/wiki/{w}'>{w} (physics)</a></li>" for w in ("Tide", "Wave", "Current"))
    body = "".join(f"<p>Paragraph {n}: the tide rises and falls twice a day because the moon pulls the sea "
                   "towards it, and the sun adds or takes away a little from that pull.</p>" for n in range(5))
    html = (f"<html><head><title>Tide - Wiki</title></head><body><div id='content'><h1>Tide</h1>{body}"
            f"<h2>See also</h2><ul>{items}</ul></div></body></html>")
    text = extract_readable(html, "https://wiki.example.org/wiki/Tide", markdown=True).text
    assert "See also" in text


def test_each_cleaning_step_can_be_switched_off_by_name():
    from lightsearch.documents.readable import STEPS

    html = (PAGES / "headline_is_not_the_title.html").read_text(encoding="utf-8")
    assert "Published 3 March 2026" in extract_readable(html, URL, skip=("head",)).text
    assert "Published 3 March 2026" not in extract_readable(html, URL).text
    assert extract_readable(html, URL, skip=STEPS).text  # everything off: trafilatura's reading
    with pytest.raises(ValueError, match="skip"):
        extract_readable(html, URL, skip=("headline",))


def test_the_sites_legal_notice_does_not_end_the_article():
    """Class: the page's template closes the story's text with the site's legal notice
    (no footer markup): a copyright line and the short trademark and licence lines after
    it."""
    text = read("legal_notice.html").text
    for gone in ("Copyright", "belong to the readers", "registered trademark"):
        assert gone not in text
    assert text.endswith("how the gates are hung and balanced.")


def test_a_paragraph_after_a_copyright_line_is_no_legal_notice():
    """The other side: a long line after a copyright line is prose, kept with it."""
    from lightsearch.documents.readable import _parsed
    from lightsearch.documents.sections import strip_tail

    body = "The lock reopens to boats on Friday morning once the new seals have settled. " * 3
    after = ("The photographs in this story were taken by readers along the towpath on Tuesday, and the "
             "trust thanks everyone who sent them in.")
    text = "\n".join([body, "Copyright 2026 Canal News", after])
    assert strip_tail(text, _parsed("<html><body><p>x</p></body></html>")) == text


def test_a_paragraph_written_straight_into_the_article_container_is_kept_in_place():
    """Class: a paragraph with no tag of its own (text and a link, after a figure) in the
    article's container."""
    text = read("loose_paragraph.html").text
    assert "Growers who ran fans and lit burners" in text
    assert "covers hail, not frost." in text
    assert text.index("four degrees below zero") < text.index("Growers who ran fans") \
        < text.index("help with the cost of replanting")
    marked = read("loose_paragraph.html", markdown=True).text  # its link written as the reading's are
    assert "The [insurance](https://news.example.org/topics/insurance) most of them carry" in marked
    assert marked.count("Growers who ran fans") == 1


def test_an_inline_images_caption_and_a_run_of_links_are_no_loose_paragraph():
    """The other side: text beside an inline image is its caption, a run of links is a
    menu; neither is put back."""
    from lightsearch.documents.loose_text import restore_loose_text
    from lightsearch.documents.readable import _parsed
    from lightsearch.documents.sections import block_texts

    first = "The association has asked the regional government for help with the cost of replanting."
    second = "Cider makers expect to buy apples from further afield this autumn, and prices will rise."
    caption = "The old cider press at the Hill Farm, which will stand idle this autumn for the first time."
    links = "".join(f'<a href="/{n}">Orchards and cider makers of the valley, part {n}</a> ' for n in range(3)) + "."
    tree = _parsed(f'<html><body><div class="text"><p>{first}</p><p>{second}</p>'
                   f'<span class="photo"><img src="/press.jpg">{caption}</span><p>x</p>{links}</div></body></html>')
    text = "\n".join([first, second])
    assert restore_loose_text(text, block_texts(tree)) == text


def test_a_lead_written_in_a_header_of_the_body_is_kept_on_top():
    """Class: the article's lead written as the text of a ``<header>`` in the body's
    container, with no paragraph of its own."""
    text = read("lead_and_bold_subheading.html").text
    assert text.count("moves to its winter timetable on Monday") == 1
    assert text.index("moves to its winter timetable") < text.index("follows the fall in passengers")


def test_a_bold_line_before_a_paragraph_is_a_subheading_kept_in_place():
    """Class: a subheading written as a bold run between the body's paragraphs (no
    ``<h2>``); a bold phrase opening a sentence is no subheading of its own."""
    text = read("lead_and_bold_subheading.html").text
    lines = text.split("\n")
    assert "Freight keeps its own sailings" in lines
    assert text.index("summer hour on weekdays") < text.index("Freight keeps its own sailings") \
        < text.index("The early freight sailing")
    assert "Islanders can still book by telephone." not in lines


def test_a_date_inside_a_sentence_stays_in_it():
    """Class: a ``<time>`` inside a sentence (trafilatura deletes every ``<time>`` with its
    text, cutting the sentence); a dateline's ``<time>`` with nothing after it is no part
    of a sentence and stays out as before."""
    body = "".join(f"<p>The bridge over the river has carried traffic for a hundred and forty years, part {n}.</p>"
                   for n in range(3))
    html = (f"<html><body><article><p>Published: <time>2 November 2026</time></p>{body}"
            "<p>The council met on <time datetime='2026-11-02'>2 November</time> and voted to close the old "
            "bridge for repairs until the spring.</p></article></body></html>")
    text = extract_readable(html, URL).text
    assert "The council met on 2 November and voted to close the old bridge" in text
    assert "2 November 2026" not in text
