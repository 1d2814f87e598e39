"""The repeated records a page's lines sit in: comments, teaser cards, entries of a list.

A line of the extracted text is traced back to the page element it was read from (the
paragraph-like blocks of :func:`lightsearch.documents.sections.block_texts`), and from there
up to its *record*: the nearest container that repeats beside siblings of the same tag and first
class, three or more times (twice when that class is named: a section's two cards), as a
comment among comments, a card among cards, a post among posts. Each group of records is described by what its members show:

* **teasers**: most members carry a headline that links to another page (a card of a rail,
  a clip of an archive, an item of a home page);
* **thread**: most members name who wrote them (an author, user or byline mark, a
  ``<cite>``), with prose of their own and no linked headline (comments, forum posts,
  messages of a list);
* anything else (the parts of an article, the items of a list) is not a record group here.

What the reader does with them is decided elsewhere (:mod:`lightsearch.documents.pagekinds`);
this module only says where lines come from. It looks at the extracted lines only, never at
every element of the page: a few dozen lines, each followed up at most ``MAX_LEVELS``
ancestors, each parent's children counted once.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from lxml import etree
from lxml.html import HtmlElement

RECORD_TAGS = frozenset(("div", "li", "article", "section", "tr", "table", "dl", "aside", "details", "td", "dd"))
MIN_MEMBERS = 3
MIN_CLASSED_MEMBERS = 2  # records of a named class: two already repeat (a section's two cards)
MAX_LEVELS = 10
MAX_SAMPLED = 8  # members described per group, spread over it
MAX_GROUPS = 3  # record groups a line is looked up in, nearest first
MAJORITY = 0.6
_DIGITS = re.compile(r"\d+")
# who wrote a member: an author, user or byline mark (attributes walked in C), or a <cite>
_AUTHOR = etree.XPath(
    "boolean(.//@class[contains(., 'author') or contains(., 'user') or contains(., 'vcard')"
    " or contains(., 'poster') or contains(., 'nick') or contains(., 'byline') or contains(., 'Author')"
    " or contains(., 'User')] | .//@itemprop[. = 'author'] | .//@rel[. = 'author'] | .//cite)")
_TEXT_LENGTH = etree.XPath("string-length(normalize-space(.))")
_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")


def _links_elsewhere(a: HtmlElement | None) -> bool:
    """A link to another page (a link with a fragment is a post's permalink)."""
    href = a.get("href") if a is not None else None
    return bool(href) and "#" not in href


def _headline(el: HtmlElement) -> bool:
    """Whether ``el`` holds a headline that links to another page (the link inside the
    heading or around it)."""
    for heading in el.iter(_HEADINGS):
        if _links_elsewhere(heading.find(".//a[@href]")) or \
                any(_links_elsewhere(a) for a in heading.iterancestors("a")):
            return True
    return False


def signature(el: HtmlElement) -> tuple[str, str]:
    """A record's kind: its tag and first class word, digits left out ("post-611" and
    "post-598" are one kind)."""
    classes = (el.get("class") or "").split(None, 1)
    return el.tag, _DIGITS.sub("", classes[0]) if classes else ""


@dataclass
class Member:
    el: HtmlElement
    chars: int
    headline: bool  # a headline linking to another page
    author: bool  # a mark of who wrote it


@dataclass
class Group:
    """The records of one kind under one parent, with the extracted lines in each."""

    parent: HtmlElement
    kind: tuple[str, str]
    members: list[HtmlElement]
    lines: dict[HtmlElement, list[int]] = field(default_factory=dict)  # member -> line indexes
    described: list[Member] = field(default_factory=list)
    role: str | None = None  # "teasers", "thread" or "" once classified (see :meth:`classify`)

    def describe(self) -> None:
        step = max(1, len(self.members) // MAX_SAMPLED)
        for el in self.members[::step][:MAX_SAMPLED]:
            self.described.append(Member(el, int(_TEXT_LENGTH(el)), _headline(el), bool(_AUTHOR(el))))

    def classify(self) -> str:
        """``teasers``, ``thread`` or ``""`` (see the module)."""
        if not self.described:
            self.describe()
        n = len(self.described)
        headlines = sum(m.headline for m in self.described)
        authors = sum(m.author for m in self.described)
        if headlines >= MAJORITY * n:
            self.role = "teasers"
        elif authors >= MAJORITY * n and headlines <= (1 - MAJORITY) * n:
            self.role = "thread"
        else:
            self.role = ""
        return self.role

    def line_indexes(self) -> list[int]:
        return sorted(i for found in self.lines.values() for i in found)


class Records:
    """The extracted lines of a page traced to their records (see the module)."""

    def __init__(self, elements: list[HtmlElement | None]):
        """``elements``: the page element each extracted line was read from (or None).
        A line belongs to the nearest of its (at most ``MAX_GROUPS``) record groups that
        is teasers or a thread: a comment whose paragraphs repeat a class of their own is
        still a comment."""
        self._counts: dict[HtmlElement, Counter] = {}
        self._kinds: dict[HtmlElement, tuple[str, str]] = {}
        self._walks: dict[HtmlElement, list] = {}  # the records above an element, walked once
        self.groups: dict[tuple[HtmlElement, tuple[str, str]], Group] = {}
        self.of_line: dict[int, Group] = {}
        for i, el in enumerate(elements):
            if el is None:
                continue
            for parent, kind, member in self._records_of(el):
                group = self.groups.get((parent, kind))
                if group is None:
                    members = [c for c in parent if isinstance(c.tag, str) and self._kind(c) == kind]
                    group = self.groups[(parent, kind)] = Group(parent, kind, members)
                if group.classify() if group.role is None else group.role:
                    group.lines.setdefault(member, []).append(i)
                    self.of_line[i] = group
                    break
        # a line read from no block (an author's name, a date, text in a <div>) between
        # two lines of one record is that record's
        last: tuple[int, HtmlElement] | None = None
        members = {i: m for g in self.groups.values() for m, found in g.lines.items() for i in found}
        for i in range(len(elements)):
            member = members.get(i)
            if member is None:
                continue
            if last is not None and last[1] is member and i - last[0] > 1 and \
                    all(elements[j] is None for j in range(last[0] + 1, i)):
                group = self.of_line[i]
                for j in range(last[0] + 1, i):
                    group.lines[member].append(j)
                    self.of_line[j] = group
            last = (i, member)

    def _kind(self, el: HtmlElement) -> tuple[str, str]:
        kind = self._kinds.get(el)
        if kind is None:
            kind = self._kinds[el] = signature(el)
        return kind

    def _records_of(self, el: HtmlElement) -> list[tuple[HtmlElement, tuple[str, str], HtmlElement]]:
        """The record groups above ``el``, nearest first (the lines of one paragraph's
        container share the walk)."""
        start = el if el.tag in RECORD_TAGS else el.getparent()
        if start is None:
            return []
        found = self._walks.get(start)
        if found is not None:
            return found
        found = self._walks[start] = []
        node = start
        for _ in range(MAX_LEVELS):
            parent = node.getparent()
            if parent is None or node.tag in ("body", "html"):
                break
            if node.tag in RECORD_TAGS:
                kind = self._kind(node)
                counts = self._counts.get(parent)
                if counts is None:
                    counts = self._counts[parent] = Counter(self._kind(c) for c in parent if isinstance(c.tag, str))
                if counts[kind] >= (MIN_CLASSED_MEMBERS if kind[1] else MIN_MEMBERS):
                    found.append((parent, kind, node))
                    if len(found) == MAX_GROUPS:
                        break
            node = parent
        return found

    def with_role(self, role: str) -> list[Group]:
        return [g for g in self.groups.values() if g.role == role and g.lines]
