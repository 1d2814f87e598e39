"""A list of the article's prose that the reading lost, put back between the lines around it.

trafilatura takes a short list whose links are all short words ("like Puppet or Chef")
for a list of links and deletes it whole, in the middle of the article's text. Such a
list is put back when the page shows it is the article's prose:

* none of its items is in the reading, it holds no list of its own, and every item has
  text;
* the blocks read just before and just after it are lines of the reading at most
  ``MAX_LINE_GAP`` apart (it was cut out of the middle of the article, not left beside
  it; a definition list's term may stand between), and the three share an ancestor at
  most ``MAX_LEVELS`` levels above the list, not in the page's chrome (header, menu,
  footer, form);
* it is prose: at most ``MAX_LINK_SHARE`` of its text is link text (a menu, a list of other
  stories or tags is mostly links), no script in it, at least ``MIN_LIST_CHARS``
  characters and ``MIN_ITEM_CHARS`` an item on average (not a byline's name and date).

Its items go after the line before it, each as the reading writes a list item (``- ``).
"""

from __future__ import annotations

from lxml.html import HtmlElement

from lightsearch.documents.pagekinds import block_key, first_lines
from lightsearch.documents.sections import Blocks, in_chrome, reading_lines

MAX_LINK_SHARE = 0.3
MIN_LIST_CHARS = 40
MIN_ITEM_CHARS = 20
MAX_LEVELS = 3
MAX_LINE_GAP = 2


def restore_lists(text: str, blocks: Blocks, markdown: bool = False) -> str:
    """``text`` with the article's lost lists (see the module) put back in place."""
    gap, lines = reading_lines(text)
    keys = first_lines(lines, markdown)
    order = list(blocks)
    at: dict[HtmlElement, int] = {}  # block -> the line of the reading it is
    for el, value in blocks.items():
        line = keys.get(block_key(value, markdown)) if value else None
        if line is not None:
            at[el] = line
    if len(at) < 2:
        return text
    position = {el: n for n, el in enumerate(order)}
    seen: set[HtmlElement] = set()
    inserts: list[tuple[int, list[str]]] = []
    for el in order:
        if el.tag != "li" or el in at:
            continue
        holder = el.getparent()
        if holder is None or holder.tag not in ("ul", "ol") or holder in seen:
            continue
        seen.add(holder)
        items = _lost_items(holder, blocks, at, markdown)
        if items is None:
            continue
        first, last = position.get(items[0]), position.get(items[-1])
        before = next((order[n] for n in range(first - 1, -1, -1) if order[n] in at), None)
        after = next((order[n] for n in range(last + 1, len(order)) if order[n] in at), None)
        if before is None or after is None or not 0 < at[after] - at[before] <= MAX_LINE_GAP:
            continue
        if not _close(holder, before, after) or in_chrome(holder):
            continue
        inserts.append((at[before], ["- " + blocks[li] for li in items]))
    for line, items in sorted(inserts, key=lambda item: item[0], reverse=True):
        lines[line + 1:line + 1] = items
    return gap.join(lines) if inserts else text


def _lost_items(holder: HtmlElement, blocks: Blocks, at: dict[HtmlElement, int],
                markdown: bool) -> list[HtmlElement] | None:
    """The items of list ``holder`` when it is prose the reading lost whole, else None."""
    items = list(holder.iterchildren("li"))
    if not items or any(li in at or not blocks.get(li) for li in items):
        return None
    if next(holder.iterdescendants("ul", "ol", "table", "pre", "script", "style"), None) is not None:
        return None
    size = sum(len(blocks[li]) for li in items)
    links = sum(len(" ".join(a.text_content().split())) for a in holder.iter("a"))
    if size < max(MIN_LIST_CHARS, MIN_ITEM_CHARS * len(items)) or links > MAX_LINK_SHARE * size:
        return None
    return items


def _close(holder: HtmlElement, before: HtmlElement, after: HtmlElement) -> bool:
    """Whether the list and the blocks around it share an ancestor ``MAX_LEVELS`` levels
    above the list at most (the same part of the article)."""
    near = [holder]
    for parent in holder.iterancestors():
        near.append(parent)
        if len(near) > MAX_LEVELS:
            break
    return any(a in near for a in before.iterancestors()) and any(a in near for a in after.iterancestors())
