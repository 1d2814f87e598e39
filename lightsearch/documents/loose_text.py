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

It goes after the line read from the last block before it in the container (or first,
when no block before it was read).
"""

from __future__ import annotations

from lxml.html import HtmlElement

from lightsearch.documents.pagekinds import block_key, line_key
from lightsearch.documents.sections import Blocks

MIN_READ_PARAGRAPHS = 2
MIN_LOOSE_CHARS = 80
MAX_LINK_SHARE = 0.5
_MEDIA = ("img", "picture", "video", "audio", "iframe", "svg")
# elements inside a run of text (a paragraph written without <p> is text and these)
_INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark",
                     "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var"})
_SENTENCE_END = (".", "!", "?", "…", "。", "！", "？", "\"", "”", "’", "»", ")")


def restore_loose_text(text: str, blocks: Blocks, markdown: bool = False) -> str:
    """``text`` with the article's loose prose (see the module) put back in place."""
    gap = "\n\n" if "\n\n" in text else "\n"
    lines = text.split(gap)
    keys: dict[str, int] = {}
    for i, line in enumerate(lines):
        keys.setdefault(line_key(line, markdown), i)
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


def _loose_runs(container: HtmlElement, blocks: Blocks, keys: dict[str, int], flat: str,
                markdown: bool) -> list[tuple[int, str]]:
    """(line index to follow, text) of each run of text and inline elements between the
    block children of ``container`` that reads as a missing paragraph."""
    found: list[tuple[int, str]] = []
    at = -1  # the line after which the current run goes
    run: list[str] = [container.text or ""]  # the run as the reading writes it
    plain: list[str] = [container.text or ""]  # ... and its text alone
    links = 0
    media = False

    def flush() -> None:
        loose = " ".join("".join(plain).split())
        if not media and len(loose) >= MIN_LOOSE_CHARS and loose.endswith(_SENTENCE_END) and \
                links <= MAX_LINK_SHARE * len(loose) and loose[:MIN_LOOSE_CHARS] not in flat:
            found.append((at, " ".join("".join(run).split())))

    for child in container:
        if not isinstance(child.tag, str):
            run.append(child.tail or "")
            plain.append(child.tail or "")
            continue
        if child.tag in _INLINE:
            media = media or next(child.iter(*_MEDIA), None) is not None
            inner = child.text_content()
            plain.extend((inner, child.tail or ""))
            if child.tag == "a":
                links += len(" ".join(inner.split()))
                if markdown and child.get("href") and inner.strip():
                    inner = f"[{' '.join(inner.split())}]({child.get('href')})"  # as the reading writes links
            run.extend((inner, child.tail or ""))
            continue
        flush()
        value = blocks.get(child)
        if value and block_key(value, markdown) in keys:
            at = max(at, keys[block_key(value, markdown)])
        run, plain, links, media = [child.tail or ""], [child.tail or ""], 0, False
    flush()
    return found
