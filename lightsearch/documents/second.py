"""A second, independent reading of a page: readability-lxml's.

readability-lxml scores the page's containers by their paragraphs (commas, length, link
density, class and id words) and keeps the best one with its siblings; trafilatura walks
the page with rules and lists of markup. They fail on different pages, which is what a
second opinion is for.

The reading takes the tree the reader has already parsed and cleaned (hidden elements and
furniture pruned, layout tables unwrapped), so it neither parses the page again nor runs
readability-lxml's own clean-up, which copied the whole page through lxml's ``Cleaner``
and rewrote every link: half its time, for nothing the text needs.
"""

from __future__ import annotations

import copy

from lxml.html import HtmlElement, fromstring
from readability import Document

from lightsearch.documents.blocktext import block_lines


class _TreeDocument(Document):
    """readability-lxml on a tree the caller has parsed and cleaned: each of its passes
    reads a fresh copy of it (a pass changes the tree it reads)."""

    def _parse(self, input: HtmlElement) -> HtmlElement:
        return copy.deepcopy(input)


def readability_lines(tree: HtmlElement) -> list[str]:
    """readability-lxml's reading of ``tree`` (left as it is), as lines; [] when it finds
    nothing."""
    summary = _TreeDocument(tree).summary(html_partial=True)
    if not summary or not summary.strip():
        return []
    return block_lines(fromstring(summary))
