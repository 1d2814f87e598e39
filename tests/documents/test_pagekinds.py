"""The reader on the kinds of page where the main content is not one article's body.

Each page in reader_pages/ is our own writing, in the shape of a kind of page the reader
once misread: an article under a comment thread twice its size, a forum thread and a
mailing-list thread whose replies are the content, an archive page with one dated entry
among clips, a page laid out in a table, an image post beside a sidebar, a hidden
slideshow beside an article, a home page of teaser cards, a parked domain. What must go
is gone and what must stay stayed.
"""

from __future__ import annotations

from pathlib import Path

from lightsearch.documents.pagekinds import ARTICLE, ENTRY, LISTING, THREAD
from lightsearch.documents.readable import extract_readable

PAGES = Path(__file__).parent / "reader_pages"
URL = "https://news.example.org/2026/12/story"


def read(name: str, **kw):
    return extract_readable((PAGES / name).read_text(encoding="utf-8"), URL, **kw)


ARTICLE_SAYS = ("keep running for at least two more years", "fourteen to three",
                "replace the two oldest vehicles")
COMMENTS_SAY = ("children's ward for eleven years", "well over a pound a journey", "restaurants on the high street",
                "rattle past our bedroom window", "public gallery for the debate")


def test_comments_under_an_article_are_dropped_even_when_they_outweigh_it():
    """Class: a "your views" section twice the article's length, in markup neither
    trafilatura nor pruning names as comments, beside an article whose container no rule
    knows: read as one text before."""
    page = read("article_with_comments.html")
    for said in ARTICLE_SAYS:
        assert said in page.text
    for said in COMMENTS_SAY:
        assert said not in page.text
    assert page.kind == ARTICLE


def test_comments_are_kept_after_the_article_when_asked_for():
    text = read("article_with_comments.html", comments=True).text
    assert all(said in text for said in ARTICLE_SAYS + COMMENTS_SAY)
    assert text.index(ARTICLE_SAYS[-1]) < text.index(COMMENTS_SAY[0])


def test_a_forum_thread_under_a_few_words_of_question_is_read_whole():
    """Class: the replies are comments of the topic's page (as a CMS's forum renders
    them), thirty times the opening post: the thread is the content, and it was lost to
    the comment rules."""
    page = read("forum_thread.html")
    for said in ("smells of nail varnish remover this morning", "Not ruined at all, it is hungry",
                 "That grey liquid is called hooch", "rubber band straight after each feed",
                 "pin the thread in the sourdough section"):
        assert said in page.text, said
    assert "oldmiller" in page.text  # who wrote each reply
    assert page.kind == THREAD
    for control in ("\nReply\n", "\nQuote\n", "Add new comment"):
        assert control not in page.text


def test_a_mailing_list_thread_is_read_whole():
    page = read("mailing_list_thread.html")
    for said in ("Rolling back to 4.1 fixes it", "battery charger switching from bulk to float",
                 "spare bit", "clock drift Ruth mentions"):
        assert said in page.text, said
    assert page.kind == THREAD


def test_a_short_post_with_a_short_discussion_keeps_the_post_alone():
    """The other side: a discussion that does not outweigh its post many times over hangs
    under it (the forum page with only its first three replies)."""
    html = (PAGES / "forum_thread.html").read_text(encoding="utf-8")
    cut = html.index('<article class="comment js-comment" id="comment-40114"')
    end = html.index('  <h2 class="comments__form-title">')
    page = extract_readable(html[:cut] + html[end:], URL)
    assert "smells of nail varnish remover" in page.text
    assert "Not ruined at all" not in page.text


def test_an_archive_page_is_read_as_its_one_dated_entry():
    """Class: a category archive showing its newest post whole and the older ones as clips
    ("Continue reading"): the clips and the sidebar were read around the entry."""
    page = read("archive_one_entry.html")
    assert page.kind == ENTRY
    for said in ("mouse guards", "hefted each hive", "strapped both hives down"):
        assert said in page.text
    for gone in ("Eleven kilos", "Queen cells", "wasps arrive", "Categories", "Vegetables (112)",
                 "Continue reading"):
        assert gone not in page.text


def test_an_index_page_of_teasers_has_no_main_content():
    """Class: a home page of teaser cards, no article of its own: the reader says so
    instead of returning the cards as if they were one."""
    page = read("listing_page.html")
    assert page.kind == LISTING
    assert page.text == ""


def test_teaser_cards_beside_an_article_are_dropped():
    """The other side of the listing: the same cards under an article are a rail."""
    html = (PAGES / "listing_page.html").read_text(encoding="utf-8")
    article = ("<article><h1>Harbour dredging plan approved</h1>" + "".join(
        f"<p>Paragraph {n}: the council backed a two-year plan to deepen the channel so that larger ferries "
        "can dock at the harbour wall, and the fishing fleet says the work will drive away the catch.</p>"
        for n in range(5)) + "</article>")
    page = extract_readable(html.replace('<main id="main-content" class="main-content">',
                                         '<main id="main-content" class="main-content">' + article), URL)
    assert page.kind == ARTICLE
    assert "Paragraph 4: the council backed" in page.text
    for gone in ("Rovers through to the county cup", "late header from the captain", "Ferry fares are pricing"):
        assert gone not in page.text


def test_a_layout_table_page_reads_as_its_article_not_as_pipe_rows():
    """Class: a page laid out in a table: the menu, the other stories and the footer came
    out as pipe-separated rows with the article glued into one cell."""
    text = read("layout_table.html").text
    assert "|" not in text
    assert "The wall, which runs for nine hundred metres" in text
    assert "\nThe wall, which runs" in text  # its own paragraph, not one cell of a row
    lines = text.split("\n")
    for menu in ("Home", "Local news", "Archive", "Spring fair returns", "Privacy", "Contact us"):
        assert menu not in lines


def test_an_image_post_is_read_without_its_sidebar_share_and_sign_up_boxes():
    """Class: a photo blog's post holds a picture and one line; the reading took the
    sidebar's "about me", the share box and the sign-up box for the post."""
    text = read("image_post.html").text
    assert "First hard frost of the winter" in text
    for gone in ("I have walked the same stretch", "Prints of every photograph", "Share this photo",
                 "Sign up with your email", "Archive"):
        assert gone not in text


def test_a_hidden_slideshow_beside_the_article_is_not_read():
    """Class: a slideshow hidden until a click, three times the article's length, with
    its captions' link markup escaped into text: kept for its size before."""
    text = read("hidden_slideshow.html").text
    assert "more than a thousand people queued" in text
    assert "women who gutted and packed the herring" in text
    assert "Picture 3 of 12" not in text
    assert "<a href" not in text
    assert "&lt;a" not in text


def test_a_parked_domains_footer_link_bar_is_not_its_content():
    """Class: a parked domain has no content; its footer's bar of links and disclaimer
    were returned as the page."""
    page = read("parked_domain.html")
    for gone in ("Privacy Policy", "Terms of Use", "|", "sponsored listings", "Copyright"):
        assert gone not in page.text
