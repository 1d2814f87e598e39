"""Headings and lists of links trafilatura leaves out of the Markdown, put back in place.

trafilatura scores blocks for "is this article text", and two kinds of structure a reader
needs lose that vote: a heading whose element it does not recognise as part of
the body (its text then vanishes altogether), and a list whose items are all links, which
looks like navigation but is the "Further reading" or the table of contents of a
documentation page. Both are restored from the page itself, anchored on a neighbouring
block that did reach the output, so they come back in reading order; a block with no
such neighbour stays out (it was not next to the article).
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement
from w3lib.url import safe_url_string

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_MARKS = re.compile(r"^[\s#>*_\-+|`]+|[*_`]+")
_HEADINGS = ("h2", "h3", "h4", "h5", "h6")
KEY_CHARS = 60
MAX_RESTORED = 40
MIN_LINK_SHARE = 0.8
_CHROME = {"nav", "header", "footer", "aside", "form", "menu"}


def _norm(text: str) -> str:
    return " ".join(_MARKS.sub(" ", _LINK.sub(r"\1", text)).split()).casefold()


def _key(text: str) -> str:
    return _norm(text)[:KEY_CHARS]


def _text(el: HtmlElement) -> str:
    return " ".join(el.text_content().split())


def _link_list(el: HtmlElement) -> list[tuple[str, str]] | None:
    """The (text, href) of every item when each item is essentially one link."""
    items = [li for li in el if getattr(li, "tag", None) == "li"]
    if len(items) < 2:
        return None
    out = []
    for li in items:
        links = li.findall(".//a[@href]")
        text = _text(li)
        if len(links) != 1 or not text or len(_text(links[0])) < MIN_LINK_SHARE * len(text):
            return None
        out.append((_text(links[0]), links[0].get("href") or ""))
    return out


def _outside_article(el: HtmlElement) -> bool:
    return any(a.tag in _CHROME for a in el.iterancestors()) or el.tag in _CHROME


def _neighbour(el: HtmlElement, forward: bool) -> HtmlElement | None:
    sib = el.getnext() if forward else el.getprevious()
    while sib is not None and not (isinstance(sib.tag, str) and _text(sib)):
        sib = sib.getnext() if forward else sib.getprevious()
    return sib


def _absolute(href: str, base: str | None) -> str:
    from urllib.parse import urljoin

    try:
        return safe_url_string(urljoin(base or "", href.strip()))
    except ValueError:
        return href


def restore_structure(markdown: str, tree: HtmlElement, base_url: str | None) -> str:
    """``markdown`` with the page's missing headings and link lists put back."""
    blocks = markdown.split("\n\n")
    index: dict[str, int] = {}
    for i, block in enumerate(blocks):
        for line in block.splitlines():
            key = _key(line)
            if len(key) >= 3:
                index.setdefault(key, i)
    present = {_norm(line) for block in blocks for line in block.splitlines()}
    before: dict[int, list[str]] = {}
    after: dict[int, list[str]] = {}
    restored = 0

    def heading_line(el: HtmlElement) -> str:
        return "#" * int(el.tag[1]) + " " + _text(el)

    for el in tree.iter(*_HEADINGS, "ul", "ol"):
        if restored >= MAX_RESTORED or _outside_article(el):
            continue
        if el.tag in _HEADINGS:
            text = _text(el)
            if not text or _norm(text) in present:
                continue
            nxt = _neighbour(el, forward=True)
            if nxt is None or (nxt.tag in ("ul", "ol") and _link_list(nxt)):
                continue  # restored with its list, below
            at = index.get(_key(_text(nxt)))
            if at is None:
                continue
            before.setdefault(at, []).append(heading_line(el))
            present.add(_norm(text))
            restored += 1
        else:
            links = _link_list(el)
            if not links or all(_norm(t) in present for t, _ in links):
                continue
            # anchor on the block before the list, past the list's own missing heading
            lead: list[str] = []
            prev = _neighbour(el, forward=False)
            while prev is not None and prev.tag in _HEADINGS and _norm(_text(prev)) not in present:
                lead.insert(0, heading_line(prev))
                prev = _neighbour(prev, forward=False)
            at = index.get(_key(_text(prev))) if prev is not None else None
            if at is None:
                continue
            after.setdefault(at, []).extend(lead)
            after[at].append("\n".join(f"- [{t}]({_absolute(h, base_url)})" for t, h in links))
            present.update(_norm(line) for line in lead)
            present.update(_norm(t) for t, _ in links)
            restored += 1
    if not restored:
        return markdown
    out: list[str] = []
    for i, block in enumerate(blocks):
        out.extend(before.get(i, []))
        out.append(block)
        out.extend(after.get(i, []))
    return "\n\n".join(out)


def space_fences(markdown: str) -> str:
    """A blank line after each closing code fence: trafilatura writes the next heading or
    paragraph on the line after the fence, which some renderers then read as fenced."""
    out: list[str] = []
    inside = False
    lines = markdown.split("\n")
    for i, line in enumerate(lines):
        out.append(line)
        if line.lstrip().startswith("```"):
            inside = not inside
            if not inside and i + 1 < len(lines) and lines[i + 1].strip():
                out.append("")
    return "\n".join(out)
