"""A page's title by agreement between the places a page states it.

No single source is right on every page (docs/EVALUATION.md counts the wrong ones): the
first ``<h1>`` may be a placeholder ("Lorem") or a site banner ("About This Site"),
``og:title`` may be shorter than the headline, ``<title>`` carries the site's name. So
every candidate (``og:title``, ``twitter:title``, schema.org ``headline``, the ``<h1>``
headings, ``<title>`` and its parts) is scored by how many *other* sources agree with
it -- state the same words, or contain it -- and the most specific agreed candidate wins.
The site's name (``og:site_name``, the host, or a ``<title>`` part shared with other
sources' suffixes) is stripped.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator

from lxml import etree
from lxml.html import HtmlElement
from parsel import Selector

_SEPARATORS = re.compile(r"\s+(?:[|\u2013\u2014\u00b7\u2022:/»«]|-{1,2}|::)\s+")
_WORD = re.compile(r"\w+", re.UNICODE)
MAX_TITLE_CHARS = 300


def _clean(value: str | None) -> str:
    return " ".join((value or "").split())[:MAX_TITLE_CHARS]


def _words(text: str) -> tuple[str, ...]:
    return tuple(_WORD.findall(text.lower()))


def _contains(outer: tuple[str, ...], inner: tuple[str, ...]) -> bool:
    if not inner or len(inner) > len(outer):
        return False
    n = len(inner)
    return any(outer[i : i + n] == inner for i in range(len(outer) - n + 1))


# compiled once: through parsel each query is compiled and wrapped anew for every page
_LD_JSON = etree.XPath("//script[@type='application/ld+json']/text()")
_TEXT_NODES = etree.XPath(".//text()")


def page_iter(tree: HtmlElement, *tags: str) -> Iterator[HtmlElement]:
    """The elements of ``tags`` in the whole document of ``tree``, in document order, as
    ``//tag`` finds them: lxml's walk in C, which creates no object for other elements (a
    page may end in a second top-level element, which a walk of the root alone misses)."""
    root = tree.getroottree().getroot()
    for top in (*reversed(list(root.itersiblings(preceding=True))), root, *root.itersiblings()):
        yield from top.iter(*tags)


def headings(root) -> tuple[list, list[str], list]:
    """The page's ``<title>`` elements, the texts of the first ``<title>`` of each parent
    (``//title[1]//text()``) and its ``<h1>`` headings inside a ``<body>``
    (``//body//h1``), in document order, found in one walk of the page (those XPaths
    walked it once each); for :func:`choose_title` and the text steps' ``head_of``."""
    titles, texts, h1s = [], [], []
    for el in page_iter(root, "title", "h1"):
        if el.tag == "h1":
            if next(el.iterancestors("body"), None) is not None:
                h1s.append(el)
            continue
        titles.append(el)
        if next(el.itersiblings("title", preceding=True), None) is None:
            texts.extend(_TEXT_NODES(el))
    return titles, texts, h1s


_METAS = etree.XPath("//meta[@property='og:title' or @name='twitter:title' or @property='og:site_name' or "
                     "@name='application-name']")


_TITLE_METAS = ("og:title", "twitter:title", "og:site_name", "application-name")


def _metas(root) -> dict[str, str]:
    """The title and site-name meta tags (the first of each), in one pass."""
    found: dict[str, str] = {}
    for el in _METAS(root):
        key = el.get("property") or el.get("name")
        if key not in found and el.get("content") is not None:
            found[key] = el.get("content")
    return found


def _schema_headlines(root) -> Iterable[str]:
    for raw in [str(v) for v in _LD_JSON(root)[:5]]:
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            continue
        stack, seen = [data], 0
        while stack and seen < 200:
            node = stack.pop()
            seen += 1
            if isinstance(node, list):
                stack.extend(node[:20])
            elif isinstance(node, dict):
                headline = node.get("headline")
                if isinstance(headline, str):
                    yield headline
                stack.extend(v for k, v in node.items() if k == "@graph" or k == "mainEntity")


def _site_names(names: Iterable[str | None], url: str | None) -> list[tuple[str, ...]]:
    """The words of each name the site goes by: the names it declares and its host."""
    names = [_clean(n) for n in names]
    if url:
        host = re.sub(r"^[a-z]+://(?:www\.)?", "", url.lower()).split("/")[0].split(":")[0]
        names.append(host.split(".")[0])
        names.append(host)
    return [w for w in (_words(n) for n in names) if w]


def _parts(title: str) -> list[tuple[int, int]]:
    """The (start, end) of each non-blank part of ``title`` between separators."""
    spans, start = [], 0
    for sep in _SEPARATORS.finditer(title):
        spans.append((start, sep.start()))
        start = sep.end()
    spans.append((start, len(title)))
    return [(a, b) for a, b in spans if title[a:b].strip()]


def _strip_site(title: str, sites: list[tuple[str, ...]]) -> str:
    """``title`` without the leading and trailing parts that name the site; a title that
    names only the site ("NASA - NASA") is that name once."""
    parts = _parts(title)
    if len(parts) < 2:
        return title
    def is_site(span: tuple[int, int]) -> bool:
        words = _words(title[span[0]:span[1]])
        joined = "".join(words)
        return any(words == s or joined == "".join(s) or _contains(s, words) for s in sites)
    kept = list(parts)
    while len(kept) > 1 and is_site(kept[-1]):
        kept.pop()
    while len(kept) > 1 and is_site(kept[0]):
        kept.pop(0)
    if len(kept) == len(parts):
        return title
    # the kept span of the original string, so it keeps its own punctuation
    return title[kept[0][0]:kept[-1][1]].strip()


def without_site_name(title: str, url: str | None, names: Iterable[str | None] = ()) -> str:
    """A search hit's title with the site's name stripped the way web_fetch strips it from
    a page's ``<title>``: a leading or trailing part naming the site (``names``, such as
    the publisher an engine reports, or the URL's host) goes ("Photosynthesis -
    Wikipedia" is "Photosynthesis")."""
    cleaned = _clean(title)
    return _strip_site(cleaned, _site_names(names, url)) if cleaned else title


def choose_title(sel: Selector, url: str | None = None, extracted: str | None = None,
                 headlines: list[str] | None = None, metas: dict[str, str] | None = None,
                 found: tuple[list, list[str], list] | None = None) -> str | None:
    """The page's title, or None when it states none. ``headlines`` (the page's JSON-LD
    headlines), ``metas`` (its meta tags, ``"property=og:title"`` keys) and ``found`` (its
    :func:`headings`) when the caller has read them, else they are read here."""
    root = sel.root
    _, title_texts, h1s = headings(root) if found is None else found
    metas = _metas(root) if metas is None else {key.split("=", 1)[1]: value for key, value in metas.items()
                                                  if key.split("=", 1)[1] in _TITLE_METAS}
    sites = _site_names((metas.get("og:site_name"), metas.get("application-name")), url)
    raw_title = _clean(" ".join(str(t) for t in title_texts))
    # order breaks ties: the visible headline first, as the page's readers see it spelt
    sources: dict[str, list[str]] = {
        "h1": [_clean(" ".join(h.itertext())) for h in h1s[:5]],
        "og": [_clean(metas.get("og:title"))],
        "twitter": [_clean(metas.get("twitter:title"))],
        "schema": [_clean(h) for h in (list(_schema_headlines(root)) if headlines is None else headlines)[:3]],
        "title": [_strip_site(raw_title, sites)] if raw_title else [],
    }
    candidates: list[tuple[str, str]] = [(src, c) for src, values in sources.items() for c in values if c]
    if not candidates:
        # trafilatura's pick is a copy of one of these sources, so it backs nothing; it is
        # the answer only when the page states no title where we look
        return _clean(extracted) or None
    if raw_title:
        parts = [p for p in _SEPARATORS.split(raw_title) if len(_words(p)) >= 2]
        candidates.extend(("title-part", p.strip()) for p in parts)
    words = {c: _words(c) for _, c in candidates}

    def support(src: str, cand: str) -> int:
        mine = words[cand]
        backers = set()
        for other_src, other in candidates:
            if other_src == src or (other_src == "title-part" and src == "title"):
                continue
            theirs = words[other]
            if theirs == mine or (_contains(theirs, mine) and len(mine) >= 0.5 * len(theirs)):
                backers.add(other_src.split("-")[0])
        backers.discard(src.split("-")[0])
        return len(backers)

    def is_site(cand: str) -> bool:
        return any(words[cand] == s or "".join(words[cand]) == "".join(s) for s in sites)

    scored = []
    for order, (src, cand) in enumerate(candidates):
        if not words[cand] or is_site(cand):
            continue
        scored.append((support(src, cand), len(words[cand]), -order, cand))
    if not scored:
        return _strip_site(raw_title, sites) if raw_title else None
    best = max(scored)
    if best[0] == 0:
        # nothing agrees: the page's own <title> (site stripped) is the stated one
        for src in ("title", "og", "schema", "h1", "twitter"):
            if sources[src] and sources[src][0] and not is_site(sources[src][0]):
                return sources[src][0]
    return best[3]
