"""The second reading of a page whose first reading is doubtful (:mod:`~lightsearch.documents.doubt`).

The first reading is trafilatura's fast mode: its own rules. Its standard mode adds two
readers that read a page their own way, its copy of readability-lxml's scoring (the
container whose paragraphs score highest, with its siblings) and jusText (every paragraph
classed by its length, link density and stop words), and takes one of theirs where its own
reading is short or deficient. Standard mode does its own reading again first, and on a
short one a second time in recall mode, so on a large page a second reading in that mode
costs two to three times the first. Here the first reading is not done again: the two
other readers run on the tree it read, the same functions with the same settings standard
mode calls, and one of their readings is chosen by standard mode's own preferences (lengths
counted with runs of white space as one):

* readability's, where it reads ``READABILITY_FACTOR`` times as much as the first reading
  (and is no raw JSON) and at least ``1 / JUSTEXT_FACTOR`` of jusText's; jusText is not run
  when readability's reading holds that share of the whole page's text already;
* jusText's, where it reads more than that and jusText is asked at all: where standard
  mode asks it (a first reading shorter than ``SHORT_CHARS``, or than ``LITTLE_CHARS`` and
  ``LITTLE_SHARE`` of the page's text), or where the first reading cut its sentences into
  lines (then it is weighed against readability's, the question being which reads them
  whole), and the page has at most ``JUSTEXT_MAX_BLOCKS`` paragraph elements (its time
  grows with their square);
* else the first reading again: nothing better was found.

The page's comment sections are left out of both readings, as standard mode leaves them out.
:func:`lightsearch.documents.doubt.better` then decides between it and the first reading.
trafilatura's functions for this (``trafilatura.external``, ``trafilatura.xml``) are not in
its documented API: docs/PRIVATE_API.md lists them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from copy import deepcopy

from lxml.html import HtmlElement
from trafilatura.external import justext_rescue, sanitize_tree, try_readability
from trafilatura.settings import Extractor
from trafilatura.utils import normalize_unicode
from trafilatura.xml import xmltotxt

from lightsearch.documents.doubt import FRAGMENTED

READABILITY_FACTOR = 2
JUSTEXT_FACTOR = 3
# jusText is asked where standard mode asks it: a first reading shorter than SHORT_CHARS, or
# shorter than LITTLE_CHARS and LITTLE_SHARE of the page's text (its recall escalation);
# and where the first reading cut its sentences into lines
SHORT_CHARS = 250
LITTLE_CHARS = 3000
LITTLE_SHARE = 0.2
# jusText revises the class of each short paragraph by walking to its nearest long one, so a
# page of N short paragraphs costs it N squared steps: past this many of the elements that
# start its paragraphs, it is not asked (a bound on work, whatever the page's bytes)
JUSTEXT_MAX_BLOCKS = 1000
_JUSTEXT_BLOCKS = ("blockquote", "caption", "dd", "div", "dt", "h1", "h2", "h3", "h4", "h5", "h6", "li", "option",
                   "p", "pre", "td", "th", "tr")
_BLANKS = re.compile(r"\n{3,}")


def second_reading(tree: HtmlElement, first: str, why: str, url: str | None, markdown: bool,
                   leave: Collection[HtmlElement] = ()) -> str:
    """The other readers' reading of ``tree`` (which stays as it is) without the elements
    ``leave`` (the page's comment sections: standard mode reads a page without them too),
    to weigh against the doubtful ``first``; text or Markdown as the first reading is."""
    options = Extractor(output_format="markdown" if markdown else "txt", formatting=markdown, links=markdown,
                        tables=True, comments=False, dedup=False, url=url)
    page = _without(tree, leave)
    generic = _readability(page, options, markdown)
    # lengths as standard mode measures them, its runs of white space as one
    read, generic_read = _size(first), _size(generic)
    longer = generic_read > READABILITY_FACTOR * read and not generic.startswith("{")
    whole = _size(page.text_content())
    if longer and JUSTEXT_FACTOR * generic_read >= whole:
        return generic  # jusText cannot read JUSTEXT_FACTOR times as much as this
    # where the first reading cut its sentences, the question is which reads them whole
    best, best_read = (generic, generic_read) if longer or why == FRAGMENTED else (first, read)
    short = read < SHORT_CHARS or (read < LITTLE_CHARS and read < LITTLE_SHARE * whole)
    if not (short or why == FRAGMENTED) or _blocks(page) > JUSTEXT_MAX_BLOCKS:
        return best
    classed = _justext(page, options, markdown)
    classed_read = _size(classed)
    if longer and JUSTEXT_FACTOR * generic_read >= classed_read:
        return generic
    return classed if classed_read > best_read else best


def _blocks(tree: HtmlElement) -> int:
    return sum(1 for _ in tree.iter(*_JUSTEXT_BLOCKS))


def _size(text: str) -> int:
    return len(" ".join(text.split()))


def _without(tree: HtmlElement, leave: Collection[HtmlElement]) -> HtmlElement:
    """``tree``, or a copy of it without those of ``leave`` still in it."""
    root = tree.getroottree()
    paths = [root.getpath(el) for el in leave if el.getroottree().getroot() is tree]
    if not paths:
        return tree
    page = deepcopy(tree)
    # each found before any is removed (a path names the element by its place)
    for el in [found for path in paths for found in page.getroottree().xpath(path)]:
        parent = el.getparent()
        if parent is not None:
            parent.remove(el)
    return page


def _readability(tree: HtmlElement, options: Extractor, markdown: bool) -> str:
    body = try_readability(deepcopy(tree))
    if not len(body):
        return ""
    # trafilatura's post-processing of that reading (its cleaning and tag conversion);
    # the body comes first in what it returns (the rest differs between its versions)
    return _text(sanitize_tree(body, options)[0], markdown)


def _justext(tree: HtmlElement, options: Extractor, markdown: bool) -> str:
    return _text(justext_rescue(deepcopy(tree), options)[0], markdown)


def _text(body, markdown: bool) -> str:
    """The reading as text (a line a block) or Markdown (a blank line between blocks), as
    the first reading gives it: lines of white space alone dropped."""
    text = normalize_unicode(xmltotxt(body, markdown))
    if markdown:
        return _BLANKS.sub("\n\n", "\n".join(line if line.strip() else "" for line in text.split("\n"))).strip()
    return "\n".join(line.strip() for line in text.split("\n") if line.strip())
