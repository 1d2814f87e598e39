"""When the first reading of a page is doubtful, and the second reading that decides then.

The reader's first reading is trafilatura's fast mode: its own rules, without the
comparison with other readers that its default mode runs on every page. Most pages need
nothing more. A page is read a second time only when the first reading shows a sign of
having missed the article, each cheap to see from what the reader already holds (the text
and the page's paragraphs, :func:`lightsearch.documents.sections.block_texts`):

* **nothing read**: less text than ``THIN_CHARS`` Latin characters hold. Han, kana and
  Hangul characters each count ``WIDE_CHAR_WEIGHT`` (a word of Chinese or Japanese is one
  or two of them, an English word five or six letters and a space): three hundred of them
  are a short article, not a reading that missed one;
* **a much longer block left**: a container whose own paragraphs hold more text than the
  whole reading (and at least ``MISSING_MIN_CHARS``) is not in it;
* **sentences cut into lines**: ``FRAGMENTED_SHARE`` of the lines go on with the sentence
  of the line before (a lower-case word or a comma after a line with no full stop), as
  trafilatura's own rules read a post written as text and links straight in a ``<div>``.

The second reading (:mod:`lightsearch.documents.second_reading`) is the other two readers
trafilatura's default mode compares its own reading with, readability-lxml's scoring
(trafilatura's copy of it) and jusText, each of which reads the page its own way, on the
same tree, chosen between as that mode chooses, without trafilatura's own rules read again.
It replaces the first when it reads ``SECOND_FACTOR`` times as much (or, for cut
sentences, reads them whole and keeps half the text); the page's
kind, its teasers and comments are then decided on it as on any reading
(:mod:`lightsearch.documents.pagekinds`). Comment-like blocks kept beside an article are
decided by their own rule there, not by a second reading.
"""

from __future__ import annotations

import itertools
import re

from lightsearch.documents.pagekinds import block_key, line_key
from lightsearch.documents.sections import Blocks

THIN = "thin"
BLOCK_LEFT = "block_left"
FRAGMENTED = "fragmented"
THIN_CHARS = 500
FRAGMENTED_SHARE = 0.12
MIN_FRAGMENT_LINES = 5
MISSING_MIN_CHARS = 300
SECOND_FACTOR = 1.3
KEPT_SHARE = 0.5
WIDE_CHAR_WEIGHT = 3
# CJK punctuation, kana, Han (and its extension A, compatibility forms), Hangul, full-width forms
_WIDE = re.compile(r"[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


def doubt_of(text: str, blocks: Blocks, markdown: bool = False, sections: list | None = None) -> str | None:
    """Why the reading ``text`` of a page is doubtful (:data:`THIN`, :data:`BLOCK_LEFT`,
    :data:`FRAGMENTED`), or None. ``sections``: the page's comment sections, whose
    paragraphs are no article left out."""
    size = len(text)
    if size < THIN_CHARS and size + (WIDE_CHAR_WEIGHT - 1) * len(_WIDE.findall(text)) < THIN_CHARS:
        return THIN
    if _fragmented(text):
        return FRAGMENTED
    keys = {line_key(line, markdown) for line in text.split("\n")}
    own: dict = {}
    read: dict = {}
    for el, value in blocks.items():
        if el.tag != "p" or not value:
            continue
        parent = el.getparent()
        own[parent] = own.get(parent, 0) + len(value)
        if block_key(value, markdown) in keys:
            read[parent] = read.get(parent, 0) + len(value)
    left = max((chars - read.get(parent, 0) for parent, chars in own.items()
                if not sections or not _inside(parent, sections)), default=0)
    if left > MISSING_MIN_CHARS and left >= size:
        return BLOCK_LEFT
    return None


def better(first: str, second: str, why: str) -> bool:
    """Whether the second reading replaces a first that was doubtful for ``why``: it reads
    ``SECOND_FACTOR`` times as much, or, where the first cut its sentences into lines,
    it does not and keeps ``KEPT_SHARE`` of the text."""
    if why == FRAGMENTED and not _fragmented(second) and len(second) >= KEPT_SHARE * len(first):
        return True
    return len(second) >= SECOND_FACTOR * max(1, len(first))


_GOES_ON = frozenset(",.;:)")
_ENDS = frozenset(".!?:;\"'”’»)]")


def _fragmented(text: str) -> bool:
    lines = [line for line in text.split("\n") if line.strip()]
    if len(lines) < MIN_FRAGMENT_LINES:
        return False
    cut = 0
    for before, line in itertools.pairwise(lines):
        first = line.lstrip()[:1]
        if (first.islower() or first in _GOES_ON) and before.rstrip()[-1:] not in _ENDS:
            cut += 1
    return cut >= FRAGMENTED_SHARE * len(lines)


def _inside(el, sections: list) -> bool:
    return el in sections or any(a in sections for a in el.iterancestors())
