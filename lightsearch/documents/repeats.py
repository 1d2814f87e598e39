"""Paragraphs the page repeats, kept as often as the page repeats them.

trafilatura drops a block identical to the one before it (its guard against the same
node extracted twice by overlapping candidates), even with ``deduplicate=False``. A
chorus, a repeated warning, a refrain in a short article are the page's own text, and a
reader checking a quotation must see them (issue 18: half a short article lost). The
page itself is the witness: a paragraph comes back only as many times as the page holds
it in consecutive sibling elements.
"""

from __future__ import annotations

from lxml.html import HtmlElement

_BLOCKS = ("p", "li", "blockquote", "pre", "h2", "h3", "h4", "td")
MIN_REPEAT_CHARS = 50  # shorter blocks are not dropped by trafilatura's guard
MAX_RUNS = 200


def _norm(text: str) -> str:
    return " ".join(text.split())


def _runs(tree: HtmlElement) -> dict[str, int]:
    """Longest run of identical consecutive sibling blocks, by text."""
    runs: dict[str, int] = {}
    for el in tree.iter(*_BLOCKS):
        if len(runs) >= MAX_RUNS:
            break
        text = _norm(el.text_content())
        if len(text) <= MIN_REPEAT_CHARS:
            continue
        prev = el.getprevious()
        if prev is not None and prev.tag == el.tag and _norm(prev.text_content()) == text:
            continue  # counted from the run's first element
        count, nxt = 1, el.getnext()
        while nxt is not None and nxt.tag == el.tag and _norm(nxt.text_content()) == text:
            count += 1
            nxt = nxt.getnext()
        if count > 1:
            runs[text] = max(runs.get(text, 0), count)
    return runs


def restore_repeats(text: str, tree: HtmlElement) -> str:
    """``text`` (lines from trafilatura) with each repeated paragraph of ``tree`` present
    as many consecutive times as the page has it."""
    runs = _runs(tree)
    if not runs:
        return text
    markdown_gap = "\n\n" in text
    blocks = text.split("\n\n") if markdown_gap else text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(blocks):
        block = blocks[i]
        key = _norm(block.lstrip("-*> ").strip())
        want = runs.get(key) or runs.get(_norm(block))
        if not want:
            out.append(block)
            i += 1
            continue
        have = 0
        while i < len(blocks) and blocks[i] == block:
            have += 1
            i += 1
        out.extend([block] * max(have, want))
    return ("\n\n" if markdown_gap else "\n").join(out)
