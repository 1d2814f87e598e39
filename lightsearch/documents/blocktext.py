"""An element's text as a reader shows it: a line per block."""

from __future__ import annotations

from lxml import etree
from lxml.html import HtmlElement

_BLOCKS = ("p", "div", "li", "h1", "h2", "h3", "h4", "h5", "h6", "tr", "pre", "blockquote", "figcaption", "dd",
           "dt", "table", "section", "ul", "ol", "article", "header", "footer", "aside")


def block_lines(el: HtmlElement) -> list[str]:
    """The text of ``el`` with a line per block and per ``<br>``, whitespace normalised,
    empty lines left out. ``el`` is changed (line breaks are written into it): pass a
    copy of anything still in use."""
    for br in el.iter("br"):
        br.tail = "\n" + (br.tail or "")
    for block in el.iter(_BLOCKS):
        block.tail = "\n" + (block.tail or "")
        block.text = "\n" + (block.text or "")
    text = etree.tostring(el, method="text", encoding="unicode")
    return [line for line in (" ".join(raw.split()) for raw in text.splitlines()) if line]
