"""Prose the article's container holds outside any paragraph, put back where it stands.

Some pages write a paragraph straight into the article's container, after a figure or an
embed (``<div class="body"><p>..</p><div class="figure">..</div>The next paragraph,
with no tag of its own.<p>..</p></div>``). trafilatura's fast rules read the container's
paragraphs and lose that text, which sits in the tail of the element before it. Such a run of
text is put back when the page shows it is the article's prose:

* its element's parent holds at least ``MIN_READ_PARAGRAPHS`` paragraphs of the reading
  (the article's own container, not a sidebar or a footer beside it);
* it is a sentence or more: the run of text and inline elements (links, emphasis) between
  two blocks, at least ``MIN_LOOSE_CHARS`` characters, ending as a sentence ends, at most
  ``MAX_LINK_SHARE`` of it link text, and no image or player in it (an inline image's
  caption is no paragraph); a ``<br>`` or any block ends a run;
* it is not in the reading already.

Two more runs are put back on the same evidence (the article's container):

* a ``<header>`` in the container that holds text and inline elements alone is the
  article's lead written without ``<p>``, a run of its own on the same terms (a ``<div>``
  of text alone there is as often a note, a quote box or a promotion);
* a run that is all bold (``<strong>``, ``<b>``), before a paragraph of the reading, of
  ``MIN_HEADING_CHARS`` to ``MAX_HEADING_CHARS`` characters and no link, is a subheading
  written without ``<h2>``, put back as a line of its own.

It goes after the line read from the last block before it in the container (or first,
when no block before it was read).
"""

from __future__ import annotations

from lxml.html import HtmlElement

from lightsearch.documents.pagekinds import block_key, first_lines
from lightsearch.documents.sections import INLINE, Blocks, reading_lines

MIN_READ_PARAGRAPHS = 2
MIN_LOOSE_CHARS = 80
MAX_LINK_SHARE = 0.5
MIN_HEADING_CHARS = 12
MAX_HEADING_CHARS = 120
_MEDIA = ("img", "picture", "video", "audio", "iframe", "svg")
# blocks whose text alone, with no block inside, is a paragraph written without <p>
_LEAF_BLOCKS = frozenset({"header"})
_BOLD = frozenset({"strong", "b"})
_SENTENCE_END = (".", "!", "?", "…", "。", "！", "？", "\"", "”", "’", "»", ")")


def restore_loose_text(text: str, blocks: Blocks, markdown: bool = False) -> str:
    """``text`` with the article's loose prose (see the module) put back in place."""
    gap, lines = reading_lines(text)
    keys = first_lines(lines, markdown)
    read: dict[HtmlElement, int] = {}
    for el, value in blocks.items():
        if el.tag == "p" and value and block_key(value, markdown) in keys:
            parent = el.getparent()
            if parent is not None:
                read[parent] = read.get(parent, 0) + 1
    inserts: list[tuple[int, str]] = []
    flat = " ".join(keys)
    for container, count in read.items():
        if count >= MIN_READ_PARAGRAPHS:
            inserts.extend(_loose_runs(container, blocks, keys, flat, markdown))
    if not inserts:
        return text
    for at, loose in sorted(inserts, key=lambda item: item[0], reverse=True):
        lines.insert(at + 1, loose)
    return gap.join(lines)


class _Run:
    """A run of text and inline elements between two blocks: as the reading writes it
    (links in Markdown), its text alone, its link characters, its bold text, any media."""

    def __init__(self, text: str | None, markdown: bool):
        self.markdown = markdown
        self.written, self.plain, self.bold = [text or ""], [text or ""], []
        self.links = 0
        self.media = False

    def add(self, child: HtmlElement) -> None:
        """Adds inline element ``child`` (or a comment) and its tail."""
        if isinstance(child.tag, str):
            self.media = self.media or next(child.iter(*_MEDIA), None) is not None
            inner = child.text_content()
            self.plain.append(inner)
            if child.tag in _BOLD:
                self.bold.append(inner)
            if child.tag == "a":
                self.links += len(" ".join(inner.split()))
                if self.markdown and child.get("href") and inner.strip():
                    inner = f"[{' '.join(inner.split())}]({child.get('href')})"  # as the reading writes links
            self.written.append(inner)
        self.written.append(child.tail or "")
        self.plain.append(child.tail or "")


def _loose_runs(container: HtmlElement, blocks: Blocks, keys: dict[str, int], flat: str,
                markdown: bool) -> list[tuple[int, str]]:
    """(line index to follow, text) of each run of text and inline elements between the
    block children of ``container`` that reads as a missing paragraph or subheading."""
    found: list[tuple[int, str]] = []
    at = -1  # the line after which the current run goes
    run = _Run(container.text, markdown)
    heading: tuple[int, str] | None = None  # a bold run, kept when a read block follows it

    def flush() -> None:
        nonlocal heading
        loose = " ".join("".join(run.plain).split())
        if run.media or not loose:
            return
        if len(loose) >= MIN_LOOSE_CHARS and loose.endswith(_SENTENCE_END) and \
                run.links <= MAX_LINK_SHARE * len(loose) and loose[:MIN_LOOSE_CHARS] not in flat:
            found.append((at, " ".join("".join(run.written).split())))
        elif not run.links and MIN_HEADING_CHARS <= len(loose) <= MAX_HEADING_CHARS and \
                " ".join("".join(run.bold).split()) == loose and loose not in keys:
            heading = (at, loose)

    for child in container:
        if not isinstance(child.tag, str) or child.tag in INLINE:
            run.add(child)
            continue
        flush()
        if child.tag in _LEAF_BLOCKS and next((el for el in child.iterdescendants()
                                                if isinstance(el.tag, str) and el.tag not in INLINE), None) is None:
            run = _Run(child.text, markdown)  # the lead written as a block: a run of its own
            for inner in child:
                run.add(inner)
            flush()
        value = blocks.get(child)
        if value and block_key(value, markdown) in keys:
            if heading is not None and keys[block_key(value, markdown)] > heading[0]:
                found.append(heading)
            heading = None
            at = max(at, keys[block_key(value, markdown)])
        run = _Run(child.tail, markdown)
    flush()
    return found
