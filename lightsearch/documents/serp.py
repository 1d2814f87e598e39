"""DuckDuckGo's result pages (the html endpoint and its lite sibling), read in one pass.

An engine's answer is untrusted bytes like any page, up to 2 MiB: thousands of result
links, and a query per link (the snippet that follows it, ``following::td[...]``) would
make the reading quadratic. Here the page is parsed once and walked
once, start and end of every element: a result block, link or snippet is recognised by
its tag and class as the walk meets it, text is gathered into the innermost open
collector only (at most :data:`MAX_TEXT_CHARS` each), a lite snippet is given to the
links waiting for one, and at most :data:`MAX_RESULTS` results are read (the walk stops
after :data:`~lightsearch.documents.pagescan.MAX_ELEMENTS` elements). The page's markers
(a challenge form, the JavaScript shell, a results list, "no results") are noted on the
way. What the engine makes of the results (unwrapping links, errors) is its own
(providers/engines/duckduckgo.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lxml import etree

from lightsearch.documents.pagescan import MAX_ELEMENTS, parse_page

MAX_RESULTS = 100  # result blocks (html) or links (lite) read; a page shows about 30
MAX_TEXT_CHARS = 2_000  # of a title or snippet
MAX_BODY_TEXT = 4_096  # of the page's text, kept to find "No results" on a lite page
_SPACE = str.maketrans("\t\n\r\x0c", "    ")
_SHELL_IDS = frozenset({"react-root-zci", "deep_preload_script", "react-search-form"})


@dataclass
class SerpResult:
    title: str = ""
    href: str | None = None
    snippet: str = ""
    classes: str = ""  # the result block's class attribute (html)
    linked: bool = False  # its first link was met (html)
    snipped: bool = False  # its first snippet was met (html)


@dataclass
class SerpPage:
    """The results of a page and the markers found on it: ``challenge`` (a challenge form),
    ``shell`` (the JavaScript page), ``results_list`` (a results container), ``no_results``
    (an element of class ``no-results``), ``search_form`` (a form's ``q`` input)."""

    results: list[SerpResult] = field(default_factory=list)
    blocks: int = 0  # result blocks (html) or result links (lite) met, read or not
    markers: set[str] = field(default_factory=set)
    text: str = ""  # the start of the text inside <body>, its text nodes joined by spaces (lite)
    visited: int = 0


class _Text:
    __slots__ = ("chars", "parts")

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.chars = 0

    def add(self, text: str | None) -> None:
        if text and self.chars < MAX_TEXT_CHARS:
            text = text[: MAX_TEXT_CHARS - self.chars]
            self.parts.append(text)
            self.chars += len(text)

    def value(self) -> str:
        return " ".join("".join(self.parts).translate(_SPACE).split())


def _classes(element: etree._Element) -> list[str]:
    value = element.get("class")
    return value.translate(_SPACE).split(" ") if isinstance(value, str) else []


def _read(element: etree._Element, which: str) -> str | None:
    try:
        return getattr(element, which)
    except (ValueError, UnicodeError):
        return None


def read_ddg(html: str | bytes, lite: bool) -> SerpPage:
    """The results and markers of a DuckDuckGo html (``lite`` False) or lite page."""
    page = SerpPage()
    root = parse_page(html)
    if root is None:
        return page
    open_text: list[tuple[etree._Element, _Text]] = []  # collectors open, innermost last
    blocks: list[tuple[etree._Element, SerpResult]] = []  # html: result blocks open
    waiting: list[SerpResult] = []  # lite: links that have ended, waiting for their snippet
    body_text: list[str] = []  # lite: the first text nodes inside <body>, to find "No results"
    body_chars = 0
    in_body = 0
    in_form = 0
    forms: list[bool] = []
    bodies: list[bool] = []
    for event, element in etree.iterwalk(root, events=("start", "end")):
        if event == "end":
            if forms.pop():
                in_form -= 1
            if bodies.pop():
                in_body -= 1
            if open_text and open_text[-1][0] is element:
                _, collector = open_text.pop()
                _close(element, collector, blocks, waiting, lite)
            if blocks and blocks[-1][0] is element:
                blocks.pop()
            tail = _read(element, "tail")
            if open_text:
                open_text[-1][1].add(tail)
            if lite and in_body and tail and body_chars < MAX_BODY_TEXT:
                body_text.append(tail[:MAX_BODY_TEXT])
                body_chars += len(body_text[-1])
            continue
        page.visited += 1
        if page.visited > MAX_ELEMENTS:
            break
        tag = element.tag if isinstance(element.tag, str) else ""
        try:
            classes = _classes(element)
            element_id = element.get("id")
            is_form = tag == "form"
            if is_form and element_id == "challenge-form":
                page.markers.add("challenge")
            if element_id in _SHELL_IDS:
                page.markers.add("shell")
            if "no-results" in classes:
                page.markers.add("no_results")
            if in_form and tag == "input" and element.get("name") == "q":
                page.markers.add("search_form")
            if tag == "div" and ("results" in classes or "serp__results" in classes or element_id == "links"):
                page.markers.add("results_list")
            collector = _opened(element, tag, classes, page, blocks, waiting, lite)
        except (ValueError, UnicodeError):  # an attribute that cannot be decoded: that element only
            is_form, collector = False, None
        forms.append(is_form)
        in_form += is_form
        bodies.append(tag == "body")
        in_body += tag == "body"
        if collector is not None:
            open_text.append((element, collector))
        text = _read(element, "text")
        if open_text:
            open_text[-1][1].add(text)
        if lite and in_body and text and body_chars < MAX_BODY_TEXT:
            body_text.append(text[:MAX_BODY_TEXT])
            body_chars += len(body_text[-1])
    page.text = " ".join(body_text)
    return page


def _opened(element: etree._Element, tag: str, classes: list[str], page: SerpPage,
            blocks: list[tuple[etree._Element, SerpResult]], waiting: list[SerpResult], lite: bool) -> _Text | None:
    """What an element starts: a result block, its link or its snippet; the collector of
    the text it holds, or None."""
    if lite:
        if tag == "a" and "result-link" in classes:
            page.blocks += 1
            if len(page.results) >= MAX_RESULTS:
                return None
            result = SerpResult(href=element.get("href"))
            page.results.append(result)
            return _Result(result, "title")
        if tag == "td" and "result-snippet" in classes and waiting:
            return _Snippet(list(waiting), waiting)
        return None
    if tag == "div" and "result" in classes:
        page.blocks += 1
        if len(page.results) < MAX_RESULTS:
            result = SerpResult(classes=element.get("class") or "")
            page.results.append(result)
            blocks.append((element, result))
        return None
    if not blocks:
        return None
    result = blocks[-1][1]
    if tag == "a" and "result__a" in classes and not result.linked:
        result.linked = True
        result.href = element.get("href")
        return _Result(result, "title")
    if "result__snippet" in classes and not result.snipped:
        result.snipped = True
        return _Result(result, "snippet")
    return None


class _Result(_Text):
    """A collector whose text becomes a result's title or snippet when it closes."""

    __slots__ = ("result", "what")

    def __init__(self, result: SerpResult, what: str) -> None:
        super().__init__()
        self.result = result
        self.what = what


class _Snippet(_Text):
    """A lite snippet: its text goes to every link that was waiting for one."""

    __slots__ = ("links",)

    def __init__(self, links: list[SerpResult], waiting: list[SerpResult]) -> None:
        super().__init__()
        self.links = links
        waiting.clear()


def _close(element: etree._Element, collector: _Text, blocks: list[tuple[etree._Element, SerpResult]],
           waiting: list[SerpResult], lite: bool) -> None:
    text = collector.value()
    if isinstance(collector, _Snippet):
        for result in collector.links:
            result.snippet = text
    elif isinstance(collector, _Result):
        setattr(collector.result, collector.what, text)
        if lite and collector.what == "title":
            waiting.append(collector.result)
