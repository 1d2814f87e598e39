"""The article as one piece: every section of a split body, one copy of a copied one, the
standfirst, and no title, dateline or boilerplate line around it.

Each rule decides on what the page shows; where it cannot tell, the text stays as
trafilatura read it (class words and loose patterns cutting headings and
appending teasers on pages they were not tuned on):

* **split body** (Condé Nast, many CMSs with ad slots): the article is cut into several
  containers of the same class, separated by ads and embeds; trafilatura keeps one and
  loses the rest (docs/EVALUATION.md). A container with the same
  tag and class is joined only when it looks like more of the same article: a close
  common ancestor at about the same depth, no linked headline of its own (a teaser, a
  blog index's next post), not a short appeal (:func:`_more_of_the_article`).
* **copied body** (infinite-scroll and "next article" pages): the same article is in the
  page two or three times, and trafilatura returns every copy. A run of three or more
  paragraphs that already appeared, in the same order, is a copy.
* **standfirst left out**: trafilatura often drops the teaser above the body; a block just
  before the body that shows the page's meta description in the same words comes back.
* **title and dateline on top**: a line that repeats the title (as ``<title>``,
  ``og:title`` or the first ``<h1>`` states it), a dateline or a known label line goes;
  a heading that is not the title stays.
* **other stories, appeals and the copyright line at the end**, **labels anywhere**
  ("Lesen Sie auch:" and the link it announces): known boilerplate, or lines the page
  shows as links (:mod:`lightsearch.documents.boilerplate`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from lxml import etree
from lxml.html import HtmlElement

from lightsearch.documents import boilerplate

MIN_MATCH_CHARS = 40  # a paragraph this long identifies the container it sits in
MIN_SECTION_CHARS = 150  # a sibling section must carry this much paragraph text
MAX_LINK_SHARE = 0.3  # ... and be prose, not a list of links
MIN_COPY_RUN = 3
COPY_SHARE = 0.5
MIN_COPY_CHARS = 80  # copied prose, not a schedule or a table repeating its short rows
HEAD_LINES = 4
_MARKERS = re.compile(r"^[#>*\-\s]+")
_URL_LINE = re.compile(r"^https?://\S+$")
_COPYRIGHT = re.compile(r"^(?:©|\(c\)|copyright\b)", re.IGNORECASE)
MIN_LINK_RUN = 3  # trailing link lines: a list of other stories, not a closing link
LINK_SHARE = 0.6


def reading_lines(text: str) -> tuple[str, list[str]]:
    """The gap that joins an extracted text's lines (a blank line in Markdown, else a line
    break) and its lines."""
    gap = "\n\n" if "\n\n" in text else "\n"
    return gap, text.split(gap)


def _norm(text: str) -> str:
    return " ".join(text.split())


def _line_key(line: str) -> str:
    return _short_line_key(line) if len(line) <= MAX_CACHED_LINE else _key_of(line)


# Every step keys the same lines again: the keys of short lines are remembered (at most
# 1024 lines of 1000 characters, whatever the pages hold).
MAX_CACHED_LINE = 1000


def _key_of(line: str) -> str:
    return _norm(_MARKERS.sub("", line)).strip("*_ ")


_short_line_key = lru_cache(maxsize=1024)(_key_of)


def _signature(el: HtmlElement) -> tuple[str, frozenset[str]] | None:
    classes = frozenset((el.get("class") or "").split())
    return (el.tag, classes) if classes else None


_BLOCK_TAGS = ("p", "li", "h2", "h3", "h4", "dd")
Blocks = dict  # element -> its normalised text, in document order (see block_texts)


def block_texts(tree: HtmlElement) -> Blocks:
    """Each paragraph-like element's normalised text, read once for the rules below
    (reading them per rule cost as much as the rules themselves)."""
    # a list item that holds a list (a menu's branch) is no line of the text, and reading
    # its whole branch for every level cost more than all the paragraphs (its children
    # looked at in C: two find() calls per item)
    return {el: " ".join(el.text_content().split()) for el in tree.iter(*_BLOCK_TAGS)  # (_norm inlined)
            if el.tag != "li" or next(el.iterchildren("ul", "ol"), None) is None}


def _paragraphs(container: HtmlElement, blocks: Blocks) -> list[HtmlElement]:
    return [p for p in container.iter("p") if blocks.get(p)]


def join_sections(text: str, tree: HtmlElement, blocks: Blocks | None = None, *,
                  head: Head, sections: bool = True, lead: bool = True) -> str:
    """``text`` with the paragraphs of same-class sibling sections it left out, each
    inserted where the page has it (after the last extracted line that precedes it), and
    a lead paragraph in a block of its own before the body (see :func:`_lead`).

    A section is joined only when it looks like more of the same article
    (:func:`_more_of_the_article`); where that cannot be shown the text stays as
    trafilatura read it."""
    gap, lines = reading_lines(text)
    keys = {_line_key(line): i for i, line in reversed(list(enumerate(lines)))}
    blocks = block_texts(tree) if blocks is None else blocks
    order = {p: n for n, p in enumerate(el for el in blocks if el.tag == "p")}
    matched: dict[HtmlElement, int] = {}
    votes: dict[tuple[str, frozenset[str]], int] = {}
    holders: dict[tuple[str, frozenset[str]], list[HtmlElement]] = {}
    for p in order:
        key = blocks[p]
        if len(key) >= MIN_MATCH_CHARS and key in keys:
            matched[p] = keys[key]
            container = p.getparent()
            sig = _signature(container) if container is not None else None
            if sig is not None:
                votes[sig] = votes.get(sig, 0) + 1
                if container not in holders.setdefault(sig, []):
                    holders[sig].append(container)
    if not votes:
        return text
    sig, count = max(votes.items(), key=lambda kv: kv[1])
    if count < 2:
        return text
    lead = _lead(lines, matched, order, sig, head.descriptions) if lead else []
    if lead:
        at = min(matched.values())
        lines[at:at] = lead
        matched = {p: i + len(lead) for p, i in matched.items()}
        text = gap.join(lines)
    inserts: list[tuple[int, int, list[str]]] = []
    # the same tag and class attribute as a holder, holding paragraphs of its own: the
    # parents of the page's paragraphs looked at (an XPath over every class attribute of
    # the page cost twice the rule)
    classes = {h.get("class") for h in holders[sig]}
    candidates = dict.fromkeys(parent for p in order if blocks[p] and (parent := p.getparent()) is not None
                               and parent.tag == sig[0] and parent.get("class") in classes) if sections else {}
    for el in candidates:
        if el.tag != sig[0] or el in holders[sig] or any(p in matched for p in _paragraphs(el, blocks)):
            continue
        paras = [p for p in el if getattr(p, "tag", None) == "p" and blocks.get(p)]
        texts = [blocks[p] for p in paras]
        chars = sum(len(t) for t in texts)
        links = sum(len(_norm(a.text_content())) for p in paras for a in p.iter("a"))
        if chars < MIN_SECTION_CHARS or links > MAX_LINK_SHARE * chars:
            continue
        if not _more_of_the_article(el, holders[sig], " ".join(texts)):
            continue
        first = order[paras[0]]
        before = [line for p, line in matched.items() if order[p] < first]
        inserts.append((max(before) if before else -1, first, texts))
    if not inserts:
        return text
    out = list(lines)
    for at, _, texts in sorted(inserts, key=lambda x: (x[0], x[1]), reverse=True):
        out[at + 1:at + 1] = texts
    return gap.join(out)


# How far up the common ancestor of a section and the article's own container may be,
# and by how many levels their depths under it may differ: the parts of a split body are
# cousins in one wrapper (an ad slot between them), a related story is deeper in a rail.
LINEAGE_LEVELS = 5
LINEAGE_SKEW = 1
APPEAL_MAX_CHARS = 1200
_CHROME = {"header", "footer", "nav", "aside", "form", "menu"}
# class tokens that mark one entry of a list of posts or teasers (WordPress, microformats)
_ENTRY_TOKENS = {"hentry", "post", "entry", "type-post", "teaser", "card", "related", "h-entry"}
# Appeals, disclosures and sign-up pitches a site repeats under every article (English,
# German, French, Spanish, Italian, Portuguese, Dutch, Polish, Hebrew): never article text
# when they come as a short block of their own.
_APPEAL = re.compile(
    r"\b(?:donat|subscri|newsletter|patreon|paypal|disclosure|affiliate|spende|abonn|suscri|sostien|abbona|"
    r"doneer|wesprzyj|prenumer|souten)\w*"
    r"|\b(?:support (?:us|our|independent)|become a (?:member|patron|subscriber|supporter)|we may (?:receive|earn)|"
    r"unterstützen sie|faire un don|donar|donación|doar|assine)\b"
    r"|תרומה|לתרום|הירשמו|מינוי",
    re.IGNORECASE)


def _ancestors(el: HtmlElement, limit: int) -> list[HtmlElement]:
    out = []
    parent = el.getparent()
    while parent is not None and len(out) < limit:
        out.append(parent)
        parent = parent.getparent()
    return out


def _linked_heading(branch: list[HtmlElement]) -> bool:
    return any(h.find(".//a[@href]") is not None for b in branch for h in b.iter("h1", "h2", "h3", "h4"))


def _entry(branch: list[HtmlElement]) -> bool:
    """An element of ``branch`` says it is one entry of a list: an ``<article>`` or an
    entry class, or a permalink (``rel=bookmark``)."""
    for b in branch:
        if b.tag == "article" or _ENTRY_TOKENS & set((b.get("class") or "").lower().split()):
            return True
    return any("bookmark" in (a.get("rel") or "") for b in branch for a in b.iter("a"))


def _more_of_the_article(el: HtmlElement, holders: list[HtmlElement], text: str) -> bool:
    """Whether ``el`` (a container of the same tag and classes as the one trafilatura
    read the article from) is more of that article, on the page's evidence:

    * **lineage**: it shares a close ancestor with the article's container, at about the
      same depth (a split body's parts are cousins; a rail's teasers sit deeper), and is
      in no header, footer, navigation or aside the article's container is not in;
    * **not another entry**: a headline with a link on its way up to that ancestor that
      the article's container has no counterpart of (a teaser), or one inside an element
      that says it is an entry of a list (a blog index's further posts);
    * **not an appeal**: a short block asking for donations, subscriptions or declaring
      affiliate links is the site's, not the article's."""
    if len(text) <= APPEAL_MAX_CHARS and _APPEAL.search(text):
        return False
    mine = _ancestors(el, LINEAGE_LEVELS + LINEAGE_SKEW)
    for holder in holders:
        theirs = _ancestors(holder, LINEAGE_LEVELS + LINEAGE_SKEW)
        common = next((a for a in mine if a in theirs), None)
        if common is None:
            continue
        depth_mine, depth_theirs = mine.index(common) + 1, theirs.index(common) + 1
        if depth_mine > LINEAGE_LEVELS or depth_theirs > LINEAGE_LEVELS or abs(depth_mine - depth_theirs) > LINEAGE_SKEW:
            continue
        if in_chrome(el) > in_chrome(holder):
            continue
        branch = [el, *mine[: depth_mine - 1]]
        teaser = _linked_heading(branch) and (
            _entry(branch[1:]) or not _linked_heading([holder, *theirs[: depth_theirs - 1]]))
        return not teaser
    return False


def in_chrome(el: HtmlElement) -> bool:
    return any(a.tag in _CHROME for a in el.iterancestors())


_NOT_LEAD = re.compile(r"(?:^|[\s_-])(?:standfirst|dek|subtitle|sub-?head(?:line)?|summary|strapline|kicker|"
                       r"byline|dateline|caption|credit|teaser|excerpt)(?:$|[\s_-])", re.IGNORECASE)
_NOT_LEAD_TAGS = {"header", "nav", "aside", "figure", "figcaption", "footer", "form"}
MIN_LEAD_CHARS = 80
LEAD_SIBLINGS = 3


# a paragraph holding the page's date or author element is its dateline and byline
_SIGNED = etree.XPath(".//time | .//@itemprop[contains(., 'date') or contains(., 'Date') or . = 'author']/..")


# inline elements: a block holding text and these alone is a paragraph written without <p>
INLINE = frozenset({"a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "font", "i", "kbd", "mark",
                    "q", "s", "samp", "small", "span", "strong", "sub", "sup", "time", "u", "var"})


def _lead_paragraphs(el: HtmlElement) -> list[str]:
    """The prose paragraphs of ``el`` that can be an article's lead (not its dateline and
    byline: no date or author element in it); ``el`` itself when it holds text and inline
    elements alone (a lead written without ``<p>``)."""
    found = []
    leaf = el.tag in ("div", "section") and all(not isinstance(inner.tag, str) or inner.tag in INLINE for inner in el.iterdescendants())
    for p in [el] if leaf else el.iter("p"):
        text = _norm(p.text_content())
        if len(text) < MIN_LEAD_CHARS or _SIGNED(p):
            continue
        if any(a.tag in _NOT_LEAD_TAGS or _NOT_LEAD.search(a.get("class") or "")
               for a in p.iterancestors() if a is not el.getparent()) or _NOT_LEAD.search(p.get("class") or ""):
            continue
        links = sum(len(_norm(a.text_content())) for a in p.iter("a"))
        if links <= MAX_LINK_SHARE * len(text):
            found.append(text)
    return found


@dataclass
class Head:
    """What the page's head states that the rules compare lines with, read once."""

    titles: set[str]  # <title>, og:title, twitter:title, case-folded
    descriptions: set[str]  # the meta descriptions, normalised


def head_of(metas: dict[str, str], titles: list[HtmlElement]) -> Head:
    """The page's :class:`Head`, from the meta tags and ``<title>`` elements the reader has
    read (:func:`lightsearch.documents.pagemeta.meta_tags`,
    :func:`lightsearch.documents.titles.headings`)."""
    said = {_fold(el.text_content()) for el in titles}
    said.update(_fold(metas[key]) for key in ("property=og:title", "name=twitter:title") if key in metas)
    return Head(titles=said, descriptions={_norm(metas[key]) for key in (
        "property=og:description", "name=description", "name=twitter:description") if key in metas})


def _lead(lines: list[str], matched: dict[HtmlElement, int], order: dict[HtmlElement, int],
          sig: tuple[str, frozenset[str]], described: set[str]) -> list[str]:
    """**Lead lost**: the body container trafilatura chose is preceded, inside the same
    article, by a container of another class holding the first paragraph (a "lead" block
    that is not the standfirst). Its prose, to go before the first extracted line. A
    block that says it is the description (``itemprop=description``, or the meta
    description's words) apart from the body is the standfirst."""
    first = min(matched, key=lambda p: order[p])
    container = first.getparent()
    if matched[first] != min(matched.values()) or container is None or _signature(container) != sig:
        return []
    lead: list[str] = []
    sibling = container.getprevious()
    for _ in range(LEAD_SIBLINGS):
        if sibling is None or not isinstance(sibling.tag, str):
            break
        if sibling.tag in ("h1", "header") or sibling.xpath(".//h1"):
            break
        if (sibling.tag not in _NOT_LEAD_TAGS and not _NOT_LEAD.search(sibling.get("class") or "")
                and sibling.get("itemprop") != "description"):
            lead = [p for p in _lead_paragraphs(sibling) if p not in described] + lead
        sibling = sibling.getprevious()
    present = {_line_key(line) for line in lines}
    return [p for p in lead if p not in present]


# A block of the page's own furniture is no standfirst, even when it repeats the description.
_NOT_STANDFIRST = re.compile(r"(?:^|[\s_-])(?:caption|credit|byline|author|bio|meta|date|share|newsletter|subscribe|"
                             r"related|promo|ad|advert)(?:$|[\s_-])", re.IGNORECASE)
STANDFIRST_BLOCKS = 8  # paragraph-like blocks looked at before the body's first one
STANDFIRST_LEVELS = 4  # ... sharing one of the body's ancestors this close
MIN_STANDFIRST_CHARS = 40


def _states(shown: str, described: str) -> bool:
    """Whether the page shows its meta description in ``shown``: the same words, or the
    whole of a description the site cut short ("...")."""
    if shown == described:
        return True
    cut = described.rstrip(".… ")
    return len(cut) >= MIN_STANDFIRST_CHARS and cut != described and shown.startswith(cut) and \
        len(cut) >= 0.5 * len(shown)


def restore_standfirst(text: str, tree: HtmlElement, blocks: Blocks | None, head: Head) -> str:
    """``text`` with the article's standfirst put back above its first line, when
    trafilatura left it out and the page shows it is one: one of the few blocks just
    before the body's first block, in the same article (a close common ancestor), showing
    the page's meta description in the same words, and not a caption, byline or promo.
    The standfirst is the article's own words; web_fetch returns no description, so
    without it the caller never sees them."""
    gap, lines = reading_lines(text)
    described = [d for d in head.descriptions if len(d) >= MIN_STANDFIRST_CHARS]
    if not described:
        return text
    keys = {_line_key(line) for line in lines}
    blocks = block_texts(tree) if blocks is None else blocks
    order = list(blocks)
    at = next((n for n, el in enumerate(order) if len(blocks[el]) >= MIN_MATCH_CHARS and blocks[el] in keys), None)
    if at is None:
        return text
    flat = None  # the text on one line, made only for a block that shows the description
    near = _ancestors(order[at], STANDFIRST_LEVELS)
    near_set = set(near)
    candidates = [(cand, blocks[cand]) for cand in reversed(order[max(0, at - STANDFIRST_BLOCKS):at])]
    candidates += list(_small_blocks_before(order[at], near_set))  # a standfirst in a <div> of its own
    for cand, value in candidates:
        if len(value) < MIN_STANDFIRST_CHARS or not any(_states(value, d) for d in described):
            continue
        if flat is None:
            flat = _norm(text)
        if value[:60] in flat:
            continue
        if not any(a in near_set for a in _ancestors(cand, STANDFIRST_LEVELS + 1)):
            continue  # not in the article's own part of the page
        if any(a.tag in ("figure", "figcaption") or _NOT_STANDFIRST.search(a.get("class") or "")
               for a in (cand, *_ancestors(cand, 3))):
            continue
        if sum(len(_norm(a.text_content())) for a in cand.iter("a")) <= MAX_LINK_SHARE * len(value):
            return gap.join([value, *lines])
    return text


STANDFIRST_STEPS = 16  # elements walked back (and up) from the body's first block
SMALL_BLOCK = 12  # ... whose text is read only when they hold at most this many elements


def _small_blocks_before(body: HtmlElement, near: set[HtmlElement]) -> Iterable[tuple[HtmlElement, str]]:
    """The small elements just before ``body`` (its preceding siblings and theirs, up
    through its wrappers), with their text; not past the ``<h1>``, a large block, or the
    article's chrome."""
    el = body
    for _ in range(STANDFIRST_STEPS):
        el = el.getprevious() if el.getprevious() is not None else el.getparent()
        if el is None or (el in near and el.getprevious() is None and el.getparent() not in near):
            return
        if not isinstance(el.tag, str) or el.tag == "h1" or el.tag in _NOT_LEAD_TAGS - {"header"}:
            return
        if el in near:
            continue
        for cand in (el, *el.iterchildren("div", "span", "strong", "p")):
            size = 0
            for _ in cand.iterdescendants():
                size += 1
                if size > SMALL_BLOCK:
                    break
            if size <= SMALL_BLOCK:
                yield cand, _norm(cand.text_content())


def drop_copies(text: str) -> str:
    """``text`` without runs of ``MIN_COPY_RUN`` or more lines that already appeared in
    the same order (a second copy of the article); short lines inside a run go with it."""
    gap, lines = reading_lines(text)
    seen: dict[str, int] = {}
    keep = [True] * len(lines)
    i = 0
    while i < len(lines):
        key = _line_key(lines[i])
        start = seen.get(key) if len(key) >= MIN_COPY_CHARS else None
        if start is None or start >= i - 1:
            if len(key) >= MIN_COPY_CHARS:
                seen.setdefault(key, i)
            i += 1
            continue
        # follow the copy while its long lines match the original's, in order
        j, k, long_lines, copied = i, start, 0, 0
        while j < len(lines) and k < i:
            a, b = _line_key(lines[j]), _line_key(lines[k])
            if a == b:
                long_lines += len(a) >= MIN_COPY_CHARS
                copied += len(a)
                j, k = j + 1, k + 1
            elif len(a) < MIN_COPY_CHARS:
                j += 1
            elif len(b) < MIN_COPY_CHARS:
                k += 1
            else:
                break
        # a copy of the article repeats most of what came before it; a schedule or a
        # recipe repeating one day's block does not
        if long_lines >= MIN_COPY_RUN and copied >= COPY_SHARE * sum(
                len(line) for line, kept in zip(lines[:i], keep, strict=False) if kept):
            for n in range(i, j):
                keep[n] = False
            i = j
        else:
            i += 1
    if all(keep):
        return text
    return gap.join(line for line, kept in zip(lines, keep, strict=True) if kept)


def strip_head(text: str, tree: HtmlElement, blocks: Blocks | None, title: str | None, head: Head, *, repeats: bool = True, others: bool = True) -> str:
    """``text`` without the lines among its first ``HEAD_LINES`` that the page shows are
    not the article's own words: a repeat of the title (``title``, the page's ``<title>``, ``og:title``,
    ``twitter:title``, or its first ``<h1>`` where that states the same title), a
    dateline (or the text of the page's own date element), the page's URL, a known label
    line ("Advertisement", "5 min read", see :mod:`lightsearch.documents.boilerplate`).
    A heading that is not the title, a standfirst, a line that cannot be shown to be any
    of these stays: the text is then as trafilatura read it."""
    gap, lines = reading_lines(text)
    first = [_line_key(line) for line in lines[:HEAD_LINES]]
    said = {_fold(title or ""), *head.titles} if repeats else set()
    said.discard("")
    # the page's headline: its first <h1>, where it states the title (in other words)
    headline = next(iter(tree.iter("h1")), None) if repeats else None
    if headline is not None:
        shown = _fold(headline.text_content())
        if shown and any(_agrees(shown, t) for t in said):
            said.add(shown)
    dated: set[str] | None = None
    dropped = set()
    for n, key in enumerate(first[: len(lines) - 1]):
        folded = _fold(key)
        if not key or folded in said:
            dropped.add(n)
            continue
        if not others:
            continue
        # a read-on label ("Lesen Sie auch:") is left to drop_labels, which takes its link too
        if _URL_LINE.match(key) or (boilerplate.label(folded) and not boilerplate.read_on(folded)):
            dropped.add(n)
            continue
        if boilerplate.dateline(key):
            dropped.add(n)
            continue
        if len(key) > MAX_DATED_CHARS or not boilerplate.HAS_DATE.search(key):
            continue
        if dated is None:  # the page's date elements, read only for a line that may be one
            dated = _dated_texts(tree)
        if folded in dated:
            dropped.add(n)
    rest = [line for n, line in enumerate(lines) if n not in dropped]
    if not dropped or sum(len(line) for line in rest) < 200:
        return text  # a short page keeps its head: it may be all there is
    return gap.join(rest)


def _fold(text: str) -> str:
    return _norm(text).casefold()


_WORDS = re.compile(r"\w+")
AGREEMENT = 0.6


def _agrees(a: str, b: str) -> bool:
    """Two statements of one title: most words of the shorter are in the longer."""
    x, y = set(_WORDS.findall(a)), set(_WORDS.findall(b))
    return bool(x and y) and len(x & y) >= AGREEMENT * min(len(x), len(y))


_DATED = etree.XPath("//time | //@class[contains(., 'date') or contains(., 'Date') or contains(., 'published') "
                     "or contains(., 'timestamp')]/.. | //@itemprop[contains(., 'date')]/..")
MAX_DATED_CHARS = 80


def _dated_texts(tree: HtmlElement) -> set[str]:
    """The texts of the page's own date elements (short ones only)."""
    out = set()
    for el in _DATED(tree)[:50]:
        text = _norm(el.text_content())
        if text and len(text) <= MAX_DATED_CHARS and boilerplate.HAS_DATE.search(text):
            out.add(text.casefold())
    return out


def drop_labels(text: str, tree: HtmlElement, blocks: Blocks | None = None) -> str:
    """``text`` without known label lines anywhere in it ("Advertisement", "Lesen Sie
    auch:", "Notas relacionadas", :func:`lightsearch.documents.boilerplate.label`; not a
    page's ``<h2>`` section heading such as "See also"), and without a read-on line
    ("Mire: <other headline>") or the line right after a read-on label when the page
    shows that line as a link (most of it anchor text)."""
    gap, lines = reading_lines(text)
    found = [n for n, line in enumerate(lines) if _labelish(_line_key(line))]
    if not found:
        return text
    keys = {_line_key(lines[m]) for n in found for m in (n, n + 1) if m < len(lines)}
    blocks = block_texts(tree) if blocks is None else blocks
    linked = {key: _link_share(el, key) for el, key in blocks.items() if key in keys}
    # a section heading ("See also" on a reference page) is the document's structure
    sections = {key for el, key in blocks.items() if key in keys and el.tag == "h2"}
    drop = set()
    for n in found:
        key = _line_key(lines[n])
        folded = key.casefold()
        if key in sections:
            continue
        if boilerplate.label(folded):
            drop.add(n)
            if boilerplate.read_on(folded) and n + 1 < len(lines) and \
                    linked.get(_line_key(lines[n + 1]), 0.0) >= LINK_SHARE:
                drop.add(n + 1)
        elif linked.get(key, 0.0) >= LINK_SHARE:  # "Mire: <headline>" shown as a link
            drop.add(n)
    kept = [line for n, line in enumerate(lines) if n not in drop]
    if not drop or sum(len(line) for line in kept) < 200:
        return text
    return gap.join(kept)


def _labelish(key: str) -> bool:
    return bool(key) and (boilerplate.label(key.casefold()) or
                          (len(key) <= boilerplate.APPEAL_LINE_CHARS and boilerplate.read_on(key)))


def _link_share(el: HtmlElement, key: str) -> float:
    return sum(len(_norm(a.text_content())) for a in el.iter("a")) / max(1, len(key))


LEGAL_LINES = 3  # a copyright line this close to the end, and ...
LEGAL_LINE_CHARS = 120  # ... only lines this short after it: the site's legal notice


def _legal_notice(lines: list[str], end: int) -> int:
    """Where the site's legal notice begins among ``lines[:end]``: a copyright line among
    the last ``LEGAL_LINES``, followed only by short lines (a trademark or licence line,
    "Comments are copyrighted by their posters"); ``end`` when there is none."""
    for i in range(max(1, end - LEGAL_LINES), end):
        if _COPYRIGHT.match(_line_key(lines[i])) and \
                all(len(_line_key(line)) <= LEGAL_LINE_CHARS for line in lines[i + 1:end]):
            return i
    return end


def strip_tail(text: str, tree: HtmlElement, blocks: Blocks | None = None) -> str:
    """``text`` without the run of link lines (``MIN_LINK_RUN`` or more, each mostly
    anchor text in the page), copyright lines, the site's legal notice (a copyright line
    and the few short lines after it) and known boilerplate lines (a label, an appeal to
    subscribe or follow, a dateline: :mod:`lightsearch.documents.boilerplate`) it ends
    with."""
    gap, lines = reading_lines(text)
    tail = {_line_key(line) for line in lines[-40:]}
    share: dict[str, float] = {}
    blocks = block_texts(tree) if blocks is None else blocks
    for el, key in blocks.items():
        if key in tail and key not in share:
            share[key] = _link_share(el, key)
    end = len(lines)
    links = 0
    while end > 1:
        key = _line_key(lines[end - 1])
        if not key or _COPYRIGHT.match(key) or boilerplate.label(key.casefold()) or boilerplate.appeal(key) \
                or boilerplate.dateline(key):
            end -= 1
            continue
        if share.get(key, 0.0) >= LINK_SHARE:
            links += 1
            end -= 1
            continue
        legal = _legal_notice(lines, end)
        if legal < end:
            end = legal
            continue
        break
    if end == len(lines):
        return text
    cut = lines[:end]
    introduced = any(boilerplate.read_on(_line_key(line)) for line in lines[end:])
    if links and links < MIN_LINK_RUN and not introduced:
        # too few link lines to be a list of other stories (and no "Read more:" label
        # announcing them): keep them, drop the rest
        kept_links = [line for line in lines[end:] if share.get(_line_key(line), 0.0) >= LINK_SHARE]
        cut += kept_links
    if sum(len(line) for line in cut) < 200:
        return text
    return gap.join(cut)
