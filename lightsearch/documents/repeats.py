"""Paragraphs the page repeats, kept as often as the page repeats them.

trafilatura drops a block identical to the one before it (its guard against the same
node extracted twice by overlapping candidates), even with ``deduplicate=False``. A
chorus, a repeated warning, a refrain in a short article are the page's own text, and a
reader checking a quotation must see them (half a short article lost). The
page itself is the witness: a paragraph comes back only as many times as the page holds
it in consecutive sibling elements.
"""

from __future__ import annotations

from lxml.html import HtmlElement

# Table cells are not looked at: a row of equal cells is a table's, and trafilatura keeps
# tables as they are; reading every cell's text cost more than the rest of the step.
_BLOCKS = ("p", "li", "blockquote", "pre", "h2", "h3", "h4")
MIN_REPEAT_CHARS = 50  # shorter blocks are not dropped by trafilatura's guard
MAX_RUNS = 200


def _norm(text: str) -> str:
    return " ".join(text.split())


_OTHER_BLOCKS = tuple(tag for tag in _BLOCKS if tag not in ("p", "li", "h2", "h3", "h4"))


def _repeated(texts: dict[HtmlElement, str]) -> bool:
    """Whether a long enough text appears twice among ``texts``."""
    seen: set[str] = set()
    for value in texts.values():
        if len(value) > MIN_REPEAT_CHARS:
            if value in seen:
                return True
            seen.add(value)
    return False


def _runs(tree: HtmlElement, tags: tuple[str, ...] = _BLOCKS,
          known: dict[HtmlElement, str] | None = None) -> dict[str, int]:
    """Longest run of identical consecutive sibling blocks (of ``tags``), by text;
    ``known``: the normalised texts the caller has read (each element's, as here)."""
    runs: dict[str, int] = {}
    texts: dict[HtmlElement, str] = {}
    known = known or {}

    def text_of(el: HtmlElement) -> str:
        value = known.get(el)
        if value is None:
            value = texts.get(el)
            if value is None:
                value = texts[el] = _norm(el.text_content())
        return value

    for el in tree.iter(*tags):
        if len(runs) >= MAX_RUNS:
            break
        nxt = el.getnext()
        # only a block followed by a sibling of its tag can start a run: most blocks are
        # not, and their text is never read here
        if nxt is None or nxt.tag != el.tag:
            continue
        text = text_of(el)
        if len(text) <= MIN_REPEAT_CHARS:
            continue
        prev = el.getprevious()
        if prev is not None and prev.tag == el.tag and text_of(prev) == text:
            continue  # counted from the run's first element
        count = 1
        while nxt is not None and nxt.tag == el.tag and text_of(nxt) == text:
            count += 1
            nxt = nxt.getnext()
        if count > 1:
            runs[text] = max(runs.get(text, 0), count)
    return runs


def restore_repeats(text: str, tree: HtmlElement, texts: dict[HtmlElement, str] | None = None) -> str:
    """``text`` (lines from trafilatura) with each repeated paragraph of ``tree`` present
    as many consecutive times as the page has it. ``texts`` (the page's paragraph-like
    elements with their normalised text, when the caller has read them) says cheaply
    when no paragraph, list item or heading repeats at all (most pages)."""
    runs = _runs(tree, _OTHER_BLOCKS if texts is not None and not _repeated(texts) else _BLOCKS, texts)
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
