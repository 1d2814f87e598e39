"""A list of the article's prose lost from the middle of the reading is put back in place."""

from __future__ import annotations

from lightsearch.documents.lost_lists import restore_lists
from lightsearch.documents.readable import _parsed, extract_readable
from lightsearch.documents.sections import block_texts

URL = "https://news.example.org/2026/12/servers"
OPENING = ("<p>Most teams start with one machine for everything, and only split the work across several "
           "machines once the first one runs out of memory or disk.</p>"
           "<div><p>A single machine can run several services at once, and the services on it may be of two "
           "kinds:</p>")
CLOSING = ("</div><p>Either way, each service is watched on its own, so a fault in one of them does not hide behind "
           "the others on the same machine.</p>"
           "<p>The next chapter shows how the alerts for each kind are set up and who answers them at night.</p>")
LIST = ('<ul><li>Related to each other: for example, a caching server and the web server it serves</li>'
        '<li>Unrelated services sharing hardware, like <a href="/p">Puppet</a> or <a href="/c">Chef</a></li></ul>')


def page(middle: str) -> str:
    return (f"<html><head><title>Servers and services</title></head><body><article><h1>Servers and services</h1>"
            f"{OPENING}{middle}{CLOSING}</article></body></html>")


def test_a_short_list_whose_links_are_short_words_is_kept_in_place():
    """Class: trafilatura takes a short prose list whose few links are short words for a
    list of links and deletes it from the middle of the article (the list closing its block,
    as a definition or a paragraph's follow-on list does)."""
    text = extract_readable(page(LIST), URL).text
    assert "Related to each other: for example, a caching server" in text
    assert "Unrelated services sharing hardware, like Puppet or Chef" in text
    assert text.index("may be of two kinds") < text.index("Related to each other") \
        < text.index("Unrelated services") < text.index("Either way, each service")


def test_a_list_of_links_or_a_list_beside_the_reading_is_not_put_back():
    """The other side: a list that is mostly links (other stories), and a list that is not
    between two lines of the reading (after its end), stay out."""
    stories = "".join(f'<li><a href="/{n}">Another story about servers and services, part {n}</a></li>'
                      for n in range(3))
    tree = _parsed(page(f"<ul>{stories}</ul>"))
    blocks = block_texts(tree)
    text = "\n".join(blocks[p] for p in tree.iter("p"))
    assert restore_lists(text, blocks) == text
    tree = _parsed(page("") .replace("</article>", f"</article><div>{LIST}</div>"))
    blocks = block_texts(tree)
    text = "\n".join(blocks[p] for p in tree.iter("p"))
    assert restore_lists(text, blocks) == text
