"""A page's discussion read as text: its comment sections, line by line.

The reader reads a discussion when it is the page's content (a thread that outweighs the
post above it ``THREAD_RATIO`` times, :mod:`lightsearch.documents.pagekinds`) or when the
caller asks for the comments. trafilatura's own comment extraction was not used for this:
on a page whose article sits in a container it takes for comments it returned the article
as the comments and the comments as the article. The sections are the ones pruning knows
by their class and id words (:func:`lightsearch.documents.cleaning.prune_unseen`), read
without their forms (and a form's heading) and controls ("Reply", "Quote", "Report").
"""

from __future__ import annotations

import copy

from lxml import etree
from lxml.html import HtmlElement

from lightsearch.documents.blocktext import block_lines

_CONTROLS = ("form", "button", "input", "select", "textarea", "script", "style", "noscript", "nav", "template",
             "svg", "iframe")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_TEXT_LENGTH = etree.XPath("string-length(normalize-space(.))")
CONTROL_WORDS = frozenset((
    "reply", "quote", "report", "permalink", "like", "share", "top", "edit", "delete", "flag", "vote", "upvote",
    "downvote", "antworten", "zitieren", "melden", "teilen", "répondre", "citer", "signaler", "responder",
    "citar", "denunciar", "rispondi", "cita", "segnala", "odpowiedz", "cytuj", "zgłoś", "beantwoorden", "↑",
))


def thread_chars(sections: list[HtmlElement]) -> int:
    """Characters of text in the page's comment sections."""
    return sum(int(_TEXT_LENGTH(el)) for el in sections)


def read_thread(sections: list[HtmlElement], present: frozenset[str] | set[str] = frozenset()) -> list[str]:
    """The lines of ``sections`` (left as they are), in order, without their controls and
    without the lines of ``present`` (whitespace-normalised lines already read)."""
    out: list[str] = []
    for section in sections:
        el = copy.deepcopy(section)
        for form in list(el.iter("form")):  # the form's own heading ("Leave a reply") goes with it
            heading = form.getprevious()
            if heading is not None and heading.tag in _HEADINGS:
                heading.drop_tree()
        etree.strip_elements(el, *_CONTROLS, with_tail=False)
        for line in block_lines(el):
            words = line.casefold().replace("|", " ").split()
            if all(word.strip("[]()·•") in CONTROL_WORDS for word in words) or line in present:
                continue
            out.append(line)
    return out
